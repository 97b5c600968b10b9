"""Fairness under a flood: one group sends 1,000 commands as fast as it can while other
groups' members send a command every 0.2 s (each group well within its own 20 a minute); how
long until each of those is answered.

The real bot (polling, handlers, store) runs against the project's fake Bot API with
Telegram's limits on (20 calls a minute in a group, 30 a second overall). The flooding group's
answers wait in that group's own queue and its updates in that group's own lane, so the other
group is answered as if nothing happened. Target: p99 under 1 s. The figures are printed; no
time is asserted (the machine is shared).

Run: ``python -m benchmarks.flood [--flood 1000] [--probes 40]`` (SQLite in a temporary folder
unless ``--database-url``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from pydantic import SecretStr

from cuckoo_bot.bootstrap import configure_logging
from cuckoo_bot.config import Settings
from cuckoo_bot.persistence import migrate
from fakebotapi import FakeBotApi
from tests.support.demo import running_bot

TOKEN = "987655:FLOOD-token-for-the-fake-bot-api"
FLOODED = -1003000000001
CALM = [-1003000000100 - g for g in range(10)]  # the probes go round these groups
FLOODERS = list(range(100, 150))  # fifty members of the flooding group
CALM_MEMBERS = list(range(200, 220))  # each probe by the next member (no repeats)


async def probe(fake: FakeBotApi, n: int, text: str) -> float:
    """Seconds from the ``n``-th probe's command to the bot's answer in its calm group."""
    group, user = CALM[n % len(CALM)], CALM_MEMBERS[n % len(CALM_MEMBERS)]
    before = max((m.message_id for m in fake.messages(group)), default=0)
    sent = time.monotonic()
    fake.user_sends(user, group, text)
    await fake.wait_for(
        lambda: any(m.from_bot and m.message_id > before for m in fake.messages(group)), 30
    )
    return time.monotonic() - sent


async def measure(flood: int, probes: int, database_url: str | None) -> None:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_flood_bot", rate_limit=True) as fake:
        with tempfile.TemporaryDirectory() as folder:
            url = database_url or f"sqlite+aiosqlite:///{Path(folder) / 'flood.db'}"
            await migrate.upgrade(url)
            settings = Settings(
                bot_token=SecretStr(TOKEN), database_url=url, api_base_url=fake.base_url
            )
            for user in [*FLOODERS, *CALM_MEMBERS]:
                fake.add_user(user, f"User {user}", language_code="en", started=True)
            fake.add_group(FLOODED, "Flood", type="supergroup", members=FLOODERS)
            for group in CALM:
                fake.add_group(group, f"Calm {group}", type="supergroup", members=CALM_MEMBERS)
            async with running_bot(settings, random.Random(1)) as runtime:
                quiet = [await probe(fake, i, "/help") for i in range(5)]
                began = time.monotonic()

                async def flooding() -> None:
                    for i in range(flood):
                        command = ("/newgame", "/leaderboard", "/rules", "/help")[i % 4]
                        fake.user_sends(FLOODERS[i % len(FLOODERS)], FLOODED, command)
                        if i % 50 == 0:
                            await asyncio.sleep(0)

                flooder = asyncio.create_task(flooding())
                answered = []
                for i in range(probes):
                    answered.append(await probe(fake, 5 + i, ("/help", "/rules")[i % 2]))
                    await asyncio.sleep(0.2)
                await flooder
                took = time.monotonic() - began
                calls = runtime.metrics.api_calls
    answered.sort()
    p99 = answered[max(0, round(0.99 * len(answered)) - 1)]
    print(
        f"flood: {flood} commands in one group; {probes} probes in {len(CALM)} other groups,"
        " one every 0.2 s"
    )
    print(f"quiet bot, before the flood: median {statistics.median(quiet) * 1000:.0f} ms")
    print(
        f"during the flood: median {statistics.median(answered) * 1000:.0f} ms,"
        f" p99 {p99 * 1000:.0f} ms, worst {answered[-1] * 1000:.0f} ms (target: p99 < 1000 ms)"
    )
    print(f"the whole run: {took:.1f} s; Bot API calls: {dict(calls)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=1000)
    parser.add_argument("--probes", type=int, default=40)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    configure_logging("ERROR")
    asyncio.run(measure(args.flood, args.probes, args.database_url))


if __name__ == "__main__":
    main()
