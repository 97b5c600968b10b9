"""Reading a played game's chats as its players read them: where each round's result is told,
what no longer holds, what rang, how long the longest text was.

``review(fake, group, people)`` counts, over the fake Bot API's chats once the game is over:

- **repeats**: a round's result told in more than one message of a private chat, in any text
  the message showed (its result line under the round's header, or the ``↩️ Round N`` line
  atop a later message), or its reveal in more than one of the group's messages (its table,
  and a later table's recap); each extra message is one repeat;
- **stale lines**: lines of the final texts that are no longer true once the game is over (a
  turn's call to act, "the reveal comes when everyone has played", "I'll write when it's your
  turn");
- messages per round (the group's, and a player's on average), the messages that rang on a
  player's phone (sent without ``disable_notification``), and the longest text (UTF-16 units,
  any version of any message).

The golden transcripts' test asserts no repeat and no stale line; ``python -m
benchmarks.transcripts`` prints the table.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from cuckoo_bot.app.model import SUPPORTED_LANGUAGES
from cuckoo_bot.domain.decks import KILLE
from cuckoo_bot.i18n.messages import MESSAGES
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.render.kille import label
from fakebotapi import FakeBotApi
from fakebotapi.text import utf16_len

_MARK = "\x00{}\x00"


def _card_pattern() -> str:
    """A card as a line writes it: ``10♥``, ``R♠``; a Kille card's emoji and name in any
    language (``🐦 Cuckoo``), with or without "swapped: the lowest" after a Harlequin."""
    tr = Translator()
    kille_labels = {label(card, lang) for card in KILLE.cards for lang in SUPPORTED_LANGUAGES}
    named = "|".join(re.escape(name) for name in sorted(kille_labels, key=len, reverse=True))
    spent = "|".join(
        catalog_pattern(tr, lang, "card_spent", card=f"(?:{named})") for lang in SUPPORTED_LANGUAGES
    )
    return rf"(?:(?:10|[2-9AJQKRDV])[♣♦♥♠]|{spent}|{named})"


RESULT_KEYS = (
    "result_safe",
    "result_lost",
    "result_lost_tied",
    "result_lost_timeout",
    "result_lost_struck",
    "result_out",
    "result_out_tied",
    "result_out_timeout",
    "result_out_struck",
    "result_gathered",
)
# A line atop a message recalling how the player's last round ended (its number in the line).
RECALL_KEYS = ("last_safe", "last_lost", "last_lost_tied", "last_lost_timeout", "last_lost_struck")
# A shared win ends the last round without its result line (it would say "your last life").
SHARED_WIN_KEY = "close_you_won_shared"
# Lines that say what is still to come: untrue once it came, and at the end of a game.
STALE_KEYS = (
    "played_wait",
    "deal_wait",
    "prompt_call",
    "prompt_ask",
    "prompt_ask_dealer",
    "prompt_ask_again",
    "table_waiting",
    "table_waiting_dealer",
)
# What starts a round's part of a private message: its header, or a prompt's call to act.
HEAD_KEYS = ("private_head", "prompt_call")


def catalog_pattern(tr: Translator, lang: str, key: str, **groups: str) -> str:
    """A catalog message as a regex over the text Telegram shows (tags gone, entities read):
    each placeholder matches ``groups[name]``."""
    text = tr.t(lang, key, **{name: _MARK.format(name) for name in groups})
    pattern = re.escape(html.unescape(re.sub(r"<[^>]*>", "", text)))
    for name, group in groups.items():
        pattern = pattern.replace(re.escape(_MARK.format(name)), group)
    return pattern


def _either(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile("^(?:" + "|".join(patterns) + ")$", re.M)


def _patterns() -> tuple[re.Pattern[str], ...]:
    """(round header, result line, recall line, stale line), each a whole line, in every
    language: ``🃏 <chat> · round 3`` (one group per language holds the number), "💔 You held
    2♣, the lowest card, and lost a life. ❤️❤️" or another way a round ended, ``↩️ Round 3:
    ...``, and a line that says what is still to come."""
    tr = Translator()
    heads, results, recalls, stale = [], [], [], []
    anything = {
        name: ".*?"
        for name in ("target", "clock", "seconds", "time", "chat", "round", "name", "until")
    }
    for lang in SUPPORTED_LANGUAGES:
        recalls += [
            catalog_pattern(tr, lang, key, round=r"(\d+)", card=CARD_PATTERN, others=".+?")
            for key in RECALL_KEYS
        ]
        heads += [
            catalog_pattern(tr, lang, key, chat=".+?", round=r"(\d+)", seconds=r"\d+")
            for key in HEAD_KEYS
        ]
        results += [
            catalog_pattern(tr, lang, key, card=CARD_PATTERN, lives=".*?", others=".+?")
            for key in RESULT_KEYS
        ]
        results.append(catalog_pattern(tr, lang, SHARED_WIN_KEY, names=".+?"))
        stale += [
            ".*?" + catalog_pattern(tr, lang, key, **anything) + ".*?"
            for key in STALE_KEYS
            if key in MESSAGES
        ]
    return _either(heads), _either(results), _either(recalls), _either(stale)


CARD_PATTERN = _card_pattern()
HEAD, RESULT, RECALL, STALE = _patterns()


def _group_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(a round's table title, its reveal line, a later table's recap of it), every language."""
    tr = Translator()
    titles, reveals, recaps = [], [], []
    for lang in SUPPORTED_LANGUAGES:
        titles.append(catalog_pattern(tr, lang, "table_title", round=r"(\d+)", dealer=".+?"))
        reveals.append(".*?" + catalog_pattern(tr, lang, "table_revealed") + ".*?")
        if "table_recap" in MESSAGES:
            recaps.append(catalog_pattern(tr, lang, "table_recap", round=r"(\d+)", losses=".+?"))
    never = "(?!x)x"
    return _either(titles), _either(reveals), _either(recaps or [never])


TITLE, REVEALED, RECAP = _group_patterns()


def group_told(text: str) -> Iterator[int]:
    """The rounds whose reveal a group message tells: a table with its reveal (a folded one
    too), or a later table's line recalling it."""
    titles = list(TITLE.finditer(text))
    ends = [t.start() for t in titles[1:]] + [len(text)] if titles else []
    for title, end in zip(titles, ends, strict=True):
        if REVEALED.search(text[title.start() : end]):
            yield int(next(g for g in title.groups() if g is not None))
    for recap in RECAP.finditer(text):
        yield int(next(g for g in recap.groups() if g is not None))


def blocks(text: str) -> Iterator[tuple[int, int, str]]:
    """(round, offset, block) for each part of a private message that starts with a round's
    header; what comes before the first header (or a message without one) yields nothing."""
    heads = list(HEAD.finditer(text))
    ends = [head.start() for head in heads[1:]] + [len(text)] if heads else []
    for head, end in zip(heads, ends, strict=True):
        number = next(g for g in head.groups() if g is not None)
        yield int(number), head.start(), text[head.start() : end]


def results(text: str) -> Iterator[tuple[int, int]]:
    """(round, offset) of each round's result shown in a text."""
    for number, offset, block in blocks(text):
        if RESULT.search(block):
            yield number, offset


def recalls(text: str) -> Iterator[tuple[int, int]]:
    """(round, offset) of each round a line atop a message recalls the end of."""
    for recall in RECALL.finditer(text):
        yield int(next(g for g in recall.groups() if g is not None)), recall.start()


@dataclass(frozen=True)
class Review:
    players: int
    rounds: int
    group_per_round: float  # the group's messages (sent; deleted ones too) per round
    private_per_round: float  # a player's private messages per round, on average
    ringing: float  # messages that rang on a player's phone over the game, on average
    longest: int  # UTF-16 units: the longest text any message ever showed
    repeats: int  # a round's result told in a second (third...) message of one chat
    stale: int  # lines no longer true at the end

    HEADER = (
        "players | rounds | group msgs/round | private msgs/round | ringing/player | longest"
        " | repeats | stale"
    )

    def row(self) -> str:
        return (
            f"{self.players} | {self.rounds} | {self.group_per_round:.2f} | "
            f"{self.private_per_round:.2f} | {self.ringing:.1f} | {self.longest} | "
            f"{self.repeats} | {self.stale}"
        )


def repeats_in(fake: FakeBotApi, chat_id: int) -> list[tuple[int, list[int]]]:
    """(round, messages) for each round whose result more than one message told, in any of
    the texts it showed (a line atop the next prompt that an edit took away later was read
    all the same)."""
    told: dict[int, set[int]] = {}
    for msg in fake.messages(chat_id):
        if not msg.from_bot:
            continue
        for text in (msg.text, *(v.text for v in msg.history)):
            for number, _ in [*results(text or ""), *recalls(text or "")]:
                told.setdefault(number, set()).add(msg.message_id)
    return [(n, sorted(m)) for n, m in sorted(told.items()) if len(m) > 1]


def group_repeats_in(fake: FakeBotApi, group: int) -> list[tuple[int, list[int]]]:
    """(round, messages) for each round whose reveal more than one group message tells."""
    told: dict[int, set[int]] = {}
    for msg in fake.messages(group, include_deleted=False):
        if msg.from_bot:
            for number in group_told(msg.text or ""):
                told.setdefault(number, set()).add(msg.message_id)
    return [(n, sorted(m)) for n, m in sorted(told.items()) if len(m) > 1]


def stale_in(fake: FakeBotApi, chat_id: int) -> list[tuple[int, str]]:
    """(message, line) for each line of a final text that says what is still to come."""
    return [
        (msg.message_id, match.group(0))
        for msg in fake.messages(chat_id, include_deleted=False)
        if msg.from_bot and msg.text
        for match in STALE.finditer(msg.text)
    ]


def review(fake: FakeBotApi, group: int, people: list[int]) -> Review:
    """The game just played in ``group`` by ``people``, read from the fake's chats."""
    rounds = max(
        (n for p in people for m in fake.messages(p) for n, _, _ in blocks(m.text or "")),
        default=0,
    )
    rounds = max(rounds, 1)
    private = [
        [m for m in fake.messages(p) if m.from_bot and m.message_id > _first_game_message(fake, p)]
        for p in people
    ]
    group_messages = [m for m in fake.messages(group) if m.from_bot]
    longest = max(
        utf16_len(text or "")
        for chat in (group, *people)
        for m in fake.messages(chat)
        for text in (m.text, *(v.text for v in m.history))
    )
    return Review(
        players=len(people),
        rounds=rounds,
        group_per_round=len(group_messages) / rounds,
        private_per_round=sum(len(p) for p in private) / len(people) / rounds,
        ringing=sum(sum(1 for m in p if not m.silent) for p in private) / len(people),
        longest=longest,
        repeats=sum(len(m) - 1 for p in people for _, m in repeats_in(fake, p))
        + sum(len(m) - 1 for _, m in group_repeats_in(fake, group)),
        stale=sum(len(stale_in(fake, chat)) for chat in (group, *people)),
    )


def _first_game_message(fake: FakeBotApi, chat_id: int) -> int:
    """The id before the game's first message in a private chat (the /start answer is not the
    game's)."""
    for msg in fake.messages(chat_id):
        if msg.from_bot and HEAD.search(msg.text or ""):
            return msg.message_id - 1
    return 0
