"""Faults of the line between the bot and Telegram that tests switch on: lost answers.

A lost answer: Telegram carried the call out (the message is sent and stored) but the HTTP
connection closed before the answer reached the bot, so the client sees a network error
("Server disconnected without sending a response") and cannot know the call took effect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class _Drop:
    method: str  # canonical Bot API name
    chat_id: int | None
    remaining: int


def _chat_id(params: dict[str, Any]) -> int | None:
    value = params.get("chat_id")
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


class LostAnswers:
    """Which successful calls get no answer: the next `count` of a method (naming a chat)."""

    def __init__(self) -> None:
        self._drops: list[_Drop] = []

    def add(self, method: str, chat_id: int | None, count: int) -> None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError("count must be an integer >= 1")
        self._drops.append(_Drop(method, chat_id, count))

    def take(self, method: str, params: dict[str, Any]) -> bool:
        """True if the answer to this call (carried out successfully) is to be lost."""
        for drop in self._drops:
            if drop.method != method or drop.remaining <= 0:
                continue
            if drop.chat_id is None or drop.chat_id == _chat_id(params):
                drop.remaining -= 1
                self._drops = [d for d in self._drops if d.remaining > 0]
                return True
        return False
