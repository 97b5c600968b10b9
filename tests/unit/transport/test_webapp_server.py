"""The live table's API when what it stands on fails: the database (the page is told to try
again, with one log line, not a traceback per request) or Telegram (a membership question
unanswered is asked again, never taken as a no)."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from telegram import ChatMember
from telegram.error import NetworkError

from cuckoo_bot.app.tuning import MEMBER_FOR
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.webapp.auth import InitDataCheck
from cuckoo_bot.transport.webapp.hub import Hub
from cuckoo_bot.transport.webapp.server import TableApi
from tests.support.webapp import sign_init_data
from tests.unit.app.fakes import FakeClock

TOKEN = "4242:live-table-server-test"


class Telegram:
    """The bot's ``get_chat_member``, failing as a network does."""

    def __init__(self) -> None:
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.asked += 1
        raise NetworkError("Telegram did not answer")


class AsServed(TestServer):
    """A test server that, like the bot's own (``transport/web.py``: aiohttp's defaults), does
    not cancel a handler whose client went away (aiohttp's test server does)."""

    async def _make_runner(self, **kwargs: Any) -> web.BaseRunner:
        kwargs["handler_cancellation"] = False
        return await super()._make_runner(**kwargs)


async def serve(hub: Hub[Any], bot: Any, clock: FakeClock | None = None) -> TestClient:
    deps = SimpleNamespace(clock=clock or FakeClock())
    services = SimpleNamespace(renderer=SimpleNamespace(tr=Translator()), deps=deps)
    api = TableApi(services, bot, InitDataCheck(TOKEN), hub)  # type: ignore[arg-type]
    app = web.Application()
    api.install(app, 64)
    client = TestClient(AsServed(app))
    await client.start_server()
    return client


def asked_by(user: int) -> dict[str, str]:
    return {"Authorization": f"tma {sign_init_data(TOKEN, user)}"}


async def test_a_database_that_does_not_answer_gets_the_page_a_503_and_the_log_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def down(game_id: int) -> Any:
        raise ConnectionError("the database is down")

    client = await serve(Hub(down), Telegram())
    try:
        with caplog.at_level(logging.WARNING):
            for path in ("table", "events", "table", "events", "table"):
                response = await client.get(f"/app/api/{path}?game=3", headers=asked_by(7))
                assert response.status == 503
                assert await response.json() == {"error": "busy"}
        said = [r for r in caplog.records if r.name.startswith("cuckoo_bot")]
        assert len(said) == 1 and "the database is down" in said[0].getMessage()
        assert not any(r.exc_info for r in caplog.records)
    finally:
        await client.close()


async def test_a_membership_telegram_did_not_answer_is_asked_again_not_refused() -> None:
    game = SimpleNamespace(seats=[1, 2, 3], id=3, version=5)
    shot = SimpleNamespace(seen=SimpleNamespace(game=game, chat_id=-100, language="en"))

    async def read(game_id: int) -> Any:
        return shot

    telegram = Telegram()
    client = await serve(Hub(read), telegram)
    try:
        for _ in range(2):
            response = await client.get("/app/api/table?game=3", headers=asked_by(9))
            assert response.status == 503  # not 403: nobody said no
        assert telegram.asked == 2
    finally:
        await client.close()


class Outsider:
    """The bot's ``get_chat_member``: the person is not in the group."""

    def __init__(self) -> None:
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.asked += 1
        return SimpleNamespace(status=ChatMember.LEFT)


async def test_a_membership_is_known_for_a_while_on_the_bots_clock_then_asked_again() -> None:
    game = SimpleNamespace(seats=[1, 2, 3], id=3, version=5)
    shot = SimpleNamespace(seen=SimpleNamespace(game=game, chat_id=-100, language="en"))

    async def read(game_id: int) -> Any:
        return shot

    telegram, clock = Outsider(), FakeClock()
    client = await serve(Hub(read), telegram, clock)
    try:
        for seconds in (0, MEMBER_FOR - 1):  # asked once, then known
            clock.advance(seconds)
            response = await client.get("/app/api/table?game=3", headers=asked_by(9))
            assert response.status == 403
        assert telegram.asked == 1
        clock.advance(2)  # past MEMBER_FOR since Telegram answered: asked again
        response = await client.get("/app/api/table?game=3", headers=asked_by(9))
        assert response.status == 403 and telegram.asked == 2
    finally:
        await client.close()


async def test_a_page_that_goes_away_frees_its_stream_at_once() -> None:
    """A reload closes the page's stream: its slot is free again within a second or two, so
    a few reloads in a row never push the page to polling (a person holds a few streams)."""
    import asyncio

    from cuckoo_bot.app.live import Seen
    from cuckoo_bot.app.model import Player
    from cuckoo_bot.app.tuning import STREAMS_PER_USER
    from cuckoo_bot.transport.webapp.view import Snapshot
    from tests.support import scenes

    scene = scenes.running()
    people = {p: Player(id=p, first_name=n) for p, n in scene.names.items()}
    shot = Snapshot(Seen(scene.game(), people, "en"), dict(scene.names))

    async def read(game_id: int) -> Any:
        return shot if game_id == scenes.GAME else None

    client = await serve(Hub(read), Telegram())
    loop = asyncio.get_running_loop()
    try:
        for reload in range(STREAMS_PER_USER + 3):
            until = loop.time() + 3
            while True:  # the page comes back at once; it may wait out its old stream's end
                response = await client.get(
                    f"/app/api/events?game={scenes.GAME}", headers=asked_by(scenes.ANA)
                )
                if response.status == 200 or loop.time() > until:
                    break
                response.close()
                await asyncio.sleep(0.1)
            assert response.status == 200, (reload, response.status)
            await response.content.readuntil(b"\n\n")  # its first event (or a ping)
            response.close()  # the page reloads
    finally:
        await client.close()
