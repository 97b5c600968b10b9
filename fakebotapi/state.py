"""The fake world: users, chats, messages, the update queue and change notification."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from .errors import bad_request, cant_parse_entities, chat_migrated, forbidden
from .html import parse_html
from .limits import FloodControl
from .models import JSON, CallbackQueryRecord, CallRecord, Chat, StoredMessage, User
from .text import Entity, check_explicit_entities, trim
from .webhook import WebhookConfig, WebhookDelivery

MAX_TEXT_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
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


class TelegramState:
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
    ) -> None:
        bot_id = int(token.split(":", 1)[0]) if token.split(":", 1)[0].isdigit() else 1
        self.token = token
        self.bot = User(bot_id, bot_first_name, username=bot_username, is_bot=True)
        self.privacy_mode = privacy_mode
        self.strict_ampersand = strict_ampersand
        self.callback_query_timeout = callback_query_timeout
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

    def user_json(self, user_id: int) -> JSON | None:
        """Public User object, or None for an account the fake world doesn't know."""
        if user_id == self.bot.id:
            return self.bot.to_api()
        known = self.users.get(user_id)
        return known.to_api() if known else None

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
        limit: int = MAX_TEXT_LENGTH,
        caption: bool = False,
    ) -> tuple[str, list[Entity]]:
        """Apply parse_mode/entities, trim and check length like Telegram."""
        what = "caption" if caption else "message text"
        if source is None or source == "":
            if caption:
                return "", []
            raise bad_request(f"{what} is empty")
        mode = (parse_mode or "").lower()
        if mode == "html":
            text, parsed = parse_html(
                source, self.user_json, strict_ampersand=self.strict_ampersand
            )
        elif mode in ("markdown", "markdownv2"):
            raise cant_parse_entities(
                f"parse_mode {parse_mode} is not supported by the fake Bot API"
            )
        elif mode:
            raise bad_request("unsupported parse_mode")
        else:
            text, parsed = source, []
        if entities is not None:
            parsed = check_explicit_entities(text, entities)
            for ent in parsed:
                if ent["type"] == "text_mention":
                    ent["user"] = self.user_json(int(ent["user"]["id"])) or ent["user"]
        text, parsed = trim(text, parsed)
        if not text and not caption:
            raise bad_request(f"{what} is empty")
        if len(text) > limit:
            raise bad_request("message caption is too long" if caption else "message is too long")
        return text, parsed

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

    def chat_json(self, chat: Chat) -> JSON:
        if chat.type == "private":
            user = self.users[chat.id].to_api()
            keys = ("id", "first_name", "last_name", "username")
            private: JSON = {k: user[k] for k in keys if k in user}
            return {**private, "type": "private"}
        out: JSON = {"id": chat.id, "title": chat.title, "type": chat.type}
        if chat.username:
            out["username"] = chat.username
        if chat.type == "group":
            out["all_members_are_administrators"] = False
        if chat.is_forum:
            out["is_forum"] = True
        return out

    def message_json(self, msg: StoredMessage, *, nested: bool = False) -> JSON:
        chat = self.chats[msg.chat_id]
        out: JSON = {
            "message_id": msg.message_id,
            "from": self.user_json(msg.sender_id),
            "chat": self.chat_json(chat),
            "date": msg.date,
        }
        if msg.message_thread_id is not None:
            out["message_thread_id"] = msg.message_thread_id
        if msg.is_topic_message:
            out["is_topic_message"] = True
        reply = chat.messages.get(msg.reply_to_message_id or 0)
        if reply is not None and not nested:
            out["reply_to_message"] = self.message_json(reply, nested=True)
        if msg.edit_date is not None:
            out["edit_date"] = msg.edit_date
        if msg.text is not None:
            out[msg.text_field] = msg.text
            if msg.entities:
                key = "caption_entities" if msg.text_field == "caption" else "entities"
                out[key] = msg.entities
        out.update(msg.extra)
        if msg.reply_markup is not None:
            out["reply_markup"] = msg.reply_markup
        return out

    def member_json(self, chat: Chat, user_id: int) -> JSON:
        """ChatMember object for a user (or the bot) in a chat."""
        user = self.user_json(user_id)
        if user_id == self.bot.id:
            status = chat.bot_status
        elif chat.type == "private":
            status = "member"
        else:
            status = chat.members.get(user_id, "left")
        return self.status_json(status, user, chat, can_be_edited=False)

    def status_json(
        self, status: str, user: JSON | None, chat: Chat, *, can_be_edited: bool
    ) -> JSON:
        out: JSON = {"status": status, "user": user}
        if status == "creator":
            out["is_anonymous"] = False
        elif status == "administrator":
            rights = [
                "can_manage_chat",
                "can_delete_messages",
                "can_manage_video_chats",
                "can_restrict_members",
                "can_change_info",
                "can_invite_users",
                "can_post_stories",
                "can_edit_stories",
                "can_delete_stories",
                "can_pin_messages",
            ]
            out.update({"can_be_edited": can_be_edited, "is_anonymous": False})
            out.update(dict.fromkeys(rights, True))
            out["can_promote_members"] = False
            if chat.is_forum:
                out["can_manage_topics"] = True
        elif status == "kicked":
            out["until_date"] = 0
        return out

    # -- calls -----------------------------------------------------------------------

    def record_call(self, record: CallRecord) -> None:
        self.call_log.append(record)
        self.changed("call", record)
