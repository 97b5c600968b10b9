"""The bot's own HTTP server: the webhook Telegram posts updates to (webhook mode),
``/healthz`` and ``/metrics`` in either mode, and the live table (``webapp/``) when the bot has
a public URL.

PTB's built-in webhook server answers Telegram before the update is handled. This one answers
only once ``Application.process_update`` has returned, so every write the update makes is
committed first: an instance that dies mid-update never answers, and Telegram sends that
update again (to this instance or another). A redelivered update that was in fact handled is
recognised by its ``update_id`` in the same transaction as its effect, so nothing happens
twice.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from cuckoo_bot.app.queries import Vitals
from cuckoo_bot.transport.guard import Guard
from cuckoo_bot.transport.intake import handle
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.webapp.server import TableApi

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_TIMEOUT = 3.0  # seconds the database has to answer a health check
HEALTH_EVERY = 1.0  # the database is asked at most once a second, whoever asks /healthz
BODY_TIMEOUT = 5.0  # seconds to read an update's body


@dataclass(frozen=True)
class Webhook:
    url: str  # the public URL registered with Telegram
    path: str  # the path of that URL, served here
    secret: str


class WebServer:
    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        metrics: Metrics,
        vitals: Callable[[], Awaitable[Vitals]],
        listen: str,
        port: int,
        webhook: Webhook | None = None,
        health: Callable[[], Awaitable[object]] | None = None,
        metrics_token: str | None = None,
        guard: Guard | None = None,
        health_every: float = HEALTH_EVERY,
        live: TableApi | None = None,
    ) -> None:
        self.application = application
        self.metrics = metrics
        self.vitals = vitals
        # A cheap question for /healthz (asked every few seconds); /metrics counts the games.
        self.health = health or vitals
        self.listen = listen
        self.port = port
        self.webhook = webhook
        self.metrics_token = metrics_token
        self.health_every = health_every
        self.guard = guard or Guard(metrics)
        self.live = live  # the live table's page and API, when the bot has a public URL
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None
        # The latest health check, shared by every caller: (when, the error or None).
        self._checked: tuple[float, str | None] | None = None
        self._checking: asyncio.Task[str | None] | None = None
        self._taking = True
        self._ready = False  # until the bot has started: updates get 503 with Retry-After
        self._in_hand = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard.track])
        app.router.add_get("/healthz", self._health)
        app.router.add_get("/metrics", self._metrics)
        if self.webhook is not None:
            app.router.add_post(self.webhook.path, self._update)
        if self.live is not None:
            self.live.install(app, self.guard.cap)
        return app

    async def start(self) -> None:
        if self.live is not None:
            await self.live.start()
        self._runner = web.AppRunner(
            self.app(),
            access_log=None,
            handle_signals=False,
            keepalive_timeout=self.guard.idle_timeout,
            # The requests in hand were waited for already (``finish``); the live table's
            # streams were told to end: nothing is left worth a longer wait.
            shutdown_timeout=1.0,
        )
        await self._runner.setup()
        self._listener = await self.guard.serve(self._runner, self.listen, self.port)
        if self.port == 0:  # an ephemeral port (tests): learn which
            self.port = int(self._listener.sockets[0].getsockname()[1])
        log.info("serving /healthz and /metrics on %s:%s", self.listen, self.port)

    def ready(self) -> None:
        """The bot has started: updates are handled from now on."""
        self._ready = True

    def stop_taking(self) -> None:
        """New updates are turned away with 503 (Telegram sends them again later); the live
        table's event streams end, so closing the server waits for none of them."""
        self._taking = False
        if self.live is not None:
            self.live.close_streams()

    async def finish(self, within: float) -> None:
        """Wait, at most ``within`` seconds, for the updates in hand."""
        try:
            await asyncio.wait_for(self._idle.wait(), within)
        except TimeoutError:
            log.warning("stopping with %s update(s) still in hand", self._in_hand)

    async def stop(self) -> None:
        if self.live is not None:
            self.live.close_streams()
        try:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            if self._runner is not None:
                await self._runner.cleanup()
                self._runner = None
        finally:
            await self.guard.close()
            if self.live is not None:
                await self.live.stop()

    # -- routes -----------------------------------------------------------------------------------

    async def _update(self, request: web.Request) -> web.Response:
        assert self.webhook is not None
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.webhook.secret.encode()):
            return web.Response(status=403, text="forbidden")
        if not self._ready or not self._taking:
            # Telegram sends it again: nothing is lost, and nothing is logged as an error.
            why = "starting" if self._taking else "shutting down"
            return web.Response(status=503, text=why, headers={"Retry-After": "1"})
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                body = await request.read()
            data = json.loads(body)
        except TimeoutError:
            return web.Response(status=408, text="too slow")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return web.Response(status=400, text="not JSON")
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            return web.Response(status=400, text="not an update")
        update = Update.de_json(data, self.application.bot)
        self._in_hand += 1
        self._idle.clear()
        try:
            # Handled and committed before Telegram hears back; a handler's own error is
            # answered to the user by the error handler and is no reason to send it again.
            # Through PTB's update processor, as polled updates go: at most as many side by
            # side, counted and timed alike.
            await handle(self.application, update)
        finally:
            self._in_hand -= 1
            if not self._in_hand:
                self._idle.set()
        return web.Response(status=200)

    async def _health(self, request: web.Request) -> web.Response:
        """Answered from the latest database check, made at most once a second and shared by
        every caller: a flood of health checks costs the database one question a second."""
        error, age = await self.health_check()
        seconds = round(age, 3)
        if error is not None:
            return web.json_response(
                {"status": "unavailable", "database": "down", "checked_seconds_ago": seconds},
                status=503,
            )
        return web.json_response({"status": "ok", "database": "up", "checked_seconds_ago": seconds})

    async def health_check(self) -> tuple[str | None, float]:
        """(why the database is down, or None; how old that finding is, in seconds)."""
        loop = asyncio.get_running_loop()
        checked = self._checked
        if checked is None or loop.time() - checked[0] >= self.health_every:
            if self._checking is None or self._checking.done():
                self._checking = loop.create_task(self._ask_database())
            await asyncio.shield(self._checking)
            checked = self._checked
        assert checked is not None
        return checked[1], loop.time() - checked[0]

    async def _ask_database(self) -> str | None:
        try:
            await asyncio.wait_for(self.health(), HEALTH_TIMEOUT)
            error = None
        except Exception as exc:
            error = repr(exc) or type(exc).__name__
        before = self._checked
        if (before is None or before[1] is None) and error is not None:
            log.warning("health check: the database does not answer: %s", error)
        elif before is not None and before[1] is not None and error is None:
            log.info("health check: the database answers again")
        self._checked = (asyncio.get_running_loop().time(), error)
        return error

    async def _metrics(self, request: web.Request) -> web.Response:
        if self.metrics_token is not None:
            given = request.headers.get("Authorization", "")
            expected = f"Bearer {self.metrics_token}"
            if not hmac.compare_digest(given.encode(), expected.encode()):
                return web.Response(
                    status=401, text="unauthorized", headers={"WWW-Authenticate": "Bearer"}
                )
        vitals: Vitals | None
        try:
            vitals = await asyncio.wait_for(self.vitals(), HEALTH_TIMEOUT)
        except Exception:
            vitals = None  # the counters still answer; the database's figures keep their last
        body = self.metrics.exposition(vitals)
        return web.Response(body=body, headers={"Content-Type": "text/plain; version=0.0.4"})
