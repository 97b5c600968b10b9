"""The deck a game is played with: its cards, how they rank, which of them blocks a swap.

The engine, the computer seats and the game's flow ask ``deck_for(rules)`` and never assume
the 52 cards: a new deck (the rule book's Kille, say) is one more ``Deck`` here, with its
faces and words where the transport draws and tells cards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from cuckoo_bot.domain.cards import ACE, FULL_DECK, KING, QUEEN, Card
from cuckoo_bot.domain.rules import HouseRules


@dataclass(frozen=True)
class Deck:
    """A deck: its cards (each once), the lowest and highest rank, the rank that blocks a
    swap (a King: its holder refuses, and a dealer who cuts one keeps their card), and the
    rank that refuses one more weakly where the house rules say so (Coucou's Queens: the ask
    passes on to the next player)."""

    name: str
    cards: tuple[Card, ...]
    lowest: int
    highest: int
    blocker: int
    weak_blocker: int
    _set: frozenset[Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_set", frozenset(self.cards))
        if len(self._set) != len(self.cards):
            raise ValueError(f"the {self.name} deck holds a card twice")

    def rank(self, card: Card) -> int:
        """How the card ranks in a reveal: higher is safer."""
        return card.rank

    def blocks(self, card: Card) -> bool:
        """The card refuses a swap (while the house rules let it)."""
        return card.rank == self.blocker

    def passes_on(self, card: Card) -> bool:
        """The card refuses a swap weakly, sending the asker on (while the house rules say)."""
        return card.rank == self.weak_blocker

    def is_whole(self, cards: tuple[Card, ...]) -> bool:
        """``cards`` are this deck's, each once: what a deal must be given."""
        return len(cards) == len(self.cards) and frozenset(cards) == self._set

    def shuffled(self, rng: random.Random) -> tuple[Card, ...]:
        """The deck shuffled by the injected generator (a CSPRNG in production, a seeded one
        in tests), top card first."""
        deck = list(self.cards)
        rng.shuffle(deck)
        return tuple(deck)


STANDARD = Deck("standard", FULL_DECK, lowest=ACE, highest=KING, blocker=KING, weak_blocker=QUEEN)


def deck_for(rules: HouseRules) -> Deck:
    """The deck a game under ``rules`` is played with (every game today: the 52 cards)."""
    return STANDARD
