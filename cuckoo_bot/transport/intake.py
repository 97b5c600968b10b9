"""Where updates come in: one way to hand an update to the handlers, and a poller that tells
Telegram an update is done only once it has been handled.

PTB's ``Updater`` confirms what it fetched at its next ``getUpdates``, before the handlers have
run, so a process killed in between loses those taps. Telegram confirms every update below the
``offset`` of a call, so this poller asks with the lowest update still in hand as its offset:
an update is confirmed only when it and every one before it have been handled (and committed).
A process killed mid-update gets it again on its next start; ``processed_updates`` makes an
update that was in fact handled a no-op, so every tap takes effect exactly once. PTB has no
such mode (its ``Updater`` cannot hold back the offset), hence this loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from telegram import Update
from telegram.error import Conflict, InvalidToken, RetryAfter, TelegramError, TimedOut
from telegram.ext import Application

log = logging.getLogger(__name__)

HOLD = 0.5  # seconds to wait for the updates in hand before asking Telegram again
# An update still in hand after this long (a stuck handler) no longer holds back the offset,
# so it can never keep the chats behind it from being heard.
GIVE_UP = 30.0


async def handle(application: Application[Any, Any, Any, Any, Any, Any], update: Update) -> None:
    """Handle one update through PTB's update processor (the fair lanes in ``admission.py``),
    returning once its handler has finished and its writes are committed."""
    await application.update_processor.process_update(update, application.process_update(update))


class Poller:
    """Long polling with confirmation after handling (see the module's docstring)."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        timeout: int = 30,
        allowed_updates: list[str] | None = None,
    ) -> None:
        self.application = application
        self.timeout = timeout
        self.allowed_updates = allowed_updates
        self._in_hand: dict[int, tuple[asyncio.Task[None], float]] = {}
        self._let_go: set[asyncio.Task[None]] = set()
        self._next: int | None = None  # the first update id not taken yet
        self._stop = asyncio.Event()

    @property
    def offset(self) -> int | None:
        """What to confirm: everything below the oldest update still in hand."""
        return min(self._in_hand) if self._in_hand else self._next

    async def run(self) -> None:
        """Poll until ``stop``; each update is handled in its own task."""
        loop = asyncio.get_running_loop()
        delay = 1.0
        while not self._stop.is_set():
            try:
                updates = await self._poll(wait=0 if self._in_hand else self.timeout)
                if updates is None:
                    break  # stopping
            except TimedOut:
                continue
            except Exception as exc:  # polling must outlive any one bad answer
                if isinstance(exc, TelegramError):
                    # One line, no traceback: a Telegram outage is not a bug of the bot.
                    wait = exc.retry_after if isinstance(exc, RetryAfter) else delay
                    seconds = (
                        wait.total_seconds() if hasattr(wait, "total_seconds") else float(wait)
                    )
                    log.warning("polling: %s; again in %.0f s", _describe(exc), seconds)
                else:
                    seconds = delay
                    log.exception("polling failed; again in %.0f s", seconds)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), seconds)
                delay = min(delay * 2, 30.0)
                continue
            delay = 1.0
            now = loop.time()
            for update in updates:
                if self._next is not None and update.update_id < self._next:
                    continue  # in hand already, or handled and not yet confirmed
                self._next = update.update_id + 1
                task = loop.create_task(handle(self.application, update))
                self._in_hand[update.update_id] = (task, now)
            if self._in_hand:
                tasks = [task for task, _ in self._in_hand.values()]
                await asyncio.wait(tasks, timeout=HOLD)
            self._settle(loop.time())

    def stop(self) -> None:
        """Take no more updates (those in hand go on)."""
        self._stop.set()

    async def finish(self) -> None:
        """Wait for the updates in hand, then tell Telegram they are done (one call that asks
        for nothing new). Cancelled by the caller's time limit, the rest is simply not
        confirmed: the next start gets those updates again."""
        pending = [task for task, _ in self._in_hand.values()] + list(self._let_go)
        if pending:
            await asyncio.wait(pending)
        self._settle(asyncio.get_running_loop().time())
        if self._next is not None:
            with contextlib.suppress(TelegramError):
                await self.application.bot.get_updates(offset=self.offset, limit=1, timeout=0)

    async def _poll(self, wait: int) -> tuple[Update, ...] | None:
        """The next updates, or None once ``stop`` was called (the call under way is left)."""
        poll = asyncio.ensure_future(
            self.application.bot.get_updates(
                offset=self.offset, timeout=wait, allowed_updates=self.allowed_updates
            )
        )
        stopping = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({poll, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if not poll.done():
            poll.cancel()
            with contextlib.suppress(asyncio.CancelledError, TelegramError):
                await poll
            return None
        updates: tuple[Update, ...] = poll.result()
        return updates

    def _settle(self, now: float) -> None:
        for update_id, (task, since) in list(self._in_hand.items()):
            if task.done():
                del self._in_hand[update_id]
                if not task.cancelled() and task.exception() is not None:
                    log.error("update %s failed", update_id, exc_info=task.exception())
            elif now - since > GIVE_UP:
                log.warning("update %s still in hand after %.0f s: confirmed", update_id, GIVE_UP)
                del self._in_hand[update_id]
                self._let_go.add(task)
                task.add_done_callback(self._let_go.discard)


def _describe(exc: TelegramError) -> str:
    if isinstance(exc, Conflict):
        return f"another process polls this token or a webhook is set ({exc.message})"
    if isinstance(exc, InvalidToken):
        return "Telegram rejects the token"
    return f"Telegram does not answer ({exc.message})"
