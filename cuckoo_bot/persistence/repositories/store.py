"""What every repository of one unit of work shares: the session, the dialect, the clock and
this instance's name for outbox claims."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import (
    Executable,
    Select,
    Table,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, CursorResult
from sqlalchemy.ext.asyncio import AsyncSession

from cuckoo_bot.app.tuning import LEASE
from cuckoo_bot.persistence.direct import Direct, Params
from cuckoo_bot.persistence.engine import inline_sqlite

Row = TypeVar("Row")
T = TypeVar("T")
Now = Callable[[], datetime]
_FRESH = {"populate_existing": True}


def table_of(model: type[Any]) -> Table:
    """A model's table: statements run with many parameter sets go through Core, one
    ``executemany`` each (the ORM would read rows back by primary key)."""
    return cast(Table, model.__table__)


def dialect_insert(dialect: str, table: Any) -> Any:
    """``dialect``'s INSERT, which knows ON CONFLICT."""
    if dialect == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


class Prefixed:
    """The columns of a Core row whose names begin with ``prefix``, by their names without it:
    a joined table's part of the row, for the mapping functions, which read columns by name."""

    __slots__ = ("_prefix", "_row")

    def __init__(self, row: Any, prefix: str) -> None:
        self._row, self._prefix = row, prefix

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, self._prefix + name)


@dataclass(frozen=True)
class Store:
    """What every repository of one unit of work shares."""

    session: AsyncSession
    dialect: str
    now: Now
    instance: str = "local"  # who claims outbox notices (several instances share a database)
    lease: timedelta = LEASE  # how long a claim holds without being renewed
    # The games this unit of work wrote: once it commits, whoever watches them hears of it.
    changed: set[int] = field(default_factory=set)
    # The session's transaction and its connection run directly (``direct.py``): a SQLite
    # file's ``Direct``, PostgreSQL's ``AsyncConnection``, or None.
    _inline: list[Any] = field(default_factory=lambda: [None, None])

    def insert(self, table: Any) -> Any:
        """The dialect's INSERT, which knows ON CONFLICT."""
        return dialect_insert(self.dialect, table)

    async def rows(self, query: Select[Row], params: dict[str, Any] | None = None) -> list[Row]:
        # populate_existing: a row read again in the same session reflects UPDATE statements.
        result = await self.session.scalars(query, params, execution_options=_FRESH)
        return list(result.all())

    async def row(self, query: Select[Row]) -> Row | None:
        found = await self.rows(query)
        return found[0] if found else None

    async def fetch(self, statement: Any, params: Params = None) -> list[Any]:
        """The rows of ``statement``, built once (``functools.cache``): run on the driver's
        connection (``direct.py``) where it can be, otherwise through the session."""
        found = await self._run(Direct.fetch, statement, params)
        if found is not None:
            return found
        return list((await self.session.execute(statement, params)).all())

    async def write(self, statement: Any, params: Params = None) -> int:
        """The rows ``statement`` (built once) changed, run as ``fetch`` runs it."""
        changed = await self._run(Direct.write, statement, params)
        if changed is not None:
            return changed
        return await self.rowcount(statement, params)

    async def _run(
        self, run: Callable[[Direct, Any, Params], T], statement: Any, params: Params
    ) -> T | None:
        """``run`` on this transaction's driver connection, once the session has begun it: a
        SQLite file's ``sqlite3`` connection at once, on the loop's thread; on PostgreSQL,
        SQLAlchemy's asyncpg adapter (the pool's DBAPI connection), inside one greenlet of
        ``AsyncConnection.run_sync``, as the session's own execution ends. None: the
        statement is left to the session (an in-memory SQLite, or what ``direct`` cannot
        run)."""
        held = self._inline
        transaction = self.session.sync_session.get_transaction()
        if transaction is None or transaction is not held[0]:
            connection = await self.session.connection()  # begins the transaction
            if self.dialect == "postgresql":
                way: Any = connection
            else:
                raw = inline_sqlite((await connection.get_raw_connection()).driver_connection)
                sync = connection.sync_connection
                way = None if raw is None or sync is None else Direct(raw, sync)
            held[:] = [self.session.sync_session.get_transaction(), way]
        way = held[1]
        if way is None:
            return None
        if isinstance(way, Direct):
            return run(way, statement, params)
        return cast(T | None, await way.run_sync(_on_adapter, run, statement, params))

    async def rowcount(self, statement: Executable, params: Params = None) -> int:
        """The rows ``statement`` changed, through the session (a statement built at each call;
        with a list of parameter sets, an ``executemany``)."""
        result = await self.session.execute(statement, params)
        return cast(CursorResult[Any], result).rowcount


def _on_adapter(
    sync: Connection, run: Callable[[Direct, Any, Params], T], statement: Any, params: Params
) -> T | None:
    """``run`` on a PostgreSQL connection's DBAPI connection (SQLAlchemy's asyncpg adapter),
    called by ``run_sync`` in its greenlet."""
    return run(Direct(sync.connection.dbapi_connection, sync), statement, params)
