"""The card faces the page draws, sent with each view (``TableJson.faces``).

The page knows no deck: it draws a face from what it is told here (the corner's index, the
suit's shape, how many shapes in the middle, a framed picture, or one of the motifs it can
draw), so a new deck is a new function beside ``standard`` and ``kille``, and at most a new
motif in the page's drawing.
"""

from __future__ import annotations

from collections.abc import Iterable

from cuckoo_bot.app.model import DEFAULT_LANGUAGE
from cuckoo_bot.domain.cards import (
    CAVALIER,
    CUCKOO,
    FLOWERPOT,
    HARLEQUIN,
    HUSSAR,
    INN,
    JACK,
    MASK,
    PIG,
    WREATH,
    Card,
    Suit,
)
from cuckoo_bot.transport.render.common import card_label, rank_letter, sign
from cuckoo_bot.transport.render.kille import number
from cuckoo_bot.transport.webapp.contract import FaceJson, Motif, SuitCode

_SUITS: dict[Suit, SuitCode] = {
    Suit.CLUBS: "C",
    Suit.DIAMONDS: "D",
    Suit.HEARTS: "H",
    Suit.SPADES: "S",
}
_RED = frozenset({Suit.HEARTS, Suit.DIAMONDS})

# The Kille deck's nine pictures, each drawn as its own motif; the numbers share "number".
_MOTIFS: dict[int, Motif] = {
    MASK: "mask",
    FLOWERPOT: "flowerpot",
    WREATH: "wreath",
    INN: "inn",
    CAVALIER: "cavalier",
    PIG: "pig",
    HUSSAR: "hussar",
    CUCKOO: "cuckoo",
    HARLEQUIN: "harlequin",
}


def standard(card: Card, lang: str = DEFAULT_LANGUAGE) -> FaceJson:
    """A card of the 52: pips for 2 to 10, one big suit for the Ace, a framed letter for
    J, Q and K (as ``lang``'s decks print them: R, D, V in French)."""
    picture = card.rank >= JACK
    letter = rank_letter(card.rank_code, lang)
    return {
        "label": card_label(card.code, lang),
        "corner": letter,
        "suit": _SUITS[card.suit],
        "red": card.suit in _RED,
        "pips": 0 if picture else card.rank,  # an Ace: 1
        "picture": letter if picture else "",
        "motif": "",
        "sign": sign(card),
    }


def kille(card: Card, lang: str = DEFAULT_LANGUAGE) -> FaceJson:
    """A card of the Kille deck: a picture's motif (a small copy of it in the corners), or a
    number's figure, big in the middle and in the corners (red ink). Its two copies look
    alike, as they do in the deck."""
    figure = number(card)
    shown = "" if figure is None else str(figure)
    return {
        "label": card_label(card.code, lang),
        "corner": shown,
        "suit": "",
        "red": figure is not None,
        "pips": 0,
        "picture": shown,
        "motif": _MOTIFS.get(card.rank, "number"),
        "sign": sign(card),
    }


def face(card: Card, lang: str = DEFAULT_LANGUAGE) -> FaceJson:
    """``card``'s face, as its deck draws it."""
    return kille(card, lang) if card.kille else standard(card, lang)


def faces(codes: Iterable[str | None], lang: str = DEFAULT_LANGUAGE) -> dict[str, FaceJson]:
    """The face of each card named in ``codes`` (None: no card), by its code."""
    return {code: face(Card.from_code(code), lang) for code in codes if code is not None}
