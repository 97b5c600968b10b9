"""The engine: URL rewriting, SQLite's pragmas and write lock, PostgreSQL's idle ping."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from cuckoo_bot.persistence import engine as engine_module
from cuckoo_bot.persistence import uow as uow_module
from cuckoo_bot.persistence.engine import (
    SQLITE_BUSY_TIMEOUT_MS,
    async_url,
    make_engine,
    write_gate,
)
from cuckoo_bot.persistence.uow import GateTimeout, sql_uow_factory
from tests.integration.builders import CHAT_ID, chat


@pytest.mark.parametrize(
    ("given", "driver"),
    [
        ("sqlite:///x.db", "sqlite+aiosqlite"),
        ("sqlite+aiosqlite:///x.db", "sqlite+aiosqlite"),
        ("postgresql://u@h/db", "postgresql+asyncpg"),
        ("postgres://u@h/db", "postgresql+asyncpg"),
        ("postgresql+asyncpg://u@h/db", "postgresql+asyncpg"),
    ],
)
def test_urls_use_the_async_drivers(given: str, driver: str) -> None:
    assert async_url(given).drivername == driver


def test_other_databases_are_refused() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        async_url("mysql://u@h/db")


async def test_sqlite_file_setup(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "bot.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        async with engine.connect() as connection:
            pragmas = [
                (await connection.exec_driver_sql(f"PRAGMA {name}")).scalar()
                for name in ("journal_mode", "foreign_keys", "busy_timeout")
            ]
        assert path.parent.is_dir()
        assert pragmas == ["wal", 1, SQLITE_BUSY_TIMEOUT_MS]
    finally:
        await engine.dispose()


async def test_sqlite_transactions_take_the_write_lock_at_begin(tmp_path: Path) -> None:
    """A transaction that has only read holds SQLite's write lock: another writer of the file
    is refused until it ends."""
    path = tmp_path / "lock.db"
    engine = make_engine(f"sqlite+aiosqlite:///{path}")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("CREATE TABLE t (n INTEGER)"))
        async with engine.begin() as connection:
            await connection.execute(text("SELECT 1"))
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
    finally:
        other.close()
        await engine.dispose()


def _migrated(template: Path, folder: Path) -> str:
    path = folder / "cuckoo.db"
    shutil.copyfile(template, path)
    return f"sqlite+aiosqlite:///{path}"


async def test_sqlite_writers_take_turns_without_holding_the_loop(
    tmp_path: Path, sqlite_template: Path
) -> None:
    """A second unit of work that may write waits at its start until the first ends, in the
    event loop, which meanwhile goes on; a reader does not wait; the statements run on the
    loop's own thread."""
    engine = make_engine(_migrated(sqlite_template, tmp_path))
    uows = sql_uow_factory(engine)
    order: list[str] = []
    threads: set[int] = set()

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _where(*_: Any) -> None:
        threads.add(threading.get_ident())

    async def first() -> None:
        async with uows() as uow:
            await uow.chats.add(chat())
            order.append("first wrote")
            await asyncio.sleep(0.4)
            await uow.commit()
            order.append("first committed")

    async def second() -> None:
        await asyncio.sleep(0.05)
        async with uows() as uow:
            seen = await uow.chats.get(CHAT_ID)
            order.append(f"second saw {'it' if seen else 'nothing'}")

    async def reader() -> None:
        await asyncio.sleep(0.05)
        async with uows(read_only=True) as uow:
            seen = await uow.chats.get(CHAT_ID)
            order.append(f"reader saw {'it' if seen else 'nothing'}")

    async def ticks() -> None:
        for _ in range(5):
            await asyncio.sleep(0.02)
        order.append("ticked")

    try:
        await asyncio.gather(first(), second(), reader(), ticks())
    finally:
        await engine.dispose()
    assert order == [
        "first wrote",
        "reader saw nothing",
        "ticked",
        "first committed",
        "second saw it",
    ]
    assert threads == {threading.get_ident()}


async def test_a_writer_waiting_for_its_own_turn_fails_as_sqlite_would(
    tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A unit of work that may write, opened inside another: a bug, refused once SQLite's busy
    handler would have given up, not a bot that waits for ever."""
    monkeypatch.setattr(uow_module, "SQLITE_BUSY_TIMEOUT_MS", 100)
    engine = make_engine(_migrated(sqlite_template, tmp_path))
    uows = sql_uow_factory(engine)
    try:
        async with uows() as outer:
            await outer.chats.add(chat())
            with pytest.raises(GateTimeout, match="waited its turn"):
                async with uows():
                    pass
            async with uows(read_only=True) as reader:  # a reader never waits
                assert await reader.chats.get(CHAT_ID) is None
            await outer.commit()
        async with uows() as after:  # the turn was given back
            assert await after.chats.get(CHAT_ID) is not None
    finally:
        await engine.dispose()


async def test_every_engine_of_one_sqlite_file_shares_its_writers_turn(tmp_path: Path) -> None:
    """Units of work made from an engine derived with other options, or after ``dispose``
    (a new pool), take the same turn; PostgreSQL's writers take none (they lock rows)."""
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'gate.db'}")
    gate = write_gate(engine)
    try:
        assert gate is not None
        assert write_gate(engine.execution_options(isolation_level="SERIALIZABLE")) is gate
    finally:
        await engine.dispose()
    assert write_gate(engine) is gate
    assert write_gate(make_engine("postgresql+asyncpg://u@h/db")) is None


# -- PostgreSQL: a pooled connection is pinged only after lying idle --------------------------


async def _backend_pid(engine: Any) -> int:
    async with engine.connect() as connection:
        return int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def _terminate(server: Any, pid: int) -> None:
    """Drop one connection from the server's side, as a restart or a network cut would."""
    killer = make_engine(server, poolclass=NullPool)
    try:
        async with killer.connect() as connection:
            await connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        await killer.dispose()


@pytest.mark.postgres
async def test_a_postgres_connection_idle_long_enough_is_pinged_and_replaced_if_dropped(
    postgres_migrated: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(postgres_migrated, pool_size=1)
    pings: list[Any] = []
    dialect = engine.sync_engine.dialect
    ping = dialect.do_ping
    monkeypatch.setattr(dialect, "do_ping", lambda c: pings.append(c) or ping(c))
    try:
        first = await _backend_pid(engine)
        assert await _backend_pid(engine) == first and pings == []  # used moments ago: trusted
        monkeypatch.setattr(engine_module, "PING_WHEN_IDLE_FOR", 0.0)
        await asyncio.sleep(0.01)
        assert await _backend_pid(engine) == first and len(pings) == 1  # idle: pinged, alive
        await _terminate(postgres_migrated, first)
        await asyncio.sleep(0.01)
        # Dropped while idle: the ping fails, and the unit of work gets a new connection.
        uow_factory = sql_uow_factory(engine)
        async with uow_factory() as uow:
            await uow.chats.get(CHAT_ID)
        assert len(pings) == 2
        assert await _backend_pid(engine) != first
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_a_postgres_connection_dropped_just_after_use_fails_once_then_all_are_new(
    postgres_migrated: Any,
) -> None:
    """The price of trusting a connection used moments ago: if the server dropped it since,
    the one statement that meets it fails as a disconnect (its update is answered "try
    again"), and every connection of the pool is replaced before the next use."""
    engine = make_engine(postgres_migrated, pool_size=2)
    try:
        async with engine.connect() as a, engine.connect() as b:  # two pooled connections
            pids = {
                int((await c.execute(text("SELECT pg_backend_pid()"))).scalar_one()) for c in (a, b)
            }
        for pid in pids:
            await _terminate(postgres_migrated, pid)
        with pytest.raises(DBAPIError) as failed:
            await _backend_pid(engine)
        assert failed.value.connection_invalidated
        async with engine.connect() as a, engine.connect() as b:
            again = {
                int((await c.execute(text("SELECT pg_backend_pid()"))).scalar_one()) for c in (a, b)
            }
        assert again.isdisjoint(pids)
    finally:
        await engine.dispose()
