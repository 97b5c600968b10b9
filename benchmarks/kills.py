"""Several instances killed at random moments: does every game go on, as its players see it?

``--instances`` bot processes (two or three) in webhook mode on one PostgreSQL; the fake Bot API
with Telegram's limits on delivers the updates to each in turn, as a load balancer would, and
to another when one does not answer. ``--groups`` groups play ``--games`` games in all, their
people tapping each prompt once, as soon as it shows. Every ``--every`` seconds on average one
instance is killed (SIGKILL) and started again 1-5 s later (one at least stays up).

Watched all along, as the players see it (each failing the run):

- **waits for the bot**: from a tap to the next prompt anyone can press. The bot's own pace is
  a second or two; a wait over ``TAKEOVER`` (10 s) means a dead instance's chats were not taken
  over in time, or a live turn had no key to press;
- **stale keys**: a turn's keys still showing ``STALE`` (10 s) after a later turn was asked;
- **unanswered commands**: a ``/newgame`` with no lobby within 20 s, unless the group had its
  20 calls of the last minute (Telegram's limit: the lobby waits for it, reported apart); with
  none after 80 s it is sent again, as a person would;
- at the end: every game finished and its log replays (no move applied twice), no move key left
  in any chat, no notice undelivered. The bots' WARNING and ERROR lines are counted and the
  first ones printed (a repaired stall logs one).

Run: ``python -m benchmarks.kills [--instances 2] [--games 10] [--groups 2] [--players 3]
[--every 6] [--seed N]`` (PostgreSQL beside ``CUCKOO_TEST_POSTGRES_URL`` or ``--database-url``,
a throwaway database; a few minutes). Exit code 0 when nothing above failed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from benchmarks.databases import drop_postgres, fresh_postgres
from cuckoo_bot.persistence.engine import make_engine
from fakebotapi import FakeBotApi
from tests.e2e.conftest import BotProcess, audit_finished_games, live_move_keys, telegram
from tests.support.demo import free_port
from tests.support.driver import choose
from tests.support.held import Table, percentile, seat

TAKEOVER = 10.0  # seconds a game may wait for the bot after a kill
STALE = 10.0  # seconds a finished turn's keys may stay after a later turn was asked
ANSWER = 20.0  # seconds a command may wait for its answer (unless the group's budget is spent)
GROUP_RATE, GROUP_WINDOW = 20, 60.0  # Telegram's calls a minute in one group
STUCK = 150.0  # seconds without a prompt to press: the game is stuck (the run stops)
SECRET = "kills-benchmark_0123456789abcdef"
PUBLIC_URL = "https://bot.example.org/telegram/update"
FIRST_GROUP = -1005000000000


@dataclass
class Watch:
    """What the players saw go wrong, and the kills."""

    kills: list[float] = field(default_factory=list)  # when each kill happened
    waits: list[tuple[float, float, int]] = field(default_factory=list)  # (tapped, wait, group)
    unanswered: list[int] = field(default_factory=list)  # groups whose /newgame went unanswered
    budget_waits: list[int] = field(default_factory=list)  # ... answered late: budget spent
    stale: dict[tuple[int, int], float] = field(default_factory=dict)  # (chat, message) -> since
    stale_seen: set[tuple[int, int]] = field(default_factory=set)  # those past STALE
    games: int = 0
    ends: list[tuple[Table, int, int]] = field(default_factory=list)  # (table, lobby, winner)

    def long_waits(self) -> list[tuple[float, float, int]]:
        return [w for w in self.waits if w[1] > TAKEOVER]


def group_calls(fake: FakeBotApi, group: int, since: float) -> int:
    """The calls Telegram's group limit counted in ``group`` since a moment."""
    return sum(
        1
        for c in fake.calls()
        if c.ok
        and c.time >= since
        and str(c.params.get("chat_id")) == str(group)
        and c.method.startswith(("send", "edit", "delete"))
    )


async def open_game(table: Table, watch: Watch) -> int:
    """``/newgame`` (again when unanswered), every player joins, the first one starts."""
    driver, creator = table.driver, table.players[0]
    fake = driver.fake
    before = max((m.message_id for m in fake.messages(table.group)), default=0)

    def lobby() -> bool:
        found = driver.lobby()
        return found is not None and found.message_id > before

    for _ in range(3):
        await driver.say(creator, "/newgame")
        asked = time.monotonic()
        try:
            await fake.wait_for(lobby, GROUP_WINDOW + ANSWER)
        except TimeoutError:
            watch.unanswered.append(table.group)
            continue
        took = time.monotonic() - asked
        if took > ANSWER:  # the group's budget, or nobody answering?
            busy = group_calls(fake, table.group, time.monotonic() - GROUP_WINDOW)
            spent = busy >= GROUP_RATE - 1
            (watch.budget_waits if spent else watch.unanswered).append(table.group)
        break
    else:
        raise AssertionError(f"group {table.group}: /newgame never answered")
    opened = driver.lobby()
    assert opened is not None
    started = time.monotonic()
    while time.monotonic() - started < 120:
        table_up = driver.table()
        if table_up is not None and table_up.message_id > opened.message_id:
            return opened.message_id
        found = driver.lobby()
        if found is not None:
            seated = re.findall(r"^\d+\. \W*P(\d+)", found.text or "", re.MULTILINE)
            missing = [u for u in table.players if str(u) not in seated]
            kind = "1:j:" if missing else "1:g:"
            for user in missing or [creator]:
                data = next((d for d in found.callback_datas if d.startswith(kind)), None)
                if data is not None:
                    fake.press_button(user, table.group, found.message_id, data)
        await asyncio.sleep(3.0)
    raise AssertionError(
        f"group {table.group}: the game never started\n{fake.transcript(table.group)}"
    )


def ended(table: Table, lobby: int) -> int | None:
    """The game's winner message (the first trophy after its lobby), if shown."""
    for message in table.driver.fake.messages(table.group, include_deleted=False):
        if message.message_id > lobby and message.from_bot and (message.text or "")[:1] == "🏆":
            return message.message_id
    return None


def told_after_the_end(table: Table, end: int, upto: float) -> int:
    """Round tables shown after a game's winner message, before the next game's lobby (a
    reveal held back, shown late)."""
    return sum(
        1
        for m in table.driver.fake.messages(table.group, include_deleted=False)
        if end < m.message_id < upto and m.from_bot and (m.text or "").startswith("🃏 Round")
    )


async def play(table: Table, watch: Watch, lobby: int) -> None:
    """Tap each live prompt once, as soon as it shows, until the game is over."""
    driver = table.driver
    tapped: set[tuple[int, int]] = set()
    pressed: float | None = None
    began = time.monotonic()
    while ended(table, lobby) is None:
        prompt = driver.prompt()
        if prompt is None or prompt.order in tapped:
            if time.monotonic() - (pressed or began) > STUCK:
                chats = (table.group, *table.players)
                seen = "\n\n".join(f"--- {c}\n{driver.fake.transcript(c)}" for c in chats)
                raise AssertionError(f"group {table.group}: stuck for {STUCK:.0f} s\n{seen}")
            await asyncio.sleep(0.05)
            continue
        now = time.monotonic()
        if pressed is not None:
            watch.waits.append((pressed, now - pressed, table.group))
        dealer = prompt.data("c") is not None
        kind = choose(driver.card_of(prompt.actor), dealer, len(table.players))
        data = prompt.data(kind) or prompt.data("k")
        assert data is not None
        tapped.add(prompt.order)
        pressed = time.monotonic()
        driver.fake.press_button(
            prompt.actor, prompt.message.chat_id, prompt.message.message_id, data
        )
    watch.games += 1


async def evenings(table: Table, games: int, watch: Watch) -> None:
    for _ in range(games):
        lobby = await open_game(table, watch)
        await play(table, watch, lobby)
        watch.ends.append((table, lobby, ended(table, lobby) or 0))


async def look_for_stale_keys(tables: list[Table], watch: Watch) -> None:
    """Every fifth of a second: a move key on a turn older than the newest one asked."""
    while True:
        now = time.monotonic()
        seen = set()
        for table in tables:
            prompts = table.driver.prompts()
            newest = max((p.order for p in prompts), default=None)
            for prompt in prompts:
                if newest is not None and prompt.order < newest:
                    key = (prompt.message.chat_id, prompt.message.message_id)
                    seen.add(key)
                    since = watch.stale.setdefault(key, now)
                    if now - since > STALE:
                        watch.stale_seen.add(key)
        for key in list(watch.stale):
            if key not in seen:
                del watch.stale[key]
        await asyncio.sleep(0.2)


async def killer(bots: list[BotProcess], every: float, rng: random.Random, watch: Watch) -> None:
    """Now and then one instance dies (SIGKILL) and comes back 1-5 s later."""
    while True:
        await asyncio.sleep(rng.uniform(0.5 * every, 1.5 * every))
        bot = rng.choice(bots)
        bot.kill()
        watch.kills.append(time.monotonic())
        await asyncio.sleep(rng.uniform(1.0, 5.0))
        await bot.start()


async def undelivered(url: str, within: float = 30.0) -> list[str]:
    """The notices still on their way, asked again for ``within`` seconds (a private chat's
    last messages may wait for its pace when the wire falls quiet)."""
    engine = make_engine(make_url(url))
    query = text(
        "SELECT id, kind, chat_id, attempts, error, claimed_by FROM outbox WHERE sent_at IS NULL"
    )
    until = time.monotonic() + within
    try:
        while True:
            async with engine.connect() as connection:
                rows = (await connection.execute(query)).all()
            if not rows or time.monotonic() > until:
                return [str(tuple(row)) for row in rows]
            await asyncio.sleep(0.5)
    finally:
        await engine.dispose()


def private_429s(fake: FakeBotApi) -> list[str]:
    """Each 429 a private chat got: the call refused, and the message sent there just before
    (which instance sent what is in the bots' logs; the kinds tell which paths met)."""
    found = []
    last: dict[str, tuple[float, str]] = {}
    for call in fake.calls():
        chat = str(call.params.get("chat_id", ""))
        if not chat.isdigit() or call.method != "sendMessage":
            continue
        said = str(call.params.get("text", ""))[:40].replace("\n", " ")
        if call.status == 429 and chat in last:
            at, before = last[chat]
            found.append(f"{chat}: {said!r} {call.time - at:.2f} s after {before!r}")
        elif call.status == 200:
            last[chat] = (call.time, said)
    return found


def complaints(bots: list[BotProcess]) -> list[str]:
    lines = []
    for bot in bots:
        for line in bot.log().splitlines():
            if re.search(r"\b(WARNING|ERROR|CRITICAL)\b", line):
                lines.append(f"{bot.log_path.stem}: {line}")
    return lines


async def run(args: argparse.Namespace, url: str, folder: Path) -> bool:
    rng = random.Random(args.seed)
    watch = Watch()
    async with telegram() as fake:
        ports = [free_port() for _ in range(args.instances)]
        fake.webhook_targets([f"http://127.0.0.1:{port}/telegram/update" for port in ports])
        bots = [
            BotProcess(
                fake,
                make_url(url),
                folder / f"bot-{n}.log",
                CUCKOO_WEBHOOK_URL=PUBLIC_URL,
                CUCKOO_WEBHOOK_SECRET=SECRET,
                CUCKOO_PORT=str(port),
                CUCKOO_INSTANCE=f"bot-{n}",
            )
            for n, port in enumerate(ports)
        ]
        try:
            return await evening(args, url, fake, bots, watch, rng)
        finally:
            for bot in bots:
                bot.kill()  # whatever happened, no bot outlives the run (and its database)


async def evening(
    args: argparse.Namespace,
    url: str,
    fake: FakeBotApi,
    bots: list[BotProcess],
    watch: Watch,
    rng: random.Random,
) -> bool:
    for bot in bots:
        await bot.start()
    tables = [seat(fake, FIRST_GROUP - g, 1000 * (g + 1), args.players) for g in range(args.groups)]
    share = [args.games // args.groups + (g < args.games % args.groups) for g in range(args.groups)]
    began = time.monotonic()
    helpers = [
        asyncio.create_task(look_for_stale_keys(tables, watch)),
        asyncio.create_task(killer(bots, args.every, rng, watch)),
    ]
    try:
        await asyncio.wait_for(
            asyncio.gather(*(evenings(t, n, watch) for t, n in zip(tables, share, strict=True))),
            args.timeout,
        )
    finally:
        for helper in helpers:
            helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
    played = time.monotonic() - began
    for bot in bots:
        if bot.process is None:
            await bot.start()
    await fake.wait_webhook_idle(timeout=60)
    await fake.wait_idle(quiet=2.0, timeout=120)
    chats = [c for t in tables for c in (t.group, *t.players)]
    keys_left = live_move_keys(fake, chats)
    audited = await audit_finished_games(make_url(url), [t.group for t in tables])
    left = await undelivered(url)
    for bot in bots:
        await bot.stop()
    refused = private_429s(fake)
    print(f"  429s in private chats: {len(refused)}")
    for line in refused[:12]:
        print(f"    {line}")
    return report(args, watch, played, keys_left, len(audited), left, complaints(bots))


def report(
    args: argparse.Namespace,
    watch: Watch,
    played: float,
    keys_left: list[tuple[int, int, str | None]],
    audited: int,
    left: list[str],
    lines: list[str],
) -> bool:
    waits = [w for _, w, _ in watch.waits]
    print(
        f"{args.instances} instances, {args.groups} groups x {args.players} players,"
        f" {watch.games} of {args.games} games in {played:.0f} s, {len(watch.kills)} kills"
    )
    if waits:
        print(
            f"  waits for the bot: {len(waits)} taps, median {percentile(waits, 0.5):.2f} s,"
            f" p99 {percentile(waits, 0.99):.2f} s, worst {max(waits):.2f} s;"
            f" over {TAKEOVER:.0f} s: {len(watch.long_waits())}"
        )
    for tapped, wait, group in watch.long_waits():
        kills = [k for k in watch.kills if tapped - TAKEOVER <= k <= tapped + wait]
        print(f"    group {group}: waited {wait:.1f} s ({len(kills)} kill(s) around it)")
    print(
        f"  /newgame unanswered within {ANSWER:.0f} s: {len(watch.unanswered)};"
        f" answered later, the group's {GROUP_RATE} calls a minute spent: {len(watch.budget_waits)}"
    )
    print(f"  keys of a finished turn shown over {STALE:.0f} s: {len(watch.stale_seen)}")
    print(f"  move keys left at the end: {len(keys_left)}; notices undelivered: {len(left)}")
    for row in left[:5]:
        print(f"    {row}")
    print(f"  games replayed from their logs: {audited}")
    late = 0
    for number, (table, _, end) in enumerate(watch.ends):
        following = (lobby for t, lobby, _ in watch.ends[number + 1 :] if t is table)
        late += told_after_the_end(table, end, next(following, float("inf")))
    print(f"  round tables shown after their game's winner message: {late}")
    print(f"  WARNING/ERROR lines in the bots' logs: {len(lines)}")
    for line in lines[:10]:
        print(f"    {line[:200]}")
    return (
        watch.games == args.games == audited
        and not watch.long_waits()
        and not watch.unanswered
        and not watch.stale_seen
        and not keys_left
        and not left
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--every", type=float, default=6.0, help="seconds between kills, mean")
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--keep", type=Path, help="keep the bots' logs in this folder")
    parser.add_argument(
        "--database-url",
        default=os.environ.get(
            "CUCKOO_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
        ),
    )
    args = parser.parse_args(argv)
    if args.instances < 2:
        parser.error("--instances: two at least (one always stays up)")

    async def whole() -> bool:
        url = await fresh_postgres(args.database_url, "cuckoo_kills")
        try:
            with tempfile.TemporaryDirectory() as scratch:
                folder = args.keep or Path(scratch)
                folder.mkdir(parents=True, exist_ok=True)
                return await run(args, url, folder)
        finally:
            await drop_postgres(args.database_url, make_url(url).database or "")

    return 0 if asyncio.run(whole()) else 1


if __name__ == "__main__":
    sys.exit(main())
