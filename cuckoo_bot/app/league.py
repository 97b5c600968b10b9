"""League tables: per chat and global, per monthly season and all time, with OpenSkill ratings."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce

from cuckoo_bot.app.model import (
    ALL_TIME,
    GLOBAL_SCOPE,
    Game,
    GameStatus,
    RatingChange,
    StakesResult,
    Standing,
    is_computer,
    shared_places,
)
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.state import finishing_ranks, pot_of

_MODEL = PlackettLuce()


def season_of(moment: datetime) -> str:
    return moment.strftime("%Y-%m")


@dataclass(frozen=True)
class PlayerResult:
    player: PlayerId
    rank: int
    won: bool
    shared: bool
    lives_lost: int
    rounds_survived: int


def results_of(game: Game) -> list[PlayerResult]:
    state = game.state
    assert state is not None
    ranks = finishing_ranks(state)
    results = []
    for seat in state.seats:
        won = seat.player in state.winners
        survived = (
            state.rounds_dealt if seat.eliminated_in_round is None else seat.eliminated_in_round - 1
        )
        results.append(
            PlayerResult(
                player=seat.player,
                rank=ranks[seat.player],
                won=won,
                shared=won and state.shared_victory,
                lives_lost=state.rules.lives - seat.lives,
                rounds_survived=max(survived, 0),
            )
        )
    return results


def settle_stakes(game: Game, carried: int) -> StakesResult:
    """A won game played for stakes: every seat put one chip in the pot, and one more for each
    life it lost (going out by leaving loses the lives left, as the league counts them); the
    pot, with what the group's last pot left (``carried``), goes to the winner, split evenly
    on a shared win. What cannot be split, and a computer seat's share (it keeps no chips),
    stays for the group's next pot. With each person's chips won less chips paid."""
    state = game.state
    assert state is not None and state.winners
    results = results_of(game)
    paid = {r.player: 1 + r.lives_lost for r in results}
    pot = carried + sum(paid.values())
    share, left = divmod(pot, len(state.winners))
    takes = tuple((w, share) for w in state.winners if not is_computer(w))
    left += share * (len(state.winners) - len(takes))
    won = dict(takes)
    moved = tuple((p, won.get(p, 0) - chips) for p, chips in paid.items() if not is_computer(p))
    return StakesResult(pot=pot, takes=takes, left=left, moved=moved)


def pot_so_far(game: Game) -> int | None:
    """The pot of a running game played for stakes (None otherwise): once the game is over,
    its pot is settled and the group's holds what it left for the next one."""
    state = game.state
    if state is None or not state.rules.stakes or game.status is not GameStatus.RUNNING:
        return None
    return pot_of(state, game.carried)


async def record_result(
    uow: UnitOfWork, game: Game, now: datetime
) -> tuple[tuple[RatingChange, ...], StakesResult | None]:
    """Count a finished game in the chat's and the global tables, this season and all time;
    a game played for stakes moves its players' chips in the chat's tables and the pot.

    Returns how each player's points moved in the chat's table this month, with their place
    there now, and how the stakes were settled, for the end-of-game summary.
    """
    state = game.state
    if state is None or state.abandoned:
        return (), None
    stakes: StakesResult | None = None
    chips: dict[PlayerId, int] = {}
    if state.rules.stakes and state.winners:
        # Locked until the game's transaction commits (one game at a time per group anyway).
        stakes = settle_stakes(game, await uow.chats.take_pot(game.chat_id))
        chips = dict(stakes.moved)
        await uow.chats.put_pot(game.chat_id, stakes.left)
    humans = [r for r in results_of(game) if r.player > 0]
    if not humans:
        return (), stakes
    ids = [r.player for r in humans]
    changes: dict[PlayerId, int] = {}
    for scope in (game.chat_id, GLOBAL_SCOPE):
        for season in (season_of(now), ALL_TIME):
            # Locked until the game's transaction commits: another game ending at the same
            # moment with a player in common waits, then counts from these results.
            rows = await uow.standings.claim(scope, season, ids)
            before = {pid: row.points for pid, row in rows.items()}
            _rate(rows, humans)
            for result in humans:
                row = rows[result.player]
                row.games += 1
                row.wins += int(result.won and not result.shared)
                row.shared_wins += int(result.shared)
                row.lives_lost += result.lives_lost
                row.rounds_survived += result.rounds_survived
                if scope == game.chat_id:  # chips are a group's
                    row.chips += chips.get(result.player, 0)
                await uow.standings.save(row)
            if scope == game.chat_id and season != ALL_TIME:
                changes = {pid: rows[pid].points - before[pid] for pid in ids}
    table = await uow.standings.table(game.chat_id, season_of(now), limit=None)
    places = dict(zip((s.player_id for s in table), shared_places(table), strict=True))
    return tuple(
        RatingChange(player=pid, points=changes[pid], place=places.get(pid, 0)) for pid in ids
    ), stakes


def _rate(rows: dict[PlayerId, Standing], results: list[PlayerResult]) -> None:
    """A multiplayer rating update: each player is a team of one, ranked by finishing order.

    Players who finished together (out in the same round) are rated as the average over
    strict orders in which each of them takes each of their shared places in turn: OpenSkill's
    own handling of a tie can rate a tied pair below the player who finished after them (a
    podium would read as a contradiction), while a strict order never does. Written here
    because the library offers no such option; ties are small, so a few orders suffice.
    """
    if len(results) < 2:
        return
    shared: dict[int, list[int]] = {}  # a finishing place: the results that share it
    for index, result in enumerate(results):
        shared.setdefault(result.rank, []).append(index)
    turns = math.lcm(*(len(group) for group in shared.values()))
    mu = [0.0] * len(results)
    sigma = [0.0] * len(results)
    for turn in range(turns):
        order = [0.0] * len(results)
        place = 1
        for rank in sorted(shared):
            group = shared[rank]
            for offset, index in enumerate(group):
                order[index] = place + (offset + turn) % len(group)
            place += len(group)
        teams = [
            [_MODEL.rating(mu=rows[r.player].rating_mu, sigma=rows[r.player].rating_sigma)]
            for r in results
        ]
        for index, team in enumerate(_MODEL.rate(teams, ranks=order)):
            mu[index] += team[0].mu / turns
            sigma[index] += team[0].sigma / turns
    for index, result in enumerate(results):
        rows[result.player].rating_mu = mu[index]
        rows[result.player].rating_sigma = sigma[index]
