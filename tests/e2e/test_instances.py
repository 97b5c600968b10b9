"""Several instances: two bot processes in webhook mode on one PostgreSQL, the fake Bot API
delivering updates to each in turn as a load balancer would, some of them twice, and some to an
instance that was just killed (the fake then sends them to the other). Whole games are played
in several groups at once; afterwards every game's log replays through the rules engine, no
action was applied twice, no notice was sent twice, and no tap was lost."""

from __future__ import annotations

import asyncio
import socket
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from cuckoo_bot.persistence.engine import make_engine
from fakebotapi import FakeBotApi
from tests.e2e.conftest import (
    BotProcess,
    audit_finished_games,
    reading,
    stall_report,
    stop_all,
    telegram,
)
from tests.support.driver import TableDriver, play_out

pytestmark = [pytest.mark.slow]

SECRET = "two-instances_0123456789abcdef"
PUBLIC_URL = "https://bot.example.org/telegram/update"  # what Telegram would be given
GROUPS = (-1002000000001, -1002000000002, -1002000000003)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def humans(group: int) -> list[int]:
    base = 1000 * GROUPS.index(group) + 5000
    return [base + 1, base + 2, base + 3]


async def one_game(table: TableDriver, users: list[int]) -> None:
    # The group's budget (20 calls a minute, shared by the instances) may hold the new game's
    # lobby and first table back behind the last game's end.
    await table.start_game(users[0], users)
    await play_out(table, users, table_size=len(users))


async def games_everywhere(fake: FakeBotApi) -> None:
    await asyncio.gather(*(one_game(TableDriver(fake, g), humans(g)) for g in GROUPS))
    await fake.wait_webhook_idle(timeout=30)
    await fake.wait_idle(quiet=0.5, timeout=30)


@pytest.mark.parametrize("backend", [pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_two_webhook_instances_on_one_postgresql_lose_nothing_and_repeat_nothing(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], database_url: URL
) -> None:
    ports = [free_port(), free_port()]
    fake.webhook_targets([f"http://127.0.0.1:{port}/telegram/update" for port in ports])
    fake.webhook_duplicate(4)  # every 4th update arrives twice
    bots = [
        make_bot(
            CUCKOO_WEBHOOK_URL=PUBLIC_URL,
            CUCKOO_WEBHOOK_SECRET=SECRET,
            CUCKOO_PORT=str(port),
            CUCKOO_INSTANCE=f"bot-{n}",  # two hosts: two names (restarts keep theirs)
        )
        for n, port in enumerate(ports)
    ]
    for bot in bots:
        await bot.start()
    await fake.wait_for(lambda: fake.call_count("setWebhook") >= 2, 30)
    for group in GROUPS:
        for user in humans(group):
            fake.add_user(user, f"P{user}", language_code="en", started=True)
        fake.add_group(group, f"Club {group}", type="supergroup", members=humans(group))

    for step in ("both up", "one killed", "both up again"):
        if step == "one killed":
            bots[0].kill()  # SIGKILL while quiet: updates sent to it now are refused, retried
        elif step == "both up again":
            await bots[0].start()  # back, on the same port
        try:
            await games_everywhere(fake)
        except TimeoutError as stalled:  # what the groups showed, and each instance's log
            report = [stall_report(f"stalled, {step}", fake, bot, GROUPS) for bot in bots]
            raise AssertionError("\n".join(report)) from stalled

    deliveries = fake.webhook_deliveries()
    taken = Counter(r.update_id for r in deliveries if isinstance(r.status, int) and r.status < 300)
    assert any(n >= 2 for n in taken.values()), "no update was delivered twice"
    assert any(not isinstance(r.status, int) for r in deliveries), "no delivery was refused"
    served = {r.url for r in deliveries if isinstance(r.status, int) and r.status == 200}
    assert len(served) == 2, served  # both instances handled updates

    url = database_url
    # Every game's log replays to its stored state, and no action was applied twice.
    games = await audit_finished_games(url, GROUPS)
    assert len(games) == 3 * len(GROUPS)

    engine = make_engine(url)
    try:
        # A private chat gets a message a second: the last ones of a game (the end, to each
        # person) may still be waiting for their chat's pace when the fake server falls quiet.
        unsent = -1
        for _ in range(60):
            async with engine.connect() as connection:
                twice = (
                    await connection.execute(text("SELECT count(*) FROM outbox WHERE attempts > 1"))
                ).scalar_one()
                unsent = (
                    await connection.execute(
                        text("SELECT count(*) FROM outbox WHERE sent_at IS NULL")
                    )
                ).scalar_one()
            if unsent == 0:
                break
            print(f"{unsent} notice(s) still on their way")
            await asyncio.sleep(0.5)
    finally:
        await engine.dispose()
    assert twice == 0, "a notice was sent by two instances"
    assert unsent == 0
    # No tap lost: every update was taken by an instance, nothing waits.
    assert fake.webhook_pending() == 0
    assert set(fake.delivered_update_ids()) == {r.update_id for r in deliveries}
    # And as players saw it: no message came twice in a row (a text may recur across games).
    for group in GROUPS:
        for user in humans(group):
            texts = [m.text for m in fake.dm(user) if m.from_bot and m.text]
            near = [t for i, t in enumerate(texts) if t in texts[i + 1 : i + 4]]
            assert not near, fake.transcript(user)


BUSY_GROUPS = tuple(-1003000000001 - k for k in range(5))


def group_limit_breaches(fake: FakeBotApi, group: int) -> tuple[int, int]:
    """(calls refused for the group's own limit, most calls shown in any 60 s): a 429 counts
    against the group when 20 calls to it were already shown in the minute before."""
    answered = [
        c
        for c in fake.calls()
        if str(c.params.get("chat_id")) == str(group) and c.method.startswith(("send", "edit"))
    ]  # the calls Telegram's group limit counts
    shown = sorted(c.time for c in answered if c.ok)
    busiest = max((sum(1 for t in shown if s <= t < s + 60) for s in shown), default=0)
    refused = sum(
        1
        for c in answered
        if c.status == 429 and sum(1 for t in shown if c.time - 60 < t <= c.time) >= 20
    )
    return refused, busiest


@pytest.mark.parametrize("backend", [pytest.param("postgresql", marks=pytest.mark.postgres)])
async def test_three_instances_spend_one_budget_per_group(
    database_url: URL, tmp_path: Path
) -> None:
    async with telegram() as fake:
        ports = [free_port() for _ in range(3)]
        fake.webhook_targets([f"http://127.0.0.1:{port}/telegram/update" for port in ports])
        bots = [
            BotProcess(
                fake,
                database_url,
                tmp_path / f"bot{n}.log",
                CUCKOO_WEBHOOK_URL=PUBLIC_URL,
                CUCKOO_WEBHOOK_SECRET=SECRET,
                CUCKOO_PORT=str(port),
                CUCKOO_INSTANCE=f"bot-{n}",
                CUCKOO_GROUP_RATE="20",  # Telegram's, shared by the three
            )
            for n, port in enumerate(ports)
        ]
        try:
            for bot in bots:
                await bot.start()
            for k, group in enumerate(BUSY_GROUPS):
                users = [7000 + 10 * k + i for i in range(3)]
                for user in users:
                    fake.add_user(user, f"P{user}", language_code="en", started=True)
                fake.add_group(group, f"Busy {k}", type="supergroup", members=users)

            async def game(k: int, group: int) -> None:
                users = [7000 + 10 * k + i for i in range(3)]
                table = TableDriver(fake, group)
                await table.start_game(users[0], users, wait=90)
                await play_out(table, users, table_size=3, wait=90)
                await fake.wait_for(table.game_over, 90)

            try:
                await asyncio.gather(*(game(k, g) for k, g in enumerate(BUSY_GROUPS)))
            except TimeoutError as stalled:  # what the groups showed, and each instance's log
                report = [stall_report("stalled", fake, bot, BUSY_GROUPS) for bot in bots]
                raise AssertionError("\n".join(report)) from stalled
            await fake.wait_webhook_idle(timeout=60)
            await fake.wait_idle(quiet=1.0, timeout=90)
            served = {r.url for r in fake.webhook_deliveries() if r.status == 200}
            assert len(served) == 3, served  # every instance handled updates
            for group in BUSY_GROUPS:
                refused, busiest = group_limit_breaches(fake, group)
                assert refused == 0 and busiest <= 20, (
                    group,
                    refused,
                    busiest,
                )
                # Every table shown: the end is in the group, and no prompt waits undelivered.
                assert any("won" in (m.text or "") for m in fake.messages(group))
            # Whatever waited for a group's budget goes out once the budget allows it.
            waiting = -1
            for _ in range(90):
                async with reading(database_url) as uow:
                    waiting = await uow.outbox.backlog()
                if not waiting:
                    break
                await asyncio.sleep(1)
            assert waiting == 0
            assert len(await audit_finished_games(database_url, BUSY_GROUPS)) == len(BUSY_GROUPS)
        finally:
            await stop_all(bots)
