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
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncSession

from cuckoo_bot.app.tuning import LEASE

Row = TypeVar("Row")
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

    async def rowcount(self, statement: Executable, params: dict[str, Any] | None = None) -> int:
        result = await self.session.execute(statement, params)
        return cast(CursorResult[Any], result).rowcount
