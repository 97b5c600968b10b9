"""Integration fixtures: an engine and units of work over ``database_url`` (tests/databases.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.uow import sql_uow_factory
from tests.databases import StepClock


@pytest.fixture
def clock() -> StepClock:
    return StepClock()


@pytest.fixture
async def engine(database_url: URL) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(database_url)
    try:
        yield engine
    finally:
        await engine.dispose()


@pytest.fixture
def uow_factory(engine: AsyncEngine, clock: StepClock) -> UnitOfWorkFactory:
    return sql_uow_factory(engine, clock)
