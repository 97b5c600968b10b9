"""``cuckoo-bot demo``: the real bot plays a game against the fake Telegram (``fakebotapi``).

Two people, driven by ``tests.support.driver``, sit with computer seats; everything goes
through the bot's real handlers, store and Bot API calls. At the end the group chat and each
private chat are printed as a reader would see them. The fake and the driver are test doubles
kept out of the bot's package, so the demo runs from a source checkout.

``cuckoo-bot demo --web`` starts the same with the live table: each person gets a link to the
page signed in as them (a development signer stands in for Telegram; ``run`` never signs),
and plays a whole game in a browser.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from signal import SIGINT, SIGTERM
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from pydantic import field_validator

from cuckoo_bot.app.deps import REVEAL_PAUSE
from cuckoo_bot.config import Settings, public_base_url
from cuckoo_bot.transport.serving import Serving
from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver, play_out
from tests.support.webapp import sign_init_data

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


class DemoSettings(Settings):
    """The demo's settings: its live table alone may be served over plain http on this
    machine's loopback (its fake Telegram, and the browser, are on this machine too)."""

    @field_validator("public_url")
    @classmethod
    def _public_base(cls, value: str | None) -> str | None:
        return None if value is None else public_base_url(value, local=True)


@asynccontextmanager
async def running_bot(settings: Settings, rng: random.Random) -> AsyncIterator[Runtime]:
    """The real bot, built by the composition root, polling in this event loop until exit."""
    from cuckoo_bot.bootstrap import build

    runtime = build(settings, rng=rng)
    async with polling(runtime.application):
        yield runtime


async def run_demo(players: int, lang: str, seed: int | None, rules: Sequence[str] = ()) -> int:

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
                await driver.set_rules(101, rules)
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


# -- cuckoo-bot demo --web: the live table in a browser, without Telegram ----------------------

WEB_PEOPLE = [(101, "Alice"), (102, "Bob"), (103, "Carol"), (104, "Dan")]
WATCHER = (109, "Wendy")  # in the group, not seated: the table without any card
THEMES = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#707579",
        "button_color": "#3390ec",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#f4f4f5",
    },
    "dark": {
        "bg_color": "#212121",
        "text_color": "#ffffff",
        "hint_color": "#aaaaaa",
        "button_color": "#8774e1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#181818",
    },
}


@dataclass
class WebDemo:
    """A running web demo: the fake Telegram, the people's driver, and where each opens the
    table (a URL carrying initData signed as Telegram would, in its launch parameters)."""

    fake: FakeBotApi
    driver: TableDriver
    token: str
    base: str  # the bot's HTTP server
    game: int
    people: list[tuple[int, str]]

    def url(self, user_id: int, theme: str = "light", lang: str = "en") -> str:
        name = dict([*self.people, WATCHER]).get(user_id, f"User {user_id}")
        init_data = sign_init_data(self.token, user_id, name, language=lang)
        launch = urlencode(
            {
                "tgWebAppData": init_data,
                "tgWebAppVersion": "8.0",
                "tgWebAppPlatform": "web",
                "tgWebAppThemeParams": json.dumps(THEMES[theme], separators=(",", ":")),
            },
            quote_via=quote,
        )
        return f"{self.base}/app?game={self.game}#{launch}"


def port_free(port: int) -> bool:
    """Nothing listens on 127.0.0.1:``port`` (the web demo says so in a line, not a trace)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def web_demo(
    humans: int = 3,
    computers: int = 0,
    lang: str = "en",
    seed: int | None = None,
    port: int = 0,
    turn_timeout: float = 600,
    reveal_pause: float = REVEAL_PAUSE,
    rules: Sequence[str] = (),
) -> AsyncIterator[WebDemo]:
    """The fake Telegram and the real bot with its live table on 127.0.0.1:``port`` (0: a free
    one), a group of ``humans`` people and a watcher, and a game started there."""
    from pydantic import SecretStr

    from cuckoo_bot.bootstrap import build
    from cuckoo_bot.persistence import migrate

    token = "123456789:DEMO-token-for-the-built-in-fake-api"
    group_id = -1001234567890
    people = WEB_PEOPLE[:humans]
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    # The page is on this machine, over plain http: the demo's fake Telegram lets its keys
    # open it (Telegram itself takes only HTTPS; nothing but the demo asks for this).
    async with FakeBotApi(
        token=token, bot_username="cuckoo_demo_bot", insecure_web_app_origins=(base,)
    ) as fake:
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite+aiosqlite:///{Path(folder) / 'demo.db'}"
            await migrate.upgrade(url)
            settings = DemoSettings(
                bot_token=SecretStr(token),
                database_url=url,
                api_base_url=fake.base_url,
                turn_timeout=turn_timeout,
                group_rate=10_000,
                reveal_pause=reveal_pause,  # the reveal stands on the table a moment
                public_url=base,
                webapp_name="table",
                listen="127.0.0.1",
                port=port,
                init_data_max_age=86_400,  # a day: the demo's links stay good all evening
            )
            runtime = build(settings, rng=random.Random(seed), poll_timeout=1)
            if not await runtime.serving.start(asyncio.Event()):
                raise RuntimeError("the bot did not start")
            try:
                for user_id, first in [*people, WATCHER]:
                    fake.add_user(user_id, first, language_code=lang, started=True)
                fake.add_group(
                    group_id,
                    "Cuckoo night",
                    type="supergroup",
                    members=[u for u, _ in [*people, WATCHER]],
                    admins=[people[0][0]],
                    creator=people[0][0],
                )
                driver = TableDriver(fake, group_id)
                await driver.set_rules(people[0][0], rules)
                await driver.start_game(people[0][0], [u for u, _ in people], computers)
                table = driver.table()
                assert table is not None
                data = next(d for d in table.callback_datas if d.startswith("1:m:"))
                game = int(data.split(":")[2])
                yield WebDemo(fake, driver, token, base, game, people)
            finally:
                await runtime.serving.stop(budget=10.0)


async def run_web_demo(
    players: int,
    lang: str,
    seed: int | None,
    port: int,
    *,
    solo: bool = False,
    rules: Sequence[str] = (),
) -> int:
    """``cuckoo-bot demo --web``: a game whose people each play on their own page; ``--solo``:
    one person against computer seats, one link to open."""
    from cuckoo_bot.bootstrap import configure_logging

    configure_logging("WARNING")
    if port and not port_free(port):
        sys.stderr.write(
            f"cuckoo-bot demo --web: port {port} is in use on 127.0.0.1; choose another with"
            " --port, or --port 0 for any free one.\n"
        )
        return 2
    humans = 1 if solo else min(players, len(WEB_PEOPLE))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal in (SIGINT, SIGTERM):
        loop.add_signal_handler(signal, stop.set)
    async with web_demo(humans, players - humans, lang, seed, port, rules=rules) as demo:
        out = sys.stdout
        if solo:
            (user_id, name), *_ = demo.people
            out.write(
                "The live table runs on this machine, with a fake Telegram. Open this link"
                f" to play as {name} against {players - 1} computer seats:\n\n"
                f"  {name}: {demo.url(user_id, lang=lang)}\n\n"
            )
        else:
            out.write(
                "The live table runs on this machine, with a fake Telegram. Open one link per"
                " player (each signed in as that person), in separate windows:\n\n"
            )
            for user_id, name in demo.people:
                out.write(f"  {name}: {demo.url(user_id, lang=lang)}\n\n")
            out.write(f"  {WATCHER[1]} (watching): {demo.url(WATCHER[0], lang=lang)}\n\n")
        out.write("Ctrl-C ends the demo.\n")
        out.flush()
        await stop.wait()
    return 0
