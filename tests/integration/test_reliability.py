"""Reliability of the use cases over the real store: Telegram's redeliveries and late updates,
a turn clock racing a press across a restart, and random traffic checked against the store.

Every test runs on SQLite and PostgreSQL. Nothing is kept in memory between use cases: what a
test knows about a game it reads back from the database.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import delete, func, select
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app import lobby, play, sweep
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Game, GameStatus, LogEntry, Player
from cuckoo_bot.app.notices import NoticeKind
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.app.results import Outcome
from cuckoo_bot.domain.actions import Cut, Keep, Move, Swap, Timeout
from cuckoo_bot.domain.engine import legal_actions, new_game
from cuckoo_bot.domain.events import RoundDealt
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import GameState, Phase
from cuckoo_bot.persistence.engine import BEGIN, BEGIN_READ, make_engine
from cuckoo_bot.persistence.models import GameRow, OutboxRow, ProcessedUpdateRow, metadata
from cuckoo_bot.persistence.uow import sql_uow_factory
from tests.databases import StepClock
from tests.integration.builders import replay

GROUP = -1_002_233_445_566  # a supergroup id: needs BIGINT
CHAT = Chat(id=GROUP, title="Reliable club", language="en")
PEOPLE = (
    Player(id=8_100_000_001, first_name="Ann", language="en", can_dm=True),
    Player(id=8_100_000_002, first_name="Bea", language="es", can_dm=True),
    Player(id=8_100_000_003, first_name="Cid", language="fr", can_dm=True),
    Player(id=8_100_000_004, first_name="Dot", language="en", can_dm=True),
    # The bot cannot write to Eve: she is asked in the group, and not seated by opening a lobby.
    Player(id=8_100_000_005, first_name="Eve", language="en", can_dm=False),
)
ANN, BEA, CID = PEOPLE[:3]
TURN_TIMEOUT = 30.0
LOBBY_TIMEOUT = 120.0
OPEN = {status.value for status in GameStatus if status.open}
STAGE = {
    GameStatus.LOBBY: 0,
    GameStatus.RUNNING: 1,
    GameStatus.FINISHED: 2,
    GameStatus.CANCELLED: 2,
}


def deps_on(uow: UnitOfWorkFactory, clock: StepClock, seed: int = 0) -> Deps:
    return Deps(
        uow=uow,
        rng=random.Random(seed),
        clock=clock,
        turn_timeout=TURN_TIMEOUT,
        lobby_timeout=LOBBY_TIMEOUT,
    )


@dataclass(frozen=True)
class Snapshot:
    """What a write changes: each game's (version, status, log length), the outbox's size and
    the update ids recorded."""

    games: dict[int, tuple[int, str, int]]
    outbox: int
    updates: int


async def snapshot(engine: AsyncEngine) -> Snapshot:
    reader = engine.execution_options(**{BEGIN: BEGIN_READ})
    async with reader.connect() as connection:
        rows = await connection.execute(
            select(GameRow.id, GameRow.version, GameRow.status, GameRow.log_seq)
        )
        games = {r.id: (r.version, r.status, r.log_seq) for r in rows}
        outbox = await connection.scalar(select(func.count()).select_from(OutboxRow))
        updates = await connection.scalar(select(func.count()).select_from(ProcessedUpdateRow))
    return Snapshot(games, int(outbox or 0), int(updates or 0))


async def load(uow: UnitOfWorkFactory, game_id: int) -> tuple[Game, list[LogEntry]]:
    async with uow(read_only=True) as work:
        game = await work.games.get(game_id)
        log = await work.games.log(game_id)
    assert game is not None
    return game, log


def replayed(game: Game, log: list[LogEntry]) -> GameState:
    """The game's log applied to its initial table (the first dealer is the first deal's)."""
    first_dealer = next(ev.dealer for e in log for ev in e.events if isinstance(ev, RoundDealt))
    return replay(new_game(game.seats, game.rules, first_dealer), log)


async def running_game(deps: Deps, people: tuple[Player, ...] = (ANN, BEA, CID)) -> int:
    opened = await lobby.open_lobby(deps, CHAT, people[0], thread_id=None)
    assert opened.game_id is not None
    for person in people[1:]:
        joined = await lobby.join(deps, opened.game_id, person, chat_id=GROUP)
        assert joined.reply is not None and joined.reply.code == "joined"
    started = await lobby.start(deps, GROUP, people[0], is_admin=False)
    assert started.reply is not None and started.reply.code == "started"
    return opened.game_id


def code(outcome: Outcome) -> str | None:
    return outcome.reply.code if outcome.reply is not None else None


# -- 1. the same update twice, and out of order ------------------------------------------------


async def test_a_press_delivered_twice_takes_effect_once(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    deps = deps_on(uow_factory, clock, seed=11)
    game_id = await running_game(deps)
    game, _ = await load(uow_factory, game_id)
    assert game.state is not None and game.state.round is not None
    actor, turn, round_no = game.state.actor, game.state.turn, game.state.round.number
    assert actor is not None

    first = await play.act(deps, game_id, actor, "keep", turn, update_id=501, round_no=round_no)
    assert code(first) == "done_keep" and first.batch
    after = await snapshot(engine)
    assert after.games[game_id][0] == game.version + 1

    again = await play.act(deps, game_id, actor, "keep", turn, update_id=501, round_no=round_no)
    assert again == Outcome()  # no answer, nothing to deliver
    assert await snapshot(engine) == after

    # The same update id with other content (the next player's press, valid on its own).
    moved, log = await load(uow_factory, game_id)
    assert moved.state is not None and moved.state.actor is not None
    other = await play.act(deps, game_id, moved.state.actor, "keep", moved.state.turn, 501)
    assert other == Outcome()
    assert await snapshot(engine) == after
    still, log_after = await load(uow_factory, game_id)
    assert still.state == moved.state and log_after == log
    assert [e.action for e in log_after].count(Keep(actor, turn)) == 1
    assert replayed(still, log_after) == still.state


async def test_a_lobby_update_delivered_twice_takes_effect_once(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    deps = deps_on(uow_factory, clock, seed=12)
    opened = await lobby.open_lobby(deps, CHAT, ANN, thread_id=None, update_id=1)
    assert opened.game_id is not None and opened.batch
    game_id = opened.game_id
    before = await snapshot(engine)
    assert await lobby.open_lobby(deps, CHAT, ANN, thread_id=None, update_id=1) == Outcome()
    assert await snapshot(engine) == before

    joined = await lobby.join(deps, game_id, BEA, update_id=2, chat_id=GROUP)
    assert code(joined) == "joined"
    left = await lobby.leave(deps, GROUP, BEA, update_id=3)
    assert code(left) == "left"
    before = await snapshot(engine)
    # Bea's join arrives again after she left: she must not be seated again.
    assert await lobby.join(deps, game_id, BEA, update_id=2, chat_id=GROUP) == Outcome()
    assert await snapshot(engine) == before
    game, _ = await load(uow_factory, game_id)
    assert game.seats == [ANN.id]

    for update_id, person in ((4, BEA), (5, CID)):
        assert code(await lobby.join(deps, game_id, person, update_id, GROUP)) == "joined"
    started = await lobby.start(deps, GROUP, ANN, is_admin=False, update_id=6)
    assert code(started) == "started"
    before = await snapshot(engine)
    assert await lobby.start(deps, GROUP, ANN, is_admin=False, update_id=6) == Outcome()
    # The same id carrying a /cancel from an admin: still the update seen before.
    assert await lobby.cancel(deps, GROUP, BEA, is_admin=True, update_id=6) == Outcome()
    assert await snapshot(engine) == before
    game, _ = await load(uow_factory, game_id)
    assert game.status is GameStatus.RUNNING

    cancelled = await lobby.cancel(deps, GROUP, ANN, is_admin=False, update_id=7)
    assert code(cancelled) == "cancelled"
    reopened = await lobby.open_lobby(deps, CHAT, BEA, thread_id=None, update_id=8)
    assert reopened.game_id is not None and reopened.game_id != game_id
    before = await snapshot(engine)
    # The first /cancel again, now that a new lobby is open: the new lobby stays.
    assert await lobby.cancel(deps, GROUP, ANN, is_admin=True, update_id=7) == Outcome()
    assert await snapshot(engine) == before
    fresh, _ = await load(uow_factory, reopened.game_id)
    assert fresh.status is GameStatus.LOBBY and fresh.seats == [BEA.id]


async def test_a_press_for_an_old_turn_arriving_after_the_next_press_is_refused(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    deps = deps_on(uow_factory, clock, seed=13)
    game_id = await running_game(deps)
    game, _ = await load(uow_factory, game_id)
    assert game.state is not None and game.state.round is not None
    first, turn, round_no = game.state.actor, game.state.turn, game.state.round.number
    assert first is not None and not game.state.round.actor_is_dealer

    pressed = await play.act(deps, game_id, first, "keep", turn, update_id=601, round_no=round_no)
    assert code(pressed) == "done_keep"
    game, _ = await load(uow_factory, game_id)
    assert game.state is not None and game.state.turn == turn + 1
    second = game.state.actor
    assert second is not None and second != first
    nxt = await play.act(deps, game_id, second, "keep", turn + 1, update_id=602, round_no=round_no)
    assert code(nxt) == "done_keep"
    before = await snapshot(engine)
    moved, log = await load(uow_factory, game_id)

    # Update 600 (the first player's swap on turn N) was held up and arrives last.
    late = await play.act(deps, game_id, first, "swap", turn, update_id=600, round_no=round_no)
    assert code(late) == "already_keep" and not late.batch  # says what they did
    after = await snapshot(engine)
    assert after.games == before.games and after.outbox == before.outbox
    assert after.updates == before.updates + 1  # refused, and remembered as processed
    still, log_after = await load(uow_factory, game_id)
    assert still.state == moved.state and log_after == log
    assert await play.act(deps, game_id, first, "swap", turn, update_id=600) == Outcome()
    assert await snapshot(engine) == after


async def test_the_same_press_delivered_to_two_instances_at_once_takes_effect_once(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock, database_url: URL
) -> None:
    """Telegram retries a webhook call while the first is still being answered, and the retry
    reaches another instance: the two deliveries of the update run at the same time."""
    deps = deps_on(uow_factory, clock, seed=14)
    game_id = await running_game(deps)
    other = make_engine(database_url)
    try:
        twin = deps_on(sql_uow_factory(other, clock, instance="twin"), clock, seed=15)
        game, _ = await load(twin.uow, game_id)  # connected and idle, like a running instance
        assert game.state is not None and game.state.actor is not None
        actor, turn = game.state.actor, game.state.turn
        outcomes = await asyncio.gather(
            play.act(deps, game_id, actor, "swap", turn, update_id=800),
            play.act(twin, game_id, actor, "swap", turn, update_id=800),
        )
    finally:
        await other.dispose()
    applied = [o for o in outcomes if o.batch]
    assert len(applied) == 1 and code(applied[0]) in ("done_swap", "done_blocked")
    assert Outcome() in outcomes
    after, log = await load(uow_factory, game_id)
    assert after.version == game.version + 1
    assert [e for e in log if getattr(e.action, "turn", None) == turn] == [log[-1]]
    assert replayed(after, log) == after.state


# -- 2. a turn clock racing a press, across a restart -------------------------------------------

# Seconds the timer waits before it fires, in its race with a press (negative: the press
# waits).
HEAD_STARTS = (0.0, 0.004, -0.004, 0.012, -0.012, 0.1, 0.0, -0.1)


async def after_a_while(seconds: float, use: Coroutine[Any, Any, Outcome]) -> Outcome:
    await asyncio.sleep(seconds)
    return await use


async def test_a_timeout_racing_a_press_after_a_restart_takes_effect_once(
    engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock, database_url: URL
) -> None:
    """Each turn's clock runs out while the bot is down; after the restart two instances get
    the timer and the player's press at once. One of them wins the turn, never both."""
    deps = deps_on(uow_factory, clock, seed=21)
    game_id = await running_game(deps, (ANN, BEA, CID, PEOPLE[3]))
    await engine.dispose()  # the first instance goes away; only the database remains
    rng = random.Random(22)
    winners: list[str] = []
    for attempt in range(len(HEAD_STARTS)):
        engines = (make_engine(database_url), make_engine(database_url))
        timer, presser = (
            Deps(
                uow=sql_uow_factory(each, clock, instance=f"{name}-{attempt}"),
                rng=rng,
                clock=clock,
                turn_timeout=TURN_TIMEOUT,
            )
            for each, name in zip(engines, ("timer", "presser"), strict=True)
        )
        try:
            game, _ = await load(timer.uow, game_id)
            await load(presser.uow, game_id)  # both instances are up, connected, and idle
            if game.status is not GameStatus.RUNNING:
                break
            state = game.state
            assert state is not None and state.round is not None and state.actor is not None
            actor, turn = state.actor, state.turn
            clock.advance(seconds=TURN_TIMEOUT + 1)
            # What a restarted bot re-arms: the game is due.
            assert game_id in [gid for gid, _ in (await sweep.look(timer)).due]

            update_id = 700 + attempt
            round_no = state.round.number
            # Both in flight at once; a head start of a few milliseconds now for one, now for
            # the other, so that either may get to the game row first.
            head_start = HEAD_STARTS[attempt % len(HEAD_STARTS)]
            expired, pressed = await asyncio.gather(
                after_a_while(max(head_start, 0), play.expire(timer, game_id)),
                after_a_while(
                    max(-head_start, 0),
                    play.act(presser, game_id, actor, "keep", turn, update_id, round_no),
                ),
            )

            after, log = await load(presser.uow, game_id)
            for_turn = [e for e in log if getattr(e.action, "turn", None) == turn]
            assert len(for_turn) == 1, for_turn
            if for_turn[0].action == Keep(actor, turn):
                winners.append("press")
                assert code(pressed) == "done_keep" and pressed.batch
                assert not expired.batch  # the deadline had moved on
            else:
                winners.append("clock")
                assert for_turn[0].action == Timeout(turn) and expired.batch
                # Its round may be over too (the dealer's turn lapsed): the key is just old.
                assert code(pressed) in ("already_timeout", "stale_turn"), code(pressed)
                assert not pressed.batch
            assert after.version == game.version + 1  # one write for the turn
            assert replayed(after, log) == after.state

            # Later: the timer fires again (another instance's copy) and the press is
            # redelivered. Neither changes anything.
            settled = await snapshot(engines[1])
            again = await play.expire(presser, game_id)
            assert not again.batch
            assert await play.act(timer, game_id, actor, "keep", turn, update_id) == Outcome()
            assert await snapshot(engines[0]) == settled
        finally:
            for each in engines:
                await each.dispose()
    # Every turn was raced; a long enough head start lets each side win at least once.
    assert len(winners) == len(HEAD_STARTS) and set(winners) == {"clock", "press"}, winners


# -- 3. random traffic against the store --------------------------------------------------------

house_rules = st.builds(
    HouseRules,
    lives=st.just(3),
    max_players=st.sampled_from([3, 4, 10]),
    kings_block=st.booleans(),
    final_tie=st.sampled_from(list(FinalTie)),
    double_cut=st.booleans(),
    dealer_stays=st.booleans(),
    queens_block=st.booleans(),
    stakes=st.booleans(),
    fast_turns=st.booleans(),
    idle_turn_limit=st.integers(1, 2),
)
person = st.integers(0, len(PEOPLE) - 1)
joiners = st.lists(person, max_size=4, unique=True)

Use = Callable[[], Coroutine[Any, Any, Outcome]]


class ReliabilityMachine(RuleBasedStateMachine):
    """Random presses, timeouts, restarts, redeliveries and cancels through the use cases.

    The machine's own knowledge of the games (``open``) is only what it read from the store
    after the last step, to pick plausible actions; the bot under test keeps nothing between
    use cases, and a restart drops its engine.
    """

    def __init__(self, url: URL) -> None:
        super().__init__()
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.clock = StepClock()
        self.restarts = 0
        self.updates: list[int] = []
        # The store as last seen: each game's row (version, status, log length), the game,
        # and the last outbox row checked. Only for the checks, and to pick likely actions.
        self.rows: dict[int, tuple[int, str, int]] = {}
        self.games: dict[int, Game] = {}
        self.outbox_seen = 0
        self.last = Snapshot({}, 0, 0)
        self.open: Game | None = None
        self.last_game: int | None = None
        self.chat = CHAT
        self.rng = random.Random(0)
        self.engine = self.boot()
        self.run(self.empty())  # each example starts from an empty database

    # -- plumbing --------------------------------------------------------------------------

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run_until_complete(coroutine)

    def boot(self) -> AsyncEngine:
        """A new instance on the same database: a new engine, nothing carried over."""
        self.restarts += 1
        self.engine = make_engine(self.url)
        factory = sql_uow_factory(self.engine, self.clock, instance=f"instance-{self.restarts}")
        self.deps = Deps(
            uow=factory,
            rng=self.rng,  # the shuffler, as secrets.SystemRandom() would be: no game state
            clock=self.clock,
            turn_timeout=TURN_TIMEOUT,
            lobby_timeout=LOBBY_TIMEOUT,
        )
        return self.engine

    async def empty(self) -> None:
        async with self.engine.begin() as connection:
            for table in reversed(metadata.sorted_tables):
                await connection.execute(delete(table))

    def teardown(self) -> None:
        try:
            self.run(self.engine.dispose())
        finally:
            self.loop.close()

    def fresh_update(self) -> int:
        update_id = len(self.updates) + 1
        self.updates.append(update_id)
        return update_id

    def send(self, use: Coroutine[Any, Any, Outcome], *, fresh: bool) -> Outcome:
        """Run one use case; a write is one new game version and exactly its notices, anything
        else changes nothing at all (``fresh``: the update id is new, and is recorded)."""
        before = self.last  # the store after the last step: nothing else writes to it
        outcome: Outcome = self.run(use)
        after = self.last = self.run(snapshot(self.engine))
        assert after.updates == before.updates + (1 if fresh else 0)
        changed = {g for g, row in after.games.items() if before.games.get(g) != row}
        if outcome.batch:
            assert outcome.game_id is not None and changed == {outcome.game_id}, outcome
            version, _, log_seq = after.games[outcome.game_id]
            prior = before.games.get(outcome.game_id)
            if prior is None:
                assert version == 0  # a new lobby
            else:
                assert version == prior[0] + 1 and log_seq >= prior[2]
            assert after.outbox == before.outbox + len(outcome.batch.notices)
        else:
            assert changed == set() and after.outbox == before.outbox, (outcome, changed)
        return outcome

    def seated(self, who: int) -> bool:
        return self.open is not None and PEOPLE[who].id in self.open.seats

    def may_manage(self, who: int, admin: bool) -> bool:
        return self.open is not None and (admin or self.open.creator_id == PEOPLE[who].id)

    def running(self) -> Game | None:
        game = self.open
        return game if game is not None and game.status is GameStatus.RUNNING else None

    # -- the group -------------------------------------------------------------------------

    @initialize(
        rules=house_rules,
        seed=st.integers(0, 2**32 - 1),
        creator=person,
        joiners=joiners,
        computers=st.integers(0, 2),
    )
    def a_group_sits_down(
        self, rules: HouseRules, seed: int, creator: int, joiners: list[int], computers: int
    ) -> None:
        self.rng.seed(seed)
        self.chat = Chat(id=GROUP, title="Reliable club", language="en", rules=rules)
        self.new_table(creator, joiners, computers)

    @precondition(lambda self: self.open is None)
    @rule(creator=person, joiners=joiners, computers=st.integers(0, 2))
    def a_new_table(self, creator: int, joiners: list[int], computers: int) -> None:
        self.new_table(creator, joiners, computers)

    def new_table(self, creator: int, joiners: list[int], computers: int) -> None:
        """A lobby opens, people join, computer seats are added, and the creator starts it:
        each a use case of its own, checked like any other step."""
        self.open_a_lobby(creator)
        for who in joiners:
            self.look()
            self.join(who)
        for _ in range(computers):
            self.look()
            self.add_a_computer(creator, admin=False)
        self.look()
        self.start(creator, admin=False)

    def look(self) -> None:
        """What the store says now (the invariants, which also refresh ``open``)."""
        self.the_store_is_consistent()

    @rule(who=person)
    def open_a_lobby(self, who: int) -> None:
        update_id = self.fresh_update()
        had = self.open
        outcome = self.send(
            lobby.open_lobby(self.deps, self.chat, PEOPLE[who], None, update_id),
            fresh=True,
        )
        if had is None:
            assert outcome.batch and outcome.game_id is not None
        else:
            assert code(outcome) == "game_exists" and outcome.game_id == had.id

    @precondition(lambda self: self.last_game is not None)
    @rule(who=person)
    def join(self, who: int) -> None:
        game_id, update_id = self.last_game, self.fresh_update()
        assert game_id is not None
        outcome = self.send(
            lobby.join(self.deps, game_id, PEOPLE[who], update_id, GROUP), fresh=True
        )
        game = self.open
        if (
            game is not None
            and game.status is GameStatus.LOBBY
            and not self.seated(who)
            and len(game.seats) < self.chat.rules.max_players
        ):
            assert code(outcome) == "joined"
        else:
            assert not outcome.batch

    def add_a_computer(self, who: int, admin: bool) -> None:
        game = self.open
        if game is None or game.status is not GameStatus.LOBBY:
            return
        update_id = self.fresh_update()
        outcome = self.send(
            lobby.add_computer(self.deps, game.id, GROUP, PEOPLE[who], admin, update_id),
            fresh=True,
        )
        room = len(game.seats) < self.chat.rules.max_players
        assert (code(outcome) == "computer_added") == (room and self.may_manage(who, admin))

    @precondition(lambda self: self.open is not None)
    @rule(who=person)
    def leave(self, who: int) -> None:
        update_id = self.fresh_update()
        outcome = self.send(lobby.leave(self.deps, GROUP, PEOPLE[who], update_id), fresh=True)
        game = self.open
        if game is None or not self.seated(who):
            assert code(outcome) == "not_in_game"
        elif game.status is GameStatus.LOBBY:
            assert code(outcome) == "left"
        else:
            assert game.state is not None
            active = game.state.seat(PEOPLE[who].id).active
            assert code(outcome) == ("resigned" if active else "illegal_action")

    @precondition(lambda self: self.open is not None)
    @rule(who=person, admin=st.booleans())
    def start(self, who: int, admin: bool) -> None:
        update_id = self.fresh_update()
        outcome = self.send(
            lobby.start(self.deps, GROUP, PEOPLE[who], admin, update_id), fresh=True
        )
        game = self.open
        ready = (
            game is not None
            and game.status is GameStatus.LOBBY
            and self.may_manage(who, admin)
            and len(game.seats) >= self.chat.rules.min_players
        )
        assert (code(outcome) == "started") == ready

    @precondition(lambda self: self.open is not None)
    @rule(who=person, admin=st.booleans())
    def cancel(self, who: int, admin: bool) -> None:
        update_id = self.fresh_update()
        outcome = self.send(
            lobby.cancel(self.deps, GROUP, PEOPLE[who], admin, update_id=update_id),
            fresh=True,
        )
        assert (code(outcome) == "cancelled") == self.may_manage(who, admin)

    # -- presses ---------------------------------------------------------------------------

    @precondition(lambda self: self.running() is not None)
    @rule(picks=st.lists(st.integers(0, 1), min_size=2, max_size=12))
    def presses(self, picks: list[int]) -> None:
        """Whoever's turn it is presses one of their keys, a few turns in a row."""
        for i, pick in enumerate(picks):
            if i:
                self.look()
            game = self.running()
            if game is None:
                return
            state = game.state
            assert state is not None and state.round is not None
            options = legal_actions(state)
            choice = options[pick % len(options)]
            assert isinstance(choice, Keep | Swap | Cut)
            move = Move.of(choice)
            turn, round_no = state.turn, state.round.number
            update_id = self.fresh_update()
            outcome = self.send(
                play.act(self.deps, game.id, choice.player, move, turn, update_id, round_no),
                fresh=True,
            )
            assert (code(outcome) or "").startswith("done_") and outcome.batch, outcome

    @precondition(lambda self: self.running() is not None)
    @rule(who=person, move=st.sampled_from(["keep", "swap", "cut"]))
    def press_out_of_turn(self, who: int, move: str) -> None:
        game = self.running()
        assert game is not None and game.state is not None
        player = PEOPLE[who].id
        if player == game.state.actor:
            player = next(p for p in game.seats if p != player)
        turn, update_id = game.state.turn, self.fresh_update()
        outcome = self.send(play.act(self.deps, game.id, player, move, turn, update_id), fresh=True)
        assert code(outcome) in ("not_your_turn", "not_in_game"), outcome

    @precondition(lambda self: self.running() is not None)
    @rule(back=st.integers(1, 3), wrong_round=st.booleans())
    def press_late(self, back: int, wrong_round: bool) -> None:
        """A key of an earlier prompt (or of another round) from the player to act now."""
        game = self.running()
        assert game is not None and game.state is not None and game.state.round is not None
        actor = game.state.actor
        assert actor is not None
        turn = game.state.turn if wrong_round else game.state.turn - back
        round_no = game.state.round.number + (back if wrong_round else 0)
        update_id = self.fresh_update()
        outcome = self.send(
            play.act(self.deps, game.id, actor, "keep", turn, update_id, round_no),
            fresh=True,
        )
        assert code(outcome) == "stale_turn", outcome

    # -- the clock -------------------------------------------------------------------------

    @precondition(lambda self: self.open is not None and self.open.deadline is not None)
    @rule(extra=st.integers(0, 20))
    def deadline_passes(self, extra: int) -> None:
        """The clock runs past the open game's deadline and its timer fires (twice)."""
        game = self.open
        assert game is not None and game.deadline is not None
        late = (game.deadline - self.clock.now()).total_seconds() + extra
        self.clock.advance(seconds=max(late, 0))
        assert game.id in [gid for gid, _ in self.run(sweep.look(self.deps)).due]
        fired = self.send(play.expire(self.deps, game.id), fresh=False)
        assert fired.batch
        again = self.send(play.expire(self.deps, game.id), fresh=False)
        assert not again.batch

    @rule(seconds=st.integers(1, 40))
    def time_passes(self, seconds: int) -> None:
        self.clock.advance(seconds=seconds)

    @precondition(lambda self: self.last_game is not None)
    @rule()
    def a_timer_fires(self) -> None:
        """A timer for the latest game fires, due or not (an early or a leftover timer)."""
        game_id = self.last_game
        assert game_id is not None
        game = self.open if self.open is not None and self.open.id == game_id else None
        game = game or self.games.get(game_id)  # finished: its Play again key's deadline
        due = game is not None and game.deadline is not None and game.deadline <= self.clock.now()
        fired = self.send(play.expire(self.deps, game_id), fresh=False)
        assert bool(fired.batch) == due

    # -- the bot's life --------------------------------------------------------------------

    @rule()
    def restart(self) -> None:
        self.run(self.engine.dispose())
        self.boot()

    @precondition(lambda self: bool(self.updates))
    @rule(index=st.integers(0, 200), kind=st.integers(0, 5), who=person)
    def redelivered(self, index: int, kind: int, who: int) -> None:
        """An update id seen before arrives again, with whatever content: nothing happens."""
        update_id = self.updates[index % len(self.updates)]
        game, deps, user = self.open, self.deps, PEOPLE[who]
        uses: list[Use] = [
            lambda: lobby.open_lobby(deps, self.chat, user, None, update_id),
            lambda: lobby.leave(deps, GROUP, user, update_id),
            lambda: lobby.start(deps, GROUP, user, True, update_id),
            lambda: lobby.cancel(deps, GROUP, user, True, update_id=update_id),
        ]
        if game is not None and game.status is GameStatus.LOBBY:
            uses.append(lambda: lobby.join(deps, game.id, user, update_id, GROUP))
        if game is not None and game.state is not None and game.state.actor is not None:
            actor, turn = game.state.actor, game.state.turn
            uses.append(lambda: play.act(deps, game.id, actor, "keep", turn, update_id))
        outcome = self.send(uses[kind % len(uses)](), fresh=False)
        assert outcome == Outcome()  # and, as ``send`` checks, the store is as it was

    # -- what must always hold -------------------------------------------------------------

    async def read_store(self) -> tuple[Snapshot, list[tuple[Game, list[LogEntry]]], list[Any]]:
        """The games that changed since the last look (and the open ones), with their logs,
        and the outbox rows written since."""
        now = await snapshot(self.engine)
        changed = [
            game_id
            for game_id, row in now.games.items()
            if self.rows.get(game_id) != row or row[1] in OPEN
        ]
        reader = self.engine.execution_options(**{BEGIN: BEGIN_READ})
        async with reader.connect() as connection:
            notices = list(
                await connection.execute(
                    select(OutboxRow.id, OutboxRow.kind, OutboxRow.chat_id, OutboxRow.game_id)
                    .where(OutboxRow.id > self.outbox_seen)
                    .order_by(OutboxRow.id)
                )
            )
        read: list[tuple[Game, list[LogEntry]]] = []
        async with self.deps.uow(read_only=True) as uow:
            for game_id in changed:
                game = await uow.games.get(game_id)
                assert game is not None
                read.append((game, await uow.games.log(game_id)))
        return now, read, notices

    @invariant()
    def the_store_is_consistent(self) -> None:
        now, read, notices = self.run(self.read_store())
        open_games = [g for g, _ in read if g.status.open]  # all of them: open ones are read
        chats = [g.chat_id for g in open_games]
        assert len(chats) == len(set(chats)), open_games  # at most one open game per chat
        for game, log in read:
            assert now.games[game.id] == (game.version, game.status.value, len(log))
            self.check_game(game, log)
            self.games[game.id] = game
        self.rows, self.last = dict(now.games), now
        for notice_id, kind, chat_id, game_id in notices:
            game = self.games[game_id]
            if NoticeKind(kind).private:
                humans = [p for p in game.seats if p > 0]
                assert chat_id in humans, (kind, chat_id, game.seats)
            else:
                assert chat_id == game.chat_id, (kind, chat_id)
            self.outbox_seen = notice_id
        self.open = open_games[0] if open_games else None
        self.last_game = max(now.games, default=None)

    def check_game(self, game: Game, log: list[LogEntry]) -> None:
        prior = self.games.get(game.id)
        if prior is not None:
            assert game.version >= prior.version
            assert STAGE[game.status] >= STAGE[prior.status]
            if not prior.status.open:  # written again only to take its Play again key off
                assert prior.status is GameStatus.FINISHED and prior.deadline is not None
                assert game.status is GameStatus.FINISHED and game.deadline is None
                assert game.state == prior.state
        state = game.state
        if game.status is GameStatus.LOBBY:
            assert state is None and game.deadline is not None and log == []
        if game.status is GameStatus.RUNNING:
            assert state is not None and not state.finished and game.deadline is not None
            assert state.phase is Phase.TURNS and state.actor is not None and state.actor > 0
        if not game.status.open:
            assert game.finished_at is not None
            # A winner's summary keeps its Play again key for the lobby timeout, no longer.
            keyed = game.status is GameStatus.FINISHED and state is not None and state.winners
            key_until = game.finished_at + timedelta(seconds=LOBBY_TIMEOUT)
            assert game.deadline in ((None, key_until) if keyed else (None,)), game
        if state is None:
            return
        assert list(state.players) == game.seats
        assert replayed(game, log) == state
        lives = {s.player: s.lives for s in state.seats}
        assert all(n >= 0 for n in lives.values())
        if prior is not None and prior.state is not None:
            before = {s.player: s.lives for s in prior.state.seats}
            assert all(lives[p] <= before[p] for p in lives), (before, lives)
            alive = {p for p, n in lives.items() if n > 0}
            assert alive <= {p for p, n in before.items() if n > 0}
        assert (game.status is GameStatus.FINISHED) == state.finished
        if state.finished:
            assert set(state.winners) <= set(game.seats)
            if state.abandoned:
                assert state.winners == ()  # everyone let the clock run out
            elif state.shared_victory:
                assert len(state.winners) > 1 and game.rules.final_tie is FinalTie.SHARED
            else:
                assert len(state.winners) == 1


MACHINE_SETTINGS = settings(
    max_examples=20,
    stateful_step_count=35,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.slow
def test_random_traffic_keeps_the_store_consistent(database_url: URL) -> None:
    run_state_machine_as_test(lambda: ReliabilityMachine(database_url), settings=MACHINE_SETTINGS)
