"""The chat and game a log line is about, carried by the task that logs it (an update's
handler, a chat's delivery lane), for structured logs (``CUCKOO_LOG_FORMAT=json``)."""

from __future__ import annotations

from contextvars import ContextVar

_chat: ContextVar[int | None] = ContextVar("chat_id", default=None)
_game: ContextVar[int | None] = ContextVar("game_id", default=None)


def bind(*, chat_id: int | None, game_id: int | None) -> None:
    """Name the chat and game for the rest of this task's log lines."""
    _chat.set(chat_id)
    _game.set(game_id)


def current() -> dict[str, int]:
    """The ids bound now, for a log record (those that are set)."""
    found = {"chat_id": _chat.get(), "game_id": _game.get()}
    return {key: value for key, value in found.items() if value is not None}
