"""The answers to commands and key presses: as a message (HTML) or as a popup (plain text)."""

from __future__ import annotations

import html
import re

from cuckoo_bot.app.model import Player
from cuckoo_bot.app.results import Reply
from cuckoo_bot.i18n.messages import LANGUAGE_NAMES
from cuckoo_bot.transport.render.common import Part, card_label, hearts, name_of

MAX_POPUP = 200
_TAG = re.compile(r"<[^>]+>")


class ReplyPart(Part):
    def reply(self, lang: str, reply: Reply, players: dict[int, Player] | None = None) -> str:
        params = dict(reply.params)
        for key in ("card", "king"):
            if key in params:
                params[key] = card_label(params[key])
        if "lives" in params and isinstance(params["lives"], int):
            params["lives"] = hearts(params["lives"])
        if "player" in params and isinstance(params["player"], int):
            params["player"] = name_of(players or {}, params["player"])
        for key, value in params.items():
            if key not in ("card", "king", "lives", "player") and isinstance(value, str):
                params[key] = html.escape(value)
        if reply.code == "language_set":
            return LANGUAGE_NAMES.get(str(params.get("language")), "")
        return self.tr.t(lang, f"reply_{reply.code}", **params)

    def popup(self, lang: str, reply: Reply, players: dict[int, Player] | None = None) -> str:
        """The answer as a button-press popup: plain text (no HTML there), at most 200 chars."""
        text = html.unescape(_TAG.sub("", self.reply(lang, reply, players)))
        return text if len(text) <= MAX_POPUP else text[: MAX_POPUP - 1] + "…"
