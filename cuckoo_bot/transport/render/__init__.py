"""Notices and answers into Telegram HTML and inline keys, in the reader's language.

One module per area: ``lobby``, ``table`` (the round's table), ``group`` (a turn asked in the
group, announcements, the game's end), ``private`` (deal, prompt, result, close), ``replies``,
``settings`` (rules, settings and language keys), ``league``, ``story`` (history and a game's
story); ``common`` holds what they share. ``Renderer`` is all of them over one translator.
"""

from __future__ import annotations

from cuckoo_bot.app.deps import LOBBY_TIMEOUT
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.render.common import (
    MAX_TEXT,
    SUITS,
    Players,
    Rendered,
    TableLinks,
    card_label,
    fit,
    fit_middle,
    group_language,
    hearts,
    mention,
    name_of,
    utf16_len,
)
from cuckoo_bot.transport.render.group import GroupPart
from cuckoo_bot.transport.render.league import LeaguePart
from cuckoo_bot.transport.render.lobby import LobbyPart
from cuckoo_bot.transport.render.names import NAME_LIMIT, Cast, readable, user_text
from cuckoo_bot.transport.render.private import PrivatePart
from cuckoo_bot.transport.render.replies import MAX_POPUP, ReplyPart
from cuckoo_bot.transport.render.settings import SettingsPart
from cuckoo_bot.transport.render.story import StoryPart
from cuckoo_bot.transport.render.table import TablePart

__all__ = [
    "MAX_POPUP",
    "MAX_TEXT",
    "NAME_LIMIT",
    "SUITS",
    "Cast",
    "Players",
    "Rendered",
    "Renderer",
    "TableLinks",
    "card_label",
    "fit",
    "fit_middle",
    "group_language",
    "hearts",
    "mention",
    "name_of",
    "readable",
    "user_text",
    "utf16_len",
]


class Renderer(
    LobbyPart,
    StoryPart,
    TablePart,
    GroupPart,
    PrivatePart,
    ReplyPart,
    SettingsPart,
    LeaguePart,
):
    """Every message the bot writes, in the reader's language."""

    def __init__(
        self, translator: Translator, lobby_minutes: int = int(LOBBY_TIMEOUT // 60)
    ) -> None:
        super().__init__(translator)
        self.lobby_minutes = lobby_minutes
