"""The engine: URL rewriting, and SQLite's pragmas and write lock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text

from cuckoo_bot.persistence.engine import SQLITE_BUSY_TIMEOUT_MS, async_url, make_engine


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
    """A second transaction waits at BEGIN, even one that only reads, until the first ends."""
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'lock.db'}")
    order: list[str] = []
    try:
        async with engine.begin() as connection:
            await connection.execute(text("CREATE TABLE t (n INTEGER)"))

        async def first() -> None:
            async with engine.begin() as connection:
                await connection.execute(text("SELECT 1"))
                order.append("first began")
                await asyncio.sleep(0.2)
                await connection.execute(text("INSERT INTO t VALUES (1)"))
                order.append("first commits")

        async def second() -> None:
            await asyncio.sleep(0.05)
            async with engine.begin() as connection:
                count = (await connection.execute(text("SELECT count(*) FROM t"))).scalar()
                order.append(f"second saw {count}")

        await asyncio.gather(first(), second())
    finally:
        await engine.dispose()
    assert order == ["first began", "first commits", "second saw 1"]
