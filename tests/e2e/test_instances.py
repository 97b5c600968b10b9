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

import pytest
from sqlalchemy import text
from sqlalchemy.engine import URL

from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.demo import TableDriver, play_out
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.events import RoundDealt
from cuckoo_bot.fakeapi import FakeBotApi
from cuckoo_bot.persistence.engine import make_engine
from tests.e2e.conftest import BotProcess, reading

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
    await table.start_game(users[0], users, wait=30)
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

    await games_everywhere(fake)  # both instances up
    bots[0].kill()  # SIGKILL while quiet: updates sent to it now are refused, then retried
    await games_everywhere(fake)
    await bots[0].start()  # back, on the same port
    await games_everywhere(fake)

    deliveries = fake.webhook_deliveries()
    taken = Counter(r.update_id for r in deliveries if isinstance(r.status, int) and r.status < 300)
    assert any(n >= 2 for n in taken.values()), "no update was delivered twice"
    assert any(not isinstance(r.status, int) for r in deliveries), "no delivery was refused"
    served = {r.url for r in deliveries if isinstance(r.status, int) and r.status == 200}
    assert len(served) == 2, served  # both instances handled updates

    url = database_url
    async with reading(url) as uow:
        games = []
        for group in GROUPS:
            games += await uow.games.finished_in_chat(group, limit=10)
        logs = {game.id: await uow.games.log(game.id) for game in games}
    assert len(games) == 3 * len(GROUPS)
    for game in games:
        assert game.status is GameStatus.FINISHED and game.state is not None
        log = logs[game.id]
        dealt = next(e for entry in log for e in entry.events if isinstance(e, RoundDealt))
        state = new_game(game.seats, game.rules, dealt.dealer)
        turns = []
        for entry in log:
            if entry.action is not None:
                state, events = apply(state, entry.action)  # the log replays, event for event
                assert events == entry.events
                if entry.actor is not None:
                    turns.append(getattr(entry.action, "turn", None))
        assert state == game.state
        moves = [t for t in turns if t is not None]
        assert moves == sorted(set(moves)), "an action was applied twice"

    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            twice = (
                await connection.execute(text("SELECT count(*) FROM outbox WHERE attempts > 1"))
            ).scalar_one()
            unsent = (
                await connection.execute(text("SELECT count(*) FROM outbox WHERE sent_at IS NULL"))
            ).scalar_one()
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
