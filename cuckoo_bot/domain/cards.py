"""Cards: the 52 of the French deck (A lowest to K highest; suits never matter) and the 42 of
the Swedish Kille deck (two copies of each of 21 cards, told apart by a copy mark that plays
the suit's part). ``decks`` says how each deck ranks them and what they do."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Suit(Enum):
    """The four French suits; they only tell cards apart, never rank them."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"
    # The Kille deck has no suits: its two copies of each card are told apart by these.
    KILLE_A = "X"
    KILLE_B = "Y"


FRENCH_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
KILLE_COPIES = (Suit.KILLE_A, Suit.KILLE_B)


ACE = 1
JACK = 11
QUEEN = 12
KING = 13

# The Kille deck's 21 cards from the lowest up (its ranks): three low pictures, the numbers 1
# to 12 (ranks 4 to 15), then six high pictures. Names as in Swedish decks, in comments.
MASK = 1  # Blaren
FLOWERPOT = 2  # Blompottan
WREATH = 3  # Kransen
KILLE_ONE = 4  # the number 1; the number n is rank n + 3
INN = 16  # Värdshuset
CAVALIER = 17  # Kavallen
PIG = 18  # Husu
HUSSAR = 19  # Husaren
CUCKOO = 20  # Kuku
HARLEQUIN = 21  # Harlekin, the card that gave the deck its name

_RANK_CODES = {ACE: "A", JACK: "J", QUEEN: "Q", KING: "K"}
_CODE_RANKS = {code: rank for rank, code in _RANK_CODES.items()}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card: of the 52-card deck, or of the Kille deck when its suit is a Kille copy."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        highest = HARLEQUIN if self.kille else KING
        if not 1 <= self.rank <= highest:
            raise ValueError(f"rank out of range: {self.rank}")

    @property
    def kille(self) -> bool:
        """A card of the Kille deck."""
        return self.suit in KILLE_COPIES

    @property
    def rank_code(self) -> str:
        """A, 2..10, J, Q, K: the same in every language (a Kille card: its rank, 1 to 21)."""
        if self.kille:
            return str(self.rank)
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
FULL_DECK: tuple[Card, ...] = tuple(
    Card(rank, suit) for suit in FRENCH_SUITS for rank in range(ACE, KING + 1)
)
# The 42 cards of the Kille deck (``decks.KILLE``), codes ``1X`` (a Mask) to ``21Y``.
KILLE_DECK: tuple[Card, ...] = tuple(
    Card(rank, copy) for copy in KILLE_COPIES for rank in range(MASK, HARLEQUIN + 1)
)
