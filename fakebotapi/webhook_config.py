"""What setWebhook registered, which lane (chat) an update is delivered in, and what
delivery needs of the fake's state."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .models import JSON

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DEFAULT_MAX_CONNECTIONS = 40
MAX_CONNECTIONS = 100
Lane = tuple[str, int]


class Updates(Protocol):
    """What delivery needs of the fake's state (``state.TelegramState``, which owns a delivery): the
    queue of updates, a clock, and a way to say and to hear that something changed."""

    updates: list[tuple[int, str, JSON]]  # (update_id, type, update)
    clock: Callable[[], float]

    def changed(self, event: str = "change", payload: Any = None) -> None: ...

    def change_signal(self) -> asyncio.Event: ...


@dataclass(frozen=True)
class WebhookConfig:
    """What setWebhook registered. A custom certificate is never kept: the fake has no TLS."""

    url: str
    secret_token: str = ""
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    ip_address: str = ""


def lane_of(update: JSON) -> Lane:
    """The chat an update belongs to; an update without a chat has a lane of its own."""
    for key, payload in update.items():
        if key == "update_id" or not isinstance(payload, dict):
            continue
        chat = payload.get("chat")
        if chat is None and isinstance(payload.get("message"), dict):
            chat = payload["message"].get("chat")  # a callback query: the chat it was pressed in
        if isinstance(chat, dict) and isinstance(chat.get("id"), int):
            return ("chat", chat["id"])
    return ("update", int(update["update_id"]))
