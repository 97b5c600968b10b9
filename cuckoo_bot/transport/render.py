"""Notices and answers into Telegram HTML and inline keys, in the reader's language."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from cuckoo_bot.app.model import Chat, Game, NoticeKind, Player
from cuckoo_bot.app.queries import Delivery, League
from cuckoo_bot.app.results import Reply
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.events import GameWon, LifeLossCause, LifeLost, PlayerEliminated, Revealed
from cuckoo_bot.domain.rules import FinalTie, HouseRules
from cuckoo_bot.i18n.messages import LANGUAGE_NAMES
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport import callbacks as cb

MAX_TEXT = 4096
MAX_POPUP = 200
_TAG = re.compile(r"<[^>]+>")
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_label(code: str) -> str:
    """``10H`` -> ``10♥``: rank and suit symbol, A J Q K in every language."""
    card = Card.from_code(code)
    return f"{card.rank_code}{SUITS[card.suit.value]}"


NAME_LIMIT = 32  # Telegram allows 64 + 64 characters; a table of 20 needs shorter names


def name_of(players: dict[int, Player], player_id: int) -> str:
    player = players.get(player_id)
    name = player.display_name if player else "?"
    if len(name) > NAME_LIMIT:
        name = name[: NAME_LIMIT - 1] + "…"
    return html.escape(name)


def mention(players: dict[int, Player], player_id: int) -> str:
    """A real user mention: Telegram notifies the user even without a username."""
    return f'<a href="tg://user?id={player_id}">{name_of(players, player_id)}</a>'


def hearts(lives: int) -> str:
    return "❤️" * lives if lives > 0 else "💀"


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


@dataclass(frozen=True)
class Rendered:
    text: str
    keyboard: InlineKeyboardMarkup | None = None


def _keys(rows: list[list[tuple[str, str]]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )


class Renderer:
    def __init__(self, translator: Translator, lobby_minutes: int = 10) -> None:
        self.tr = translator
        self.lobby_minutes = lobby_minutes

    # -- outbox notices ------------------------------------------------------------------------

    def notice(self, delivery: Delivery, lang: str) -> Rendered:
        n = delivery.notice
        kind = n.kind
        if kind is NoticeKind.LOBBY:
            return self.lobby(delivery, lang)
        if kind is NoticeKind.TABLE:
            return self.table(delivery, lang)
        if kind is NoticeKind.CARD:
            return self.card(delivery, lang)
        if kind is NoticeKind.GAME_OVER:
            return self.game_over(delivery, lang)
        return self.announce(delivery, lang)

    def lobby(self, d: Delivery, lang: str) -> Rendered:
        t = self.tr.t
        p, game = d.notice.payload, d.game
        assert game is not None
        seats: list[int] = p["seats"]
        creator = name_of(d.players, game.creator_id)
        lines = [t(lang, "lobby_title", creator=creator), ""]
        lines.append(t(lang, "lobby_players", count=len(seats), max=game.rules.max_players))
        lines += [f"{i}. {name_of(d.players, s)}" for i, s in enumerate(seats, 1)] or [
            t(lang, "lobby_nobody")
        ]
        status = p["status"]
        keyboard = None
        if status == "lobby":
            lines += [
                "",
                t(
                    lang,
                    "lobby_hint",
                    min=game.rules.min_players,
                    max=game.rules.max_players,
                    creator=creator,
                    minutes=self.lobby_minutes,
                ),
            ]
            keyboard = _keys(
                [
                    [
                        (t(lang, "btn_join"), cb.Callback(cb.JOIN, game.id).encode()),
                        (t(lang, "btn_leave"), cb.Callback(cb.LEAVE, game.id).encode()),
                    ],
                    [
                        (t(lang, "btn_start"), cb.Callback(cb.START, game.id).encode()),
                        (t(lang, "btn_add_computer"), cb.Callback(cb.COMPUTER, game.id).encode()),
                    ],
                    [(t(lang, "btn_cancel"), cb.Callback(cb.CANCEL, game.id).encode())],
                ]
            )
        elif status == "running" or status == "finished":
            lines += ["", t(lang, "lobby_started")]
        else:
            reason = p.get("reason")
            key = {"expired": "lobby_expired", "bot_removed": "lobby_bot_removed"}.get(
                reason or "", "lobby_cancelled"
            )
            lines += ["", t(lang, key)]
        return Rendered(fit("\n".join(lines)), keyboard)

    def table(self, d: Delivery, lang: str) -> Rendered:
        t = self.tr.t
        p, game = d.notice.payload, d.game
        assert game is not None
        players = d.players
        lines = [t(lang, "table_title", round=p["round"], dealer=name_of(players, p["dealer"]))]
        lives = p["lives"]
        lines.append(
            " · ".join(
                f"{name_of(players, pid)} {hearts(lives.get(str(pid), 0))}" for pid in p["order"]
            )
        )
        lines.append("")
        dealer = p["dealer"]
        head, lines = lines, []
        acts = self._acts(lang, p["acts"], players, dealer)
        keyboard = None
        actor = p.get("actor")
        if p.get("closed"):
            lines.append(t(lang, "table_cancelled"))
        elif p.get("gathered"):
            lines.append(t(lang, "table_gathered"))
        elif p.get("reveal"):
            lines += ["", *self._reveal(lang, p["round"], p["reveal"], players)]
        elif actor is not None:
            seconds = int(game.turn_timeout)
            if actor == dealer and p.get("cuts_made", 0) > 0:
                lines.append(
                    t(
                        lang,
                        "turn_prompt_cut_again",
                        mention=mention(players, actor),
                        seconds=seconds,
                    )
                )
            elif actor == dealer:
                lines.append(
                    t(lang, "turn_prompt_dealer", mention=mention(players, actor), seconds=seconds)
                )
            else:
                order = p["order"]
                target = order[order.index(actor) + 1]
                lines.append(
                    t(
                        lang,
                        "turn_prompt",
                        mention=mention(players, actor),
                        target=name_of(players, target),
                        seconds=seconds,
                    )
                )
            row = []
            for option in p["options"]:
                kind = {"keep": cb.KEEP, "swap": cb.SWAP, "cut": cb.CUT}[option]
                row.append(
                    (
                        t(lang, f"btn_{option}"),
                        cb.Callback(kind, game.id, p["round"], p["turn"]).encode(),
                    )
                )
            keyboard = _keys(
                [row, [(t(lang, "btn_my_card"), cb.Callback(cb.MY_CARD, game.id).encode())]]
            )
        return Rendered(fit_middle(head, acts, lines), keyboard)

    def _acts(
        self, lang: str, acts: list[dict[str, Any]], players: dict[int, Player], dealer: int
    ) -> list[str]:
        lines, cut = [], False
        for act in acts:
            lines.append(self._act(lang, act, players, dealer, after_cut=cut))
            cut = cut or act["kind"] in ("cut", "cut_blocked")
        return lines

    def _act(
        self,
        lang: str,
        act: dict[str, Any],
        players: dict[int, Player],
        dealer: int,
        after_cut: bool = False,
    ) -> str:
        t = self.tr.t
        name = name_of(players, act["player"])
        kind = act["kind"]
        if kind == "keep":
            if act["player"] == dealer:
                return t(lang, "act_dealer_stands" if after_cut else "act_dealer_keep", name=name)
            return t(lang, "act_keep", name=name)
        if kind == "timeout":
            return t(lang, "act_timeout", name=name)
        if kind == "swap":
            return t(lang, "act_swap", name=name, target=name_of(players, act["target"]))
        if kind == "blocked":
            return t(
                lang,
                "act_blocked",
                name=name,
                target=name_of(players, act["target"]),
                king=card_label(act["shown"]),
            )
        if kind == "cut":
            return t(lang, "act_cut", name=name)
        return t(lang, "act_cut_blocked", name=name, king=card_label(act["shown"]))

    def card(self, d: Delivery, lang: str) -> Rendered:
        p = d.notice.payload
        card = card_label(p["card"])
        why = p["why"]
        title = html.escape(d.chat.title) if d.chat and d.chat.title else "Cuckoo"
        if why == "dealt":
            return Rendered(self.tr.t(lang, "card_dealt", chat=title, round=p["round"], card=card))
        other = name_of(d.players, p["with"]) if "with" in p else ""
        where = self.tr.t(lang, "card_where", chat=title, round=p["round"])
        return Rendered(f"{where}\n" + self.tr.t(lang, f"card_{why}", card=card, other=other))

    def _reveal(
        self, lang: str, round_no: int, reveal: dict[str, Any], players: dict[int, Player]
    ) -> list[str]:
        """The reveal: every card, who lost a life, who is out, the lives left."""
        t = self.tr.t
        events = [codec.load_event(name, data) for name, data in reveal["events"]]
        lines = [t(lang, "reveal_title", round=round_no)]
        for event in events:
            if isinstance(event, Revealed):
                for pid, card in zip(event.order, event.cards, strict=True):
                    marker = " ⬇️" if pid in event.lowest else ""
                    lines.append(
                        t(
                            lang,
                            "reveal_line",
                            name=name_of(players, pid),
                            card=card_label(card.code),
                        )
                        + marker
                    )
                lines.append("")
        for event in events:
            if isinstance(event, LifeLost):
                key = (
                    "reveal_lost_timeout" if event.cause is LifeLossCause.TIMEOUT else "reveal_lost"
                )
                lines.append(t(lang, key, name=name_of(players, event.player)))
            elif isinstance(event, PlayerEliminated):
                lines.append(t(lang, "reveal_out", name=name_of(players, event.player)))
        lives = reveal.get("lives", {})
        shown = " · ".join(
            f"{name_of(players, int(pid))} {hearts(n)}" for pid, n in lives.items() if n > 0
        )
        if shown:
            lines += ["", t(lang, "reveal_lives", lives=shown)]
        return lines

    def game_over(self, d: Delivery, lang: str) -> Rendered:
        name, data = d.notice.payload["event"]
        event = codec.load_event(name, data)
        if isinstance(event, GameWon):
            names = [name_of(d.players, w) for w in event.winners]
            if event.shared:
                return Rendered(self.tr.t(lang, "game_won_shared", names=", ".join(names)))
            return Rendered(self.tr.t(lang, "game_won", name=names[0]))
        return Rendered(self.tr.t(lang, "game_abandoned"))

    def announce(self, d: Delivery, lang: str) -> Rendered:
        t = self.tr.t
        name, data = d.notice.payload["event"]  # the event's fields as stored
        players = d.players
        if name == "Misdealt":
            return Rendered(t(lang, "ann_misdealt"))
        if name == "PlayerRemoved":
            key = "ann_removed_idle" if data["reason"] == "idle" else "ann_resigned"
            return Rendered(t(lang, key, name=name_of(players, data["player"])))
        if name == "SuddenDeathStarted":
            return Rendered(
                t(
                    lang,
                    "ann_sudden_death",
                    names=", ".join(name_of(players, p) for p in data["players"]),
                )
            )
        # SuddenDeathDrawn
        cards = ", ".join(
            f"{name_of(players, p)} {card_label(c)}"
            for p, c in zip(data["players"], data["cards"], strict=True)
        )
        text = t(lang, "ann_sudden_draw", cards=cards)
        if len(data["leaders"]) > 1:
            text += "\n" + t(
                lang,
                "ann_sudden_again",
                names=", ".join(name_of(players, p) for p in data["leaders"]),
            )
        return Rendered(text)

    # -- answers, commands -----------------------------------------------------------------------

    def reply(self, lang: str, reply: Reply, players: dict[int, Player] | None = None) -> str:
        params = dict(reply.params)
        if "card" in params:
            params["card"] = card_label(params["card"])
        if "lives" in params and isinstance(params["lives"], int):
            params["lives"] = hearts(params["lives"])
        if "player" in params and isinstance(params["player"], int):
            params["player"] = name_of(players or {}, params["player"])
        for key, value in params.items():
            if key not in ("card", "lives", "player") and isinstance(value, str):
                params[key] = html.escape(value)
        if reply.code == "language_set":
            return LANGUAGE_NAMES.get(str(params.get("language")), "")
        return self.tr.t(lang, f"reply_{reply.code}", **params)

    def popup(self, lang: str, reply: Reply, players: dict[int, Player] | None = None) -> str:
        """The answer as a button-press popup: plain text (no HTML there), at most 200 chars."""
        text = html.unescape(_TAG.sub("", self.reply(lang, reply, players)))
        return text if len(text) <= MAX_POPUP else text[: MAX_POPUP - 1] + "…"

    def rules(self, lang: str, rules: HouseRules, timeout: float) -> str:
        t = self.tr.t
        house = []
        if rules.lives != 3:
            house.append(t(lang, "rules_lives", lives=rules.lives))
        if rules.max_players != 10:
            house.append(t(lang, "rules_max_players", max_players=rules.max_players))
        if not rules.kings_block:
            house.append(t(lang, "rules_no_block"))
        if rules.double_cut:
            house.append(t(lang, "rules_double_cut"))
        if rules.fast_turns:
            house.append(t(lang, "rules_fast_turns"))
        if rules.final_tie is FinalTie.SUDDEN_DEATH:
            house.append(t(lang, "rules_sudden_death"))
        return t(
            lang,
            "rules",
            min_players=rules.min_players,
            max_players=rules.max_players,
            lives=rules.lives,
            final_tie=t(
                lang,
                "rules_tie_sudden"
                if rules.final_tie is FinalTie.SUDDEN_DEATH
                else "rules_tie_shared",
            ),
            timeout=int(timeout),
            fast=t(lang, "rules_fast") if rules.fast_turns else "",
            house=", ".join(house) + "." if house else t(lang, "rules_house_default"),
        )

    def league(self, lang: str, league: League, where: str, season_label: str) -> str:
        t = self.tr.t
        lines = [
            t(lang, "league_title", where=html.escape(where)),
            f"<i>{html.escape(season_label)}</i>",
            "",
        ]
        if not league.rows:
            lines.append(t(lang, "league_empty"))
            return "\n".join(lines)
        table = [t(lang, "league_header")]
        for row in league.rows:
            s = row.standing
            wins = s.wins + s.shared_wins
            pct = round(100 * wins / s.games) if s.games else 0
            name = row.player.display_name
            name = name if len(name) <= 15 else name[:14] + "…"
            table.append(
                f"{row.rank:<3} {name:<15} {s.rating:>6.1f} {s.games:>5} {wins:>4} {pct:>4}%"
            )
        lines.append("<pre>" + html.escape("\n".join(table)) + "</pre>")
        return fit("\n".join(lines))

    def settings(self, lang: str, chat: Chat, default_timeout: float) -> Rendered:
        t = self.tr.t
        r = chat.rules

        def onoff(value: bool) -> str:
            return t(lang, "value_on" if value else "value_off")

        tie = t(
            lang, "value_sudden_death" if r.final_tie is FinalTie.SUDDEN_DEATH else "value_shared"
        )
        timeout = int(chat.turn_timeout or default_timeout)
        next_timeout = {30: 60, 60: 90, 90: 120, 120: 300}.get(timeout, 30)
        rows = [
            [(t(lang, "setting_lives", value=r.lives), f"lives={5 if r.lives == 3 else 3}")],
            [
                (
                    t(lang, "setting_max_players", value=r.max_players),
                    f"max_players={20 if r.max_players == 10 else 10}",
                )
            ],
            [
                (
                    t(lang, "setting_kings_block", value=onoff(r.kings_block)),
                    f"kings_block={int(not r.kings_block)}",
                )
            ],
            [
                (
                    t(lang, "setting_final_tie", value=tie),
                    "final_tie="
                    + ("shared" if r.final_tie is FinalTie.SUDDEN_DEATH else "sudden_death"),
                )
            ],
            [
                (
                    t(lang, "setting_double_cut", value=onoff(r.double_cut)),
                    f"double_cut={int(not r.double_cut)}",
                )
            ],
            [
                (
                    t(lang, "setting_fast_turns", value=onoff(r.fast_turns)),
                    f"fast_turns={int(not r.fast_turns)}",
                )
            ],
            [(t(lang, "setting_turn_timeout", value=timeout), f"turn_timeout={next_timeout}")],
        ]
        keys = [
            [(label, cb.Callback(cb.SETTING, arg=arg).encode()) for label, arg in row]
            for row in rows
        ]
        keys.append(self._language_row())
        return Rendered(t(lang, "settings_title"), _keys(keys))

    def _language_row(self) -> list[tuple[str, str]]:
        return [
            (label, cb.Callback(cb.LANGUAGE, arg=code).encode())
            for code, label in LANGUAGE_NAMES.items()
        ]

    def languages(self, lang: str) -> Rendered:
        return Rendered(self.tr.t(lang, "language_prompt"), _keys([self._language_row()]))


def group_language(chat: Chat | None, game: Game | None) -> str:
    if chat is not None and chat.language:
        return chat.language
    return game.language if game is not None else "en"
