"""The bot's own HTTP server: the webhook Telegram posts updates to (webhook mode), and
``/healthz`` and ``/metrics`` in either mode.

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
from cuckoo_bot.transport.intake import handle
from cuckoo_bot.transport.metrics import Metrics

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_TIMEOUT = 3.0  # seconds the database has to answer a health check


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
    ) -> None:
        self.application = application
        self.metrics = metrics
        self.vitals = vitals
        # A cheap question for /healthz (asked every few seconds); /metrics counts the games.
        self.health = health or vitals
        self.listen = listen
        self.port = port
        self.webhook = webhook
        self._runner: web.AppRunner | None = None
        self._taking = True
        self._ready = False  # until the bot has started: updates get 503 with Retry-After
        self._in_hand = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/healthz", self._health)
        app.router.add_get("/metrics", self._metrics)
        if self.webhook is not None:
            app.router.add_post(self.webhook.path, self._update)
        return app

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.listen, self.port)
        await site.start()
        if self.port == 0:  # an ephemeral port (tests): learn which
            self.port = int(self._runner.addresses[0][1])
        log.info("serving /healthz and /metrics on %s:%s", self.listen, self.port)

    def ready(self) -> None:
        """The bot has started: updates are handled from now on."""
        self._ready = True

    def stop_taking(self) -> None:
        """New updates are turned away with 503 (Telegram sends them again later)."""
        self._taking = False

    async def finish(self, within: float) -> None:
        """Wait, at most ``within`` seconds, for the updates in hand."""
        try:
            await asyncio.wait_for(self._idle.wait(), within)
        except TimeoutError:
            log.warning("stopping with %s update(s) still in hand", self._in_hand)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

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
            data = await request.json()
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
        try:
            await asyncio.wait_for(self.health(), HEALTH_TIMEOUT)
        except Exception as exc:
            log.warning("health check: the database does not answer: %r", exc)
            return web.json_response({"status": "unavailable", "database": "down"}, status=503)
        return web.json_response({"status": "ok", "database": "up"})

    async def _metrics(self, request: web.Request) -> web.Response:
        vitals: Vitals | None
        try:
            vitals = await asyncio.wait_for(self.vitals(), HEALTH_TIMEOUT)
        except Exception:
            vitals = None  # the counters still answer; the database's figures keep their last
        body = self.metrics.exposition(vitals)
        return web.Response(body=body, headers={"Content-Type": "text/plain; version=0.0.4"})
