"""The fake world: users, chats, messages, the update queue and change notification."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from .errors import bad_request, chat_migrated, forbidden
from .faults import LostAnswers
from .formatting import MAX_CAPTION_LENGTH, MAX_TEXT_LENGTH, format_text
from .limits import FloodControl
from .models import JSON, CallbackQueryRecord, CallRecord, Chat, StoredMessage, User
from .state_json import JsonViews
from .text import Entity
from .urls import origin
from .webhook import WebhookDelivery
from .webhook_config import WebhookConfig

__all__ = ["MAX_CAPTION_LENGTH", "MAX_TEXT_LENGTH", "TelegramState", "now"]
ALL_UPDATE_TYPES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "message_reaction",
        "message_reaction_count",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
# Telegram's default when allowed_updates was never set (or set to []).
DEFAULT_UPDATE_TYPES = ALL_UPDATE_TYPES - {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}

_log = logging.getLogger(__name__)
Listener = Callable[[str, Any], None]


def now() -> int:
    return int(time.time())


class TelegramState(JsonViews):
    """All state of the fake Telegram, plus a change signal for long polls and test waits."""

    def __init__(
        self,
        token: str,
        bot_username: str,
        bot_first_name: str,
        *,
        privacy_mode: bool = True,
        rate_limit: bool = False,
        strict_ampersand: bool = True,
        callback_query_timeout: float | None = None,
        webhook_timeout: float = 10.0,
        webhook_retry_delay: float = 0.2,
        insecure_web_app_origins: Iterable[str] = (),
    ) -> None:
        bot_id = int(token.split(":", 1)[0]) if token.split(":", 1)[0].isdigit() else 1
        self.token = token
        self.bot = User(bot_id, bot_first_name, username=bot_username, is_bot=True)
        self.privacy_mode = privacy_mode
        self.strict_ampersand = strict_ampersand
        self.callback_query_timeout = callback_query_timeout
        # Origins whose plain-http pages web_app buttons may open (only the local demo needs one).
        self.insecure_web_app_origins = frozenset(
            origin(url.rstrip("/")) for url in insecure_web_app_origins
        )
        self.lost_answers = LostAnswers()
        # Seconds for call records and flood control; a test may drive it by hand.
        self.clock: Callable[[], float] = time.time
        self.flood = FloodControl(automatic=rate_limit, clock=lambda: self.clock())
        self.users: dict[int, User] = {}
        self.chats: dict[int, Chat] = {}
        self.updates: list[tuple[int, str, JSON]] = []  # (update_id, type, update)
        self.next_update_id = 1
        self.allowed_updates: frozenset[str] = DEFAULT_UPDATE_TYPES
        self.call_log: list[CallRecord] = []
        self.queries: dict[str, CallbackQueryRecord] = {}
        self.next_query = 1
        self.bot_commands: dict[tuple[str, str], list[JSON]] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}  # (field, language) -> value
        self.delivery = WebhookDelivery(
            self, request_timeout=webhook_timeout, retry_delay=webhook_retry_delay
        )
        self.poll_generation = 0
        self.closing = False
        self.listeners: list[Listener] = []
        self._changed = asyncio.Event()

    @property
    def webhook(self) -> WebhookConfig | None:
        """The webhook setWebhook registered; None while the bot polls."""
        return self.delivery.config

    # -- change notification -------------------------------------------------

    def changed(self, event: str = "change", payload: Any = None) -> None:
        """Wake every waiter; tell listeners what happened."""
        self._changed.set()
        self._changed = asyncio.Event()
        for listener in list(self.listeners):
            try:
                listener(event, payload)
            except Exception:  # a broken observer must not break the fake Telegram
                _log.exception("listener failed on %s", event)

    async def wait_changed(self, timeout: float) -> None:  # noqa: ASYNC109
        """Sleep until the next change or `timeout` seconds."""
        event = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), max(timeout, 0))

    def change_signal(self) -> asyncio.Event:
        """The event the next change sets; take it before checking a condition."""
        return self._changed

    # -- updates ---------------------------------------------------------------

    def enqueue(self, kind: str, payload: JSON) -> int | None:
        """Queue an update unless the bot excluded its type with allowed_updates."""
        if kind not in self.allowed_updates:
            return None
        update_id = self.next_update_id
        self.next_update_id += 1
        self.updates.append((update_id, kind, {"update_id": update_id, kind: payload}))
        self.changed("update", payload)
        return update_id

    def confirm(self, offset: int) -> None:
        """getUpdates offset: forget confirmed updates (negative: keep only the last -offset)."""
        if offset < 0:
            self.updates = self.updates[offset:]
        else:
            self.updates = [u for u in self.updates if u[0] >= offset]

    # -- lookups ----------------------------------------------------------------

    def user(self, user_id: int) -> User:
        if user_id == self.bot.id:
            return self.bot
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}; add_user() first")
        return self.users[user_id]

    def mentionable(self, user_id: int) -> JSON | None:
        """The user a `tg://user?id=` link may mention: one the fake world knows, else None.

        Telegram sends such a mention as plain text (no entity) when it cannot show the user.
        """
        return self.user_json(user_id)

    def private_chat(self, user_id: int) -> Chat:
        """The private chat with a known user, created on first use (its id is the user's id)."""
        chat = self.chats.get(user_id)
        if chat is None:
            user = self.user(user_id)
            chat = Chat(user.id, "private", members={user.id: "member"})
            self.chats[user_id] = chat
        return chat

    def find_chat(self, chat_id: int | str) -> Chat | None:
        if isinstance(chat_id, str):
            name = chat_id.removeprefix("@").lower()
            for chat in self.chats.values():
                if chat.username and chat.username.lower() == name and chat.migrated_to is None:
                    return chat
            return None  # like Telegram: @username only addresses public chats, not users
        if chat_id in self.chats:
            return self.chats[chat_id]
        if chat_id in self.users:
            return self.private_chat(chat_id)
        return None

    def resolve_chat(self, chat_id: int | str) -> Chat:
        """A chat the Bot API can address: 400 if unknown or migrated."""
        chat = self.find_chat(chat_id)
        if chat is None:
            raise bad_request("chat not found")
        if chat.migrated_to is not None:
            raise chat_migrated(chat.migrated_to)
        return chat

    def check_membership(self, chat: Chat) -> None:
        """403 if the bot is not in the group (any method that touches the chat)."""
        if chat.type == "private" or chat.bot_is_member:
            return
        kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
        if chat.bot_was_kicked:
            raise forbidden(f"bot was kicked from the {kind}")
        raise forbidden(f"bot is not a member of the {kind}")

    def check_can_write(self, chat: Chat) -> None:
        """403 unless the bot may post into this chat right now."""
        self.check_membership(chat)
        if chat.type == "private":
            user = self.users[chat.id]
            if user.blocked:
                raise forbidden("bot was blocked by the user")
            if not user.started:
                raise forbidden("bot can't initiate conversation with a user")

    def chat_for_write(self, chat_id: int | str) -> Chat:
        chat = self.resolve_chat(chat_id)
        self.check_can_write(chat)
        return chat

    def message(self, chat: Chat, message_id: int) -> StoredMessage | None:
        """A visible (not deleted) message."""
        msg = chat.messages.get(message_id)
        return None if msg is None or msg.deleted else msg

    # -- text ---------------------------------------------------------------------

    def format_text(
        self,
        source: str | None,
        parse_mode: str | None,
        entities: Any,
        *,
        caption: bool = False,
    ) -> tuple[str, list[Entity]]:
        """Apply parse_mode/entities, trim and check the length like Telegram."""
        return format_text(
            source,
            parse_mode,
            entities,
            users=self.mentionable,
            strict_ampersand=self.strict_ampersand,
            caption=caption,
        )

    # -- messages -------------------------------------------------------------------

    def add_message(self, chat: Chat, sender_id: int, **fields: Any) -> StoredMessage:
        msg = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=sender_id,
            date=now(),
            from_bot=sender_id == self.bot.id,
            **fields,
        )
        chat.next_message_id += 1
        chat.messages[msg.message_id] = msg
        self.changed("message", msg)
        return msg

    # -- calls -----------------------------------------------------------------------

    def record_call(self, record: CallRecord) -> None:
        self.call_log.append(record)
        self.changed("call", record)
