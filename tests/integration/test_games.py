"""Games: lobby and running round trips, the log, derived rows, and what the database refuses."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.app.model import GameStatus, LogEntry
from cuckoo_bot.app.ports import UnitOfWorkFactory
from cuckoo_bot.domain.actions import Deal, Resign
from cuckoo_bot.domain.events import LifeLost, Revealed, RoundDealt
from cuckoo_bot.domain.state import GameState, Phase
from cuckoo_bot.persistence.models import GameLogRow, GamePlayerRow, RoundRow
from tests.integration.builders import (
    CHAT_ID,
    ODD_RULES,
    PLAYERS,
    START,
    choose,
    lobby,
    replay,
    seed,
    start,
    step,
)


async def _rows(engine: AsyncEngine, model: Any, game_id: int, *order: Any) -> list[Any]:
    async with engine.connect() as connection:
        result = await connection.execute(
            select(model).where(model.game_id == game_id).order_by(*order)
        )
        return list(result.mappings().all())


async def test_lobby_round_trip(uow_factory: UnitOfWorkFactory, engine: AsyncEngine) -> None:
    game = lobby(rules=ODD_RULES)
    game.new_log.append(LogEntry(action=None, events=(), at=START, actor=PLAYERS[0].id))
    async with uow_factory() as uow:
        await seed(uow)
        added = await uow.games.add(game)
        await uow.commit()
    assert added is game and game.id > 0 and game.new_log == []
    async with uow_factory() as uow:
        stored = await uow.games.get(game.id)
        assert stored == game
        assert await uow.games.open_in_chat(CHAT_ID, lock=True) == game
        assert await uow.games.log(game.id) == [
            LogEntry(action=None, events=(), at=START, actor=PLAYERS[0].id)
        ]
        assert stored is not None
        stored.seats.remove(PLAYERS[1].id)
        await uow.games.save(stored)
        await uow.commit()
    assert stored.version == 1
    async with uow_factory() as uow:
        assert await uow.games.get(game.id) == stored
        assert await uow.games.get(game.id + 1000) is None
    seats = await _rows(engine, GamePlayerRow, game.id, GamePlayerRow.seat)
    assert [(r["player_id"], r["seat"], r["lives"]) for r in seats] == [
        (p, i, None) for i, p in enumerate(stored.seats)
    ]
    assert [r["is_computer"] for r in seats] == [p < 0 for p in stored.seats]


async def test_running_game_log_replays_to_stored_state(
    uow_factory: UnitOfWorkFactory, engine: AsyncEngine
) -> None:
    rng = random.Random(2026)
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby(rules=replace(ODD_RULES, lives=3, kings_block=True)))
        await uow.commit()
    saved = copy.deepcopy(game)
    at = START
    while game.state is None or not game.state.finished:
        async with uow_factory() as uow:
            loaded = await uow.games.get(game.id, lock=True)
            assert loaded == saved
            if game.state is None:
                start(game, at)
                initial: GameState = game.state  # type: ignore[assignment]
            assert game.state is not None
            # A few steps per transaction, like a press followed by computer moves.
            for _ in range(rng.randint(1, 4)):
                if game.state.finished:
                    break
                at += timedelta(seconds=rng.randint(1, 20))
                step(game, choose(game.state, rng), at)
            game.deadline = None if game.state.finished else at + timedelta(seconds=45)
            if game.state.finished:
                game.status, game.finished_at = GameStatus.FINISHED, at
            await uow.games.save(game)
            await uow.commit()
        assert game.new_log == [] and game.version == saved.version + 1
        saved = copy.deepcopy(game)
    async with uow_factory() as uow:
        stored = await uow.games.get(game.id)
        log = await uow.games.log(game.id)
    assert stored == game and stored.state == game.state
    assert replay(initial, log) == stored.state
    deals = [e for e in log if isinstance(e.action, Deal)]
    dealt = [ev for e in log for ev in e.events if isinstance(ev, RoundDealt)]
    assert game.state.rounds_dealt == len(dealt) >= 2

    rounds = await _rows(engine, RoundRow, game.id, RoundRow.number)
    assert [r["number"] for r in rounds] == list(range(1, len(dealt) + 1))
    by_round = {ev.round: e for e in deals for ev in e.events if isinstance(ev, RoundDealt)}
    for row in rounds:
        entry = by_round[row["number"]]
        assert isinstance(entry.action, Deal)
        assert row["deck"] == [card.code for card in entry.action.deck]
        assert len(row["deck"]) == 52
        assert row["status"] in ("revealed", "misdealt")
    reveals = [ev for e in log for ev in e.events if isinstance(ev, Revealed)]
    revealed = [r for r in rounds if r["status"] == "revealed"]
    assert [r["outcome"]["lowest"] for r in revealed] == [list(ev.lowest) for ev in reveals]
    losses = sum(isinstance(ev, LifeLost) for e in log for ev in e.events)
    assert sum(len(r["outcome"]["life_losses"]) for r in revealed) == losses

    seats = await _rows(engine, GamePlayerRow, game.id, GamePlayerRow.seat)
    assert [(r["player_id"], r["lives"], r["eliminated_in_round"]) for r in seats] == [
        (s.player, s.lives, s.eliminated_in_round) for s in game.state.seats
    ]
    log_rows = await _rows(engine, GameLogRow, game.id, GameLogRow.seq)
    assert [r["seq"] for r in log_rows] == list(range(1, len(log) + 1))
    assert log_rows[0]["round"] == 1 and log_rows[-1]["round"] == len(dealt)


async def test_round_rows_follow_the_table(
    uow_factory: UnitOfWorkFactory, engine: AsyncEngine
) -> None:
    """A round in play is "playing" (the game row holds its turn clock); a resignation gathers
    it (misdealt)."""
    rng = random.Random(7)
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        start(game, START)
        assert game.state is not None
        step(game, choose(game.state, rng), START)
        game.deadline = START + timedelta(seconds=45)
        await uow.games.save(game)
        await uow.commit()
    assert game.state.phase is Phase.TURNS
    (playing,) = await _rows(engine, RoundRow, game.id)
    assert playing["status"] == "playing" and playing["ended_at"] is None

    async with uow_factory() as uow:
        step(game, Resign(PLAYERS[0].id), START + timedelta(seconds=5))
        await uow.games.save(game)
        await uow.commit()
    (gathered,) = await _rows(engine, RoundRow, game.id)
    assert gathered["status"] == "misdealt" and gathered["ended_at"] is not None
    seats = await _rows(engine, GamePlayerRow, game.id, GamePlayerRow.seat)
    assert [r["lives"] for r in seats if r["player_id"] == PLAYERS[0].id] == [0]

    async with uow_factory() as uow:
        step(game, choose(game.state, rng), START + timedelta(seconds=6))  # the redeal
        await uow.games.save(game)
        await uow.commit()
    async with uow_factory() as uow:
        game.status, game.cancel_reason, game.deadline = GameStatus.CANCELLED, "admin", None
        game.finished_at = START + timedelta(seconds=9)
        await uow.games.save(game)
        await uow.commit()
    rounds = await _rows(engine, RoundRow, game.id, RoundRow.number)
    assert [(r["number"], r["status"]) for r in rounds] == [(1, "misdealt"), (2, "abandoned")]
    assert rounds[1]["ended_at"] == game.finished_at


async def test_one_open_game_per_chat(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID, CHAT_ID - 1))
        await uow.games.add(lobby(status=GameStatus.FINISHED))
        await uow.games.add(lobby(status=GameStatus.CANCELLED))
        first = await uow.games.add(lobby())
        await uow.games.add(lobby(CHAT_ID - 1))  # another chat is fine
        await uow.commit()
    async with uow_factory() as uow:
        with pytest.raises(IntegrityError):
            await uow.games.add(lobby(status=GameStatus.RUNNING))
    async with uow_factory() as uow:
        closed = await uow.games.get(first.id)
        assert closed is not None
        closed.status = GameStatus.FINISHED
        await uow.games.save(closed)
        await uow.games.add(lobby())  # once the first is over, a new one may open
        await uow.commit()
