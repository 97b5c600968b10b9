"""One-card Kille: the Kille deck's cards and their powers, as the README states them."""

from __future__ import annotations

import pytest

from cuckoo_bot.domain.actions import Cut, Keep, Swap
from cuckoo_bot.domain.cards import KILLE_DECK, Card
from cuckoo_bot.domain.decks import KILLE, Refusal, deck_for
from cuckoo_bot.domain.engine import apply
from cuckoo_bot.domain.events import (
    CardCut,
    CutBlocked,
    LifeLossCause,
    LifeLost,
    Revealed,
    RoundStopped,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    SwapStruck,
)
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import ActKind, Phase

from .tables import card, dealt_table, keep_all, kille

A, B, C, D, E = 1, 2, 3, 4, 5
KILLE_RULES = HouseRules(kille=True)


def test_the_kille_deck_is_two_of_each_of_21_cards_ranked_mask_to_harlequin() -> None:
    deck = deck_for(KILLE_RULES)
    assert deck is KILLE and len(deck.cards) == 42 and deck.is_whole(KILLE_DECK)
    ranks = sorted(c.rank for c in deck.cards)
    assert ranks == sorted(list(range(1, 22)) * 2)
    assert all(c.kille for c in deck.cards) and not card("KH").kille
    order = ["mask", "flowerpot", "wreath", 1, 12, "inn", "cavalier", "pig", "hussar", "cuckoo"]
    ranked = [deck.rank(card(kille(name))) for name in [*order, "harlequin"]]
    assert ranked == sorted(ranked) and len(set(ranked)) == len(ranked)
    assert Card.from_code("21Y") == card(kille("harlequin", "Y"))
    with pytest.raises(ValueError):
        Card(22, card("1X").suit)
    with pytest.raises(ValueError):
        Card(14, card("KH").suit)  # the 52 cards stop at the King


def test_the_kille_powers_do_not_follow_the_52_cards_settings() -> None:
    for rules in (KILLE_RULES, HouseRules(kille=True, kings_block=False, queens_block=True)):
        refusals = {name: KILLE.refusal(card(kille(name)), rules) for name in ("cuckoo", "pig")}
        assert refusals == {"cuckoo": Refusal.STOP, "pig": Refusal.STRIKE}
        assert KILLE.refusal(card(kille(12)), rules) is Refusal.NONE


def test_the_cuckoo_stands_no_swap_and_the_round_is_revealed_at_once() -> None:
    hands = [kille(5), kille("cuckoo"), kille(2), kille("mask")]
    state = dealt_table([A, B, C, D], dealer=D, hands=hands, rules=KILLE_RULES)
    state, events = apply(state, Swap(A))
    assert events[0] == RoundStopped(A, B, cuckoo=card(kille("cuckoo")))
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert reveal.cards == tuple(card(c) for c in hands)  # nobody else played, no cut
    assert reveal.lowest == (D,)
    assert state.round is not None and [a.kind for a in state.round.acts] == [ActKind.STOPPED]
    assert state.phase is Phase.DEALING


@pytest.mark.parametrize("striker", ["hussar", "pig"])
def test_the_hussar_and_the_pig_strike_the_asker_who_keeps_their_card(striker: str) -> None:
    hands = [kille(5), kille(striker), kille("mask"), kille(9)]
    state = dealt_table([A, B, C, D], dealer=D, hands=hands, rules=KILLE_RULES)
    state, events = apply(state, Swap(A))
    assert events[0] == SwapStruck(A, B, card=card(kille(striker)))
    assert state.round is not None and state.round.card_of(A) == card(kille(5))
    assert state.actor == B and state.round.struck == (A,)
    state, events = keep_all(state)
    lost = {e.player: e.cause for e in events if isinstance(e, LifeLost)}
    assert lost == {A: LifeLossCause.STRUCK, C: LifeLossCause.LOWEST}


def test_a_struck_player_who_is_also_lowest_loses_one_life_in_all() -> None:
    hands = [kille("mask"), kille("hussar"), kille(3), kille(9)]
    state = dealt_table([A, B, C, D], dealer=D, hands=hands, rules=KILLE_RULES)
    state, _ = apply(state, Swap(A))
    state, events = keep_all(state)
    assert [e for e in events if isinstance(e, LifeLost)] == [
        LifeLost(A, lives_left=2, cause=LifeLossCause.LOWEST)
    ]


def test_the_inn_and_the_cavalier_send_the_asker_on_and_on() -> None:
    hands = [kille(2), kille("inn"), kille("cavalier"), kille(7), kille(9)]
    state = dealt_table([A, B, C, D, E], dealer=E, hands=hands, rules=KILLE_RULES)
    state, events = apply(state, Swap(A))
    assert events[:3] == (
        SwapPassedOn(A, B, queen=card(kille("inn")), next=C),
        SwapPassedOn(A, C, queen=card(kille("cavalier")), next=D),
        Swapped(A, D, player_card=card(kille(7)), neighbour_card=card(kille(2))),
    )
    assert state.actor == B  # the Inn's holder still has their turn


def test_an_inn_with_nobody_after_it_blocks_and_a_passed_ask_meets_every_power() -> None:
    state = dealt_table(
        [A, B, C], dealer=C, hands=[kille(4), kille(2), kille("inn")], rules=KILLE_RULES
    )
    state, _ = apply(state, Keep(A))
    state, events = apply(state, Swap(B))
    assert events[0] == SwapBlocked(B, C, king=card(kille("inn")))
    hands = [kille(2), kille("cavalier"), kille("cuckoo"), kille(9)]
    state = dealt_table([A, B, C, D], dealer=D, hands=hands, rules=KILLE_RULES)
    state, events = apply(state, Swap(A))
    assert isinstance(events[1], RoundStopped) and events[1].neighbour == C


def test_a_harlequin_that_changes_hands_ranks_below_the_mask() -> None:
    hands = [kille(3), kille("harlequin"), kille("mask"), kille(9)]
    state = dealt_table([A, B, C, D], dealer=D, hands=hands, rules=KILLE_RULES)
    state, _ = apply(state, Swap(A))  # A takes the Harlequin: it is spent
    assert state.round is not None and state.round.spent == (card(kille("harlequin")),)
    state, events = keep_all(state)
    reveal = next(e for e in events if isinstance(e, Revealed))
    assert reveal.lowest == (A,)  # the spent Harlequin, below C's Mask
    assert state.last_reveal is not None and state.last_reveal.spent == state.round.spent


def test_a_harlequin_dealt_or_cut_is_the_highest_card() -> None:
    hands = [kille(3), kille(8), kille(2)]
    state = dealt_table(
        [A, B, C], dealer=C, hands=hands, stock_top=[kille("harlequin")], rules=KILLE_RULES
    )
    state, _ = apply(state, Keep(A))
    state, _ = apply(state, Keep(B))
    state, events = apply(state, Cut(C))
    assert CardCut(C, old_card=card(kille(2)), new_card=card(kille("harlequin"))) in events
    assert next(e for e in events if isinstance(e, Revealed)).lowest == (A,)


def test_a_cut_cuckoo_is_set_aside_and_other_powers_are_cut_as_cards() -> None:
    hands = [kille(3), kille(8), kille(2)]
    state = dealt_table(
        [A, B, C], dealer=C, hands=hands, stock_top=[kille("cuckoo")], rules=KILLE_RULES
    )
    state, _ = apply(state, Keep(A))
    state, _ = apply(state, Keep(B))
    state, events = apply(state, Cut(C))
    assert CutBlocked(C, king=card(kille("cuckoo"))) in events
    state = dealt_table(
        [A, B, C], dealer=C, hands=hands, stock_top=[kille("hussar")], rules=KILLE_RULES
    )
    state, _ = apply(state, Keep(A))
    state, _ = apply(state, Keep(B))
    state, events = apply(state, Cut(C))
    assert CardCut(C, old_card=card(kille(2)), new_card=card(kille("hussar"))) in events
