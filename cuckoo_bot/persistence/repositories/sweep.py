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

from sqlalchemy import bindparam, exists, select

from cuckoo_bot.app.ports import Pending
from cuckoo_bot.persistence.models import OutboxRow
from cuckoo_bot.persistence.repositories import stalls
from cuckoo_bot.persistence.repositories.chats import held_at
from cuckoo_bot.persistence.repositories.games import due_at
from cuckoo_bot.persistence.repositories.messages import IN_DOUBT
from cuckoo_bot.persistence.repositories.store import Store
from cuckoo_bot.persistence.types import UtcDateTime


@cache
def _pending() -> Any:
    """The five questions as one statement, built once, ``now`` bound at each run. Each asks
    what its repository's read reads: ``games.due_at``, ``chats.held_at``,
    ``messages.IN_DOUBT``, the notices not delivered (the partial index ``ix_outbox_pending``
    holds just those rows) and ``stalls.copies``."""
    now = bindparam("now", type_=UtcDateTime)
    return select(
        exists().where(due_at(now)).label("due"),
        exists().where(held_at(now)).label("held"),
        exists().where(IN_DOUBT).label("doubts"),
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
