"""``cuckoo-bot demo``: the real bot plays a game against the fake Telegram (``fakebotapi``).

Two people, driven by ``tests.support.driver``, sit with computer seats; everything goes
through the bot's real handlers, store and Bot API calls. At the end the group chat and each
private chat are printed as a reader would see them. The fake and the driver are test doubles
kept out of the bot's package, so the demo runs from a source checkout.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cuckoo_bot.config import Settings
from cuckoo_bot.transport.serving import Serving
from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver, play_out

if TYPE_CHECKING:
    from cuckoo_bot.bootstrap import Runtime


def call_summary(fake: FakeBotApi) -> str:
    """Bot API calls by method and chat kind, as the fake server saw them."""
    counts: dict[tuple[str, str], int] = {}
    for call in fake.calls():
        chat = call.params.get("chat_id")
        kind = (
            "group"
            if isinstance(chat, int | str) and int(chat) < 0
            else ("private" if chat is not None else "no chat")
        )
        counts[(kind, call.method)] = counts.get((kind, call.method), 0) + 1
    return "\n".join(f"  {kind:8} {method:24} {n}" for (kind, method), n in sorted(counts.items()))


@asynccontextmanager
async def polling(app: Any) -> AsyncIterator[Any]:
    """A built PTB application, started and polling in this event loop until exit (then
    stopped as ``cuckoo-bot run`` stops: deliveries finish before the HTTP client closes)."""
    serving = Serving(app, poll_timeout=1, drain=app.bot_data.services.drain)
    if not await serving.start(asyncio.Event()):
        raise RuntimeError("the bot did not start")
    try:
        yield app
    finally:
        await serving.stop(budget=30.0)


@asynccontextmanager
async def running_bot(settings: Settings, rng: random.Random) -> AsyncIterator[Runtime]:
    """The real bot, built by the composition root, polling in this event loop until exit."""
    from cuckoo_bot.bootstrap import build

    runtime = build(settings, rng=rng)
    async with polling(runtime.application):
        yield runtime


async def run_demo(players: int, lang: str, seed: int | None) -> int:

    from pydantic import SecretStr

    from cuckoo_bot.bootstrap import configure_logging
    from cuckoo_bot.persistence import migrate

    configure_logging("WARNING")
    token = "123456789:DEMO-token-for-the-built-in-fake-api"
    group_id = -1001234567890
    people = [(101, "Alice", "Archer"), (102, "Bob", None)][: min(players, 2)]
    async with FakeBotApi(token=token, bot_username="cuckoo_demo_bot") as fake:
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite+aiosqlite:///{Path(folder) / 'demo.db'}"
            await migrate.upgrade(url)
            settings = Settings(
                bot_token=SecretStr(token),
                database_url=url,
                api_base_url=fake.base_url,
                turn_timeout=3600,
                group_rate=10_000,  # the fake enforces no rate: no need to wait a minute a round
                reveal_pause=0,  # the transcript reads the same; no need to wait at each reveal
            )
            async with running_bot(settings, random.Random(seed)) as runtime:
                for user_id, first, last in people:
                    fake.add_user(user_id, first, last, language_code=lang, started=False)
                fake.add_group(
                    group_id,
                    "Cuckoo night",
                    type="supergroup",
                    members=[u for u, _, _ in people],
                    admins=[101],
                    creator=101,
                )
                driver = TableDriver(fake, group_id)
                for user_id, _, _ in people:
                    await driver.say(user_id, "/start", chat_id=user_id)
                    await fake.wait_for_message(user_id)
                await driver.start_game(101, [u for u, _, _ in people], players - len(people))
                try:
                    await play_out(driver, [u for u, _, _ in people], players)
                except (TimeoutError, AssertionError):
                    sys.stderr.write(fake.transcript(group_id) + "\n")
                    raise
                await fake.wait_idle(quiet=0.3)
            out = sys.stdout
            out.write(f"=== The group '{'Cuckoo night'}' ===\n{fake.transcript(group_id)}\n\n")
            for user_id, first, _ in people:
                out.write(
                    f"=== {first}'s private chat with the bot ===\n{fake.transcript(user_id)}\n\n"
                )
            out.write(f"Bot API calls (without polling): {runtime.metrics.total_calls()}\n")
            out.write(call_summary(fake) + "\n")
    return 0
