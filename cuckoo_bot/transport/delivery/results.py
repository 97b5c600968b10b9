"""What became of each notice a lane handled and of the messages it showed (``LaneResult``,
which the courier hands to the app as a report), and one batch's lanes (``Marks``), marked
early while one waits for its chat's pace."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime

from cuckoo_bot.app import outbox
from cuckoo_bot.app.notices import Delivered, Notice, SentMessage
from cuckoo_bot.transport.delivery.tools import Tools

log = logging.getLogger(__name__)


@dataclass
class LaneResult:
    delivered: list[Delivered] = field(default_factory=list)
    unreachable: list[Notice] = field(default_factory=list)  # private notices refused (403)
    migrated: list[tuple[int, int]] = field(default_factory=list)  # (old chat id, new chat id)
    waiting: bool = False  # notices left for a later run; later ones must wait behind them
    deferred: bool = False  # an update that can wait was left for a later run
    messages: list[SentMessage] = field(default_factory=list)  # messages sent or edited
    flushed: int = 0  # ``delivered[:flushed]`` are marked already (before a wait)

    finished: set[int] = field(default_factory=set)  # notices with an outcome recorded

    def unmarked(self) -> list[Delivered]:
        return self.delivered[self.flushed :]

    def skip(self, notice: Notice, why: str) -> None:
        self.finished.add(notice.id)
        self.delivered.append(Delivered(notice.id, error=why, tries=0))

    def failed(self, notice: Notice, exc: Exception, now: datetime, chat_id: int) -> None:
        """An error nobody expected (a fault of ours, an answer Telegram does not usually
        give): this notice is tried again later and given up after a few tries; the notices
        behind it go on."""
        if notice.id in self.finished:
            log.exception("tidying up after notice %s failed", notice.id, exc_info=exc)
            return
        self.finished.add(notice.id)
        done = outbox.failed(notice, f"{type(exc).__name__}: {exc}", now)
        if done.retry_at is None:
            log.error("notice %s to chat %s: %s", notice.id, chat_id, done.error, exc_info=exc)
        else:
            log.warning(
                "notice %s to chat %s failed (try %s), again at %s: %r",
                notice.id,
                chat_id,
                notice.attempts + 1,
                done.retry_at.isoformat(timespec="seconds"),
                exc,
                exc_info=exc,
            )
        self.delivered.append(done)

    def refused(self, notice: Notice, why: str) -> None:
        log.warning("notice %s refused: %s", notice.id, why)
        if notice.id in self.finished:
            return  # shown already; what failed was tidying up after it
        self.finished.add(notice.id)
        self.delivered.append(Delivered(notice.id, error=why))


@dataclass
class Marks:
    """What every lane of one batch has done so far. The courier settles a batch once all its
    lanes are done; while one of them waits for its chat's pace, nothing the batch showed
    stays unmarked (a quicker lane's messages, the group's or another player's), so a crash
    during the wait cannot show any of it again."""

    results: list[LaneResult] = field(default_factory=list)
    waiting: int = 0  # lanes waiting for their chat's pace now

    async def mark(self, tools: Tools) -> None:
        """One statement for what the batch's lanes showed and nobody marked yet (none when
        there is nothing). What it marks is taken before it waits for the database, so two
        lanes marking at once never mark one outcome twice (its tries would count twice);
        should the statement fail, it is left for the batch's settling."""
        taken = [(result, result.flushed, len(result.delivered)) for result in self.results]
        done = [d for result, start, end in taken for d in result.delivered[start:end]]
        if not done:
            return
        for result, _, end in taken:
            result.flushed = end
        try:
            await outbox.mark(tools.deps, done)
        except BaseException:
            for result, start, end in taken:
                if result.flushed == end:
                    result.flushed = start
            raise

    @contextlib.asynccontextmanager
    async def pause(self, tools: Tools) -> AsyncIterator[None]:
        """A lane is about to wait: what the batch showed is marked first."""
        await self.mark(tools)
        self.waiting += 1
        try:
            yield
        finally:
            self.waiting -= 1

    async def lane_done(self, tools: Tools) -> None:
        """A lane has finished while another still waits: what it showed is marked now."""
        if self.waiting:
            await self.mark(tools)
