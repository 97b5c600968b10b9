"""The courier's work in the background: each delivery a task, waited for at shutdown, or
cut at once (as a process killed would be)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def closing(self) -> None:
        """No later work is started (wake-ups are dropped)."""

    @property
    def busy(self) -> bool:
        """Deliveries are under way."""
        return bool(self._tasks)

    async def drain(self, within: float | None = None) -> None:
        """Wait for deliveries under way (at shutdown); later wake-ups are dropped. After
        ``within`` seconds the rest is cancelled: what was shown is marked, what was not stays
        in the outbox for the next instance (nothing is lost, at worst shown again)."""
        self.closing()
        loop = asyncio.get_running_loop()
        until = None if within is None else loop.time() + within
        while self._tasks:
            left = None if until is None else until - loop.time()
            if left is not None and left <= 0:
                for task in self._tasks:
                    task.cancel()
                await asyncio.gather(*list(self._tasks), return_exceptions=True)
                break
            await asyncio.wait(list(self._tasks), timeout=left)

    def kill(self) -> None:
        """Every delivery under way stops where it stands, its calls in flight cut (a test's
        SIGKILL; what was shown and not marked is the next owner's to reconcile)."""
        self.closing()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("delivery failed; the sweeper retries", exc_info=task.exception())
