"""Database fixtures shared by the integration and end-to-end tests: SQLite and PostgreSQL.

PostgreSQL comes from ``CUCKOO_TEST_POSTGRES_URL`` (e.g.
``postgresql+asyncpg://postgres@127.0.0.1:5432/test``): the session creates its own uniquely
named database there, migrates it once, empties it before each test and drops it at the end.
Without the variable the PostgreSQL cases are skipped, unless ``CUCKOO_TEST_REQUIRE_POSTGRES=1``
(CI), which turns the skip into a failure. SQLite gets a fresh copy of a migrated file per test.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import uuid
from collections.abc import Coroutine, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]
import pytest
from sqlalchemy.engine import URL

from cuckoo_bot.persistence.engine import async_url
from cuckoo_bot.persistence.migrate import upgrade
from cuckoo_bot.persistence.models import metadata

POSTGRES_ENV = "CUCKOO_TEST_POSTGRES_URL"
REQUIRE_POSTGRES_ENV = "CUCKOO_TEST_REQUIRE_POSTGRES"

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on a private loop in another thread.

    Session fixtures are synchronous; a thread keeps their loop apart from the tests' loops.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as error:  # handed to the caller below
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


class StepClock:
    """A clock the tests move by hand (the store stamps rows with it)."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 11, 29, 12, 0, 0, 123456, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


# -- PostgreSQL: one database per test session --------------------------------------------------


def _dsn(url: URL) -> str:
    """asyncpg's DSN for a SQLAlchemy URL."""
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


async def _admin(url: URL, *statements: str) -> None:
    connection = await asyncpg.connect(_dsn(url))
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


@pytest.fixture(scope="session")
def postgres_server() -> URL:
    """The URL of the database CI gives us; new databases are created from it."""
    raw = os.environ.get(POSTGRES_ENV)
    if not raw:
        reason = (
            f"{POSTGRES_ENV} is not set, so the PostgreSQL cases are skipped"
            f" (e.g. {POSTGRES_ENV}=postgresql+asyncpg://postgres@127.0.0.1:5432/test)"
        )
        if os.environ.get(REQUIRE_POSTGRES_ENV) == "1":
            pytest.fail(f"{REQUIRE_POSTGRES_ENV}=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    return async_url(raw)


class PostgresDatabases:
    """Databases made by this session on the server; all dropped at its end."""

    def __init__(self, server: URL) -> None:
        self.server = server
        self.prefix = f"cuckoo_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
        self.made: list[str] = []

    def create(self, suffix: str) -> URL:
        name = f"{self.prefix}_{suffix}"
        run_sync(_admin(self.server, f'CREATE DATABASE "{name}"'))
        self.made.append(name)
        return self.server.set(database=name)

    def drop_all(self) -> None:
        statements = [f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)' for name in self.made]
        if statements:
            run_sync(_admin(self.server, *statements))


@pytest.fixture(scope="session")
def postgres_databases(postgres_server: URL) -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(postgres_server)
    try:
        yield databases
    finally:
        databases.drop_all()


@pytest.fixture(scope="session")
def postgres_migrated(postgres_databases: PostgresDatabases) -> URL:
    """The session's database, migrated to head once by the real migrations."""
    url = postgres_databases.create("main")
    run_sync(upgrade(url))
    return url


# -- SQLite: a migrated template file, copied for each test -------------------------------------


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite") / "template.db"
    run_sync(upgrade(f"sqlite+aiosqlite:///{path}"))
    return path


def _sqlite_url(path: Path) -> URL:
    return async_url(f"sqlite+aiosqlite:///{path}")


# -- what the tests ask for ---------------------------------------------------------------------


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
    ]
)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """An empty, migrated database of the ``backend`` under test."""
    if backend == "sqlite":
        path = tmp_path / "cuckoo.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return _sqlite_url(path)
    url: URL = request.getfixturevalue("postgres_migrated")
    # DELETE beats TRUNCATE on tables this small; children first.
    deletes = [f'DELETE FROM "{table.name}"' for table in reversed(metadata.sorted_tables)]
    run_sync(_admin(url, "BEGIN", *deletes, "COMMIT"))
    return url


@pytest.fixture
def blank_database_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """A database without any table, for the migration tests."""
    if backend == "sqlite":
        return _sqlite_url(tmp_path / "subdir" / "blank.db")
    databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
    return databases.create(f"blank_{len(databases.made)}")
