"""Whole games to the end for every house-rule combination, and deterministic replay."""

from __future__ import annotations

import itertools
import random

import pytest

from cuckoo_bot.domain.actions import Action, Deal, Timeout
from cuckoo_bot.domain.decks import deck_for
from cuckoo_bot.domain.engine import apply, draw_first_dealer, legal_actions, new_game
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import GameState

ALL_RULES = [
    HouseRules(
        lives=lives, max_players=20, kings_block=kb, final_tie=tie, double_cut=dc, fast_turns=ft
    )
    for lives, kb, tie, dc, ft in itertools.product(
        (3, 5), (True, False), tuple(FinalTie), (False, True), (False, True)
    )
] + [
    # The rule book's later variants, each with both lives and both final ties: the dealer
    # who stays, Coucou's Queens, stakes, One-card Kille (alone, and with the double cut and
    # fast turns).
    HouseRules(lives=lives, max_players=20, final_tie=tie, **variant)  # type: ignore[arg-type]
    for variant in (
        {"dealer_stays": True},
        {"queens_block": True},
        {"queens_block": True, "kings_block": False},
        {"stakes": True},
        {"kille": True},
        {"kille": True, "double_cut": True, "fast_turns": True, "dealer_stays": True},
    )
    for lives, tie in itertools.product((3, 5), tuple(FinalTie))
]


def play(rules: HouseRules, size: int, seed: int) -> tuple[GameState, GameState, list[Action]]:
    """Random legal play to the end; returns the starting state, the final one and the actions."""
    rng = random.Random(seed)
    players = list(range(100, 100 + size))
    start = state = new_game(players, rules, draw_first_dealer(players, rng))
    actions: list[Action] = []
    for _ in range(10_000):
        if state.finished:
            return start, state, actions
        action: Action
        if state.needs_deal:
            action = Deal(deck_for(rules).shuffled(rng))
        elif rng.random() < 0.05:
            action = Timeout(state.turn)
        else:
            action = rng.choice(legal_actions(state))
        state, _ = apply(state, action)
        actions.append(action)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "rules", ALL_RULES, ids=lambda r: "-".join(str(v) for v in r.to_dict().values())
)
@pytest.mark.parametrize("size", [3, 7, 20])
def test_every_setting_plays_to_a_winner_and_replays_identically(
    rules: HouseRules, size: int
) -> None:
    start, state, actions = play(rules, size, seed=size * 1000 + ALL_RULES.index(rules))
    assert state.finished
    assert state.winners or state.abandoned
    if state.winners:
        assert len(state.active_players) <= 1
    replayed = start
    for action in actions:
        replayed, _ = apply(replayed, action)
    assert replayed == state
