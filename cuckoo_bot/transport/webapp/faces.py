"""The card faces the page draws, sent with each view (``TableJson.faces``).

The page knows no deck: it draws a face from what it is told here (the corner's index, the
suit's shape, how many shapes in the middle, or a framed picture), so a new deck is a new
function beside ``standard`` and nothing in the page's code.
"""

from __future__ import annotations

from collections.abc import Iterable

from cuckoo_bot.app.model import DEFAULT_LANGUAGE
from cuckoo_bot.domain.cards import JACK, Card, Suit
from cuckoo_bot.transport.render.common import card_label, rank_letter
from cuckoo_bot.transport.webapp.contract import FaceJson

_RED = frozenset({Suit.HEARTS, Suit.DIAMONDS})


def standard(card: Card, lang: str = DEFAULT_LANGUAGE) -> FaceJson:
    """A card of the 52: pips for 2 to 10, one big suit for the Ace, a framed letter for
    J, Q and K (as ``lang``'s decks print them: R, D, V in French)."""
    picture = card.rank >= JACK
    letter = rank_letter(card.rank_code, lang)
    return {
        "label": card_label(card.code, lang),
        "corner": letter,
        "suit": card.suit.value,
        "red": card.suit in _RED,
        "pips": 0 if picture else card.rank,  # an Ace: 1
        "picture": letter if picture else "",
    }


def faces(codes: Iterable[str | None], lang: str = DEFAULT_LANGUAGE) -> dict[str, FaceJson]:
    """The face of each card named in ``codes`` (None: no card), by its code."""
    return {code: standard(Card.from_code(code), lang) for code in codes if code is not None}
