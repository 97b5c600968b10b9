"""The deck a game is played with is the domain's to say: its cards, ranks and blocker."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuckoo_bot.domain.cards import ACE, FRENCH_SUITS, KING, Card, Suit
from cuckoo_bot.domain.decks import KILLE, STANDARD, Deck, Refusal, deck_for
from cuckoo_bot.domain.rules import HouseRules


def test_every_game_plays_the_52_cards_where_a_king_blocks() -> None:
    deck = deck_for(HouseRules())
    assert deck is STANDARD and len(deck.cards) == 52 and len(set(deck.cards)) == 52
    assert [c for c in deck.cards if deck.blocks(c)] == [Card(KING, s) for s in FRENCH_SUITS]
    assert (deck.lowest, deck.highest) == (ACE, KING)
    assert deck.rank(Card(ACE, Suit.SPADES)) < deck.rank(Card(2, Suit.CLUBS))


@given(st.integers(min_value=0, max_value=2**32))
@pytest.mark.parametrize("deck", [STANDARD, KILLE], ids=lambda d: d.name)
def test_a_shuffle_is_the_whole_deck_in_an_order_the_generator_chose(deck: Deck, seed: int) -> None:
    dealt = deck.shuffled(random.Random(seed))
    assert deck.is_whole(dealt)
    assert dealt == deck.shuffled(random.Random(seed))
    assert not deck.is_whole(dealt[1:]) and not deck.is_whole((*dealt[1:], dealt[1]))


def test_a_deck_holds_each_card_once() -> None:
    with pytest.raises(ValueError, match="twice"):
        Deck(
            "odd",
            (Card(2, Suit.CLUBS),) * 2,
            lowest=2,
            highest=2,
            blocker=2,
            refuser=lambda card, rules: Refusal.NONE,
            pass_limit=0,
        )
