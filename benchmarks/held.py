"""One group under Telegram's flood control while the others play: does it stop only itself?

The real bot (in process: handlers, store, courier, its rate limiter) plays against the fake
Bot API with Telegram's limits on (20 calls a minute in a group, one message a second in a
private chat, 30 a second overall; a tap left unanswered 15 s is too old). ``--tables`` groups
of ``--players`` people each play a whole game, tapping each prompt as soon as it comes. The
evening is played twice in one run: once with no hold (the baseline), once with the first group
held back for ``--hold`` seconds a few seconds into the games (every call naming it answered
429 with the seconds left). It prints, for each evening: the taps' answer times (median, p99,
worst) of the held group and of the others; each table's pace (median wait from a press to the
next prompt) for the presses made while the group was held, against the baseline's; the calls
that named the held group during the hold, and any made before Telegram's ``retry_after`` (a
violation); and when the held game's table caught up.

Run: ``python -m benchmarks.held [--tables 3] [--players 3] [--hold 60]`` (SQLite in a
temporary folder unless ``--database-url``; about two minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.pace import TOKEN, bench_settings
from cuckoo_bot.bootstrap import configure_logging
from cuckoo_bot.persistence import migrate
from fakebotapi import FakeBotApi
from tests.support.demo import running_bot
from tests.support.driver import told_rounds
from tests.support.held import TAP_WINDOW, Held, evening, pace, percentile, seat

FIRST_GROUP = -1004000000000


async def one_evening(
    tables: int, players: int, hold: float, database_url: str | None, seed: int
) -> tuple[Held, FakeBotApi]:
    async with FakeBotApi(
        token=TOKEN,
        bot_username="cuckoo_bench_bot",
        rate_limit=True,
        callback_query_timeout=TAP_WINDOW,
    ) as fake:
        with tempfile.TemporaryDirectory() as folder:
            url = database_url or f"sqlite+aiosqlite:///{Path(folder) / 'held.db'}"
            await migrate.upgrade(url)
            async with running_bot(bench_settings(url, fake.base_url, 0), random.Random(seed)):
                seated = [
                    seat(fake, FIRST_GROUP - t, 1000 * (t + 1), players) for t in range(tables)
                ]
                night = await evening(fake, seated, seated[0], hold)
                await fake.wait_idle(quiet=1.0, timeout=180)
        return night, fake


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name}: none"
    ms = [v * 1000 for v in values]
    return (
        f"  {name}: {len(ms)} taps, median {statistics.median(ms):.0f} ms,"
        f" p99 {percentile(ms, 0.99):.0f} ms, worst {max(ms):.0f} ms"
    )


def report(title: str, night: Held, fake: FakeBotApi, baseline: Held | None) -> None:
    held = night.held
    print(f"\n{title}")
    print(line("taps in the held group", held.answers))
    print(line("taps in the other groups", [a for t in night.others() for a in t.answers]))
    print(f"  taps unanswered in Telegram's window: {sum(t.unanswered for t in night.tables)}")
    for number, table in enumerate(night.tables):
        during = pace(table.waits, night.began, night.ended)
        before = pace(baseline.tables[number].waits, 0, float("inf")) if baseline else None
        said = "held" if table is held else "other"
        ended = (table.ended_at or 0) - night.began
        print(
            f"  table {number + 1} ({said}): press to next prompt, median"
            f" {_ms(during)} during the hold ({_ms(before)} with no hold); game over at"
            f" {ended:+.1f} s from the hold's start"
        )
    group = str(held.group)
    offset = time.time() - time.monotonic()  # the fake stamps calls with the wall clock
    naming = [
        c
        for c in fake.calls()
        if str(c.params.get("chat_id")) == group
        and night.began + offset <= c.time <= night.ended + offset
    ]
    print(
        f"  calls naming the held group during the hold: {len(naming)}"
        f" ({sum(1 for c in naming if c.status == 429)} answered 429);"
        f" called before retry_after: {len(fake.flood_violations())}"
    )
    texts = "\n".join(m.text or "" for m in fake.messages(held.group, include_deleted=False))
    print(f"  rounds the held group's table told: {len(told_rounds(texts))}")


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


async def measure(tables: int, players: int, hold: float, database_url: str | None) -> None:
    baseline, base_fake = await one_evening(tables, players, 0.0, database_url, seed=7)
    report("No group held (the baseline):", baseline, base_fake, None)
    night, fake = await one_evening(tables, players, hold, database_url, seed=7)
    report(f"The first group held back for {hold:.0f} s:", night, fake, baseline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--hold", type=float, default=60.0)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    configure_logging("ERROR")
    asyncio.run(measure(args.tables, args.players, args.hold, args.database_url))


if __name__ == "__main__":
    main()
