"""Statements run on the driver's connection directly (``persistence/direct.py``: a SQLite
file's ``sqlite3`` connection, PostgreSQL's asyncpg adapter) do what they do through the
session: the same rows, the same values written, in the same transaction, heard by the same
listeners, failing with the same errors, a lost connection replaced."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import bindparam, event, func, insert, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from cuckoo_bot.app.model import Player
from cuckoo_bot.app.notices import Announcement, Delivered, Notice, NoticeKind
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.domain.rules import MAX_PLAYERS_LIMIT
from cuckoo_bot.persistence.direct import prepare
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.models import ChatRow, GameLogRow, ProcessedUpdateRow
from cuckoo_bot.persistence.repositories.games import _getting, _inserting
from cuckoo_bot.persistence.repositories.players import _players_in
from cuckoo_bot.persistence.repositories.statements import sent_rows
from cuckoo_bot.persistence.repositories.store import Store, table_of
from cuckoo_bot.persistence.repositories.updates import _recording
from tests.databases import StepClock
from tests.integration.builders import CHAT_ID, PLAYERS, START, choose, lobby, seed, start, step
from tests.integration.test_engine import _terminate

LOG = table_of(GameLogRow)
# A log entry by its game and place: built once, as ``fetch`` wants its statements.
ENTRY = select(LOG).where(LOG.c.game_id == bindparam("g"), LOG.c.seq == bindparam("s"))
UPDATES = table_of(ProcessedUpdateRow)
UPDATE_AT = select(UPDATES.c.processed_at).where(UPDATES.c.update_id == bindparam("u"))


class Heard:
    """The statements the engine's cursor listeners hear, and whether each ran directly
    (without SQLAlchemy's execution context)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.before: list[tuple[str, bool, bool]] = []  # (SQL, directly, executemany)
        self.after: list[str] = []
        event.listen(engine.sync_engine, "before_cursor_execute", self._before)
        event.listen(engine.sync_engine, "after_cursor_execute", self._after)

    def _before(self, conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool):  # type: ignore[no-untyped-def]
        self.before.append((sql, context is None, many))

    def _after(self, conn: Any, cursor: Any, sql: str, *_: Any) -> None:
        self.after.append(sql)

    def direct(self) -> list[str]:
        return [sql for sql, directly, _ in self.before if directly and not sql.startswith("BEGIN")]


@pytest.fixture
async def store(engine: AsyncEngine, clock: StepClock) -> AsyncIterator[Store]:
    async with AsyncSession(engine) as session:
        yield Store(session=session, dialect=engine.dialect.name, now=clock.now)


async def _played(uow_factory: UnitOfWorkFactory, clock: StepClock) -> int:
    """A game some moves in, with notices shown and marked: the rows a press reads."""
    rng = random.Random(7)
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        start(game, START)
        for n in range(6):
            assert game.state is not None
            step(game, choose(game.state, rng), START + timedelta(seconds=n))
        await uow.games.save(game)
        notices = [
            Notice(NoticeKind.ANNOUNCE, CHAT_ID, Announcement(f"n{n}", {}), game.id)
            for n in range(3)
        ]
        await uow.outbox.add_many(notices)
        await uow.commit()
    async with uow_factory() as uow:
        shown = [
            Delivered(notices[0].id, message_id=501, live_keys=True),
            Delivered(notices[1].id, message_id=502),
            Delivered(notices[2].id, error="superseded"),
        ]
        await uow.outbox.mark(shown)
        await uow.commit()
    assert game.id is not None
    return game.id


async def test_what_the_driver_reads_is_what_the_session_reads(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock, store: Store
) -> None:
    """A press's reads (its game, its players, the messages later notices edit): every column,
    under the same name, with the same value and type."""
    game_id = await _played(uow_factory, clock)
    heard = Heard(engine)
    ids = sorted(p.id for p in PLAYERS)
    reads: list[tuple[Any, dict[str, Any]]] = [
        (_getting(False), {"game_id": game_id}),
        (_getting(True), {"game_id": game_id}),
        (sent_rows(), {"game_id": game_id}),
        (_players_in(len(ids)), {f"p{n}": i for n, i in enumerate(ids)}),
    ]
    for statement, params in reads:
        direct = await store.fetch(statement, params)
        through = (await store.session.execute(statement, params)).all()
        assert direct, statement  # something was read
        assert [tuple(row) for row in direct] == [tuple(row) for row in through]
        assert [type(v) for v in direct[0]] == [type(v) for v in through[0]]
        assert list(direct[0]._fields) == list(through[0]._fields)
    assert len(heard.direct()) == len(reads)


# The JSON the bot stores: no floats (PostgreSQL's JSONB reads 5.9e+16 back as an integer), no
# NUL character and no half of a surrogate pair (PostgreSQL's text refuses both; Telegram's
# text is valid UTF-8, which holds no half of a pair).
TEXT = st.characters(exclude_characters="\x00", exclude_categories=["Cs"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(TEXT, max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(TEXT, max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
instants = st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2999, 12, 30)).flatmap(
    lambda naive: st.sampled_from(
        [UTC, timezone(timedelta(hours=-7)), timezone(timedelta(hours=5, minutes=30))]
    ).map(lambda zone: naive.replace(tzinfo=zone))
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    actor=st.none() | st.integers(-(2**63), 2**63 - 1),
    action=st.none() | st.dictionaries(st.text(TEXT, max_size=4), json_values, max_size=3),
    events=st.lists(st.lists(json_values, max_size=2), max_size=3),
    at=instants,
    first_directly=st.booleans(),
)
async def test_what_one_path_writes_the_other_reads_back_the_same(
    engine: AsyncEngine,
    uow_factory: UnitOfWorkFactory,
    clock: StepClock,
    actor: int | None,
    action: dict[str, Any] | None,
    events: list[Any],
    at: datetime,
    first_directly: bool,
) -> None:
    """Big ids, JSON of every shape, instants in any zone (stored in UTC, read back aware):
    written on the driver and read through the session, or the other way round, the row is
    the one written. Nothing is kept (the transaction is rolled back)."""
    async with uow_factory() as uow:  # the first example makes the game, the others find it
        game = await uow.games.open_in_chat(CHAT_ID)
        if game is None:
            await seed(uow)
            game = await uow.games.add(lobby())
            await uow.commit()
    row = {"game_id": game.id, "seq": 100, "round": None, "actor": actor}
    row.update(action=action, events=events, at=at)
    async with AsyncSession(engine) as session:
        store = Store(session=session, dialect=engine.dialect.name, now=clock.now)
        if first_directly:
            assert await store.write(_inserting(GameLogRow), [row]) == 1
            read = (await session.execute(ENTRY, {"g": game.id, "s": 100})).one()
        else:
            await session.execute(insert(LOG), [row])
            (read,) = await store.fetch(ENTRY, {"g": game.id, "s": 100})
        assert read.actor == actor
        assert read.action == action
        assert read.events == events
        assert read.at == at and read.at.tzinfo == UTC
        await session.rollback()


async def test_a_statement_run_on_the_driver_is_part_of_the_unit_of_work(
    engine: AsyncEngine, clock: StepClock
) -> None:
    """Rolled back, it is gone; committed, it stays; after a commit the next statement runs
    in the next transaction, on whatever connection that one has."""
    heard = Heard(engine)

    async def stored(update_id: int) -> bool:
        async with AsyncSession(engine) as session:
            found = (await session.execute(UPDATE_AT, {"u": update_id})).first()
        return found is not None

    async with AsyncSession(engine) as session:
        store = Store(session=session, dialect=engine.dialect.name, now=clock.now)
        record = _recording(engine.dialect.name)
        assert await store.write(record, {"update_id": 1, "processed_at": clock.now()}) == 1
        await session.rollback()
        assert not await stored(1)
        assert await store.write(record, {"update_id": 2, "processed_at": clock.now()}) == 1
        await session.commit()
        assert await store.write(record, {"update_id": 3, "processed_at": clock.now()}) == 1
        assert await store.write(record, {"update_id": 3, "processed_at": clock.now()}) == 0
        await session.commit()
    assert (await stored(1), await stored(2), await stored(3)) == (False, True, True)
    assert len(heard.direct()) == 4


async def test_the_listeners_hear_each_statement_once_an_executemany_as_one(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock, store: Store
) -> None:
    game_id = await _played(uow_factory, clock)
    heard = Heard(engine)
    rows = [
        {"game_id": game_id, "seq": 50 + n, "round": None, "actor": None}
        | {"action": None, "events": [], "at": clock.now()}
        for n in range(3)
    ]
    written = await store.write(_inserting(GameLogRow), rows)
    assert written == (3 if engine.dialect.name == "sqlite" else -1)  # asyncpg's executemany: -1
    assert await store.write(_inserting(GameLogRow), [{**rows[0], "seq": 60}]) == 1
    inserts = [(sql, many) for sql, _, many in heard.before if sql.startswith("INSERT")]
    assert [many for _, many in inserts] == [True, False]
    assert [sql for sql in heard.after if sql.startswith("INSERT")] == [sql for sql, _ in inserts]
    count = select(func.count()).select_from(LOG).where(LOG.c.game_id == game_id)
    assert (await store.session.execute(count)).scalar_one() == 6 + 4  # the moves' and these


async def test_a_driver_error_is_raised_as_sqlalchemys(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock, store: Store
) -> None:
    """A broken constraint: SQLAlchemy's ``IntegrityError`` (what the rest of the bot knows),
    the driver's own error inside it; the listeners hear no statement done."""
    game_id = await _played(uow_factory, clock)
    row = {"game_id": game_id, "seq": 1, "round": None, "actor": None}
    row.update(action=None, events=[], at=clock.now())
    heard = Heard(engine)
    with pytest.raises(IntegrityError) as raised:
        await store.write(_inserting(GameLogRow), [row])  # seq 1 is the first move's
    if engine.dialect.name == "sqlite":
        assert isinstance(raised.value.orig, sqlite3.IntegrityError)
    else:
        assert isinstance(raised.value.orig.__cause__, asyncpg.UniqueViolationError)
    assert not raised.value.connection_invalidated
    assert heard.direct() and not [sql for sql in heard.after if sql.startswith("INSERT")]


async def test_what_needs_more_of_sqlalchemy_is_left_to_the_session(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock, store: Store
) -> None:
    """A list expanded at run time, a column's Python-side default: the session runs them,
    and ``fetch`` and ``write`` still give their rows and counts."""
    await _played(uow_factory, clock)
    ids = [p.id for p in PLAYERS]
    players_in = select(table_of(ChatRow).c.id).where(
        table_of(ChatRow).c.id.in_(bindparam("ids", expanding=True))
    )
    assert prepare(players_in, engine.dialect, ["ids"]) is None
    assert [row.id for row in await store.fetch(players_in, {"ids": [CHAT_ID, *ids]})] == [CHAT_ID]
    chats = _inserting(ChatRow)
    new_chat = {"id": -42, "title": "t", "language": "en", "active": True, "settings": {}}
    new_chat |= {"created_at": clock.now(), "updated_at": clock.now()}
    assert prepare(chats, engine.dialect, list(new_chat)) is None  # ``pot`` has a default
    assert await store.write(chats, [new_chat]) == 1
    pot = select(table_of(ChatRow).c.pot).where(table_of(ChatRow).c.id == -42)
    assert (await store.session.execute(pot)).scalar_one() == 0


async def test_players_are_read_by_one_statement_a_count_up_to_a_full_table_then_by_a_list(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory
) -> None:
    """A game's players (up to 20) by a statement kept for their number, run on the driver;
    more (a league's table) by one expanding list, through the session: every one found."""
    many = [Player(id=8_000_000_000 + n, first_name=f"P{n}") for n in range(MAX_PLAYERS_LIMIT + 5)]
    async with uow_factory() as uow:
        for player in many:
            await uow.players.upsert(player)
        await uow.commit()
    heard = Heard(engine)
    for count in (1, MAX_PLAYERS_LIMIT, MAX_PLAYERS_LIMIT + 5):
        async with uow_factory(read_only=True) as uow:
            found = await uow.players.get_many([p.id for p in many[:count]])
        assert sorted(found) == [p.id for p in many[:count]]
    reads = [(sql, directly) for sql, directly, _ in heard.before if sql.startswith("SELECT")]
    assert [d for _, d in reads] == [True, True, False]


@pytest.mark.postgres
async def test_a_connection_lost_under_a_statement_on_the_driver_is_replaced_with_the_pool(
    postgres_migrated: Any, clock: StepClock
) -> None:
    """The server drops its connections (a restart, a network cut): the statement run on the
    asyncpg adapter that meets one fails as SQLAlchemy's disconnect, and every connection of
    the pool is replaced before it is used again (each was used moments ago, so no ping would
    have found it dead): the units of work after it run on new connections, none failing."""
    engine = make_engine(postgres_migrated, pool_size=2)
    try:
        async with AsyncSession(engine) as a, AsyncSession(engine) as b:  # two pooled
            pids = {(await s.execute(text("SELECT pg_backend_pid()"))).scalar_one() for s in (a, b)}
        for pid in pids:
            await _terminate(postgres_migrated, pid)
        async with AsyncSession(engine) as session:
            store = Store(session=session, dialect="postgresql", now=clock.now)
            with pytest.raises(DBAPIError) as lost:
                await store.fetch(UPDATE_AT, {"u": 1})
            assert lost.value.connection_invalidated
        again = set()
        async with AsyncSession(engine) as a, AsyncSession(engine) as b:
            for session in (a, b):
                store = Store(session=session, dialect="postgresql", now=clock.now)
                assert await store.fetch(UPDATE_AT, {"u": 1}) == []
                again.add((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())
        assert len(again) == 2 and again.isdisjoint(pids)
    finally:
        await engine.dispose()
