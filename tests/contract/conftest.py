"""The store's contract, stated once and run over every store: the in-memory one the use-case
tests run on (``tests/unit/app/fakes.py``), SQLite and PostgreSQL (``tests/databases.py``).

``store.instance(name)`` is one process's ``UnitOfWorkFactory``; several names on one store are
several instances sharing a database (outbox claims are held under a name).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import pytest
from sqlalchemy.engine import URL

from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.uow import sql_uow_factory
from tests.databases import StepClock
from tests.unit.app.fakes import FakeUnitOfWorkFactory, World


@dataclass(frozen=True)
class Store:
    """One store under test, empty at the start of each test."""

    kind: str
    instance: Callable[[str], UnitOfWorkFactory]


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
    ]
)
def backend(request: pytest.FixtureRequest) -> str:
    """Overrides ``tests/databases.py``'s: the in-memory store is one more backend here."""
    return str(request.param)


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
def database(backend: str, request: pytest.FixtureRequest) -> URL | None:
    """An empty, migrated database for the SQL backends; None for the in-memory store."""
    return None if backend == "memory" else request.getfixturevalue("database_url")


@pytest.fixture
async def store(backend: str, database: URL | None, clock: StepClock) -> AsyncIterator[Store]:
    if database is None:
        world = World()
        yield Store(backend, lambda name: FakeUnitOfWorkFactory(world, clock, instance=name))
        return
    engine = make_engine(database)
    try:
        yield Store(backend, lambda name: sql_uow_factory(engine, clock, instance=name))
    finally:
        await engine.dispose()


@pytest.fixture
def uow_factory(store: Store) -> UnitOfWorkFactory:
    """The one instance most tests need."""
    return store.instance("one")
