"""The async engine: SQLite (aiosqlite) for one instance, PostgreSQL (asyncpg) for more."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

logger = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_MS = 15_000
SQLITE_POOL_SIZE = 15  # connections kept open, and the most at once (the default 5 + 10)
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
    kwargs.setdefault("pool_pre_ping", True)
    return create_async_engine(parsed, **kwargs)


def _sqlite_file(url: URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _sqlite_engine(url: URL, *, foreign_keys: bool, **kwargs: Any) -> AsyncEngine:
    path = _sqlite_file(url)
    if path is not None:
        path.expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
        # Keep open the connections a busy bot uses at once: past the pool's default five,
        # every unit of work opened its own (a thread, a file handle and four PRAGMAs each
        # time). No more than before at once: a unit of work past them waits in the pool's
        # queue, not in SQLite's busy handler, whose sleeps (up to 100 ms each) made a busy
        # bot's answers slower.
        kwargs.setdefault("pool_size", SQLITE_POOL_SIZE)
        kwargs.setdefault("max_overflow", 0)
    engine = create_async_engine(url, **kwargs)

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
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        elif mode == BEGIN_READ:
            connection.exec_driver_sql("BEGIN")  # one snapshot for all reads, no write lock

    return engine
