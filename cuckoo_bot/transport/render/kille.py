"""The Kille deck's cards as players read them: an emoji and a name in each language.

Kept here beside the 52 cards' letters (``common.LETTERS``) rather than in the message
catalogues: a card's name is its index, needed wherever a card is written (``card_label``),
including places that have a language and no translator (the live table's faces).
"""

from __future__ import annotations

from cuckoo_bot.domain.cards import (
    CAVALIER,
    CUCKOO,
    FLOWERPOT,
    HARLEQUIN,
    HUSSAR,
    INN,
    KILLE_ONE,
    MASK,
    PIG,
    WREATH,
    Card,
)

# The pictures' emoji; the numbers share one (🎴) before their figure.
EMOJI: dict[int, str] = {
    MASK: "🎭",
    FLOWERPOT: "🪴",
    WREATH: "🌿",
    INN: "🏠",
    CAVALIER: "🐎",
    PIG: "🐖",
    HUSSAR: "⚔️",
    CUCKOO: "🐦",
    HARLEQUIN: "🃏",
}
NUMBER_EMOJI = "🎴"

NAMES: dict[str, dict[int, str]] = {
    "en": {
        MASK: "Mask",
        FLOWERPOT: "Flowerpot",
        WREATH: "Wreath",
        INN: "Inn",
        CAVALIER: "Cavalier",
        PIG: "Pig",
        HUSSAR: "Hussar",
        CUCKOO: "Cuckoo",
        HARLEQUIN: "Harlequin",
    },
    "es": {
        MASK: "Máscara",
        FLOWERPOT: "Maceta",
        WREATH: "Corona",
        INN: "Posada",
        CAVALIER: "Caballero",
        PIG: "Cerdo",
        HUSSAR: "Húsar",
        CUCKOO: "Cuco",
        HARLEQUIN: "Arlequín",
    },
    "fr": {
        MASK: "Masque",
        FLOWERPOT: "Pot de fleurs",
        WREATH: "Couronne",
        INN: "Auberge",
        CAVALIER: "Cavalier",
        PIG: "Cochon",
        HUSSAR: "Hussard",
        CUCKOO: "Coucou",
        HARLEQUIN: "Arlequin",
    },
}


def number(card: Card) -> int | None:
    """The figure of a Kille number card (1 to 12), or None for a picture."""
    figure = card.rank - KILLE_ONE + 1
    return figure if 1 <= figure <= 12 else None


def name(card: Card, lang: str) -> str:
    """The card's name in ``lang`` (English where it has none): "Cuckoo", "7"."""
    figure = number(card)
    if figure is not None:
        return str(figure)
    return NAMES.get(lang, NAMES["en"])[card.rank]


def emoji(card: Card) -> str:
    return EMOJI.get(card.rank, NUMBER_EMOJI)


def label(card: Card, lang: str) -> str:
    """``🐦 Cuckoo``, ``🎴 7``: how a message writes a Kille card."""
    return f"{emoji(card)} {name(card, lang)}"
