"""What a press costs the database: one write transaction for the move, everything it makes
players see and what its answer needs, then one statement marking what the courier sent (two
on SQLite, which cannot mark the notices and merge their messages in one).
Counted with SQLAlchemy's cursor events, on SQLite and PostgreSQL, through the bot's real key
handler, the real courier and the fake Bot API."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app import lobby, sweep
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, GameStatus, Player
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.persistence.uow import sql_uow_factory
from fakebotapi import FakeBotApi
from tests.databases import StepClock
from tests.support.driver import TableDriver

TOKEN = "778:statement-count-token-0123456789"
GROUP = -100778
LIMIT = 12  # statements per press, its delivery included


class Statements:
    """Every statement the engine sends (BEGIN IMMEDIATE and executemany count as one)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.sql: list[str] = []
        self.direct: list[bool] = []
        event.listen(engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(
        self, conn: Any, cursor: Any, statement: str, params: Any, context: Any, *args: Any
    ) -> None:
        self.sql.append(statement.split("\n")[0][:80])
        # Through SQLAlchemy's execution (a context), or run on the driver directly (none).
        self.direct.append(context is None)


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN) as server:
        for user in (1, 2, 3, 4):
            server.add_user(user, f"P{user}", started=True)
        server.add_group(GROUP, "Club", type="supergroup", members=[1, 2, 3, 4], admins=[1])
        yield server


@pytest.mark.parametrize(
    ("live", "alone"),
    [(False, True), (True, True), (False, False)],
    ids=["chat only", "with the live table", "among several instances"],
)
async def test_a_keep_a_swap_a_cut_and_the_press_that_ends_a_round_cost_at_most_12_statements(
    fake: FakeBotApi, engine: AsyncEngine, clock: StepClock, live: bool, alone: bool
) -> None:
    """Each press goes through the bot's real key handler: the update as Telegram sends it,
    the answer, and the delivery of what the move changed. With the live table on, PostgreSQL
    also sends one NOTIFY in the move's transaction (SQLite tells the pages in process). Among
    several instances (webhooks) a batch first asks, in one read, whether another instance
    still holds older notices of its chats (they go first): one statement more."""
    heard: list[frozenset[int]] = []
    uow_factory = sql_uow_factory(engine, clock, changed=heard.append if live else None)
    limit = LIMIT + (1 if live and engine.dialect.name == "postgresql" else 0)
    limit += 0 if alone else 1
    # SQLite cannot mark the notices and merge the messages they showed into ``messages`` in
    # one statement (it has no data-modifying WITH): one statement more.
    limit += 1 if engine.dialect.name == "sqlite" else 0
    deps = Deps(uow=uow_factory, rng=random.Random(4), clock=clock, turn_timeout=60)
    app = assemble(
        TOKEN,
        fake.base_url,
        deps,
        Translator(),
        group_rate=1000,
        private_interval=0,
        sole_poller=alone,
    )
    await app.initialize()  # getMe; no polling and no timers: nothing else touches the store
    courier = app.bot_data.services.courier
    try:
        people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in (1, 2, 3, 4)]
        chat = Chat(id=GROUP, title="Club", rules=HouseRules(double_cut=True))
        opened = await lobby.open_lobby(deps, chat, people[0], thread_id=None)
        assert opened.game_id is not None
        for person in people[1:]:
            await lobby.join(deps, opened.game_id, person)
        started = await lobby.start(deps, GROUP, people[0], is_admin=False)
        assert started.batch is not None
        await courier.deliver(started.batch)
        clock.advance(seconds=2)  # the first press comes after the table was shown
        driver = TableDriver(fake, GROUP)

        counter = Statements(engine)
        offset = 0
        costs: dict[str, int] = {}
        for _ in range(400):
            async with uow_factory(read_only=True) as uow:
                game = await uow.games.get(opened.game_id)
            assert game is not None and game.state is not None
            if game.status is not GameStatus.RUNNING or len(costs) == 4:
                break
            state = game.state
            assert state.round is not None and state.actor is not None
            prompt = driver.prompt()
            assert prompt is not None and prompt.actor == state.actor
            dealer = state.round.actor_is_dealer
            wanted = [m for m in ("swap", "keep") if m not in costs] or ["keep"]
            move = "cut" if dealer and "cut" not in costs else ("keep" if dealer else wanted[0])
            data = prompt.data(move[0])
            assert data is not None, (move, prompt.keys)
            query = fake.press_button(
                prompt.actor, prompt.message.chat_id, prompt.message.message_id, data
            )
            (update,) = await app.bot.get_updates(offset=offset, timeout=0)
            offset = update.update_id + 1
            before = len(counter.sql)
            await app.process_update(update)
            await courier.drain()
            used = len(counter.sql) - before
            # One transaction (SQLite shows its BEGIN; asyncpg begins outside the cursor): the
            # answer's language and names come with the move, and the mark is one statement
            # (two on SQLite, outside any transaction).
            begins = [q for q in counter.sql[before:] if q.startswith("BEGIN")]
            assert len(begins) <= 1, counter.sql[before:]
            # Every statement of a press runs on the driver directly (``persistence/direct.py``:
            # a SQLite file's connection, PostgreSQL's asyncpg adapter), but for the one read
            # among several instances and the live table's NOTIFY.
            through_session = [
                q
                for q, d in zip(counter.sql[before:], counter.direct[before:], strict=True)
                if not d and "pg_notify" not in q
            ]
            assert len(through_session) <= (0 if alone else 1), through_session
            answer = str((await fake.wait_callback_answer(query, 5))["text"] or "")
            async with uow_factory(read_only=True) as uow:
                after = await uow.games.get(game.id)
            assert after is not None and after.state is not None
            ended = after.state.rounds_dealt > state.rounds_dealt or after.state.finished
            kind = "round end" if ended else move
            assert answer, "every press is answered"
            if kind not in costs:
                costs[kind] = used
                assert used <= limit, (kind, "\n".join(counter.sql[before:]))
            clock.advance(seconds=2)
    finally:
        await app.shutdown()
    print("STATEMENTS", costs)
    assert set(costs) == {"keep", "swap", "cut", "round end"}, costs
    notified = [q for q in counter.sql if "pg_notify" in q]
    if live and engine.dialect.name == "postgresql":
        assert len(notified) >= len(costs)  # a NOTIFY in each move's transaction
    else:
        assert notified == []
    assert bool(heard) == (live and engine.dialect.name == "sqlite")


async def test_a_sweep_that_finds_nothing_to_do_costs_one_statement(
    fake: FakeBotApi, engine: AsyncEngine, clock: StepClock
) -> None:
    """The sweeper runs every two seconds, all day: when no clock ran out, no chat is held
    back or in doubt, nothing is undelivered and no notice shows twice, it reads the one
    statement that says so (``SweepRepository.pending``), as ``Upkeep.sweep`` runs it. A
    notice on its way adds its claim, and only that."""
    uow_factory = sql_uow_factory(engine, clock)
    deps = Deps(uow=uow_factory, rng=random.Random(4), clock=clock, turn_timeout=60)
    app = assemble(TOKEN, fake.base_url, deps, Translator(), group_rate=1000, private_interval=0)
    await app.initialize()
    courier = app.bot_data.services.courier
    try:
        people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in (1, 2, 3, 4)]
        opened = await lobby.open_lobby(
            deps, Chat(id=GROUP, title="Club"), people[0], thread_id=None
        )
        assert opened.game_id is not None
        for person in people[1:]:
            await lobby.join(deps, opened.game_id, person)
        clock.advance(seconds=11)  # older than ``FRESH``: left to a sweep, not to a press
        await courier.sweep()  # the lobby's messages

        counter = Statements(engine)
        found = await sweep.look(deps)
        assert found == sweep.Look(due=[], held={}, doubts={}, unsent=False, copies=[])
        await courier.sweep(look=found)
        # SQLite shows the read's BEGIN (a snapshot for the reads the answer may ask for).
        assert _but_begin(counter.sql) == 1, counter.sql

        # The game starts, and what it wrote is left undelivered: the sweep claims it.
        started = await lobby.start(deps, GROUP, people[0], is_admin=False)
        assert started.batch is not None and started.batch.notices
        clock.advance(seconds=11)
        del counter.sql[:]
        found = await sweep.look(deps)
        assert found.unsent and not found.due and _but_begin(counter.sql) == 1, counter.sql
        assert await courier.sweep(look=found) >= len(started.batch.notices)
        assert not (await sweep.look(deps)).unsent
    finally:
        await app.shutdown()


def _but_begin(sql: list[str]) -> int:
    return len([q for q in sql if not q.startswith("BEGIN")])
