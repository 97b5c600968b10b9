"""Two units of work racing for one game: the lock makes the second wait, so nothing is lost."""

from __future__ import annotations

import asyncio
import random

import pytest

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.ports import UnitOfWorkFactory
from tests.databases import StepClock
from tests.integration.builders import PLAYERS, lobby, seed


async def end_at_once(uow_factory: UnitOfWorkFactory, games: list[Game]) -> None:
    """Each game's end recorded in the league in its own transaction, all at once."""
    from cuckoo_bot.app.league import record_result
    from tests.integration.builders import START

    async def end(game: Game) -> None:
        async with uow_factory() as uow:
            await record_result(uow, game, START)
            await uow.commit()

    await asyncio.gather(*(end(g) for g in games))


async def test_locked_get_serializes_writers(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby(seats=[PLAYERS[0].id]))
        await uow.commit()
    trace: list[str] = []

    async def join(player: int, name: str) -> None:
        async with uow_factory() as uow:
            locked = await uow.games.get(game.id, lock=True)
            assert locked is not None
            trace.append(f"{name} read {len(locked.seats)}")
            await asyncio.sleep(0.2)  # the other one runs meanwhile, and must wait
            locked.seats.append(player)
            await uow.games.save(locked)
            trace.append(f"{name} commits")
            await uow.commit()

    await asyncio.gather(join(PLAYERS[1].id, "first"), join(PLAYERS[2].id, "second"))
    async with uow_factory() as uow:
        stored = await uow.games.get(game.id)
    assert stored is not None
    assert sorted(stored.seats[1:]) == sorted([PLAYERS[1].id, PLAYERS[2].id])
    assert stored.version == 2
    # Strictly one after the other: the second read saw the first one's seat.
    assert [t.split()[1] for t in trace] == ["read", "commits", "read", "commits"]
    assert trace[0].endswith("read 1") and trace[2].endswith("read 2")


async def test_a_read_only_unit_of_work_reads_while_a_writer_holds_the_lock(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Leaderboards, languages and the courier's reads never queue behind a move."""
    from tests.integration.builders import CHAT_ID, chat

    async with uow_factory() as writer:
        await writer.chats.add(chat())  # the write lock is held until commit
        async with uow_factory(read_only=True) as reader:
            # A second writer would wait here for the lock (15 s on SQLite); a reader does not.
            seen = await asyncio.wait_for(reader.chats.get(CHAT_ID), timeout=5)
        assert seen is None  # nor does it see what is not committed
        await writer.commit()
    async with uow_factory(read_only=True) as reader:
        assert await reader.chats.get(CHAT_ID) is not None


async def test_thirty_games_sharing_a_player_that_end_at_once_all_count_in_the_league(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Each game's end reads and writes the shared player's global rows: none is lost."""
    from dataclasses import replace

    from cuckoo_bot.app.league import season_of
    from cuckoo_bot.app.model import ALL_TIME, GLOBAL_SCOPE, Game
    from cuckoo_bot.domain.engine import new_game
    from cuckoo_bot.domain.rules import HouseRules
    from cuckoo_bot.domain.state import Phase
    from tests.integration.builders import START

    async with uow_factory() as uow:
        await seed(uow)
        await uow.commit()
    ann, bea, cid = (p.id for p in PLAYERS[:3])

    def finished(chat_id: int, winner: int) -> Game:
        state = new_game([ann, bea, cid], HouseRules(), first_dealer=ann)
        seats = tuple(
            s if s.player == winner else replace(s, lives=0, eliminated_in_round=4)
            for s in state.seats
        )
        done = replace(state, seats=seats, phase=Phase.FINISHED, winners=(winner,), rounds_dealt=4)
        return Game(chat_id, ann, HouseRules(), 60.0, START, id=1, state=done)

    games = [finished(-100_000 - i, ann if i % 2 else bea) for i in range(30)]

    await end_at_once(uow_factory, games)
    async with uow_factory(read_only=True) as uow:
        for season in (season_of(START), ALL_TIME):
            rows = await uow.standings.get_many(GLOBAL_SCOPE, season, [ann, bea, cid])
            assert {p: (r.games, r.wins) for p, r in rows.items()} == {
                ann: (30, 15),
                bea: (30, 15),
                cid: (30, 0),
            }


async def test_thirty_games_for_stakes_that_end_at_once_lose_no_chip(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Games played for stakes in three groups, ending at once: every chip paid in is in a
    player's line or in the group's pot (the pots' remainders carry from game to game)."""
    from dataclasses import replace

    from cuckoo_bot.app.league import season_of
    from cuckoo_bot.app.model import ALL_TIME, Game
    from cuckoo_bot.domain.engine import new_game
    from cuckoo_bot.domain.rules import HouseRules
    from cuckoo_bot.domain.state import Phase
    from tests.integration.builders import START, chat

    rules = HouseRules(stakes=True)
    groups = [-200_000 - i for i in range(3)]
    async with uow_factory() as uow:
        await seed(uow)
        for group in groups:
            await uow.chats.add(chat(group, rules=rules))
        await uow.commit()
    ann, bea, cid, dan = (p.id for p in PLAYERS[:4])  # Dan: a computer seat

    def finished(chat_id: int, winners: tuple[int, ...]) -> Game:
        state = new_game([ann, bea, cid, dan], rules, first_dealer=ann)
        # The winners kept a life each unless they share the win (out together on a last one).
        seats = tuple(
            replace(s, lives=1 if s.player in winners and len(winners) == 1 else 0)
            for s in state.seats
        )
        done = replace(state, seats=seats, phase=Phase.FINISHED, winners=winners, rounds_dealt=4)
        return Game(chat_id, ann, rules, 60.0, START, id=1, state=done)

    # Four seats: 16 chips when everyone went out, split three ways leaves a remainder that the
    # group's next game takes up: a pot read before another game's end wrote it loses chips.
    # The computer seat pays in (4 chips a game: it always loses its three lives) and keeps
    # nothing: its share of a win stays in the pot.
    outcomes = [(ann,), (ann, bea, cid), (bea,), (ann, bea, cid), (bea, cid, dan)]
    games = [finished(groups[i % 3], outcomes[i % 5]) for i in range(30)]

    await end_at_once(uow_factory, games)
    async with uow_factory(read_only=True) as uow:
        for group in groups:
            pot = await uow.chats.take_pot(group)
            for season in (season_of(START), ALL_TIME):
                rows = await uow.standings.get_many(group, season, [ann, bea, cid, dan])
                assert dan not in rows and sum(r.games for r in rows.values()) == 30
                from_computer = 4 * 10
                assert sum(r.chips for r in rows.values()) + pot == from_computer, (group, rows)


async def test_twenty_play_again_taps_at_once_seat_twenty_in_one_lobby(
    uow_factory: UnitOfWorkFactory, clock: StepClock, caplog: pytest.LogCaptureFixture
) -> None:
    from cuckoo_bot.app import lobby as lobbies
    from cuckoo_bot.app.deps import Deps
    from cuckoo_bot.app.model import GameStatus, Player
    from cuckoo_bot.domain.rules import HouseRules

    people = [Player(id=8_000_000_000 + i, first_name=f"P{i}", can_dm=True) for i in range(20)]
    async with uow_factory() as uow:
        await seed(uow)
        for person in people:
            await uow.players.upsert(person)
        game = lobby(rules=HouseRules(max_players=20), seats=[p.id for p in people[:3]])
        game.status, game.finished_at = GameStatus.FINISHED, clock.now()
        game = await uow.games.add(game)
        await uow.commit()
    deps = Deps(uow=uow_factory, rng=random.Random(3), clock=clock)
    outcomes = await asyncio.gather(
        *(
            lobbies.play_again(deps, game.id, game.chat_id, person, reachable=True)
            for person in people
        )
    )
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    codes = sorted(o.reply.code if o.reply else "" for o in outcomes)
    assert codes == ["again_opened"] + ["joined"] * 19, codes
    async with uow_factory(read_only=True) as uow:
        opened = await uow.games.open_in_chat(game.chat_id)
    assert opened is not None and sorted(opened.seats) == sorted(p.id for p in people)
