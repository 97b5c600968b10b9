"""How fast a round goes, and what it costs in Bot API calls, under Telegram's real limits.

The real bot (handlers, store, courier) plays against the project's fake Bot API with its
automatic flood control on: 20 calls a minute in a group, one message a second in a private
chat, 30 a second overall (a call over a limit is refused with 429, as Telegram does). Every
seat is a person who taps as soon as their prompt arrives. For each table size it prints the
average round time, the calls per round by chat kind and method, and the calls that name a
chat per press: Telegram's 30 such calls a second across all groups divided by that figure is
the whole bot's ceiling in presses a second. ``--games K`` also runs K tables at once.

Run: ``python -m benchmarks.pace [--sizes 3 6 10] [--rounds 6] [--games 0]``
(about a minute per table size; SQLite in a temporary folder unless ``--database-url``;
``--reveal-pause S``: the pause after each reveal, the bot's default unless set).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import SecretStr

from cuckoo_bot.bootstrap import configure_logging
from cuckoo_bot.config import Settings
from cuckoo_bot.persistence import migrate
from fakebotapi import FakeBotApi
from tests.support.demo import running_bot
from tests.support.driver import TableDriver, choose

TOKEN = "987654:BENCH-token-for-the-fake-bot-api"
TELEGRAM_CHAT_CALLS_PER_SECOND = 30


@dataclass
class Table:
    group: int
    players: list[int]
    driver: TableDriver
    presses: int = 0
    first_prompt: float | None = None
    rounds_done_at: float | None = None
    rounds: int = 0  # rounds over (fewer than asked when the game ended first)
    longest_wait: float = 0.0  # the longest a press waited for the next prompt
    answers: list[float] = field(default_factory=list)  # seconds from each press to its answer


def bench_settings(database_url: str, api_base_url: str, reveal_pause: float) -> Settings:
    """The bot as the benchmarks run it: Telegram's limits its own, nobody timed out."""
    return Settings(
        bot_token=SecretStr(TOKEN),
        database_url=database_url,
        api_base_url=api_base_url,
        turn_timeout=600,
        lobby_timeout=3600,
        reveal_pause=reveal_pause,
    )


def kind_of(chat: object) -> str:
    if chat is None:
        return "none"
    return "group" if int(str(chat)) < 0 else "private"


async def seat(fake: FakeBotApi, group: int, size: int, first_user: int, wait: float = 30) -> Table:
    """A group of ``size`` players with a game started in it (``wait``: the most its lobby
    may take; many lobbies at once share Telegram's 30 a second)."""
    players = list(range(first_user, first_user + size))
    for user in players:
        fake.add_user(user, f"Player {user}", language_code="en", started=True)
    fake.add_group(group, f"Table {group}", type="supergroup", members=players, admins=[players[0]])
    driver = TableDriver(fake, group)
    await driver.start_game(players[0], players, wait=wait)
    return Table(group, players, driver)


async def play(
    table: Table, rounds: int, deadline: float, think: tuple[float, float] | None = None
) -> None:
    """Tap each prompt as soon as it arrives until ``rounds`` rounds are over; with ``think``,
    after that many seconds (drawn evenly between its two ends, the same draws for a table
    every run), as a person would."""
    pick = random.Random(table.group)
    last: str | None = None
    pressed = time.monotonic()
    while time.monotonic() < deadline:
        asked = time.monotonic()
        prompt = await table.driver.next_prompt(after=last, wait=60)
        if prompt is not None:
            table.longest_wait = max(table.longest_wait, time.monotonic() - asked)
        if prompt is None:  # the game is over: its last round ended with the last press
            table.rounds += 1
            table.rounds_done_at = pressed
            break
        round_no = int(prompt.keys[0].split(":")[3])
        if table.first_prompt is None:
            table.first_prompt = time.monotonic()
        table.rounds = round_no - 1
        if round_no > rounds:
            table.rounds_done_at = time.monotonic()
            break
        dealer = prompt.data("c") is not None
        move = choose(table.driver.card_of(prompt.actor), dealer, len(table.players))
        data = prompt.data(move) or prompt.data("k")
        assert data is not None
        last = prompt.data("k")
        if think is not None:
            await asyncio.sleep(pick.uniform(*think))
        table.presses += 1
        began = time.monotonic()
        await table.driver.press(prompt.actor, prompt.message, data, wait=60)
        pressed = time.monotonic()
        table.answers.append(pressed - began)


async def measure(
    size: int, rounds: int, games: int, database_url: str | None, reveal_pause: float
) -> None:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_bench_bot", rate_limit=True) as fake:
        with tempfile.TemporaryDirectory() as folder:
            url = database_url or f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
            await migrate.upgrade(url)
            settings = bench_settings(url, fake.base_url, reveal_pause)
            async with running_bot(settings, random.Random(size)):
                tables = [
                    await seat(fake, -1002000000000 - g, size, 1000 * (g + 1))
                    for g in range(max(games, 1))
                ]
                began = time.monotonic()
                await asyncio.gather(*(play(t, rounds, began + 600) for t in tables))
                # The group's table catches up within its budget: count those calls too.
                for t in tables:
                    if t.rounds < rounds:
                        await fake.wait_for(t.driver.game_over, 120)
                await fake.wait_idle(quiet=1.0, timeout=120)
                ended = time.monotonic()
            report(fake, tables, rounds, began, ended)


def report(fake: FakeBotApi, tables: list[Table], rounds: int, began: float, ended: float) -> None:
    size = len(tables[0].players)
    first = min(t.first_prompt or began for t in tables)
    last = max(t.rounds_done_at or ended for t in tables)
    # The fake stamps calls with the wall clock; the tables with the monotonic one. Calls are
    # counted from the first prompt until everything the rounds caused was shown.
    offset = time.time() - time.monotonic()
    calls = [
        c
        for c in fake.calls()
        if first + offset <= c.time <= ended + offset and c.method != "getUpdates"
    ]
    by_kind: Counter[tuple[str, str]] = Counter(
        (kind_of(c.params.get("chat_id")), c.method) for c in calls
    )
    refused = sum(1 for c in calls if c.status == 429)
    presses = sum(t.presses for t in tables)
    played = sum(t.rounds for t in tables)
    naming = sum(n for (kind, _), n in by_kind.items() if kind != "none")
    group = sum(n for (kind, _), n in by_kind.items() if kind == "group")
    per_press = naming / max(presses, 1)
    print(f"\n{size} players, {len(tables)} table(s), {played} rounds in all:")
    print(f"  average round: {(last - first) * len(tables) / played:.1f} s   presses: {presses}")
    print(f"  longest wait for a prompt: {max(t.longest_wait for t in tables):.1f} s")
    print(f"  group calls per round: {group / played:.2f}   refused (429): {refused}")
    print(f"  calls naming a chat per press: {per_press:.2f}")
    print(f"  ceiling: {TELEGRAM_CHAT_CALLS_PER_SECOND / per_press:.1f} presses a second")
    if len(tables) > 1:
        print(f"  measured: {presses / (last - first):.1f} presses a second")
    for (kind, method), n in sorted(by_kind.items()):
        print(f"    {kind:8} {method:24} {n / played:6.2f} per round")
    for call in calls:
        if call.status == 429:
            print(f"    refused: {kind_of(call.params.get('chat_id'))} {call.method}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[3, 6, 10])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=0, help="also run this many tables at once")
    parser.add_argument("--database-url", default=None)
    parser.add_argument(
        "--reveal-pause",
        type=float,
        default=Settings.model_fields["reveal_pause"].default,
        help="seconds between a reveal and the next deal (the bot's default unless set)",
    )
    args = parser.parse_args()
    configure_logging("ERROR")
    for size in args.sizes:
        asyncio.run(measure(size, args.rounds, 1, args.database_url, args.reveal_pause))
    if args.games:
        asyncio.run(measure(6, args.rounds, args.games, args.database_url, args.reveal_pause))


if __name__ == "__main__":
    main()
