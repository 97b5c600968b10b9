"""Starting and stopping the bot, polling or behind a webhook, with a shutdown that ends in time.

Start: the HTTP server first (health and metrics answer while Telegram is still out of reach;
the webhook answers 503 with Retry-After until the bot is ready), then PTB (learning the bot's
name, which Telegram must answer: retried until it does or a stop is asked; a token Telegram
rejects ends the start with ``TokenRejected``), start-up work, and the source of updates (the
webhook registered, or the poller of ``intake.py``).

Stop (SIGTERM): updates are turned away first; those in hand are finished; deliveries under way
get a moment, and what they could not send stays in the outbox for the next instance; then PTB
closes its HTTP client, after the courier no longer needs it. Each step has its share of the
time, so the process ends within the budget even when Telegram does not answer at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from telegram import Update
from telegram.error import BadRequest, InvalidToken, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application

from cuckoo_bot.config import TelegramRefused, TelegramUnreachable, TokenRejected
from cuckoo_bot.transport.intake import Poller
from cuckoo_bot.transport.web import Webhook, WebServer

log = logging.getLogger(__name__)

T = TypeVar("T")
STOP_BUDGET = 8.0  # seconds from SIGTERM to exit (container runtimes kill at 10)


async def until_answered(
    work: Callable[[], Awaitable[T]],
    stop: asyncio.Event,
    what: str,
    give_up_at: float | None = None,
) -> bool:
    """Call ``work`` until Telegram answers it (True), or until ``stop`` is set (False); past
    ``give_up_at`` (the loop's clock), ``TelegramUnreachable``. Only a network fault or a 429
    is tried again: an error Telegram answered (a 400 to a setting it will not take) ends the
    start at once with ``TelegramRefused``, in Telegram's own words."""
    loop = asyncio.get_running_loop()
    delay = 1.0
    while not stop.is_set():
        try:
            await work()
            return True
        except InvalidToken:
            raise
        except BadRequest as exc:  # a NetworkError in PTB 22, but Telegram's answer
            raise _refused(what, exc) from None
        except (NetworkError, RetryAfter) as exc:
            if give_up_at is not None and loop.time() + delay > give_up_at:
                raise TelegramUnreachable(
                    f"Telegram did not answer at start ({what}: {exc}); check the network"
                    " and CUCKOO_API_BASE_URL, or give it longer with CUCKOO_START_TIMEOUT"
                ) from None
            log.warning("%s: Telegram does not answer (%s); again in %.0f s", what, exc, delay)
        except TelegramError as exc:  # any other answer of Telegram's: no use asking again
            raise _refused(what, exc) from None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        delay = min(delay * 2, 30.0)
    return False


def _refused(what: str, exc: TelegramError) -> TelegramRefused:
    """Telegram's own description, in one line."""
    said = " ".join(exc.message.split())
    return TelegramRefused(f"Telegram refused {what}: {said}")


class Serving:
    """One running bot: PTB's application, its source of updates and the HTTP server."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        web: WebServer | None = None,
        webhook: Webhook | None = None,
        *,
        poll_timeout: int = 30,
        drain: Callable[[float], Awaitable[None]] | None = None,
        patience: float | None = None,
    ) -> None:
        self.application = application
        self.web = web
        self.webhook = webhook
        self.poll_timeout = poll_timeout
        self.drain = drain
        self.patience = patience  # seconds to keep trying to reach Telegram at start
        self.started = False
        self.poller: Poller | None = None
        self._polling: asyncio.Task[None] | None = None

    async def start(self, stop: asyncio.Event) -> bool:
        """Everything up; False if ``stop`` was set before Telegram could be reached."""
        app = self.application
        loop = asyncio.get_running_loop()
        give_up_at = None if self.patience is None else loop.time() + self.patience
        if self.web is not None:
            await self.web.start()
        try:
            if not await until_answered(app.initialize, stop, "start-up", give_up_at):
                return False
        except InvalidToken:
            raise TokenRejected(
                "CUCKOO_BOT_TOKEN was rejected by Telegram: check it with @BotFather"
                " (https://t.me/BotFather, /mybots → API Token)"
            ) from None
        if app.post_init is not None:
            post_init = app.post_init
            if not await until_answered(lambda: post_init(app), stop, "start-up", give_up_at):
                return False
        await app.start()
        self.started = True
        if self.web is not None:
            self.web.ready()  # deadlines re-armed, leftovers on their way: updates welcome
        if self.webhook is not None:
            hook = self.webhook

            async def register() -> None:
                await app.bot.set_webhook(
                    hook.url,
                    secret_token=hook.secret,
                    allowed_updates=Update.ALL_TYPES,
                    max_connections=40,
                )

            if not await until_answered(register, stop, "registering the webhook", give_up_at):
                return False
            log.info("webhook registered; updates arrive at %s", hook.path)
        else:
            # A webhook left registered would make Telegram refuse to be polled.
            if not await until_answered(
                lambda: app.bot.delete_webhook(drop_pending_updates=False),
                stop,
                "starting to poll",
                give_up_at,
            ):
                return False
            self.poller = Poller(app, self.poll_timeout, allowed_updates=Update.ALL_TYPES)
            self._polling = asyncio.get_running_loop().create_task(self.poller.run())
        return True

    async def _end_polling(self) -> None:
        if self._polling is not None:
            await self._polling  # returns at once: the poll under way is left
        if self.poller is not None:
            await self.poller.finish()

    async def stop(self, budget: float = STOP_BUDGET) -> None:
        """Stop within ``budget`` seconds, whatever Telegram does."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget

        async def stage(what: str, work: Awaitable[Any], share: float) -> None:
            left = min(share, deadline - loop.time())
            try:
                await asyncio.wait_for(work, max(left, 0.01))
            except TimeoutError:
                log.warning("shutdown: %s took too long; going on", what)
            except Exception:
                log.exception("shutdown: %s failed; going on", what)

        app = self.application
        if self.web is not None:
            self.web.stop_taking()
        if self.poller is not None:
            self.poller.stop()
            await stage("finishing the updates in hand", self._end_polling(), 3.0)
        if self.web is not None:
            await stage("finishing the updates in hand", self.web.finish(3.0), 3.0)
        if self.drain is not None:
            await stage("finishing deliveries", self.drain(2.5), 3.0)
        if app.running:
            await stage("stopping the bot", app.stop(), 1.5)
        await stage("closing the bot", app.shutdown(), 1.0)
        if app.post_shutdown is not None:
            await stage("closing the database", app.post_shutdown(app), 1.0)
        if self.web is not None:
            await stage("closing the HTTP server", self.web.stop(), 1.0)
