"""The answers to commands and key presses: as a message (HTML) or as a popup (plain text)."""

from __future__ import annotations

import html
import re

from telegram import InlineKeyboardMarkup
from telegram.constants import CallbackQueryLimit

from cuckoo_bot.app.model import LANGUAGE_NAMES, Player
from cuckoo_bot.app.notices import AnswerNote
from cuckoo_bot.app.results import Reply
from cuckoo_bot.domain.rules import GameName
from cuckoo_bot.transport.render.common import (
    Known,
    Part,
    Rendered,
    card_label,
    hearts,
    name_of,
    utf16_len,
)
from cuckoo_bot.transport.render.names import user_text

MAX_POPUP = CallbackQueryLimit.ANSWER_CALLBACK_QUERY_TEXT_LENGTH  # 200, counted in UTF-16 units
_TAG = re.compile(r"<[^>]+>")
# Parameters already made ready for the text above (labels, names, hearts): not escaped again.
READY = ("card", "king", "queen", "lives", "player", "via", "name", "call")


class ReplyPart(Part):
    @staticmethod
    def answer(note: AnswerNote) -> Rendered:
        """A command's answer kept to be tried again: as it was written when the command came."""
        keys = InlineKeyboardMarkup.de_json(note.keys, None) if note.keys else None
        return Rendered(note.text, keys)

    def welcome(self, lang: str, player: Player) -> str:
        """The first words to someone in their private chat, by name."""
        name = user_text(player.display_name, self.tr.t(lang, "player_n", n="").strip())
        return self.tr.t(lang, "welcome", name=name)

    def reply(self, lang: str, reply: Reply, players: Known | None = None) -> str:
        params = dict(reply.params)
        for key in ("card", "king", "queen"):
            if key in params:
                params[key] = card_label(params[key], lang)
        if isinstance(params.get("call"), GameName):  # what a King's holder calls out
            params["call"] = self.tr.t(lang, f"call_{params['call'].value}")
        if "lives" in params and isinstance(params["lives"], int):
            params["lives"] = hearts(params["lives"])
        for key in ("player", "via"):  # a player named by their id
            if key in params and isinstance(params[key], int):
                pid = params[key]
                params[key] = name_of(self.cast(players or {}, [pid], lang), pid)
        if "name" in params and isinstance(params["name"], str):  # a seat's name, as typed
            params["name"] = user_text(params["name"], self.tr.t(lang, "player_n", n="").strip())
        for key, value in params.items():
            if key not in READY and isinstance(value, str):
                params[key] = html.escape(value)
        if reply.code == "language_set":
            return LANGUAGE_NAMES.get(str(params.get("language")), "")
        return self.tr.t(lang, f"reply_{reply.code}", **params)

    def popup(self, lang: str, reply: Reply, players: Known | None = None) -> str:
        """The answer as a button-press popup: plain text (no HTML there), at most 200 UTF-16
        units (within Telegram's 200 whichever unit it counts)."""
        text = html.unescape(_TAG.sub("", self.reply(lang, reply, players)))
        if utf16_len(text) <= MAX_POPUP:
            return text
        units = text.encode("utf-16-le")[: 2 * (MAX_POPUP - 1)]
        return units.decode("utf-16-le", errors="ignore") + "…"  # a pair cut in two is dropped
