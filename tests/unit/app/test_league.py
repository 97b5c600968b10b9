"""The league's rating update: a later finish never earns more than an earlier one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cuckoo_bot.app.league import PlayerResult, _rate
from cuckoo_bot.app.model import Standing


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
