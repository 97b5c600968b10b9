"""A name as the bot shows it: whatever a user typed can never rewrite the line it stands in.

Telegram lets users put anything in their names: bidi overrides that turn the rest of a line
around, marks that draw nothing, stacks of combining marks, long emoji sequences. Before a name
is shown it is made readable (format characters that would leak or draw nothing dropped, marks
per letter capped, blank runs collapsed, shortened on grapheme boundaries) and then wrapped in
a bidi isolate (FSI ... PDI), so the text after it keeps its own direction whatever the name
holds. A name with nothing visible left is "Player N", numbered by seat, in the reader's
language. Grapheme clusters come from the ``regex`` module (Unicode's extended clusters, which
keep emoji ZWJ sequences and flags whole); the standard library has no segmentation.
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Mapping, Sequence

import regex

from cuckoo_bot.app.model import Player

FSI = "\u2068"  # first strong isolate: the name takes the direction of its own first letter
PDI = "\u2069"  # pop directional isolate: the text after the name is back on its own
NAME_LIMIT = 32  # graphemes; Telegram allows 64 + 64 characters, a table of 20 needs fewer
SHORT_LIMIT = 12  # graphemes: a first name in a line that names a whole round
MARKS = 3  # combining marks kept per letter: Vietnamese stacks two, "Zalgo" text dozens
ZWJ, ZWNJ = "\u200d", "\u200c"
BLACK_FLAG = "\U0001f3f4"  # the base of a subdivision flag, spelled with tag characters
# Letters that draw nothing (Hangul fillers, the blank Braille pattern, ...): a name of them
# alone is as blank as an empty one.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
_CLUSTER = regex.compile(r"\X")


def _is_tag(char: str) -> bool:
    return "\U000e0020" <= char <= "\U000e007f"


def _kept_format(text: str, i: int) -> bool:
    """A format character that a visible neighbour needs: a joiner between two characters
    (emoji families, Indic and Persian spelling), a tag spelling a flag after the black flag."""
    char = text[i]
    if char in (ZWJ, ZWNJ):
        before = text[i - 1] if i > 0 else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        return bool(before and after) and not _blank_char(before) and not _blank_char(after)
    if _is_tag(char):
        j = i
        while j > 0 and _is_tag(text[j - 1]):
            j -= 1
        return j > 0 and text[j - 1] == BLACK_FLAG
    return False


def _blank_char(char: str) -> bool:
    """Draws nothing. Unassigned code points are not blank: they may be newer emoji than this
    Python's Unicode tables know."""
    category = unicodedata.category(char)
    return category in ("Cc", "Cf", "Cs") or category[0] == "Z" or char in INVISIBLE


def _cleaned(raw: str) -> str:
    """Controls and separators become spaces; format characters go unless a neighbour needs
    them; blank runs become one space."""
    out: list[str] = []
    for i, char in enumerate(raw):
        category = unicodedata.category(char)
        if category == "Cf" and not _kept_format(raw, i):
            continue
        if category in ("Cc", "Cs", "Zl", "Zp", "Zs") or char in INVISIBLE:
            if out and out[-1] != " ":
                out.append(" ")
            continue
        out.append(char)
    return "".join(out).strip(" ")


def _tamed(cluster: str) -> str:
    """At most ``MARKS`` combining marks on one letter."""
    kept: list[str] = []
    marks = 0
    for char in cluster:
        if unicodedata.category(char) in ("Mn", "Me"):
            marks += 1
            if marks > MARKS:
                continue
        kept.append(char)
    return "".join(kept)


def _visible(cluster: str) -> bool:
    return any(
        unicodedata.category(c) not in ("Mn", "Me", "Cf") and not _blank_char(c) for c in cluster
    )


def readable(raw: str, limit: int = NAME_LIMIT) -> str:
    """The name as plain text that draws what it holds, at most ``limit`` graphemes (the last
    one "…" when shortened); "" when nothing visible is left."""
    clusters = [_tamed(c) for c in _CLUSTER.findall(_cleaned(raw))]
    # A cluster that draws nothing (a lone mark, a stray joiner) at the start is dropped.
    while clusters and not _visible(clusters[0]):
        clusters.pop(0)
    if not any(_visible(c) for c in clusters):
        return ""
    if len(clusters) > limit:
        clusters = [*clusters[: limit - 1], "…"]
    return "".join(clusters).strip(" ")


def graphemes(text: str) -> int:
    """How many characters a reader sees (an emoji family is one)."""
    return len(_CLUSTER.findall(text))


def isolated(text: str) -> str:
    """Plain text, HTML-escaped, inside a bidi isolate."""
    return f"{FSI}{html.escape(text)}{PDI}"


def user_text(raw: str, blank: str, limit: int = NAME_LIMIT) -> str:
    """A user-chosen text (a name, a group's title) ready to stand in a line of HTML; ``blank``
    when nothing of it would show."""
    return isolated(readable(raw, limit) or blank)


class Cast(dict[int, Player]):
    """The people a text names, and how to call someone whose name shows as nothing: "Player
    N", N their seat (or place in ``order``), in the reader's language."""

    def __init__(self, players: Mapping[int, Player], order: Sequence[int], blank: str) -> None:
        super().__init__(players)
        self.order = list(dict.fromkeys(order))
        self.order += sorted(p for p in players if p not in set(self.order))
        self.blank = blank  # "Player {n}" in the reader's language

    def number(self, player_id: int) -> int:
        if player_id not in self.order:
            self.order.append(player_id)
        return self.order.index(player_id) + 1

    def name(self, player_id: int, limit: int = NAME_LIMIT) -> str:
        """The player's name, readable and isolated, HTML-escaped."""
        player = self.get(player_id)
        raw = player.display_name if player is not None else ""
        return user_text(raw, self.blank.format(n=self.number(player_id)), limit)

    def short(self, player_id: int) -> str:
        """The player's first name only, at most ``SHORT_LIMIT`` graphemes (a line that names
        a whole round), readable and isolated, HTML-escaped."""
        player = self.get(player_id)
        raw = player.first_name if player is not None else ""
        return user_text(raw, self.blank.format(n=self.number(player_id)), SHORT_LIMIT)
