"""Games: what is saved comes back with its chat and log, a stale save is refused, and the
timers find the games that are due."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

import pytest

from cuckoo_bot.app.model import Game, GameStatus, LogEntry
from cuckoo_bot.app.ports import ConcurrentUpdate, UnitOfWorkFactory
from cuckoo_bot.domain.state import GameState
from tests.integration.builders import (
    CHAT_ID,
    ODD_RULES,
    PLAYERS,
    START,
    chat,
    choose,
    lobby,
    replay,
    seed,
    start,
    step,
)


async def test_a_game_comes_back_as_saved_with_its_chat_and_log(
    uow_factory: UnitOfWorkFactory,
) -> None:
    game = lobby(rules=ODD_RULES)
    async with uow_factory() as uow:
        await seed(uow)
        added = await uow.games.add(game)
        await uow.commit()
    assert added is game and game.id > 0
    joined = LogEntry(action=None, events=(), at=START, actor=PLAYERS[2].id)
    left = LogEntry(action=None, events=(), at=START + timedelta(seconds=1), actor=PLAYERS[1].id)
    async with uow_factory() as uow:
        stored = await uow.games.get(game.id)
        assert stored == game
        assert stored is not None and stored.chat == chat()
        locked = await uow.games.get(game.id, lock=True)
        assert locked == game and locked is not None and locked.chat == chat()
        assert await uow.games.open_in_chat(CHAT_ID, lock=True) == game
        assert await uow.games.log(game.id) == []
        assert await uow.games.get(game.id + 1000) is None
        locked.new_log.append(joined)
        await uow.games.save(locked)
        assert locked.version == 1 and locked.new_log == []
        await uow.commit()
    async with uow_factory() as uow:  # a later press reads the game again and goes on
        again = await uow.games.get(game.id, lock=True)
        assert again == locked and again is not None
        again.seats.remove(PLAYERS[1].id)
        again.new_log.append(left)
        await uow.games.save(again)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.games.get(game.id) == again
        assert again.version == 2
        assert await uow.games.log(game.id) == [joined, left]


async def test_a_played_game_is_stored_move_by_move_and_its_log_replays_to_it(
    uow_factory: UnitOfWorkFactory,
) -> None:
    rng = random.Random(2026)
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby(rules=replace(ODD_RULES, lives=3)))
        await uow.commit()
    at = START
    initial: GameState | None = None
    while game.state is None or not game.state.finished:
        async with uow_factory() as uow:
            loaded = await uow.games.get(game.id, lock=True)
            assert loaded == game
            if game.state is None:
                start(game, at)
                initial = game.state
            assert game.state is not None
            for _ in range(rng.randint(1, 4)):  # a press and the computer moves after it
                if game.state.finished:
                    break
                at += timedelta(seconds=rng.randint(1, 20))
                step(game, choose(game.state, rng), at)
            if game.state.finished:
                game.status, game.finished_at, game.deadline = GameStatus.FINISHED, at, None
            await uow.games.save(game)
            await uow.commit()
    async with uow_factory() as uow:
        stored = await uow.games.get(game.id)
        log = await uow.games.log(game.id)
    assert stored == game and initial is not None
    assert replay(initial, log) == game.state


async def test_a_game_changed_but_not_saved_is_not_stored(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        await uow.commit()
    async with uow_factory() as uow:
        found = await uow.games.get(game.id, lock=True)
        assert found is not None
        found.seats.pop()
        found.status = GameStatus.CANCELLED
        assert await uow.games.get(game.id) == game  # read again: as stored
        await uow.commit()  # commits, but the game was never saved
    async with uow_factory() as uow:
        assert await uow.games.get(game.id) == game
        assert await uow.games.open_in_chat(CHAT_ID) == game


async def test_stale_save_raises_concurrent_update(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby())
        await uow.commit()
    async with uow_factory() as uow:
        stale = await uow.games.get(game.id)
    async with uow_factory() as uow:
        fresh = await uow.games.get(game.id)
        assert fresh is not None
        fresh.seats.pop()
        await uow.games.save(fresh)
        await uow.commit()
    assert stale is not None and stale.version == 0
    entry = LogEntry(action=None, events=(), at=START)
    stale.new_log.append(entry)
    async with uow_factory() as uow:
        with pytest.raises(ConcurrentUpdate):
            await uow.games.save(stale)
    assert stale.new_log == [entry] and stale.version == 0
    async with uow_factory() as uow:
        assert await uow.games.get(game.id) == fresh
        assert await uow.games.log(game.id) == []


async def test_a_chats_open_game_is_its_lobby_or_running_game(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID, CHAT_ID - 1))
        await uow.games.add(lobby(status=GameStatus.FINISHED))
        await uow.games.add(lobby(status=GameStatus.CANCELLED))
        await uow.games.add(lobby(CHAT_ID - 1, status=GameStatus.FINISHED))
        running = await uow.games.add(lobby(status=GameStatus.RUNNING))
        await uow.commit()
    async with uow_factory() as uow:
        found = await uow.games.open_in_chat(CHAT_ID)
        assert found == running and found is not None and found.chat == chat()
        assert await uow.games.open_in_chat(CHAT_ID - 1) is None
        assert await uow.games.count_by_status() == {
            GameStatus.FINISHED: 2,
            GameStatus.CANCELLED: 1,
            GameStatus.RUNNING: 1,
        }


async def test_a_chats_finished_games_latest_first(uow_factory: UnitOfWorkFactory) -> None:
    games: list[Game] = []
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID, CHAT_ID - 1))
        for i, (chat_id, status) in enumerate(
            [
                (CHAT_ID, GameStatus.FINISHED),
                (CHAT_ID - 1, GameStatus.FINISHED),
                (CHAT_ID, GameStatus.CANCELLED),
                (CHAT_ID, GameStatus.FINISHED),
            ]
        ):
            ended = START + timedelta(hours=i)
            game = lobby(chat_id, status=status, created_at=START, finished_at=ended)
            games.append(await uow.games.add(game))
        await uow.commit()
    async with uow_factory(read_only=True) as uow:
        found = await uow.games.finished_in_chat(CHAT_ID)
        assert [g.id for g in found] == [games[3].id, games[0].id]  # finished only, this chat
        assert found[0].chat is not None and found[0].chat.id == CHAT_ID
        assert [g.id for g in await uow.games.finished_in_chat(CHAT_ID, limit=1)] == [games[3].id]
        assert await uow.games.finished_in_chat(12345) == []


async def test_due_and_with_deadlines(uow_factory: UnitOfWorkFactory) -> None:
    chats = (CHAT_ID, CHAT_ID - 1, CHAT_ID - 2, CHAT_ID - 3)
    async with uow_factory() as uow:
        await seed(uow, chats)
        late = await uow.games.add(lobby(chats[0], deadline=START + timedelta(seconds=30)))
        early = await uow.games.add(lobby(chats[1], deadline=START - timedelta(seconds=5)))
        exact = await uow.games.add(lobby(chats[2], deadline=START))
        await uow.games.add(lobby(chats[3], deadline=None))
        # Cancelled games never come due, whatever their deadline says; a finished game's
        # deadline is its Play again key's.
        await uow.games.add(
            lobby(chats[0], status=GameStatus.CANCELLED, deadline=START - timedelta(days=1))
        )
        ended = await uow.games.add(
            lobby(chats[1], status=GameStatus.FINISHED, deadline=START - timedelta(seconds=1))
        )
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.games.due(START) == [
            (early.id, early.deadline),
            (ended.id, ended.deadline),
            (exact.id, START),
        ]
        assert await uow.games.due(START, limit=1) == [(early.id, early.deadline)]
        assert await uow.games.due(START - timedelta(minutes=1)) == []
        armed = await uow.games.with_deadlines()
        assert sorted(armed) == sorted(
            [
                (late.id, late.deadline),
                (early.id, early.deadline),
                (exact.id, START),
                (ended.id, ended.deadline),
            ]
        )
        assert all(deadline.tzinfo is not None for _, deadline in armed)


async def test_a_turns_nudge_wakes_the_game_before_its_deadline(
    uow_factory: UnitOfWorkFactory,
) -> None:
    async with uow_factory() as uow:
        await seed(uow, (CHAT_ID,))
        game = lobby(CHAT_ID, deadline=START + timedelta(seconds=20))
        game.warn_at = START - timedelta(seconds=1)
        game = await uow.games.add(game)
        await uow.commit()
    async with uow_factory() as uow:
        # Due at its nudge, though its deadline is still ahead; re-armed for the nudge too.
        assert await uow.games.due(START) == [(game.id, START - timedelta(seconds=1))]
        assert await uow.games.with_deadlines() == [(game.id, START - timedelta(seconds=1))]
        stored = await uow.games.get(game.id, lock=True)
        assert stored is not None and stored.warn_at == START - timedelta(seconds=1)
        stored.warn_at = None
        await uow.games.save(stored)
        await uow.commit()
    async with uow_factory() as uow:
        assert await uow.games.due(START) == []
        assert await uow.games.with_deadlines() == [(game.id, START + timedelta(seconds=20))]


def test_a_game_is_saved_in_every_column_the_store_gives_it() -> None:
    # ``save`` writes each column from a parameter of its own, built once: a column added to
    # the row's values and not to the list (or the other way) would not be written.
    from cuckoo_bot.persistence.mapping import GAME_COLUMNS, game_values
    from cuckoo_bot.persistence.models import GameRow

    assert list(game_values(lobby())) == list(GAME_COLUMNS)
    managed = {"id", "version", "log_seq"}  # the store's own
    assert set(GameRow.__table__.columns.keys()) == set(GAME_COLUMNS) | managed
