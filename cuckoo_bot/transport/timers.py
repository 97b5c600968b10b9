"""Deadlines: PTB's JobQueue wakes the bot at a game's deadline; the database holds the truth.

Each open game has at most one timer, re-armed after every move and at start-up. A sweeper
also runs every few seconds and expires whatever is overdue, so a missed or lost timer (a
restart, another instance) only ever delays a timeout, never loses it. A renewer, on its own
job so that a long sweep never lets them lapse, keeps this instance's claims on the notices in
its hands.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Protocol

from telegram.ext import ContextTypes, JobQueue

log = logging.getLogger(__name__)

SWEEPER, RENEWER = "sweeper", "renewer"  # the repeating jobs, by their names in the log
ONE_AT_A_TIME = (SWEEPER, RENEWER)  # a run is skipped while the one before still runs


class Clockwork(Protocol):
    """What the timers run (``upkeep.Upkeep``)."""

    async def expire(self, game_id: int) -> None: ...

    async def sweep(self) -> None: ...

    async def renew(self) -> None: ...


class Timers:
    def __init__(
        self,
        job_queue: JobQueue[Any] | None,
        sweep_every: float = 2.0,
        renew_every: float = 2.0,
    ) -> None:
        self.job_queue = job_queue
        self.sweep_every = sweep_every
        self.renew_every = renew_every
        self.work: Clockwork | None = None  # given at start

    def start(self, work: Clockwork) -> None:
        """From now on deadlines fire ``work.expire``, and the sweeper and the renewer run."""
        self.work = work
        if self.job_queue is not None:
            self.job_queue.run_repeating(
                self._sweep, interval=self.sweep_every, first=self.sweep_every, name=SWEEPER
            )
            self.job_queue.run_repeating(
                self._renew, interval=self.renew_every, first=self.renew_every, name=RENEWER
            )

    def arm(self, game_id: int, deadline: datetime) -> None:
        if self.job_queue is None:
            return
        name = f"deadline-{game_id}"
        for job in self.job_queue.get_jobs_by_name(name):
            job.schedule_removal()
        self.job_queue.run_once(self._fire, when=deadline, data=game_id, name=name)

    async def _fire(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        job = context.job
        # Before the start a deadline waits for the sweeper, which finds every overdue one.
        if self.work is not None and job is not None and isinstance(job.data, int):
            await self.work.expire(job.data)

    async def _sweep(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert self.work is not None  # started
        try:
            await self.work.sweep()
        except Exception:  # the sweeper must survive a bad moment (database restart, network)
            log.exception("sweep failed")

    async def _renew(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert self.work is not None  # started
        try:
            await self.work.renew()
        except Exception:
            log.exception("renewing the claims failed")
