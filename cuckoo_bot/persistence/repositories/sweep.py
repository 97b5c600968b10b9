"""What the sweeper would find (``ports.SweepRepository``), asked in one statement.

The sweeper runs every two seconds, all day. Its reads (the games due, the chats held back,
the chats in doubt, the notices not delivered, the second copies) found nothing on nearly every
run, yet each cost a statement: on PostgreSQL about 400 µs of the bot's CPU each, measured
(SQLAlchemy's execution and asyncpg's protocol, not the query). Here each becomes an
``EXISTS`` over the same rows its repository reads, and the five share one ``SELECT``; the
sweeper then reads only what is there (``app/sweep.py``).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import bindparam, exists, or_, select

from cuckoo_bot.app.ports import Pending
from cuckoo_bot.persistence.models import (
    TIMED_STATUSES,
    FloodWaitRow,
    GameRow,
    MessageRow,
    OutboxRow,
)
from cuckoo_bot.persistence.repositories import stalls
from cuckoo_bot.persistence.repositories.store import Store
from cuckoo_bot.persistence.types import UtcDateTime


@cache
def _pending() -> Any:
    """The five questions as one statement, built once, ``now`` bound at each run. Each
    matches its repository's read: ``SqlGames.due``, ``SqlChats.held``,
    ``SqlMessages.doubts``, ``SqlOutbox``'s undelivered notices (the partial index
    ``ix_outbox_pending`` holds just those rows) and ``stalls.copies``."""
    now = bindparam("now", type_=UtcDateTime)
    # One comparison a status, not ``IN``: an ``IN`` list is expanded at every run, and the
    # driver's own path (``direct.py``) leaves such a statement to the session.
    timed = or_(*(GameRow.status == status for status in TIMED_STATUSES))
    return select(
        exists().where(timed, or_(GameRow.deadline <= now, GameRow.warn_at <= now)).label("due"),
        exists().where(FloodWaitRow.until > now).label("held"),
        exists().where(MessageRow.message_id.is_(None)).label("doubts"),
        exists().where(OutboxRow.sent_at.is_(None)).label("unsent"),
        stalls.copies(1).exists().label("copies"),
    )


class SqlSweep:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def pending(self, now: datetime) -> Pending:
        (found,) = await self._s.fetch(_pending(), {"now": now})
        return Pending(
            due=bool(found.due),
            held=bool(found.held),
            doubts=bool(found.doubts),
            unsent=bool(found.unsent),
            copies=bool(found.copies),
        )
