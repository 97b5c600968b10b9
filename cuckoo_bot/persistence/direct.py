"""A press's hot statements run on the driver's own connection, compiled once.

Measured (``benchmarks/layers.py``; the figures are in the development notes): a small
statement by key costs about ten times more CPU through ``AsyncSession.execute`` than in
``sqlite3`` alone, on the same connection, and a press runs a dozen of them. The difference
is SQLAlchemy's work at every execution (the session, the execution context, the result's
metadata, the asyncio adapter's greenlet switches), which its compiled cache does not remove.
No kept library runs a compiled SQLAlchemy statement on the DBAPI connection without that
context, so this module does only that, for statements built once (``functools.cache``):

- the statement is compiled by SQLAlchemy, once per set of parameter names, as SQLAlchemy
  itself would compile it for ``execute`` (the same ``column_keys``);
- each parameter goes through its type's bind processor, each column read through its type's
  result processor (``TypeEngine.dialect_impl``), as SQLAlchemy's execution would;
- rows come back as named tuples (attribute access by the column's name, as ``Row``);
- the engine's ``before_cursor_execute`` and ``after_cursor_execute`` listeners hear each
  statement (the statement counts, the metrics), an ``executemany`` as one;
- a driver error is raised as SQLAlchemy's (``DBAPIError.instance``: ``IntegrityError`` ...),
  and a lost connection invalidated with every other of its pool, as its execution does;
- a write whose rows are not read is compiled as for an ``executemany``: on PostgreSQL an
  INSERT of one row then returns no new key (SQLAlchemy would add ``RETURNING id``).

It runs inside the unit of work's own transaction: the connection is the one its session
began and commits. On a SQLite file it is the ``sqlite3`` connection itself, run on the loop's
thread (``engine._InlineSqlite``; the session began it with ``BEGIN IMMEDIATE``). On
PostgreSQL it is the pool's DBAPI connection, SQLAlchemy's asyncpg adapter, called inside one
greenlet of ``AsyncConnection.run_sync`` (the repositories' ``Store._run``): the adapter
begins the transaction at the first statement, prepares each statement once on its
connection and awaits asyncpg, as it does under the session; what is skipped is SQLAlchemy's
execution around it. A statement this cannot run as SQLAlchemy would (expanding or
post-compiled parameters, Python-side defaults, column names that are not identifiers) is
left to the session: ``prepare`` says None. An in-memory SQLite (aiosqlite's thread) goes
through the session.
"""

from __future__ import annotations

import weakref
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache
from sqlalchemy import exc
from sqlalchemy.engine import Connection, Dialect

Params = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None

# The pools a statement run here found a connection of lost (the server restarted, the network
# cut): every connection of theirs is replaced before its next use (``engine._ping_when_idle``
# raises SQLAlchemy's ``InvalidatePoolError`` at the next checkout), as SQLAlchemy's own
# execution does at a disconnect through a private method of the pool.
LOST_POOLS: weakref.WeakSet[Any] = weakref.WeakSet()
Processor = Callable[[Any], Any] | None

# Compiled statements kept, by the statement and its parameters' names (a statement holds its
# place in the cache, so its id is not reused while it is kept).
_KEPT: LRUCache[tuple[int, str, tuple[str, ...], bool], tuple[Any, Prepared | None]] = LRUCache(512)


@dataclass(frozen=True, slots=True)
class Slot:
    """One ``?`` of the SQL: the parameter that fills it (None: the statement's own value
    ``fixed``), and its type's bind processor."""

    key: str | None
    fixed: Any
    process: Processor


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled for the driver: its SQL, what fills each ``?``, and its rows' shape
    (None: it returns none)."""

    sql: str
    slots: tuple[Slot, ...]
    row: Callable[..., tuple[Any, ...]] | None
    results: tuple[Processor, ...]
    processed: bool  # some column has a result processor

    def parameters(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        values = []
        for slot in self.slots:
            if slot.key is None:
                value = slot.fixed
            elif slot.key in params:
                value = params[slot.key]
            else:  # as SQLAlchemy says it
                raise exc.InvalidRequestError(f"A value is required for parameter {slot.key!r}")
            values.append(value if slot.process is None else slot.process(value))
        return tuple(values)

    def rows(self, found: list[tuple[Any, ...]]) -> list[Any]:
        make, results = self.row, self.results
        assert make is not None
        if not self.processed:
            return [make(*row) for row in found]
        return [
            make(*[value if p is None else p(value) for p, value in zip(results, row, strict=True)])
            for row in found
        ]


def prepare(
    statement: Any, dialect: Dialect, keys: Sequence[str], *, rows: bool = True
) -> Prepared | None:
    """``statement`` compiled for ``dialect`` with the parameter names ``keys``, kept; None if
    it needs more of SQLAlchemy's execution than this does. ``rows=False``: a write whose
    rows are not read (an INSERT then returns no new key, as in an ``executemany``)."""
    names = tuple(sorted(keys))
    key = (id(statement), dialect.name, names, rows)
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is statement:
        return kept[1]
    prepared = _compile(statement, dialect, names, rows)
    _KEPT[key] = (statement, prepared)
    return prepared


def _compile(
    statement: Any, dialect: Dialect, keys: tuple[str, ...], rows: bool
) -> Prepared | None:
    compiled: Any = statement.compile(
        dialect=dialect, column_keys=list(keys), for_executemany=not rows
    )
    if (
        compiled.positiontup is None
        or compiled.post_compile_params
        or compiled.literal_execute_params
        or compiled.insert_prefetch
        or compiled.update_prefetch
    ):
        return None
    slots = []
    for name in compiled.positiontup:
        bind = compiled.binds[name]
        if bind.expanding:
            return None
        given = bind.key in keys
        slots.append(
            Slot(
                key=bind.key if given else None,
                fixed=None if given else bind.effective_value,
                process=bind.type.dialect_impl(dialect).bind_processor(dialect),
            )
        )
    # The columns as the compiler rendered them, by the names SQLAlchemy's rows give them
    # (read from the compiled form, as SQLAlchemy's results do: asking the statement for its
    # ``exported_columns`` memoizes them on it, and a statement made from it later inherits
    # them stale).
    columns = [(column[0], column[3]) for column in compiled._result_columns]
    names = [name for name, _ in columns]
    row: Callable[..., tuple[Any, ...]] | None = None
    results: tuple[Processor, ...] = ()
    if columns:
        if any(not name.isidentifier() or name.startswith("_") for name in names):
            return None
        if len(set(names)) != len(names):
            return None
        row = _row_class(names)
        results = tuple(
            type_.dialect_impl(dialect).result_processor(dialect, None) for _, type_ in columns
        )
    return Prepared(compiled.string, tuple(slots), row, results, any(results))


def _row_class(names: list[str]) -> Callable[..., tuple[Any, ...]]:
    """A named tuple of ``names``: a row read by attribute, as SQLAlchemy's ``Row`` is (the
    names are known only here)."""
    made: Callable[..., tuple[Any, ...]] = namedtuple("Row", names)  # type: ignore[misc]
    return made


class Direct:
    """One unit of work's DBAPI connection, run directly (a SQLite file's ``sqlite3``
    connection, or SQLAlchemy's asyncpg adapter inside its greenlet): ``fetch`` and ``write``
    return None for a statement it leaves to the session."""

    def __init__(self, raw: Any, connection: Connection) -> None:
        self._raw = raw
        self._connection = connection  # SQLAlchemy's, for its listeners
        self._dialect = connection.dialect

    def fetch(self, statement: Any, params: Params) -> list[Any] | None:
        """The rows ``statement`` returns (with a list of parameter sets: every set's rows, in
        their order)."""
        many = _many(params)
        prepared = prepare(statement, self._dialect, list(many[0]) if many else ())
        if prepared is None or prepared.row is None:
            return None
        found: list[tuple[Any, ...]] = []
        with self._cursor(prepared, params) as cursor:
            for one in many or ({},):
                cursor.execute(prepared.sql, prepared.parameters(one))
                found.extend(cursor.fetchall())
        return prepared.rows(found)

    def write(self, statement: Any, params: Params) -> int | None:
        """The rows ``statement`` changed (with a list of parameter sets: all of them)."""
        many = _many(params)
        prepared = prepare(statement, self._dialect, list(many[0]) if many else (), rows=False)
        if prepared is None or prepared.row is not None:
            return None
        with self._cursor(prepared, params) as cursor:
            if many is not None and len(many) > 1:
                cursor.executemany(prepared.sql, [prepared.parameters(one) for one in many])
            else:
                cursor.execute(prepared.sql, prepared.parameters(many[0] if many else {}))
            return int(cursor.rowcount)

    def _cursor(self, prepared: Prepared, params: Params) -> Statement:
        return Statement(self._raw, self._connection, prepared.sql, params)


class Statement:
    """A cursor for one statement, its listeners told before and after, a driver error raised
    as SQLAlchemy's, and the cursor closed. A lost connection is invalidated, and its pool's
    others replaced before their next use, as SQLAlchemy's own execution does
    (``Connection.invalidate``, ``LOST_POOLS``)."""

    __slots__ = ("_connection", "_cursor", "_many", "_params", "_raw", "_sql")

    def __init__(self, raw: Any, connection: Connection, sql: str, params: Params) -> None:
        self._raw, self._connection, self._sql, self._params = raw, connection, sql, params
        self._many = isinstance(params, Sequence) and len(params) > 1
        self._cursor: Any = None

    def __enter__(self) -> Any:
        cursor = self._cursor = self._raw.cursor()
        dispatch = self._connection.dispatch
        if dispatch.before_cursor_execute:
            dispatch.before_cursor_execute(
                self._connection, cursor, self._sql, self._params, None, self._many
            )
        return cursor

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> None:
        cursor, self._cursor = self._cursor, None
        dialect = self._connection.dialect
        failed = dialect.loaded_dbapi.Error
        if isinstance(error, failed):
            lost = dialect.is_disconnect(error, self._raw, cursor)
            if lost:
                LOST_POOLS.add(self._connection.engine.pool)
                self._connection.invalidate(error)
            else:
                cursor.close()
            raise exc.DBAPIError.instance(
                self._sql,
                self._params,
                error,
                failed,
                dialect=dialect,
                connection_invalidated=lost,
            ) from error
        cursor.close()
        if error is None:
            dispatch = self._connection.dispatch
            if dispatch.after_cursor_execute:
                dispatch.after_cursor_execute(
                    self._connection, cursor, self._sql, self._params, None, self._many
                )


def _many(params: Params) -> Sequence[Mapping[str, Any]] | None:
    """The parameter sets (None: the statement takes none)."""
    if params is None:
        return None
    if isinstance(params, Mapping):
        return (params,)
    return params if params else None
