"""The transcript review: whole games of people read as they read them (``tests/support/review``).

The golden transcripts' games (every seat a person, seeded, the bot idle before each press)
are played at 3, 6 and 10 players, and for each the table gives the rounds, the group's and a
player's messages per round, the messages that rang on a player's phone, the longest text, the
round results told more than once and the lines no longer true at the end.

Run: ``python -m benchmarks.transcripts [--sizes 3 6 10] [--lang en] [--show-repeats]``
(a few seconds a game; SQLite in a temporary folder).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from cuckoo_bot.bootstrap import configure_logging
from cuckoo_bot.persistence import migrate
from fakebotapi import FakeBotApi
from tests.e2e.test_transcripts import BOT_USERNAME, GROUP, PEOPLE, TOKEN, play_game
from tests.support.review import Review, repeats_in, review, stale_in


async def one(players: int, lang: str, show: bool) -> Review:
    people = list(PEOPLE[:players])
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'review.db'}"
        await migrate.upgrade(url)
        async with FakeBotApi(token=TOKEN, bot_username=BOT_USERNAME, rate_limit=False) as fake:
            await play_game(fake, url, people, lang)
            ids = [p.id for p in people]
            if show:
                for person in ids:
                    for number, messages in repeats_in(fake, person):
                        print(f"  {person}: round {number} told in messages {messages}")
                for chat in (GROUP, *ids):
                    for message, line in stale_in(fake, chat):
                        print(f"  {chat} #{message}: stale: {line}")
            return review(fake, GROUP, ids)


async def main(sizes: list[int], lang: str, show: bool) -> None:
    configure_logging("WARNING")
    print(Review.HEADER)
    for players in sizes:
        print((await one(players, lang, show)).row(), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 6, 10])
    parser.add_argument("--lang", default="en")
    parser.add_argument("--show-repeats", action="store_true", help="name each repeat")
    args = parser.parse_args()
    asyncio.run(main(args.sizes, args.lang, args.show_repeats))
