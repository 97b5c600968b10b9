"""Processed update ids: a redelivered Telegram update is a no-op."""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from typing import Any

from sqlalchemy import (
    bindparam,
    delete,
)

from cuckoo_bot.persistence.models import (
    ProcessedUpdateRow,
)
from cuckoo_bot.persistence.repositories.store import Store, dialect_insert, table_of

# Processed update ids are kept this long; a redelivery comes within seconds or minutes.
UPDATE_RETENTION = timedelta(days=1)
# Old ids are pruned when an update id is a multiple of this: about once per 256 updates.
UPDATES_PRUNE_EVERY = 256


@cache
def _recording(dialect: str) -> Any:
    """``first_time``'s INSERT in ``dialect``, for the parameters ``update_id`` and
    ``processed_at``: built once, as every update runs it."""
    rows = table_of(ProcessedUpdateRow)
    return (
        dialect_insert(dialect, rows)
        .values(update_id=bindparam("update_id"), processed_at=bindparam("processed_at"))
        .on_conflict_do_nothing(index_elements=[rows.c.update_id])
    )


class SqlUpdateLog:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def first_time(self, update_id: int) -> bool:
        now = self._s.now()
        inserted = await self._s.write(
            _recording(self._s.dialect), {"update_id": update_id, "processed_at": now}
        )
        if inserted and update_id % UPDATES_PRUNE_EVERY == 0:
            await self._s.session.execute(
                delete(ProcessedUpdateRow)
                .where(ProcessedUpdateRow.processed_at < now - UPDATE_RETENTION)
                .execution_options(synchronize_session=False)
            )
        return inserted == 1
