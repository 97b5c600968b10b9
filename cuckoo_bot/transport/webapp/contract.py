"""The live table's contract: the JSON the page receives, typed once.

``view.as_json`` returns a ``TableJson`` (mypy checks it field by field); the page's JSDoc
types (``static/contract.js``) are generated from these very classes by ``jsdoc()``, and a test
holds the file to it: ``python -m cuckoo_bot.transport.webapp.contract`` writes it again after a
change here. The page's tests check their views against ``PageView`` with pydantic.
"""

from __future__ import annotations

import sys
import types
from importlib import resources
from typing import Literal, Union, get_args, get_origin, get_type_hints

# pydantic (the page's tests) reads TypedDicts from typing_extensions on Python < 3.12.
from typing_extensions import TypedDict

Status = Literal["lobby", "running", "finished", "cancelled"]
Acted = Literal[
    "keep", "swap", "blocked", "queen_blocked", "struck", "stopped", "cut", "cut_blocked", "timeout"
]
Option = Literal["keep", "swap", "cut"]
SuitCode = Literal["C", "D", "H", "S", ""]  # "": a card with no suit (the Kille deck's)
# What the page draws in the middle of a card with no suit: one of the Kille deck's nine
# pictures, or a Kille number (its figure, big, between two ornaments); "": pips or a letter.
Motif = Literal[
    "",
    "mask",
    "flowerpot",
    "wreath",
    "number",
    "inn",
    "cavalier",
    "pig",
    "hussar",
    "cuckoo",
    "harlequin",
]
GameNameCode = Literal["cuckoo", "chase_the_ace", "ranter_go_round"]


class FaceJson(TypedDict):
    """A card's face as the page draws it: the page knows no deck, it draws what it is told."""

    label: str  # the card's name for people ("10♥", "🐦 Cuckoo"): what a screen reader says
    corner: str  # the index in two corners ("10", "K"); "": a small copy of the motif
    suit: SuitCode  # the shape drawn in the corners and the middle ("": none, a motif instead)
    red: bool
    pips: int  # suit shapes in the middle: 2 to 10; 1: one big shape (an Ace); 0: a picture
    picture: str  # framed in the middle: a picture's letter ("K"), a Kille number's figure
    motif: Motif  # the drawing in the middle of a card with no suit; "": the 52 cards
    sign: str  # before its name when it sent an ask on: 👸 a Queen, ↪️ a Kille Inn or Cavalier


class SeatJson(TypedDict):
    """One seat as a viewer may see it."""

    player: int
    name: str  # readable; "": the page says "Player"
    lives: int
    out: bool
    dealer: bool
    acted: Acted | None  # what the seat did this round, once it did
    target: int | None  # the neighbour a swap went to (or whose card refused it)
    shown: str | None  # the card shown to the table when it refused this seat (a face's code)
    via: int | None  # whose Queen (Kille: Inn, Cavalier) sent this seat's ask on to ``target``
    via_shown: str | None  # that card (a face's code), shown at its holder's seat
    card: str | None  # face up for this viewer (a face's code; None: face down, or no card)
    spent: bool  # ``card`` is a Kille Harlequin that changed hands this round: it ranks lowest
    lost: bool  # lost a life at the reveal
    place: int | None  # once the game is over: 1 for the winner(s), then by going out


class TableJson(TypedDict):
    """The table as one viewer sees it (``view.as_json``), the same for every page of them."""

    game: int
    version: int  # the stored game's version: a page asks for what is newer
    status: Status
    round: int
    turn: int
    actor: int | None  # whose turn it is
    deadline: str | None  # ISO 8601: when that turn runs out
    turn_seconds: float  # a whole turn, for the page's clock
    revealed: bool  # the round's cards are on the table
    viewer: int | None  # None: a spectator
    options: list[Option]  # the viewer's keys, on their turn
    winners: list[int]
    max_lives: int
    seats: list[SeatJson]
    faces: dict[str, FaceJson]  # the face of each card in the seats, by its code: no other
    lang: str  # the game's language (the page's ``<html lang>``)
    name: GameNameCode  # what the group calls the game: the page's title
    pot: int | None  # stakes: the pot of a running game as it stands (None: not for stakes)
    rules: str  # the rules in force in one line ("📜 House rules: One-card Kille · 90 s ...")


class TableView(TableJson):
    """The table as sent: with the server's time, which the page counts the turn down from."""

    now: str  # ISO 8601: the server's clock when the view was sent


class PageView(TableView, total=False):
    """What the page receives: the view, and the page's texts in the game's language (in an
    answer, and in a stream's first event)."""

    strings: dict[str, str]  # by key, without the catalogs' ``web_`` prefix


CONTRACT = (FaceJson, SeatJson, TableJson, TableView, PageView)
JS_FILE = "contract.js"


def _js(annotation: object) -> str:
    """A Python annotation as a JSDoc type."""
    origin = get_origin(annotation)
    if annotation is type(None):
        return "null"
    if annotation is bool:
        return "boolean"
    if annotation in (int, float):
        return "number"
    if annotation is str:
        return "string"
    if origin is Literal:
        return " | ".join(f'"{value}"' for value in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " | ".join(_js(arg) for arg in get_args(annotation))
    if origin is list:
        (item,) = get_args(annotation)
        inner = _js(item)
        return f"{inner}[]" if inner.isidentifier() else f"Array<{inner}>"
    if origin is dict:
        key, value = get_args(annotation)
        return f"Object<{_js(key)}, {_js(value)}>"
    if isinstance(annotation, type) and annotation in CONTRACT:
        return annotation.__name__
    raise TypeError(f"no JSDoc type for {annotation!r}")


def jsdoc() -> str:
    """The contract as JSDoc typedefs, for the page (``static/contract.js``)."""
    lines = [
        "// The live table's contract, generated from cuckoo_bot/transport/webapp/contract.py",
        "// (python -m cuckoo_bot.transport.webapp.contract): do not edit by hand.",
        "",
    ]
    for kind in CONTRACT:
        hints = get_type_hints(kind)
        optional = kind.__optional_keys__
        lines.append("/**")
        lines.append(f" * {(kind.__doc__ or kind.__name__).strip().splitlines()[0]}")
        lines.append(f" * @typedef {{Object}} {kind.__name__}")
        for name, annotation in hints.items():
            field = f"[{name}]" if name in optional else name
            lines.append(f" * @property {{{_js(annotation)}}} {field}")
        lines.append(" */")
        lines.append("")
    lines.append("export {};")
    return "\n".join(lines) + "\n"


def main() -> int:
    target = resources.files("cuckoo_bot.transport.webapp") / "static" / JS_FILE
    with resources.as_file(target) as path:
        path.write_text(jsdoc())
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
