"""Plain records of the fake world: users, chats, messages, calls and callback queries."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .markup import Markup, callback_datas
from .text import Entity

JSON = dict[str, Any]

MEMBER_STATUSES = ("creator", "administrator", "member")


@dataclass
class User:
    """A Telegram account; `started`/`blocked` describe its private chat with the bot."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False
    started: bool = False
    blocked: bool = False

    def to_api(self) -> JSON:
        out: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            out["last_name"] = self.last_name
        if self.username:
            out["username"] = self.username
        if self.language_code and not self.is_bot:
            out["language_code"] = self.language_code
        return out

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


@dataclass
class Version:
    """One earlier state of an edited message."""

    text: str | None
    entities: list[Entity]
    reply_markup: Markup | None
    date: int


@dataclass
class StoredMessage:
    """A message as the chat currently shows it (live object: it changes on edit/delete)."""

    chat_id: int
    message_id: int
    sender_id: int
    date: int
    text: str | None = None
    entities: list[Entity] = field(default_factory=list)
    reply_markup: Markup | None = None
    message_thread_id: int | None = None
    is_topic_message: bool = False
    reply_to_message_id: int | None = None
    from_bot: bool = False
    silent: bool = False  # sent with disable_notification: no sound on the reader's phone
    effect_id: str | None = None  # message_effect_id: an animation (private chats only)
    deleted: bool = False
    edit_date: int | None = None
    history: list[Version] = field(default_factory=list)
    # Non-text payload: service fields (migrate_to_chat_id, new_chat_members, ...) or media.
    extra: JSON = field(default_factory=dict)
    # "caption" for media messages, where text/entities are sent as caption/caption_entities.
    text_field: str = "text"

    @property
    def edit_count(self) -> int:
        return len(self.history)

    @property
    def callback_datas(self) -> list[str]:
        return callback_datas(self.reply_markup)

    def buttons(self) -> list[list[JSON]]:
        """Inline keyboard rows ([] when there is none)."""
        if not self.reply_markup:
            return []
        rows: list[list[JSON]] = self.reply_markup.get("inline_keyboard", [])
        return rows

    def button_data(self, text_contains: str) -> str:
        """callback_data of the first button whose text contains `text_contains`."""
        for row in self.buttons():
            for button in row:
                if text_contains in button.get("text", "") and "callback_data" in button:
                    data: str = button["callback_data"]
                    return data
        raise KeyError(f"no button containing {text_contains!r} in message {self.message_id}")

    def to_dict(self) -> JSON:
        out = asdict(self)
        out["edit_count"] = self.edit_count
        return out


@dataclass
class Chat:
    """A private chat, group or supergroup and everything shown in it."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    members: dict[int, str] = field(default_factory=dict)  # user id -> ChatMember status
    bot_status: str = "member"
    bot_was_kicked: bool = False
    migrated_to: int | None = None
    messages: dict[int, StoredMessage] = field(default_factory=dict)
    topics: dict[int, str] = field(default_factory=dict)  # message_thread_id -> name
    next_message_id: int = 1

    @property
    def bot_is_member(self) -> bool:
        return self.bot_status in MEMBER_STATUSES

    @property
    def chat_instance(self) -> str:
        # Stable opaque id, like Telegram's per-chat chat_instance
        return str((abs(self.id) * 1_000_003 + 7) % 2**62)


@dataclass
class CallRecord:
    """One Bot API request as the server saw and answered it.

    `status` 0: the call was carried out (`result` holds what it did) but its answer was lost,
    the connection closing without one (`drop_answers`).
    """

    method: str
    params: JSON
    status: int
    time: float
    description: str | None = None
    result: Any = None
    parameters: JSON | None = None  # ResponseParameters of an error (retry_after, migrate_to...)

    @property
    def ok(self) -> bool:
        return self.status == 200

    def to_dict(self) -> JSON:
        return asdict(self)


@dataclass
class DeliveryRecord:
    """One POST of an update to a webhook and how it ended.

    `status` is the HTTP status the webhook answered, or a connection error ("Connection
    refused", "Read timeout expired", ...) when there was no answer. `duplicate` marks the
    second delivery of an update made by `webhook_duplicate`.
    """

    update_id: int
    url: str
    status: int | str
    at: float
    duplicate: bool = False

    def to_dict(self) -> JSON:
        return asdict(self)


@dataclass
class CallbackQueryRecord:
    """A button press and what the bot answered to it."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created: float
    answered: bool = False
    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None

    def answer(self) -> JSON:
        """What the presser saw: answered flag, text, show_alert, url."""
        return {
            "query_id": self.id,
            "answered": self.answered,
            "text": self.text,
            "show_alert": self.show_alert,
            "url": self.url,
        }
