"""What a use case hands back to the transport: a short answer for the user and what changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cuckoo_bot.app.model import Player
    from cuckoo_bot.app.outbox import Batch


class ReplyCode(StrEnum):
    """Every short answer the bot gives, one member each; the transport words it as the
    message ``reply_<code>`` (the i18n tests check each has words in every language). The
    rules' own refusals (``RuleError.code``) are members too."""

    AGAIN_OPENED = "again_opened"
    ALREADY_BLOCKED = "already_blocked"
    ALREADY_CUT = "already_cut"
    ALREADY_CUT_BLOCKED = "already_cut_blocked"
    ALREADY_JOINED = "already_joined"
    ALREADY_KEEP = "already_keep"
    ALREADY_RUNNING = "already_running"
    ALREADY_STOPPED = "already_stopped"
    ALREADY_STRUCK = "already_struck"
    ALREADY_SWAP = "already_swap"
    ALREADY_TIMEOUT = "already_timeout"
    CANCELLED = "cancelled"
    COMPUTER_ADDED = "computer_added"
    CREATOR_OR_ADMIN_ONLY = "creator_or_admin_only"
    DONE_BLOCKED = "done_blocked"
    DONE_BLOCKED_VIA = "done_blocked_via"
    DONE_CUT = "done_cut"
    DONE_CUT_BLOCKED = "done_cut_blocked"
    DONE_KEEP = "done_keep"
    DONE_QUEEN_BLOCKED = "done_queen_blocked"
    DONE_STOPPED = "done_stopped"
    DONE_STOPPED_VIA = "done_stopped_via"
    DONE_STRUCK = "done_struck"
    DONE_STRUCK_VIA = "done_struck_via"
    DONE_SWAP = "done_swap"
    DONE_SWAP_VIA = "done_swap_via"
    GAME_EXISTS = "game_exists"
    GAME_NOT_RUNNING = "game_not_running"
    GAME_OVER = "game_over"
    HISTORY_NOT_FOUND = "history_not_found"
    HISTORY_USAGE = "history_usage"
    ILLEGAL_ACTION = "illegal_action"
    INVALID_SETTING = "invalid_setting"
    JOINED = "joined"
    LANGUAGE_SET = "language_set"
    LEFT = "left"
    LOBBY_CLOSED = "lobby_closed"
    LOBBY_FULL = "lobby_full"
    LOBBY_OPEN = "lobby_open"
    NEED_PLAYERS = "need_players"
    NEED_PRIVATE = "need_private"
    NO_CARD = "no_card"
    NO_GAME = "no_game"
    NO_LOBBY = "no_lobby"
    NOT_ADMIN = "not_admin"
    NOT_IN_GAME = "not_in_game"
    NOT_MEMBER = "not_member"
    NOT_YOUR_TURN = "not_your_turn"
    PLAY_AGAIN_EXPIRED = "play_again_expired"
    KICK_WHOM = "kick_whom"
    NO_TURN = "no_turn"
    RESIGNED = "resigned"
    SETTING_CHANGED = "setting_changed"
    SKIPPED = "skipped"
    SKIPPED_BY = "skipped_by"
    STALE_TURN = "stale_turn"
    STARTED = "started"
    TIMED_OUT = "timed_out"
    TRY_AGAIN = "try_again"
    UNKNOWN_BUTTON = "unknown_button"
    UNKNOWN_LANGUAGE = "unknown_language"
    WELCOME = "welcome"
    YOUR_CARD = "your_card"


@dataclass(frozen=True)
class Reply:
    """A short answer for the user who asked (a popup for a button press, a line for a command).

    ``code`` is stable and translated by the transport; ``params`` fill its placeholders.
    """

    code: ReplyCode
    params: dict[str, Any] = field(default_factory=dict)
    alert: bool = False  # show as a popup the user must dismiss (e.g. a private card)
    url: str | None = None  # open this link instead (a deep link to the bot)


@dataclass(frozen=True)
class Outcome:
    reply: Reply | None = None
    game_id: int | None = None
    deadline: datetime | None = None  # the game's next deadline, to arm a timer
    batch: Batch | None = None  # committed notices to deliver now
    # What the answer needs, when the use case found it in its own transaction (``Asker``):
    # the language to answer in and the players the reply names.
    lang: str | None = None
    named: dict[int, Player] | None = None


def refused(code: ReplyCode, **params: Any) -> Outcome:
    return Outcome(reply=Reply(code, params))
