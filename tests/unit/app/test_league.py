"""The league's rating update: a later finish never earns more than an earlier one; players
with equal points share a place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cuckoo_bot.app.league import PlayerResult, _rate, record_result
from cuckoo_bot.app.model import Standing, shared_places
from tests.support import scenes
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World


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
        changes = {c.player: c for c in await record_result(uow, game, clock.now())}
    together = {changes[p].place for p in (scenes.ANA, scenes.CURLY, scenes.RTL)}
    assert together == {2}
    assert changes[scenes.BOB].place == 1
    assert sorted(c.place for c in changes.values()) == [1, 2, 2, 2, 5, 6]
