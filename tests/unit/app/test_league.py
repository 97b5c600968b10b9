"""The league's rating update: a later finish never earns more than an earlier one; players
with equal points share a place."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from cuckoo_bot.app.league import (
    PlayerResult,
    _rate,
    pot_so_far,
    record_result,
    season_of,
    settle_stakes,
)
from cuckoo_bot.app.model import (
    ALL_TIME,
    GLOBAL_SCOPE,
    Chat,
    Game,
    GameStatus,
    Standing,
    shared_places,
)
from cuckoo_bot.domain.engine import new_game
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import Phase, pot_of
from tests.support import scenes
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

NOW = datetime(2026, 12, 5, 20, 0, tzinfo=UTC)


def rated(ranks: list[int]) -> list[int]:
    """The points each player shows after one game from a fresh start, by finishing place."""
    rows = {p: Standing(player_id=p, scope=-1, season="2026-12") for p in range(1, len(ranks) + 1)}
    results = [
        PlayerResult(player=p, rank=r, won=r == 1, shared=False, lives_lost=0, rounds_survived=0)
        for p, r in zip(rows, ranks, strict=True)
    ]
    _rate(rows, results)
    return [rows[p].points for p in rows]


def test_players_out_together_never_rank_below_the_player_out_before_them() -> None:
    # Ten players: two out together in seventh place, the ninth out before them.
    points = rated([1, 2, 3, 4, 5, 6, 7, 7, 9, 10])
    assert points[6] == points[7] > points[8] > points[9]
    assert points == sorted(points, reverse=True)
    # Six players, two sharing third place.
    points = rated([1, 2, 3, 3, 5, 6])
    assert points[2] == points[3] > points[4]


@st.composite
def finishing_places(draw: st.DrawFn) -> list[int]:
    """Places as a game gives them: 1 for the winners, players out together share one."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=8))
    ranks, place = [], 1
    for size in sizes:
        ranks += [place] * size
        place += size
    return ranks


@given(finishing_places())
def test_from_a_fresh_start_points_follow_the_finishing_order(ranks: list[int]) -> None:
    points = rated(ranks)
    for a, rank_a in enumerate(ranks):
        for b, rank_b in enumerate(ranks):
            if rank_a < rank_b:
                assert points[a] >= points[b], (ranks, points)
            if rank_a == rank_b:
                assert points[a] == points[b], (ranks, points)


@given(st.lists(st.integers(-50, 50), max_size=12))
def test_equal_points_share_a_place_and_the_next_place_skips_them(points: list[int]) -> None:
    table = [
        Standing(player_id=i, scope=-1, season="2026-12", rating_mu=p / 10, rating_sigma=0)
        for i, p in enumerate(sorted(points, reverse=True))
    ]
    places = shared_places(table)
    for line, place in zip(table, places, strict=True):
        assert place == 1 + sum(other.points > line.points for other in table)


async def test_players_out_together_in_a_first_game_read_one_place_in_the_month() -> None:
    # Ana, Curly and Rtl go out in the same reveal: on the podium they share 2nd place, and
    # in the group's month (all new to it) they read the same place, not 2nd, 3rd and 4th.
    game = scenes.finished().game()
    world, clock = World(), FakeClock()
    async with FakeUnitOfWorkFactory(world, clock)() as uow:
        moved, _ = await record_result(uow, game, clock.now())
        changes = {c.player: c for c in moved}
    together = {changes[p].place for p in (scenes.ANA, scenes.CURLY, scenes.RTL)}
    assert together == {2}
    assert changes[scenes.BOB].place == 1
    assert sorted(c.place for c in changes.values()) == [1, 2, 2, 2, 5, 6]


ANN, BEA, CID, BOT = 1, 2, 3, -1


def ended(lives: dict[int, int], winners: tuple[int, ...], chat_pot: int = 0) -> Game:
    """A game played for stakes, over: each seat with the lives it has left."""
    rules = HouseRules(stakes=True)
    state = new_game(list(lives), rules, first_dealer=next(iter(lives)))
    seats = tuple(replace(s, lives=lives[s.player]) for s in state.seats)
    done = replace(state, seats=seats, phase=Phase.FINISHED, winners=winners, rounds_dealt=5)
    game = Game(-100, ANN, rules, 60.0, NOW, id=1, state=done, seats=list(lives))
    game.chat = Chat(-100, pot=chat_pot)
    return game


def test_the_winner_takes_a_chip_a_seat_one_a_life_and_what_the_last_pot_left() -> None:
    # Ann won with her 3 lives; Bea and Cid lost all theirs: 1 + 4 + 4, and 2 carried in.
    stakes = settle_stakes(ended({ANN: 3, BEA: 0, CID: 0}, (ANN,)), carried=2)
    assert (stakes.pot, stakes.takes, stakes.left) == (11, ((ANN, 11),), 0)
    assert dict(stakes.moved) == {ANN: 10, BEA: -4, CID: -4}
    over = ended({ANN: 3, BEA: 0, CID: 0}, (ANN,), chat_pot=2)
    assert over.state is not None and pot_of(over.state, carried=2) == 11
    assert pot_so_far(over) is None  # settled: the pot is no longer the game's
    over.status = GameStatus.RUNNING
    assert pot_so_far(over) == 11


def test_a_shared_win_splits_the_pot_and_what_cannot_be_split_stays() -> None:
    # Everyone went out together on a last life: 4 chips each, and 1 carried in: 13.
    stakes = settle_stakes(ended({ANN: 0, BEA: 0, CID: 0}, (ANN, BEA)), carried=1)
    assert (stakes.pot, stakes.takes, stakes.left) == (13, ((ANN, 6), (BEA, 6)), 1)
    assert dict(stakes.moved) == {ANN: 2, BEA: 2, CID: -4}


def test_a_computer_seats_winnings_stay_in_the_pot() -> None:
    stakes = settle_stakes(ended({ANN: 0, BOT: 1, CID: 0}, (BOT,)), carried=0)
    assert (stakes.pot, stakes.takes, stakes.left) == (11, (), 11)
    assert dict(stakes.moved) == {ANN: -4, CID: -4}  # the computer keeps no chips


@given(
    st.lists(st.integers(0, 3), min_size=3, max_size=8),
    st.integers(0, 20),
    st.integers(1, 3),
    st.booleans(),
)
def test_no_chip_is_made_or_lost_but_what_computer_seats_put_in(
    lives: list[int], carried: int, winners: int, computer: bool
) -> None:
    seats = {(-(i + 1) if computer and i == 0 else i + 1): n for i, n in enumerate(lives)}
    won = tuple(list(seats)[:winners])
    stakes = settle_stakes(ended(seats, won), carried)
    from_computers = sum(1 + 3 - n for p, n in seats.items() if p < 0)
    assert sum(n for _, n in stakes.moved) + stakes.left - carried == from_computers
    assert sum(chips for _, chips in stakes.takes) + stakes.left == stakes.pot
    share, rest = divmod(stakes.pot, len(won))
    assert all(chips == share for _, chips in stakes.takes)  # an even split
    assert stakes.left == rest + share * sum(p < 0 for p in won)


async def test_a_game_for_stakes_moves_the_groups_chips_and_leaves_the_remainder() -> None:
    world, clock = World(), FakeClock()
    world.chats[-100] = Chat(-100, pot=1)
    game = ended({ANN: 0, BEA: 0, CID: 0}, (ANN, BEA), chat_pot=1)
    async with FakeUnitOfWorkFactory(world, clock)() as uow:
        _, stakes = await record_result(uow, game, clock.now())
        await uow.commit()
    assert stakes is not None
    assert (stakes.pot, stakes.takes, stakes.left) == (13, ((ANN, 6), (BEA, 6)), 1)
    assert world.chats[-100].pot == 1
    for season in (season_of(clock.now()), ALL_TIME):
        chips = {p: world.standings[(-100, season, p)].chips for p in (ANN, BEA, CID)}
        assert chips == {ANN: 2, BEA: 2, CID: -4}
        assert all(world.standings[(GLOBAL_SCOPE, season, p)].chips == 0 for p in chips)
