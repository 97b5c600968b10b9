"""Cards and the deck. Ranks run A (lowest) to K (highest); suits never matter."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Suit(Enum):
    """The four French suits; they only tell cards apart, never rank them."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"


ACE = 1
JACK = 11
QUEEN = 12
KING = 13

_RANK_CODES = {ACE: "A", JACK: "J", QUEEN: "Q", KING: "K"}
_CODE_RANKS = {code: rank for rank, code in _RANK_CODES.items()}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card of the 52-card deck."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if not ACE <= self.rank <= KING:
            raise ValueError(f"rank out of range: {self.rank}")

    @property
    def rank_code(self) -> str:
        """A, 2..10, J, Q, K: the same in every language."""
        return _RANK_CODES.get(self.rank, str(self.rank))

    @property
    def code(self) -> str:
        """A short stable code such as ``AS`` or ``10H``, for storage and logs."""
        return f"{self.rank_code}{self.suit.value}"

    @classmethod
    def from_code(cls, code: str) -> Card:
        rank_part, suit_part = code[:-1], code[-1]
        rank = _CODE_RANKS.get(rank_part)
        if rank is None:
            rank = int(rank_part)
        return cls(rank, Suit(suit_part))

    def __str__(self) -> str:
        return self.code


# The 52 cards, the standard deck (``decks.STANDARD`` plays with them).
FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in range(1, 14))
