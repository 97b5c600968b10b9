"""The bot's own HTTP server, in process: the webhook answers only after the update is handled,
turns away a wrong secret without touching anything, and stops taking updates at shutdown;
/healthz follows the database; /metrics counts updates, Bot API calls and the store's figures.
Also the JSON log format."""

from __future__ import annotations

import io
import json
import logging
import random
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from cuckoo_bot.app import queries
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.queries import Vitals
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.logformat import JsonLines
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.web import SECRET_HEADER, Webhook, WebServer
from fakebotapi import FakeBotApi
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

TOKEN = "781:web-test-token-0123456789abcdefgh"
SECRET = "s3cret-for-the-webhook_0123"
ANN = 1


def command(update_id: int, text: str, user: int = ANN) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1_790_000_000,
            "chat": {"id": user, "type": "private", "first_name": "Ann"},
            "from": {"id": user, "is_bot": False, "first_name": "Ann"},
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        },
    }


class Running:
    def __init__(self, fake: FakeBotApi, server: WebServer, metrics: Metrics) -> None:
        self.fake = fake
        self.server = server
        self.metrics = metrics
        self.url = f"http://127.0.0.1:{server.port}"


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_web_bot") as fake:
        fake.add_user(ANN, "Ann", started=True)
        deps = Deps(uow=FakeUnitOfWorkFactory(World()), rng=random.Random(1), clock=FakeClock())
        metrics = Metrics()
        app: Any = assemble(
            TOKEN, fake.base_url, deps, Translator(), metrics, group_rate=1000, private_interval=0
        )
        server = WebServer(
            app,
            metrics,
            vitals=lambda: queries.vitals(deps),
            listen="127.0.0.1",
            port=0,
            webhook=Webhook("https://bot.example.org/tg/hook", "/tg/hook", SECRET),
        )
        await app.initialize()
        await app.start()
        await server.start()
        server.ready()
        try:
            yield Running(fake, server, metrics)
        finally:
            await server.stop()
            await app.stop()
            await app.shutdown()


async def post(url: str, body: object, secret: str | None) -> int:
    headers = {SECRET_HEADER: secret} if secret is not None else {}
    async with aiohttp.ClientSession() as http, http.post(url, json=body, headers=headers) as r:
        return r.status


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        return answer.status, await answer.text()


async def test_an_update_is_answered_only_once_handled(running: Running) -> None:
    status = await post(f"{running.url}/tg/hook", command(10, "/rules"), SECRET)
    assert status == 200
    # The reply was sent before Telegram heard back: handling happened inside the request.
    replies = [m for m in running.fake.messages(ANN) if m.from_bot]
    assert len(replies) == 1 and "rules" in replies[0].text.lower()


@pytest.mark.parametrize("secret", [None, "", "wrong", SECRET + "x"])
async def test_a_wrong_or_missing_secret_gets_403_and_changes_nothing(
    running: Running, secret: str | None
) -> None:
    assert await post(f"{running.url}/tg/hook", command(11, "/start"), secret) == 403
    assert running.fake.call_count("sendMessage") == 0
    assert (
        'cuckoo_updates_handled_total{kind="command"}'
        not in (await get(f"{running.url}/metrics"))[1]
    )


async def test_what_is_not_an_update_gets_400(running: Running) -> None:
    assert await post(f"{running.url}/tg/hook", ["not", "an", "update"], SECRET) == 400
    assert await post(f"{running.url}/tg/hook", {"message": {}}, SECRET) == 400


async def test_at_shutdown_new_updates_are_turned_away_for_telegram_to_send_again(
    running: Running,
) -> None:
    running.server.stop_taking()
    assert await post(f"{running.url}/tg/hook", command(12, "/rules"), SECRET) == 503
    assert running.fake.call_count("sendMessage") == 0
    await running.server.finish(1.0)  # nothing in hand: returns at once


async def test_while_the_bot_starts_updates_get_503_with_retry_after_never_500(
    running: Running,
) -> None:
    starting = WebServer(
        running.server.application,
        running.metrics,
        vitals=running.server.vitals,
        listen="127.0.0.1",
        port=0,
        webhook=running.server.webhook,
    )
    await starting.start()
    try:
        url = f"http://127.0.0.1:{starting.port}/tg/hook"
        headers = {SECRET_HEADER: SECRET}
        async with aiohttp.ClientSession() as http:
            async with http.post(url, json=command(14, "/rules"), headers=headers) as answer:
                assert answer.status == 503
                assert answer.headers["Retry-After"] == "1"
            assert running.fake.call_count("sendMessage") == 0  # not handled: sent again later
            starting.ready()
            async with http.post(url, json=command(14, "/rules"), headers=headers) as answer:
                assert answer.status == 200
        assert running.fake.call_count("sendMessage") == 1
    finally:
        await starting.stop()


async def test_metrics_count_updates_calls_and_the_store(running: Running) -> None:
    assert await post(f"{running.url}/tg/hook", command(13, "/rules"), SECRET) == 200
    status, text = await get(f"{running.url}/metrics")
    assert status == 200
    lines = dict(
        line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#")
    )
    assert float(lines['cuckoo_updates_handled_total{kind="command"}']) == 1
    assert float(lines['cuckoo_update_handling_seconds_count{kind="command"}']) == 1
    assert float(lines['cuckoo_bot_api_calls_total{method="sendMessage"}']) == 1
    assert float(lines["cuckoo_outbox_backlog"]) == 0
    assert float(lines["cuckoo_games_running"]) == 0
    assert "cuckoo_games_finished" in lines and "cuckoo_bot_api_errors_total" in text


async def test_healthz_follows_the_database() -> None:
    healthy = True

    async def vitals() -> Vitals:
        if not healthy:
            raise ConnectionRefusedError("the database is down")
        return Vitals(backlog=0, lobbies=0, running=0, finished=0)

    server = WebServer(None, Metrics(), vitals, "127.0.0.1", 0, health_every=0)  # type: ignore[arg-type]
    await server.start()
    try:
        status, text = await get(f"http://127.0.0.1:{server.port}/healthz")
        assert (status, json.loads(text)["status"]) == (200, "ok")
        healthy = False
        status, text = await get(f"http://127.0.0.1:{server.port}/healthz")
        assert (status, json.loads(text)["status"]) == (503, "unavailable")
        # Metrics still answer without the database.
        assert (await get(f"http://127.0.0.1:{server.port}/metrics"))[0] == 200
        # Without webhook mode there is no webhook route.
        assert await post(f"http://127.0.0.1:{server.port}/tg/hook", {}, SECRET) in (404, 405)
    finally:
        await server.stop()


def test_json_logs_are_one_object_per_line_with_chat_and_game_and_no_token() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines([TOKEN]))
    logger = logging.getLogger("cuckoo_bot.test_json")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logfields.bind(chat_id=-100781, game_id=None)
        logger.warning("calling https://api/bot%s/sendMessage", TOKEN)
        try:
            raise RuntimeError(f"boom {TOKEN}\nsecond line")
        except RuntimeError:
            logger.exception("failed", extra={"game_id": 7})
    finally:
        logger.removeHandler(handler)
        logfields.bind(chat_id=None, game_id=None)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["level"] == "WARNING" and first["chat_id"] == -100781
    assert "[token]" in first["message"] and TOKEN not in stream.getvalue()
    assert second["game_id"] == 7 and "RuntimeError" in second["error"]
