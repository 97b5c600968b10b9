"""What every area of rendering shares: the rendered message, names, cards, hearts, keys,
Telegram's length limit, the group's language and the translator."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.constants import MessageLimit

from cuckoo_bot.app.model import DEFAULT_LANGUAGE, Chat, Game, Player
from cuckoo_bot.domain.actions import Move
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import weak
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.domain.state import Act, ActKind
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import keydata
from cuckoo_bot.transport.render import kille
from cuckoo_bot.transport.render.names import Cast

Players = Cast  # the people a text names, each shown readable and isolated
Known = Mapping[int, Player]  # the people a text may name, as the store has them
MAX_TEXT = MessageLimit.MAX_TEXT_LENGTH  # 4096 UTF-16 units
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
CLASSIC = HouseRules()  # the rule card's game: what a house rule differs from


@dataclass(frozen=True)
class Rendered:
    text: str
    keyboard: InlineKeyboardMarkup | None = None
    # Sent without a sound: only what concerns the reader notifies (their turn, the start and
    # the end of a game, a lobby); a new round's table, a deal, a line in passing do not.
    quiet: bool = False
    effect: str | None = None  # a message effect (private chats only): the winner's 🎉
    reply_to: int | None = None  # the message this one answers (in the same chat)


@dataclass(frozen=True)
class TableLinks:
    """Where the live table (the Mini App) opens, once the bot knows: its page, served by the
    bot, and Telegram's direct link to it (a group cannot hold a Mini App button, only a link).
    Empty: no live table, and no message links to one."""

    page: str | None = None  # e.g. https://bot.example.org/app
    bot: str = ""  # the bot's username
    app_name: str | None = None  # the Mini App's short name at @BotFather

    def page_for(self, game_id: int) -> str | None:
        return f"{self.page}?game={game_id}" if self.page else None

    def direct(self, game_id: int) -> str | None:
        if not (self.page and self.bot and self.app_name):
            return None
        return f"https://t.me/{self.bot}/{self.app_name}?startapp={game_id}"


class Part:
    """One area of rendering; the areas together make the ``Renderer``."""

    def __init__(self, translator: Translator) -> None:
        self.tr = translator
        self.links = TableLinks()  # set at start, once the bot's username is known

    def table_button(
        self, lang: str, game_id: int, *, private: bool
    ) -> InlineKeyboardButton | None:
        """The key that opens the live table: a Mini App button in a private chat, the direct
        link in a group; None without a live table."""
        label = self.tr.t(lang, "btn_open_table")
        if private:
            page = self.links.page_for(game_id)
            return InlineKeyboardButton(label, web_app=WebAppInfo(page)) if page else None
        direct = self.links.direct(game_id)
        return InlineKeyboardButton(label, url=direct) if direct else None

    def cast(self, players: Mapping[int, Player], order: Sequence[int], lang: str) -> Cast:
        """The names a text will show, "Player N" (N: place in ``order``, a game's seats) for
        a name that shows as nothing."""
        if isinstance(players, Cast):
            return players
        return Cast(players, order, self.tr.t(lang, "player_n", n="{n}"))

    def game_name(self, lang: str, rules: HouseRules) -> str:
        """What the group calls the game (its setting), in ``lang``."""
        return self.tr.t(lang, f"value_{rules.name.value}")

    def call(self, lang: str, rules: HouseRules) -> str:
        """What a King's holder calls out when they block a swap, by the game's name."""
        return self.tr.t(lang, f"call_{rules.name.value}")

    def rules_line(self, lang: str, rules: HouseRules, timeout: float) -> str:
        """The rules in force in one line (``rules_line``)."""
        return rules_line(self.tr, lang, rules, timeout)

    def clock(self, lang: str, game: Game, deadline: datetime | None) -> str:
        """A turn's time: its seconds, and the moment it runs out when known."""
        seconds = int(game.turn_timeout)
        if deadline is None:
            return self.tr.t(lang, "clock_seconds", seconds=seconds)
        return self.tr.t(lang, "clock", seconds=seconds, time=moment(deadline))


def rules_line(tr: Translator, lang: str, rules: HouseRules, timeout: float) -> str:
    """The rules in force in one line: what differs from the classic game, then the clock
    and what running out of it costs. The lobby, the first table, /rules and the live table
    show it."""
    t = tr.t
    house = [t(lang, "rules_kille")] if rules.kille else []
    if rules.lives != CLASSIC.lives:
        house.append(t(lang, "rules_lives", lives=rules.lives))
    if not rules.kings_block and not rules.kille:  # the Kille deck has no Kings
        house.append(t(lang, "rules_no_block"))
    if rules.double_cut:
        house.append(t(lang, "rules_double_cut"))
    if rules.dealer_stays:
        house.append(t(lang, "rules_dealer_stays"))
    if rules.queens_block and not rules.kille:
        house.append(t(lang, "rules_queens_block"))
    if rules.stakes:
        house.append(t(lang, "rules_stakes"))
    if rules.final_tie is FinalTie.SUDDEN_DEATH:
        house.append(t(lang, "rules_sudden_death"))
    if rules.max_players != CLASSIC.max_players:
        house.append(t(lang, "rules_max_players", max_players=rules.max_players))
    items = house or [t(lang, "rules_lives", lives=rules.lives)]
    clock = "rules_clock_fast" if rules.fast_turns else "rules_clock"
    items.append(t(lang, clock, seconds=int(timeout)))
    head = "rules_line_house" if house or rules.fast_turns else "rules_line_classic"
    return t(lang, head, items=" · ".join(items))


def queen_blocked(act: Act) -> bool:
    """A swap refused by a card that would have sent it on (Coucou's Queen, the Kille Inn or
    Cavalier: nobody after her holder, or one more after a Queen), not by the deck's blocker:
    told with its sign (``sign``) and no call."""
    return act.kind is ActKind.BLOCKED and act.shown is not None and weak(act.shown)


def sign(card: Card | None) -> str:
    """The mark of a card that sends an ask on: 👸 a Queen; ↪️ a Kille Inn or Cavalier (whose
    own emoji its label already shows)."""
    return "↪️" if card is not None and card.kille else "👸"


def shown_card(card: Card, spent: bool, lang: str, tr: Translator) -> str:
    """A card at a reveal: its label, and a Kille Harlequin swapped this round said lowest."""
    label = card_label(card.code, lang)
    return tr.t(lang, "card_spent", card=label) if spent else label


def moment(when: datetime) -> str:
    """A time of day that Telegram shows in each reader's own time zone and format (a
    date-time entity); apps that predate it show the UTC time written here."""
    fallback = f"{when.astimezone(UTC):%H:%M:%S} UTC"
    return f'<tg-time unix="{int(when.timestamp())}" format="T">{fallback}</tg-time>'


# The letters a language's decks print for the picture cards (A, 2-10 are everyone's): French
# decks show R(oi), D(ame) and V(alet).
LETTERS: dict[str, dict[str, str]] = {"fr": {"K": "R", "Q": "D", "J": "V"}}


def rank_letter(rank_code: str, lang: str) -> str:
    """A card's index as ``lang``'s decks print it: ``K`` is ``R`` in French."""
    return LETTERS.get(lang, {}).get(rank_code, rank_code)


def card_label(code: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """``10H`` -> ``10♥``: the index as the reader's decks print it, and the suit's symbol; a
    Kille card, its emoji and name (``20X`` -> ``🐦 Cuckoo``)."""
    card = Card.from_code(code)
    if card.kille:
        return kille.label(card, lang)
    return f"{rank_letter(card.rank_code, lang)}{SUITS[card.suit.value]}"


def short_name(players: Cast, player_id: int) -> str:
    """A player's first name, short, ready for a line of HTML."""
    return players.short(player_id)


_TAG = re.compile(r"<[^>]*>")
_ISOLATES = dict.fromkeys(range(0x2066, 0x206A))


def seen_length(html_text: str) -> int:
    """How many characters a line of HTML shows (tags, entities and bidi isolates read)."""
    return len(html.unescape(_TAG.sub("", html_text)).translate(_ISOLATES))


def name_of(players: Cast, player_id: int) -> str:
    """A player's name, ready for a line of HTML: it can never rewrite the rest of the line."""
    return players.name(player_id)


def mention(players: Cast, player_id: int) -> str:
    """A real user mention: Telegram notifies the user even without a username."""
    return f'<a href="tg://user?id={player_id}">{name_of(players, player_id)}</a>'


def hearts(lives: int) -> str:
    return "❤️" * lives if lives > 0 else "💀"


def group_language(chat: Chat | None, game: Game | None) -> str:
    if chat is not None and chat.language:
        return chat.language
    return game.language if game is not None else DEFAULT_LANGUAGE


def keys(
    rows: list[list[tuple[str, str]]], extra: InlineKeyboardButton | None = None
) -> InlineKeyboardMarkup:
    """Inline keys from rows of (label, callback data), and an ``extra`` key on a row of its
    own below them (a link), if any."""
    keyboard = [
        [InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows
    ]
    return InlineKeyboardMarkup(keyboard + ([[extra]] if extra is not None else []))


def move_row(
    tr: Translator, lang: str, options: Sequence[Move], game: Game, round_no: int, turn: int
) -> list[tuple[str, str]]:
    """The keys of a turn (keep, swap, cut), naming the game, round and turn they answer."""
    return [
        (
            tr.t(lang, f"btn_{option}"),
            keydata.KeyData(keydata.MOVE_KEYS[option], game.id, round_no, turn).encode(),
        )
        for option in options
    ]


def utf16_len(text: str) -> int:
    """Telegram counts a text's length in UTF-16 code units (an emoji is often two)."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str) -> str:
    """Telegram refuses texts over 4096 units: trim whole lines off the end, never mid-tag.

    The HTML source is measured, which is never shorter than what Telegram counts.
    """
    if utf16_len(text) <= MAX_TEXT:
        return text
    lines = text.split("\n")
    while lines and utf16_len("\n".join(lines)) > MAX_TEXT - 2:
        lines.pop()
    return "\n".join(lines) + "\n…"


def fit_middle(head: list[str], middle: list[str], tail: list[str]) -> str:
    """Join the parts; if too long for Telegram, drop the oldest lines of ``middle`` first, so
    the prompt or the reveal at the end always shows."""
    middle = list(middle)
    text = "\n".join([*head, *middle, *tail])
    while middle and utf16_len(text) > MAX_TEXT:
        middle = middle[1:] if middle[0] == "…" else ["…", *middle[2:]]
        text = "\n".join([*head, *middle, *tail])
    return fit(text)


def pages(blocks: list[str]) -> list[str]:
    """Blocks joined into messages of at most 4,096 units, never splitting a block."""
    joined: list[str] = []
    for block in blocks:
        block = fit(block)
        if joined and utf16_len(joined[-1] + "\n\n" + block) <= MAX_TEXT:
            joined[-1] += "\n\n" + block
        else:
            joined.append(block)
    return joined
