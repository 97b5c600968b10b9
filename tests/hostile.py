"""Names hostile players choose, and what every text that shows them must hold to.

Telegram lets a first name (1-64 characters) and a last name (0-64) hold almost anything. The
corpus below is what players have tried: bidi overrides and embeddings that would turn the rest
of a line around, marks that draw nothing, names of nothing but invisible characters, emoji
sequences, stacked combining marks, HTML, links, format placeholders, 128-character names.
"""

from __future__ import annotations

from cuckoo_bot.app.model import Player
from cuckoo_bot.transport.render.names import FSI, PDI, readable

# (first name, last name): each one a way to break a line, hide, or look like someone else.
HOSTILE_NAMES: tuple[tuple[str, str | None], ...] = (
    ("\u202eRETSAM EMAG", None),  # right-to-left override, never closed
    ("\u200f\u200fAlice\u200f", "\u200e"),  # RLM and LRM marks around a plain name
    ("\u200b\u200c\u200d\u2060", None),  # only zero-width characters: shows as nothing
    ("👨\u200d👩\u200d👧\u200d👦", "Family"),  # a ZWJ emoji sequence: one grapheme
    ("Z\u0337\u0322\u031b\u031b\u0316\u0317\u0318a\u0335\u0321\u0322l\u0336\u0328go", None),
    ("<b>bold</b> & <a href='tg://user?id=1'>", "</a>"),  # HTML
    ("tg://user?id=42", "https://t.me/x"),  # links as text
    ("W" * 64, "w" * 64),  # the longest name Telegram allows
    ("\u3164", None),  # a Hangul filler: a letter that draws nothing
    ("\u202bembedded\u202a", "\u202d"),  # embeddings and an override, never closed
    ("\u2067isolate", None),  # a right-to-left isolate, never closed
    ("محمد\u202c", "\u2069"),  # a right-to-left name with a stray PDF and PDI
    ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "Scot"),  # a tag flag
    ("line\nbreak", "\ttab"),  # controls
    ("{name} {0}", "%s"),  # format placeholders
    ("🧑🏽\u200d🚀", "\u200d"),  # skin tone and ZWJ, and a lone joiner
    ("   ", None),  # blanks only
    ("שלום 123", None),  # Hebrew with digits
    ("\u2800\u2800", "\u115f"),  # the blank Braille pattern and another filler
    ("Ngô Đình", "Diệm"),  # marks that belong to the letters
)

BIDI_EMBEDDINGS = "\u202a\u202b\u202c\u202d\u202e"  # LRE RLE PDF LRO RLO
BIDI_ISOLATES = "\u2066\u2067\u2068\u2069"  # LRI RLI FSI PDI
BIDI_MARKS = "\u200e\u200f\u061c"  # LRM RLM ALM


def hostile_players(first_id: int = 1, can_dm: bool = True) -> list[Player]:
    """One player per hostile name, ids counting up from ``first_id``."""
    return [
        Player(id=first_id + i, first_name=first, last_name=last, can_dm=can_dm)
        for i, (first, last) in enumerate(HOSTILE_NAMES)
    ]


def label(player: Player, seat: int, blank: str = "Player {n}", limit: int = 32) -> str:
    """What a reader must see for ``player`` sitting in ``seat`` (1-based): the readable
    name, or "Player N" for a name that shows as nothing."""
    return readable(player.display_name, limit) or blank.format(n=seat)


def bidi_leaks(text: str) -> list[str]:
    """Why ``text`` (as Telegram shows it, entities parsed) lets a name rewrite its line: a
    bidi embedding, override or mark anywhere; an isolate that is nested, unclosed or closes
    nothing. Empty when every name stands alone and the text after it is back on its own."""
    problems: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        open_at: int | None = None
        for i, char in enumerate(line):
            if char in BIDI_EMBEDDINGS or char in BIDI_MARKS or char in "\u2066\u2067":
                problems.append(f"line {number}: {char!r} at {i} in {line!r}")
            elif char == FSI:
                if open_at is not None:
                    problems.append(f"line {number}: nested isolate at {i} in {line!r}")
                open_at = i
            elif char == PDI:
                if open_at is None:
                    problems.append(f"line {number}: PDI closes nothing at {i} in {line!r}")
                open_at = None
        if open_at is not None:
            problems.append(f"line {number}: isolate never closed in {line!r}")
    return problems


def isolated_names(text: str) -> list[str]:
    """Every isolated name in ``text``, as shown."""
    names: list[str] = []
    start = -1
    for i, char in enumerate(text):
        if char == FSI:
            start = i + 1
        elif char == PDI and start >= 0:
            names.append(text[start:i])
            start = -1
    return names


def seen(text: str | None) -> str:
    """``text`` as a reader sees it: the isolates around names draw nothing."""
    return (text or "").replace(FSI, "").replace(PDI, "")
