"""Computer seats: sensible single decisions, and fewer lives lost than random players."""

from __future__ import annotations

import random

import pytest

from cuckoo_bot.domain.actions import Cut, Deal, Move, Swap, TurnAction
from cuckoo_bot.domain.decks import KILLE, STANDARD, Deck
from cuckoo_bot.domain.engine import apply, legal_actions, new_game
from cuckoo_bot.domain.events import LifeLost
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.strategy import (
    CUT_AT_MOST,
    KILLE_CUT_AT_MOST,
    KILLE_SWAP_AT_MOST,
    SWAP_AT_MOST,
    SeatView,
    choose,
    computer_action,
    lookup,
)

from .tables import card, dealt_table, kille


def view(code: str, size: int = 5, dealer: bool = False, given: str | None = None) -> SeatView:
    return SeatView(
        card=card(code),
        table_size=size,
        is_dealer=dealer,
        given_away=card(given) if given else None,
    )


def test_never_gives_away_a_king() -> None:
    assert choose(view("KS", size=3)) is Move.KEEP
    assert choose(view("KS", size=3, dealer=True)) is Move.KEEP


def test_swaps_an_ace_and_keeps_a_queen_at_every_table_size() -> None:
    for size in range(3, 21):
        assert choose(view("AS", size=size)) is Move.SWAP
        assert choose(view("AS", size=size, dealer=True)) is Move.CUT
        assert choose(view("QS", size=size)) is Move.KEEP


def test_the_swap_bar_falls_as_the_table_grows() -> None:
    bars = [lookup(SWAP_AT_MOST, size) for size in range(3, 21)]
    assert bars == sorted(bars, reverse=True)
    assert bars[0] > bars[-1]


def test_keeps_a_card_a_forced_swap_brought_when_it_beats_what_was_given() -> None:
    low = lookup(SWAP_AT_MOST, 5)
    got = f"{low}H"
    assert choose(view(got, size=5)) is Move.SWAP
    assert choose(view(got, size=5, given="3S")) is Move.KEEP
    assert choose(view("3S", size=5, given=got)) is Move.SWAP


def test_computer_action_reads_the_seat_it_plays() -> None:
    state = dealt_table([1, 2, 3], dealer=3, hands=["2S", "9H", "JD"])
    assert computer_action(state) == Swap(1, state.turn)
    state, _ = apply(state, computer_action(state))
    assert computer_action(state) == Swap(2, state.turn)  # B now holds the 2♠ and passes it on
    state, _ = apply(state, computer_action(state))
    assert computer_action(state) == Cut(3, state.turn)  # the dealer was handed the 2♠: cuts


KILLE_RULES = HouseRules(kille=True)


def kille_view(
    name: str | int, size: int = 5, dealer: bool = False, spent: bool = False
) -> SeatView:
    return SeatView(
        card=card(kille(name)),
        table_size=size,
        is_dealer=dealer,
        given_away=None,
        deck=KILLE,
        spent=spent,
        rules=KILLE_RULES,
    )


def test_a_kille_seat_keeps_every_card_with_a_power_and_the_harlequin_as_dealt() -> None:
    for size in range(3, 21):
        for name in ("cuckoo", "hussar", "pig", "inn", "cavalier", "harlequin"):
            assert choose(kille_view(name, size)) is Move.KEEP, name
            assert choose(kille_view(name, size, dealer=True)) is Move.KEEP, name
        assert choose(kille_view("mask", size)) is Move.SWAP
        assert choose(kille_view("mask", size, dealer=True)) is Move.CUT
        # A Harlequin handed over in a swap is the lowest card: away with it.
        assert choose(kille_view("harlequin", size, spent=True)) is Move.SWAP
        assert choose(kille_view(12, size)) is Move.KEEP


def test_the_kille_bars_fall_as_the_table_grows() -> None:
    for table in (KILLE_SWAP_AT_MOST, KILLE_CUT_AT_MOST):
        bars = [lookup(table, size) for size in range(3, 21)]
        assert bars == sorted(bars, reverse=True) and bars[0] > bars[-1]


def lives_lost_per_round(
    size: int, computer_seats: set[int], rounds: int, seed: int, deck: Deck = STANDARD
) -> tuple[float, float]:
    """Lives lost per seat-round by computer seats and by random players, over seeded deals."""
    rng = random.Random(seed)
    players = list(range(size))
    rules = HouseRules(max_players=20, lives=5, kille=deck is KILLE)
    lost = {True: 0, False: 0}
    for _ in range(rounds):
        state = new_game(players, rules, first_dealer=rng.randrange(size))
        state, _ = apply(state, Deal(deck.shuffled(rng)))
        events: tuple[object, ...] = ()
        while state.actor is not None:
            action: TurnAction
            if state.actor in computer_seats:
                action = computer_action(state)
            else:
                action = rng.choice(legal_actions(state))
            state, events = apply(state, action)
        for event in events:
            if isinstance(event, LifeLost):
                lost[event.player in computer_seats] += 1
    n_computer = len(computer_seats)
    return lost[True] / (rounds * n_computer), lost[False] / (rounds * (size - n_computer))


@pytest.mark.parametrize("deck", [STANDARD, KILLE], ids=lambda d: d.name)
@pytest.mark.parametrize("size", [3, 5, 8, 12])
def test_computer_seats_lose_measurably_fewer_lives_than_random_players(
    size: int, deck: Deck
) -> None:
    computer, random_player = lives_lost_per_round(
        size, {0, size // 2}, rounds=1500, seed=size, deck=deck
    )
    assert computer < 0.75 * random_player, (computer, random_player)


@pytest.mark.slow
def test_the_shipped_thresholds_are_what_the_derivation_gives_for_its_seed() -> None:
    """``benchmarks/derive_strategy.py`` plays the shipped decision function with each
    candidate bar; for the small tables its seeded run gives exactly the shipped rows."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[3] / "benchmarks" / "derive_strategy.py"
    spec = importlib.util.spec_from_file_location("derive_strategy", path)
    assert spec is not None and spec.loader is not None
    derivation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(derivation)
    sizes = (3, 4)
    for deck, swaps, cuts in (
        (STANDARD, SWAP_AT_MOST, CUT_AT_MOST),
        (KILLE, KILLE_SWAP_AT_MOST, KILLE_CUT_AT_MOST),
    ):
        swap_at_most, cut_at_most = derivation.derive(3000, sizes, deck=deck)
        for size in sizes:
            assert swap_at_most[size] == lookup(swaps, size), deck.name
            assert cut_at_most[size] == lookup(cuts, size), deck.name
