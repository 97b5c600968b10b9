"""Notices: what players must see, written to the outbox with the move that made them.

- ``kinds``: the kinds of notice; ``payloads``: what each carries; ``codec``: payloads to and
  from the outbox's JSON; ``row``: the outbox row and what became of it; ``policy``: from a
  step's events to the notices players must see (``Bulletin``).
"""

from cuckoo_bot.app.notices.codec import PAYLOADS, dump_payload, load_payload
from cuckoo_bot.app.notices.kinds import NoticeKind
from cuckoo_bot.app.notices.payloads import (
    Announcement,
    AnswerNote,
    CloseNote,
    CloseReason,
    DealNote,
    Exit,
    GameOverView,
    LobbyView,
    News,
    NudgeNote,
    Payload,
    PlayedNote,
    PromptNote,
    RevealView,
    RoundResult,
    TableView,
    TurnView,
)
from cuckoo_bot.app.notices.policy import Bulletin, card_waits, last_result, recalled
from cuckoo_bot.app.notices.row import (
    FOLDED,
    OUTLIVED,
    PASSED_OVER,
    SUPERSEDED,
    TURN_OVER,
    Delivered,
    Elsewhere,
    Notice,
    SentMessage,
)

__all__ = [
    "FOLDED",
    "OUTLIVED",
    "PASSED_OVER",
    "PAYLOADS",
    "SUPERSEDED",
    "TURN_OVER",
    "Announcement",
    "AnswerNote",
    "Bulletin",
    "CloseNote",
    "CloseReason",
    "DealNote",
    "Delivered",
    "Elsewhere",
    "Exit",
    "GameOverView",
    "LobbyView",
    "News",
    "Notice",
    "NoticeKind",
    "NudgeNote",
    "Payload",
    "PlayedNote",
    "PromptNote",
    "RevealView",
    "RoundResult",
    "SentMessage",
    "TableView",
    "TurnView",
    "card_waits",
    "dump_payload",
    "last_result",
    "load_payload",
    "recalled",
]
