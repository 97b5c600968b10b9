"""Telegram's limits shared by several instances on one PostgreSQL: a group's 20 calls a minute
are counted whichever instance makes them, exactly, even when instances call at the same
moment; the instances alive are counted to split the overall rate."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.engine import URL

from cuckoo_bot.app import chats
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.ledger import SqlCallLedger
from cuckoo_bot.persistence.uow import sql_uow_factory
from cuckoo_bot.transport.flood import Floods
from cuckoo_bot.transport.pacing import GroupBudget
from tests.databases import StepClock

pytestmark = pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)]
)
GROUP = -100123


async def test_a_group_gets_its_rate_per_period_and_no_more(database_url: URL) -> None:
    engine = make_engine(database_url)
    try:
        ledger = SqlCallLedger(engine)
        taken = [await ledger.take(GROUP, 1000.0 + i, 20, 60.0) for i in range(25)]
        assert [ok for ok, _, _ in taken] == [True] * 20 + [False] * 5
        _, window, _ = taken[-1]
        assert window == [1000.0 + i for i in range(20)]  # what the refused caller learns
        # A minute after the first call, one more is allowed; other groups were never touched.
        assert (await ledger.take(GROUP, 1060.5, 20, 60.0))[0]
        assert (await ledger.take(GROUP - 1, 1060.5, 20, 60.0)) == (True, [1060.5], None)
        window = await ledger.spend(GROUP, 1061.0, 60.0)  # counted even over the budget
        assert window == [1002.0 + i for i in range(18)] + [1060.5, 1061.0]
    finally:
        await engine.dispose()


async def test_instances_calling_at_once_never_exceed_the_groups_budget(
    database_url: URL,
) -> None:
    engines = [make_engine(database_url) for _ in range(4)]
    try:
        ledgers = [SqlCallLedger(engine) for engine in engines]

        async def burst(ledger: SqlCallLedger) -> int:
            results = await asyncio.gather(
                *(ledger.take(GROUP, 5000.0, 20, 60.0) for _ in range(15))
            )
            return sum(ok for ok, _, _ in results)

        granted = await asyncio.gather(*(burst(ledger) for ledger in ledgers))
        assert sum(granted) == 20, granted
    finally:
        for engine in engines:
            await engine.dispose()


async def test_budgets_of_two_instances_follow_the_shared_window(database_url: URL) -> None:
    now = [7000.0]
    engines = [make_engine(database_url) for _ in range(2)]
    try:
        one, two = (
            GroupBudget(20, clock=lambda: now[0], ledger=SqlCallLedger(engine))
            for engine in engines
        )
        for _ in range(15):
            assert await one.take(GROUP)
        taken = [await two.take(GROUP) for _ in range(8)]
        assert taken == [True] * 5 + [False] * 3
        # "two" knows the group is spent until the first of "one"'s calls is a minute old.
        assert two.next_free(GROUP) == pytest.approx(60.0)
        now[0] += 60.5
        assert await two.take(GROUP)
    finally:
        for engine in engines:
            await engine.dispose()


async def test_the_instances_alive_are_counted(database_url: URL) -> None:
    engine = make_engine(database_url)
    try:
        ledger = SqlCallLedger(engine)
        start = datetime(2026, 12, 1, 12, tzinfo=UTC)
        within = timedelta(seconds=6)
        assert await ledger.alive("a", start, within) == 1
        assert await ledger.alive("b", start + timedelta(seconds=1), within) == 2
        assert await ledger.alive("c", start + timedelta(seconds=2), within) == 3
        # "a" stops saying it is alive: six seconds later it no longer counts.
        later = start + timedelta(seconds=7)
        assert await ledger.alive("b", later, within) == 2
        assert await ledger.alive("a", later + timedelta(seconds=10), within) == 1
    finally:
        await engine.dispose()


async def test_a_group_another_instance_was_refused_for_gets_no_call_until_the_hold_ends(
    database_url: URL,
) -> None:
    """Telegram answered one instance 429 for the group: the other learns the hold from the
    shared budget at its next call, before it calls Telegram, not at its next sweep."""
    clock = StepClock()
    now = clock.now()
    engine = make_engine(database_url)
    try:
        deps = Deps(uow=sql_uow_factory(engine, clock), rng=random.Random(1), clock=clock)
        floods = Floods(clock.now)
        budget = GroupBudget(
            20, clock=lambda: clock.now().timestamp(), ledger=SqlCallLedger(engine), floods=floods
        )
        assert await budget.take(GROUP)
        await chats.hold(deps, GROUP, now + timedelta(seconds=30))  # the other instance's 429
        assert not await budget.take(GROUP)
        assert floods.left(GROUP) == pytest.approx(30, abs=1)
        assert budget.next_free(GROUP) == pytest.approx(30, abs=1)
        clock.advance(seconds=31)
        assert await budget.take(GROUP)
    finally:
        await engine.dispose()
