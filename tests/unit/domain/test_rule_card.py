"""The rule card's worked example and FAQ answers, played through the engine."""

from __future__ import annotations

from cuckoo_bot.domain.actions import Deal, Keep, Swap
from cuckoo_bot.domain.engine import apply
from cuckoo_bot.domain.events import (
    GameWon,
    LifeLossCause,
    LifeLost,
    Revealed,
    SwapBlocked,
    Swapped,
)
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import Phase

from .tables import card, dealt_table, keep_all, stacked_deck

A, B, C, D = 1, 2, 3, 4


def test_worked_example_b_loses_a_life_after_c_blocks_with_the_king() -> None:
    # In turn order are A, B, C and the dealer D, holding 2♣, 9♥, K♠ and 7♦.
    state = dealt_table([A, B, C, D], dealer=D, hands=["2C", "9H", "KS", "7D"])
    assert state.round is not None
    assert state.round.order == (A, B, C, D)

    # A swaps with B and receives 9♥.
    state, events = apply(state, Swap(A))
    assert Swapped(A, B, player_card=card("9H"), neighbour_card=card("2C")) in events
    # Now B, holding the 2♣ received, tries to swap with C. C shows K♠ and blocks the swap.
    state, events = apply(state, Swap(B))
    assert SwapBlocked(B, C, king=card("KS")) in events
    # C and D keep their cards.
    state, _ = apply(state, Keep(C))
    state, events = apply(state, Keep(D))

    # At the reveal B's 2♣ is the lowest: B loses 1 life and the others keep theirs.
    reveal = next(e for e in events if isinstance(e, Revealed))
    hands = dict(zip(reveal.order, reveal.cards, strict=True))
    assert hands == {A: card("9H"), B: card("2C"), C: card("KS"), D: card("7D")}
    assert reveal.lowest == (B,)
    assert [e for e in events if isinstance(e, LifeLost)] == [LifeLost(B, 2, LifeLossCause.LOWEST)]
    assert {p: state.lives(p) for p in (A, B, C, D)} == {A: 3, B: 2, C: 3, D: 3}
    assert state.phase is Phase.DEALING


def test_faq_the_ace_is_low_and_the_king_high() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["AS", "KH", "2D"])
    for player in (A, B, C):
        state, events = apply(state, Keep(player))
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert reveal.lowest == (A,)
    assert state.lives(A) == 2 and state.lives(B) == 3 and state.lives(C) == 3


def test_faq_a_forced_swap_can_only_be_refused_with_a_king() -> None:
    # B holds a Queen: Q and J have no powers, the swap goes through.
    state = dealt_table([A, B, C], dealer=C, hands=["3S", "QH", "8D"])
    state, events = apply(state, Swap(A))
    assert Swapped(A, B, player_card=card("QH"), neighbour_card=card("3S")) in events
    assert state.round is not None and state.round.card_of(B) == card("3S")


def test_faq_two_tied_lowest_both_lose_a_life() -> None:
    state = dealt_table([A, B, C, D], dealer=D, hands=["4S", "4H", "9D", "JC"])
    for player in (A, B, C, D):
        state, events = apply(state, Keep(player))
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert set(reveal.lowest) == {A, B}
    assert {p: state.lives(p) for p in (A, B, C, D)} == {A: 2, B: 2, C: 3, D: 3}


def test_faq_all_remaining_eliminated_together_share_the_victory() -> None:
    state = dealt_table([A, B, C], dealer=C, hands=["4S", "4H", "4D"], rules=HouseRules(lives=3))
    # Three rounds in a row all three hold a 4 and keep: each round costs everyone a life.
    for _ in range(2):
        state, _ = keep_all(state)
        assert not state.finished
        state, _ = apply(state, Deal(stacked_deck(["4S", "4H", "4D"])))
    state, events = keep_all(state)
    assert state.finished
    assert GameWon(winners=(A, B, C), shared=True) in events
    assert set(state.winners) == {A, B, C} and state.shared_victory
