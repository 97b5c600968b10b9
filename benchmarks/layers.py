"""What one statement costs the bot at each layer it passes through, in CPU: a press's hot
statements are small (a row by its key), so the layers around the database are most of it.

One statement, the outbox's mark (``statements.marking``: an UPDATE of one row by its key,
as the courier makes after every call), is run on one connection of a throwaway database,
``--count`` times a round, the best of ``--rounds``, through each layer in turn:

- ``AsyncSession.execute``: as the repositories run it (the ORM's session, SQLAlchemy's
  asyncio adapter, its execution context, the compiled statement from its cache);
- ``AsyncConnection.execute``: without the ORM's session;
- ``AsyncConnection.exec_driver_sql``: the SQL already compiled, parameters in the driver's order
  (SQLAlchemy's execution context and asyncio adapter still in between);
- the bot's own path (``Store.write``, ``persistence/direct.py``: the statement compiled once,
  run on ``sqlite3``, or on PostgreSQL on SQLAlchemy's asyncpg adapter inside one greenlet,
  with its types' processors and the cursor listeners told);
- the driver alone: ``sqlite3``'s cursor (the connection the bot runs inline on the loop's
  thread) or asyncpg's ``execute`` (its prepared statement), on the same connection.

Then a unit of work with one small read by key in it: the bot's (``sql_uow_factory``: a
session, a pooled connection, ``BEGIN IMMEDIATE`` on SQLite, the commit, the connection given
back) against the driver's own BEGIN, the same SELECT and COMMIT. Nothing is asserted; figures are
printed.

Run: ``python -m benchmarks.layers [--postgres-url postgresql+asyncpg://...] [--count 1500]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvloop
from sqlalchemy import insert, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from benchmarks.databases import drop_postgres, fresh_postgres
from cuckoo_bot.persistence import migrate
from cuckoo_bot.persistence.engine import inline_sqlite, make_engine
from cuckoo_bot.persistence.models import OutboxRow
from cuckoo_bot.persistence.repositories.statements import marking
from cuckoo_bot.persistence.repositories.store import Store, table_of
from cuckoo_bot.persistence.uow import sql_uow_factory


async def best(call: Callable[[int], Awaitable[Any]], count: int, rounds: int) -> float:
    """CPU seconds of one call, the best round of ``rounds`` (this thread's CPU: on SQLite the
    statement runs on it; asyncpg's round trips wait without any)."""
    fastest = float("inf")
    for _ in range(rounds):
        began = time.thread_time()
        for n in range(1, count + 1):
            await call(n)
        fastest = min(fastest, (time.thread_time() - began) / count)
    return fastest


async def measure(engine: AsyncEngine, count: int, rounds: int) -> dict[str, float]:
    """µs of CPU per statement, and per unit of work with one read, at each layer, by name."""
    now = datetime.now(UTC)
    rows = table_of(OutboxRow)
    figures: dict[str, float] = {}
    units = sql_uow_factory(engine)
    async with AsyncSession(engine) as session:  # a write transaction, as a press's
        await session.execute(
            insert(rows),
            [
                {"kind": "ask", "chat_id": 5, "payload": {}, "created_at": now, "attempts": 0}
                for _ in range(count)
            ],
        )
        first = (await session.execute(text("SELECT min(id) FROM outbox"))).scalar_one()

        def values(n: int) -> dict[str, Any]:
            return {"n": first + n - 1, "at": now, "error": None, "tries": 1, "retry_at": None}

        connection = await session.connection()
        compiled = marking().compile(dialect=engine.dialect)
        sql, order = str(compiled), compiled.positiontup or []
        driver: Any = (await connection.get_raw_connection()).driver_connection
        raw = inline_sqlite(driver)
        dialect = engine.dialect.name
        at: Any = now.isoformat(sep=" ") if dialect == "sqlite" else now  # as stored

        def ordered(n: int) -> tuple[Any, ...]:
            return tuple({**values(n), "at": at}[name] for name in order)

        async def in_driver(n: int) -> None:
            if raw is not None:
                cursor = raw.cursor()  # sqlite3's own, as the bot runs it inline
                cursor.execute(sql, ordered(n))
                cursor.close()
            else:
                await driver.execute(sql, *ordered(n))

        layers: dict[str, Callable[[int], Awaitable[Any]]] = {
            "AsyncSession.execute": lambda n: session.execute(marking(), values(n)),
            "AsyncConnection.execute": lambda n: connection.execute(marking(), values(n)),
            "AsyncConnection.exec_driver_sql": lambda n: connection.exec_driver_sql(
                sql, ordered(n)
            ),
            "the driver alone": in_driver,
        }
        # As the repositories run it: on the driver directly (``direct.py``), a SQLite
        # file's connection or PostgreSQL's asyncpg adapter in its greenlet.
        store = Store(session=session, dialect=engine.dialect.name, now=lambda: datetime.now(UTC))
        layers["the bot's direct path (Store.write, direct.py)"] = lambda n: store.write(
            marking(), values(n)
        )
        for name, call in layers.items():
            figures[f"statement: {name}"] = await best(call, count, rounds)
        await session.commit()

    async def bots_unit(n: int) -> None:
        async with units() as uow:
            await uow.players.get_many([n])  # one small read by key
            await uow.commit()

    figures["unit of work (one read by key): the bot's"] = await best(bots_unit, count // 3, rounds)
    async with engine.connect() as connection:
        driver = (await connection.get_raw_connection()).driver_connection
        assert driver is not None

        inline = inline_sqlite(driver)

        async def drivers_unit(n: int) -> None:
            if inline is not None:
                inline.execute("BEGIN IMMEDIATE")
                inline.execute("SELECT * FROM players WHERE id IN (?)", (n,)).fetchall()
                inline.execute("COMMIT")
            else:
                async with driver.transaction():
                    await driver.fetch("SELECT * FROM players WHERE id = ANY($1)", [n])

        figures["unit of work (one read by key): the driver alone"] = await best(
            drivers_unit, count // 3, rounds
        )
    return {name: seconds * 1e6 for name, seconds in figures.items()}


async def run(postgres_url: str | None, count: int, rounds: int) -> dict[str, float]:
    if postgres_url:
        url = await fresh_postgres(postgres_url, "cuckoo_layers")
        try:
            return await _measured(url, count, rounds)
        finally:
            await drop_postgres(postgres_url, make_url(url).database or "")
    with tempfile.TemporaryDirectory() as folder:  # the file goes with the run
        url = f"sqlite:///{Path(folder) / 'layers.db'}"
        await migrate.upgrade(url)
        return await _measured(url, count, rounds)


async def _measured(url: str, count: int, rounds: int) -> dict[str, float]:
    engine = make_engine(url)
    try:
        return await measure(engine, count, rounds)
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--count", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    figures = uvloop.run(run(args.postgres_url, args.count, args.rounds))  # the bot's loop
    print("database:", "postgresql" if args.postgres_url else "sqlite")
    for name, micros in figures.items():
        print(f"{micros:8.1f} µs  {name}")


if __name__ == "__main__":
    main()
