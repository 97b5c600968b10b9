"""Payloads to and from the outbox's JSON column, by kind."""

from __future__ import annotations

from typing import Any

from cuckoo_bot.app.notices.kinds import NoticeKind
from cuckoo_bot.app.notices.payloads import (
    Announcement,
    AnswerNote,
    CloseNote,
    DealNote,
    GameOverView,
    LobbyView,
    NudgeNote,
    Payload,
    PlayedNote,
    PromptNote,
    TableView,
    TurnView,
)
from cuckoo_bot.domain import codec

PAYLOADS: dict[NoticeKind, type[Any]] = {
    NoticeKind.LOBBY: LobbyView,
    NoticeKind.TABLE: TableView,
    NoticeKind.TURN: TurnView,
    NoticeKind.ANNOUNCE: Announcement,
    NoticeKind.GAME_OVER: GameOverView,
    NoticeKind.DEAL: DealNote,
    NoticeKind.PROMPT: PromptNote,
    NoticeKind.CLOSE: CloseNote,
    NoticeKind.PLAYED: PlayedNote,
    NoticeKind.NUDGE: NudgeNote,
    NoticeKind.ANSWER: AnswerNote,
}


def dump_payload(payload: Payload) -> dict[str, Any]:
    data = codec.dump(payload)
    assert isinstance(data, dict)
    return data


def load_payload(kind: NoticeKind, data: dict[str, Any]) -> Payload:
    loaded: Payload = codec.load(PAYLOADS[kind], data)
    return loaded
