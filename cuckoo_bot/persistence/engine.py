"""The async engine: SQLite (aiosqlite) for one instance, PostgreSQL (asyncpg) for more."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
import weakref
from pathlib import Path
from typing import Any

import aiosqlite
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from cuckoo_bot.persistence.direct import LOST_POOLS, Statement

logger = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_MS = 15_000
# Connections kept open, and the most at once (the default 5 + 10). Past the pool's default
# five, every unit of work at a busy moment opened a connection of its own and closed it after:
# on SQLite a thread, a file handle and four PRAGMAs each time; on PostgreSQL a TCP connection,
# its TLS offer, the startup, the JSON codecs' setup and every statement prepared anew. Past
# them a unit of work waits in the pool's queue.
POOL_SIZE = 15
# A pooled PostgreSQL connection idle for longer than this is pinged before it is used again
# (``_ping_when_idle``); one used more recently is trusted.
PING_WHEN_IDLE_FOR = 5.0  # seconds
_USED_AT = "cuckoo_used_at"  # in a pooled connection's ``info``: when it was last given back
# A SQLite file's writers take turns here (``write_gate``), one turn per engine, kept by its
# dialect: shared by every engine derived with ``execution_options``, and kept through
# ``dispose`` (which makes a new pool).
_GATES: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()
# How a transaction begins, as an execution option of the engine it runs on (see ``_on_begin``).
BEGIN = "cuckoo_begin"
BEGIN_WRITE = "immediate"  # takes SQLite's write lock up front
BEGIN_READ = "deferred"  # reads only: no write lock
BEGIN_NONE = "none"  # no transaction: each statement commits by itself (one write)
_ASYNC_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "postgresql+psycopg2": "postgresql+asyncpg",
    "postgresql+psycopg": "postgresql+asyncpg",
}


def async_url(url: str | URL) -> URL:
    """``sqlite://`` and ``postgresql://`` URLs rewritten to the async drivers."""
    parsed = make_url(url)
    driver = _ASYNC_DRIVERS.get(parsed.drivername, parsed.drivername)
    if driver not in ("sqlite+aiosqlite", "postgresql+asyncpg"):
        raise ValueError(
            f"unsupported database URL scheme {parsed.drivername!r}:"
            " use sqlite+aiosqlite:// or postgresql+asyncpg://"
        )
    return parsed.set(drivername=driver)


def make_engine(url: str | URL, *, foreign_keys: bool = True, **kwargs: Any) -> AsyncEngine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and ``BEGIN IMMEDIATE``.

    ``foreign_keys=False`` is for migrations only: SQLite alters a table by copying it and
    dropping the old one, and with foreign keys on, that drop would cascade to its children.
    """
    parsed = async_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, foreign_keys=foreign_keys, **kwargs)
    if "poolclass" not in kwargs:  # a pool of another kind may not take these
        kwargs.setdefault("pool_size", POOL_SIZE)
        kwargs.setdefault("max_overflow", 0)
    engine = create_async_engine(parsed, **kwargs)
    if not kwargs.get("pool_pre_ping"):
        _ping_when_idle(engine)
    return engine


def _ping_when_idle(engine: AsyncEngine) -> None:
    """Ping a pooled connection before it is used again only if it lay idle for longer than
    ``PING_WHEN_IDLE_FOR``: a connection the database or the network dropped meanwhile is
    replaced, as the pool's ``pre_ping`` would.

    ``pre_ping`` pings at every checkout, and asyncpg's ping is three round trips (BEGIN, an
    empty query, ROLLBACK): measured here, 100-180 µs of CPU on each of the three or four units
    of work a press opens. A connection used moments ago is trusted instead; if the server went
    away since, its first statement fails as a disconnect, SQLAlchemy replaces every pooled
    connection (for a statement run on the driver directly, ``direct.py`` names the pool in
    ``LOST_POOLS`` and the next checkout here has them replaced), and the update it served
    is answered "try again" (``handlers.on_error``), as it is when the server goes away in
    the middle of a unit of work with ``pre_ping`` too.
    """
    dialect = engine.sync_engine.dialect

    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        pool = engine.sync_engine.pool
        if pool in LOST_POOLS:  # a statement on the driver met a lost connection
            LOST_POOLS.discard(pool)
            raise exc.InvalidatePoolError("a statement found a connection of the pool lost")
        used_at = record.info.get(_USED_AT)  # none yet: a new connection, nothing to check
        if used_at is None or time.monotonic() - used_at <= PING_WHEN_IDLE_FOR:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except Exception as error:  # any failure: the pool replaces its every connection
            raise exc.InvalidatePoolError(f"an idle connection failed its ping: {error}") from error

    @event.listens_for(engine.sync_engine, "checkin")
    def _on_checkin(dbapi_connection: Any, record: Any) -> None:
        record.info[_USED_AT] = time.monotonic()


def write_gate(engine: AsyncEngine) -> asyncio.Lock | None:
    """The lock a unit of work that may write holds from its start to its end, on a SQLite
    file (None on PostgreSQL, whose writers lock rows, and on an in-memory SQLite).

    A SQLite file's statements run on the event loop's own thread (``_InlineSqlite``): a writer
    that met another's write lock would wait in SQLite's busy handler with the whole loop, and
    the writer holding it could never go on to release it. So writers take turns here first,
    in the order they came (``asyncio.Lock`` is first come, first served), and never meet in
    SQLite; readers (WAL) take no turn at all.
    """
    return _GATES.get(engine.sync_engine.dialect)


class _InlineSqlite(aiosqlite.Connection):
    """aiosqlite's connection with each call made at once, on the event loop's thread.

    aiosqlite runs every call on a thread of its own, and SQLAlchemy's adapter makes four calls
    a statement (cursor, execute, fetch, close): four trips through a queue, a futex and the
    loop's wake-up, with the GIL passed back and forth, for a statement whose own work takes
    microseconds. Measured together with ``benchmarks/cpu.py`` at 10 tables: 23.3 ms of CPU a
    press through the thread, 16.2 ms inline. No kept library runs SQLite inline under
    SQLAlchemy's asyncio, so this override of aiosqlite's one dispatch method does it; the
    thread is still started, idle but for the adapter's isolation-level call. A wait in SQLite
    would now hold the loop: this process's writers never meet in it (``write_gate``); another
    process writing the same file (a migration, a second instance, which SQLite is not for)
    holds it for at most ``SQLITE_BUSY_TIMEOUT_MS``.
    """

    async def _execute(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._running or not self._connection:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)

    @property
    def inline(self) -> sqlite3.Connection:
        """The ``sqlite3`` connection itself, for statements run on it directly (``direct.py``)."""
        return self._conn


def inline_sqlite(driver_connection: Any) -> sqlite3.Connection | None:
    """The ``sqlite3`` connection under a pooled connection's driver connection, if it runs on
    the loop's thread (a SQLite file); None otherwise (aiosqlite's thread, asyncpg)."""
    return driver_connection.inline if isinstance(driver_connection, _InlineSqlite) else None


async def _inline_connect(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
    """SQLAlchemy's aiosqlite connect, but to an ``_InlineSqlite``: the same arguments (the
    URL's), and the connection usable from the loop's thread as well as aiosqlite's own."""
    kwargs["check_same_thread"] = False

    def connector() -> sqlite3.Connection:
        connection: sqlite3.Connection = sqlite3.connect(*args, **kwargs)
        return connection

    connection = _InlineSqlite(connector, iter_chunk_size=64)
    connection._thread.daemon = True  # as SQLAlchemy marks aiosqlite's own
    return await connection


def _sqlite_file(url: URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _sqlite_engine(url: URL, *, foreign_keys: bool, **kwargs: Any) -> AsyncEngine:
    path = _sqlite_file(url)
    if path is not None:
        path.expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        kwargs.setdefault("pool_size", POOL_SIZE)
        kwargs.setdefault("max_overflow", 0)
    engine = create_async_engine(url, **kwargs)
    if path is not None:
        _GATES[engine.sync_engine.dialect] = asyncio.Lock()

        @event.listens_for(engine.sync_engine, "do_connect")
        def _on_do_connect(dialect: Any, record: Any, cargs: Any, cparams: dict[str, Any]) -> None:
            cparams["async_creator_fn"] = _inline_connect  # SQLAlchemy's connect calls it

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # The driver must not emit its own BEGIN: ``_on_begin`` does, as BEGIN IMMEDIATE.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA synchronous=NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN, BEGIN_WRITE)
        if mode == BEGIN_WRITE:
            # Take the write lock up front: two writers queue instead of failing on upgrade.
            _begin(connection, "BEGIN IMMEDIATE")
        elif mode == BEGIN_READ:
            _begin(connection, "BEGIN")  # one snapshot for all reads, no write lock

    return engine


def _begin(connection: Connection, sql: str) -> None:
    """``sql`` on the connection's driver directly if it runs inline (``direct.py``: a unit of
    work's fixed cost), through SQLAlchemy otherwise; heard by the cursor listeners either way."""
    raw = inline_sqlite(connection.connection.driver_connection)
    if raw is None:
        connection.exec_driver_sql(sql)
        return
    with Statement(raw, connection, sql, None) as cursor:
        cursor.execute(sql)
