"""The deck a game is played with: its cards, how they rank, and what a card does when its
holder is asked for a swap or the dealer cuts it.

The engine, the computer seats and the game's flow ask ``deck_for(rules)`` and never assume
the 52 cards. Two decks today: the 52 cards (a King blocks; Coucou's Queens pass an ask on
where the house rules say) and One-card Kille's 42 (every high picture has its power). The
README's "One-card Kille" says where the Kille rules come from.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from cuckoo_bot.domain.cards import (
    ACE,
    CAVALIER,
    CUCKOO,
    FULL_DECK,
    HARLEQUIN,
    HUSSAR,
    INN,
    KILLE_DECK,
    KING,
    MASK,
    PIG,
    QUEEN,
    Card,
)
from cuckoo_bot.domain.rules import HouseRules


class Refusal(Enum):
    """What the holder of a card does when asked for a swap."""

    NONE = "none"  # they swap
    BLOCK = "block"  # a King: the asker keeps their card, the turn passes on
    PASS_ON = "pass_on"  # a Queen (Coucou), the Inn, the Cavalier: ask the next player
    STOP = "stop"  # the Kille Cuckoo: no swap, and the round is revealed at once
    STRIKE = "strike"  # the Kille Hussar and Pig: no swap, and the asker loses a life


Refuser = Callable[[Card, HouseRules], Refusal]


@dataclass(frozen=True)
class Deck:
    """A deck: its cards (each once), its lowest and highest rank, what each card refuses
    (``refusal``), the card a dealer's cut sets aside (``blocker``), how many times an ask
    may pass on, and the rank of a card spent by a swap (the Kille Harlequin's fall)."""

    name: str
    cards: tuple[Card, ...]
    lowest: int
    highest: int
    blocker: int
    refuser: Refuser
    pass_limit: int  # pass-ons in one ask; one more PASS_ON card after them blocks
    spent_rank: int | None = None  # a card of this rank ranks lowest once swapped
    _set: frozenset[Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_set", frozenset(self.cards))
        if len(self._set) != len(self.cards):
            raise ValueError(f"the {self.name} deck holds a card twice")

    def rank(self, card: Card) -> int:
        """How the card ranks in a reveal as dealt: higher is safer."""
        return card.rank

    def refusal(self, card: Card, rules: HouseRules) -> Refusal:
        """What the card's holder does when asked for a swap under ``rules``."""
        return self.refuser(card, rules)

    def blocks(self, card: Card) -> bool:
        """The card is this deck's shield: its holder refuses a swap outright (the King, the
        Kille Cuckoo), and a dealer who cuts it sets it aside."""
        return card.rank == self.blocker

    def blocks_cut(self, card: Card, rules: HouseRules) -> bool:
        """A dealer who cuts this card sets it aside and keeps their own: the card that
        would refuse a swap outright (a King while Kings block, the Kille Cuckoo)."""
        return self.refusal(card, rules) in (Refusal.BLOCK, Refusal.STOP)

    def spent_by_swap(self, card: Card) -> bool:
        """The card ranks lowest once it has changed hands in a swap (the Kille Harlequin)."""
        return card.rank == self.spent_rank

    def is_whole(self, cards: tuple[Card, ...]) -> bool:
        """``cards`` are this deck's, each once: what a deal must be given."""
        return len(cards) == len(self.cards) and frozenset(cards) == self._set

    def shuffled(self, rng: random.Random) -> tuple[Card, ...]:
        """The deck shuffled by the injected generator (a CSPRNG in production, a seeded one
        in tests), top card first."""
        deck = list(self.cards)
        rng.shuffle(deck)
        return tuple(deck)


def _standard_refusal(card: Card, rules: HouseRules) -> Refusal:
    if card.rank == KING and rules.kings_block:
        return Refusal.BLOCK
    if card.rank == QUEEN and rules.queens_block:
        return Refusal.PASS_ON
    return Refusal.NONE


# One-card Kille: the deck's powers are its own; the King and Queen settings of the 52 cards
# do not touch them.
_KILLE_REFUSALS = {
    CUCKOO: Refusal.STOP,
    HUSSAR: Refusal.STRIKE,
    PIG: Refusal.STRIKE,
    CAVALIER: Refusal.PASS_ON,
    INN: Refusal.PASS_ON,
}


def _kille_refusal(card: Card, rules: HouseRules) -> Refusal:
    return _KILLE_REFUSALS.get(card.rank, Refusal.NONE)


STANDARD = Deck(
    "standard",
    FULL_DECK,
    lowest=ACE,
    highest=KING,
    blocker=KING,
    refuser=_standard_refusal,
    pass_limit=1,  # Coucou's Queens: one more try, never a chain
)
KILLE = Deck(
    "kille",
    KILLE_DECK,
    lowest=MASK,
    highest=HARLEQUIN,
    blocker=CUCKOO,
    refuser=_kille_refusal,
    pass_limit=len(KILLE_DECK),  # the Inn and the Cavalier send the asker on and on
    spent_rank=HARLEQUIN,
)


def deck_for(rules: HouseRules) -> Deck:
    """The deck a game under ``rules`` is played with."""
    return KILLE if rules.kille else STANDARD


def deck_of(card: Card) -> Deck:
    """The deck a card belongs to (what the renderers ask of a shown card)."""
    return KILLE if card.kille else STANDARD


def weak(card: Card) -> bool:
    """A card that refused a swap only because it could not send it on (Coucou's Queen, a
    Kille Inn or Cavalier, with nobody after it), not the deck's blocker: one reading for
    every view of a block."""
    return not deck_of(card).blocks(card)
