"""What a press costs the database: one write transaction for the move and everything it makes
players see, then one statement marking what the courier sent. Counted with SQLAlchemy's
cursor events, on SQLite and PostgreSQL, through the real courier and the fake Bot API."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine
from telegram.constants import ParseMode
from telegram.ext import Defaults, ExtBot

from cuckoo_bot.app import lobby, play
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, GameStatus, Player
from cuckoo_bot.app.notices import TableView
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Renderer
from fakebotapi import FakeBotApi
from tests.databases import StepClock

TOKEN = "778:statement-count-token-0123456789"
GROUP = -100778
LIMIT = 12  # statements per press, its delivery included


class Statements:
    """Every statement the engine sends (BEGIN IMMEDIATE and executemany count as one)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.sql: list[str] = []
        event.listen(engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.sql.append(statement.split("\n")[0][:80])


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN) as server:
        for user in (1, 2, 3, 4):
            server.add_user(user, f"P{user}", started=True)
        server.add_group(GROUP, "Club", type="supergroup", members=[1, 2, 3, 4], admins=[1])
        yield server


async def test_a_keep_a_swap_a_cut_and_the_press_that_ends_a_round_cost_at_most_12_statements(
    fake: FakeBotApi, engine: AsyncEngine, uow_factory: UnitOfWorkFactory, clock: StepClock
) -> None:
    deps = Deps(uow=uow_factory, rng=random.Random(4), clock=clock, turn_timeout=60)
    defaults = Defaults(parse_mode=ParseMode.HTML)
    async with ExtBot(TOKEN, base_url=fake.base_url, defaults=defaults) as bot:
        budget = GroupBudget(1000, clock=lambda: clock.now().timestamp())
        courier = Courier(deps, bot, Renderer(Translator()), budget, PrivatePacer(0))
        people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in (1, 2, 3, 4)]
        chat = Chat(id=GROUP, title="Club", rules=HouseRules(double_cut=True))
        opened = await lobby.open_lobby(deps, chat, people[0], thread_id=None)
        assert opened.game_id is not None
        for person in people[1:]:
            await lobby.join(deps, opened.game_id, person)
        started = await lobby.start(deps, GROUP, people[0], is_admin=False)
        assert started.batch is not None
        await courier.deliver(started.batch)

        counter = Statements(engine)
        update_id = 1000
        costs: dict[str, int] = {}
        moves = {"keep": "keep", "swap": "swap", "cut": "cut"}
        for _ in range(400):
            async with uow_factory(read_only=True) as uow:
                game = await uow.games.get(opened.game_id)
            assert game is not None and game.state is not None
            if game.status is not GameStatus.RUNNING or len(costs) == 4:
                break
            state = game.state
            assert state.round is not None and state.actor is not None
            dealer = state.round.actor_is_dealer
            wanted = [m for m in moves if m not in costs]
            move = "cut" if dealer and "cut" in wanted else ("keep" if dealer else wanted[0])
            if move == "cut" and not dealer:
                move = "keep"
            before = len(counter.sql)
            update_id += 1
            outcome = await play.act(deps, game.id, state.actor, move, state.turn, update_id)
            assert outcome.batch is not None
            ended = any(
                isinstance(n.payload, TableView) and n.payload.reveal is not None
                for n in outcome.batch.notices
            )
            await courier.deliver(outcome.batch)
            await courier.drain()
            used = len(counter.sql) - before
            code = outcome.reply.code if outcome.reply else ""
            kind = (
                "round end"
                if ended
                else {"done_keep": "keep", "done_swap": "swap", "done_cut": "cut"}.get(code)
            )
            if kind is not None and kind not in costs:
                costs[kind] = used
                assert used <= LIMIT, (kind, "\n".join(counter.sql[before:]))
            clock.advance(seconds=2)
    print("STATEMENTS", costs)
    assert set(costs) == {"keep", "swap", "cut", "round end"}, costs
