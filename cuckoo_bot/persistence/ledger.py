"""Telegram's limits shared by several instances on one PostgreSQL (``ports.CallLedger``).

A group's budget (20 calls a minute) is one row holding the times of its latest calls: taking a
call is one ``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` that appends the time only while the
window has room and Telegram holds the group back (``flood_waits``) no longer. PostgreSQL locks
the row and evaluates the condition on its newest version, so
two instances calling at once never both take the last call. A call costs this one statement
(two when refused); a group gets at most 20 calls a minute, so the ledger adds at most 20
statements a minute per busy group. The instances alive (``instances``, a row each, renewed every
few seconds: one statement) split the overall rate; rows of instances gone a day are deleted
now and then.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

_TAKE = text(
    """
    INSERT INTO group_budgets (chat_id, calls) VALUES (:chat, ARRAY[CAST(:now AS float8)])
    ON CONFLICT (chat_id) DO UPDATE
    SET calls = array_append(
        ARRAY(SELECT c FROM unnest(group_budgets.calls) AS c WHERE c > :since), :now)
    WHERE (SELECT count(*) FROM unnest(group_budgets.calls) AS c WHERE c > :since) < :rate
    AND NOT EXISTS (SELECT 1 FROM flood_waits WHERE chat_id = :chat AND until > :at)
    RETURNING calls
    """
)
_SPEND = text(
    """
    INSERT INTO group_budgets (chat_id, calls) VALUES (:chat, ARRAY[CAST(:now AS float8)])
    ON CONFLICT (chat_id) DO UPDATE
    SET calls = array_append(
        ARRAY(SELECT c FROM unnest(group_budgets.calls) AS c WHERE c > :since), :now)
    RETURNING calls
    """
)
_WINDOW = text(
    """
    SELECT (SELECT calls FROM group_budgets WHERE chat_id = :chat),
           (SELECT until FROM flood_waits WHERE chat_id = :chat AND until > :at)
    """
)
# The beat and the count in one statement: PostgreSQL runs a data-modifying WITH to its end
# whether or not the query reads it, and the query sees the table as before the beat, so it
# counts the others alive and adds this one.
_ALIVE = text(
    """
    WITH beat AS (
        INSERT INTO instances (name, seen_at) VALUES (:name, :now)
        ON CONFLICT (name) DO UPDATE SET seen_at = excluded.seen_at
        RETURNING name
    )
    SELECT 1 + count(*) FROM instances WHERE seen_at > :since AND name <> :name
    """
)
_FORGET = text("DELETE FROM instances WHERE seen_at < :long_ago")
FORGET_EVERY = 300  # beats (10 minutes at one every 2 s)


class SqlCallLedger:
    """The ledger on PostgreSQL; each statement commits by itself."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self._beats = 0

    async def take(
        self, chat_id: int, now: float, rate: int, period: float
    ) -> tuple[bool, list[float], datetime | None]:
        at = datetime.fromtimestamp(now, UTC)
        params = {"chat": chat_id, "now": now, "since": now - period, "rate": rate, "at": at}
        async with self._engine.connect() as connection:
            taken = (await connection.execute(_TAKE, params)).scalar_one_or_none()
            if taken is not None:
                return True, list(taken), None
            found = (await connection.execute(_WINDOW, {"chat": chat_id, "at": at})).one()
        window, held = found
        return False, [c for c in window or () if c > now - period], held

    async def spend(self, chat_id: int, now: float, period: float) -> list[float]:
        params = {"chat": chat_id, "now": now, "since": now - period}
        async with self._engine.connect() as connection:
            return list((await connection.execute(_SPEND, params)).scalar_one())

    async def alive(self, instance: str, now: datetime, within: timedelta) -> int:
        params = {"name": instance, "now": now, "since": now - within}
        async with self._engine.connect() as connection:
            count = (await connection.execute(_ALIVE, params)).scalar_one()
            if self._beats % FORGET_EVERY == 0:
                await connection.execute(_FORGET, {"long_ago": now - timedelta(days=1)})
            self._beats += 1
        return max(int(count), 1)
