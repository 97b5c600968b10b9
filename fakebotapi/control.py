"""What tests do to the fake world: act as users and admins, read chats, wait for the bot."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .api_bot import scope_key
from .models import (
    JSON,
    MEMBER_STATUSES,
    CallbackQueryRecord,
    CallRecord,
    Chat,
    DeliveryRecord,
    StoredMessage,
    User,
)
from .state import Listener, TelegramState, now
from .text import detect_entities

T = TypeVar("T")
_POLLING = "getUpdates"


class Controls:
    """Test-side API. Actions are synchronous (they only change state and queue updates);
    waits are coroutines that wake on every change instead of sleeping in a loop."""

    def __init__(self, world: TelegramState) -> None:
        self.world = world

    # -- setting up the world ---------------------------------------------------------

    def add_user(
        self,
        user_id: int,
        first_name: str,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        started: bool = False,
    ) -> JSON:
        """Create a user; `started=True` means they already pressed Start in the bot's DM."""
        if user_id <= 0 or user_id == self.world.bot.id:
            raise ValueError("user ids are positive and differ from the bot's")
        user = User(user_id, first_name, last_name, username, language_code, started=started)
        self.world.users[user_id] = user
        self.world.changed("user", user)
        return user.to_api()

    def add_group(
        self,
        chat_id: int,
        title: str,
        type: str = "group",
        members: Iterable[int] = (),
        admins: Iterable[int] = (),
        creator: int | None = None,
        is_forum: bool = False,
        username: str | None = None,
        bot_admin: bool = False,
    ) -> JSON:
        """Create a group the bot is already in (an admin if `bot_admin`)."""
        if type not in ("group", "supergroup") or chat_id >= 0:
            raise ValueError("groups have negative ids and type 'group' or 'supergroup'")
        if is_forum and type != "supergroup":
            raise ValueError("only supergroups can be forums")
        statuses = {uid: "member" for uid in members}
        statuses.update({uid: "administrator" for uid in admins})
        if creator is not None:
            statuses[creator] = "creator"
        for uid in statuses:
            self.world.user(uid)
        chat = Chat(chat_id, type, title, username, is_forum, statuses)
        chat.bot_status = "administrator" if bot_admin else "member"
        self.world.chats[chat_id] = chat
        self.world.changed("chat", chat)
        return self.world.chat_json(chat)

    def join_group(self, user_id: int, chat_id: int) -> StoredMessage:
        """A user joins: member status plus the new_chat_members service message."""
        chat = self._group(chat_id)
        chat.members[user_id] = "member"
        extra = {"new_chat_members": [self.world.user(user_id).to_api()]}
        return self._deliver(chat, user_id, extra=extra)

    def create_topic(self, chat_id: int, name: str, by_user: int | None = None) -> int:
        """Open a forum topic; returns its message_thread_id."""
        chat = self._group(chat_id)
        if not chat.is_forum:
            raise ValueError(f"chat {chat_id} is not a forum")
        sender = by_user if by_user is not None else self._someone(chat)
        topic = {"name": name, "icon_color": 0x6FB9F0}
        msg = self.world.add_message(chat, sender, extra={"forum_topic_created": topic})
        msg.message_thread_id, msg.is_topic_message = msg.message_id, True
        chat.topics[msg.message_id] = name
        self._enqueue_message(chat, msg, force=True)
        return msg.message_id

    # -- acting as users ---------------------------------------------------------------

    def user_sends(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        message_thread_id: int | None = None,
        reply_to_message_id: int | None = None,
    ) -> StoredMessage:
        """The user writes `text`; the bot gets it unless privacy mode hides it from the bot."""
        if not text.strip():
            raise ValueError("Telegram clients do not send empty messages")
        user = self.world.user(user_id)
        chat = self._chat_of(user_id, chat_id)
        if chat.type == "private":
            if user.blocked:
                self.unblock_bot(user_id)  # a client's "Restart" unblocks and sends /start
            user.started = True
        thread, is_topic = None, False
        if message_thread_id is not None:
            if chat.is_forum and message_thread_id not in chat.topics:
                raise ValueError(f"no topic {message_thread_id} in chat {chat_id}")
            thread, is_topic = message_thread_id, chat.is_forum
        if (
            reply_to_message_id is not None
            and self.world.message(chat, reply_to_message_id) is None
        ):
            raise ValueError(f"no message {reply_to_message_id} in chat {chat_id}")
        return self._deliver(
            chat,
            user_id,
            text=text,
            entities=detect_entities(text),
            message_thread_id=thread,
            is_topic_message=is_topic,
            reply_to_message_id=reply_to_message_id,
        )

    def user_edits(self, user_id: int, chat_id: int, message_id: int, text: str) -> StoredMessage:
        """The user edits their own message; the bot gets an edited_message update."""
        chat = self._chat_of(user_id, chat_id)
        msg = self.world.message(chat, message_id)
        if msg is None or msg.sender_id != user_id:
            raise ValueError(f"user {user_id} has no message {message_id} in chat {chat_id}")
        msg.text, msg.entities, msg.edit_date = text, detect_entities(text), now()
        self.world.changed("edit", msg)
        if self._bot_sees(chat, msg):
            self.world.enqueue("edited_message", self.world.message_json(msg))
        return msg

    def press_button(self, user_id: int, chat_id: int, message_id: int, callback_data: str) -> str:
        """Press an inline button the message currently shows; returns the callback query id."""
        user = self.world.user(user_id)
        chat = self._chat_of(user_id, chat_id)
        msg = self.world.message(chat, message_id)
        if msg is None:
            raise ValueError(f"message {message_id} is not shown in chat {chat_id}")
        if callback_data not in msg.callback_datas:
            raise ValueError(
                f"message {message_id} has no button with callback_data {callback_data!r}; "
                f"it shows {msg.callback_datas}"
            )
        query_id = str(4_000_000_000_000_000_000 + self.world.next_query)
        self.world.next_query += 1
        record = CallbackQueryRecord(
            query_id, user_id, chat.id, message_id, callback_data, time.monotonic()
        )
        self.world.queries[query_id] = record
        update = {
            "id": query_id,
            "from": user.to_api(),
            "message": self.world.message_json(msg),
            "chat_instance": chat.chat_instance,
            "data": callback_data,
        }
        self.world.enqueue("callback_query", update)
        return query_id

    def callback_answer(self, query_id: str) -> JSON:
        """What the presser has seen so far (answered flag, text, show_alert, url)."""
        return self.world.queries[query_id].answer()

    async def wait_callback_answer(self, query_id: str, timeout: float = 5.0) -> JSON:  # noqa: ASYNC109
        """Wait until the bot answers the query (or `timeout`); returns the answer either way."""
        record = self.world.queries[query_id]
        with contextlib.suppress(TimeoutError):
            await self.wait_for(lambda: record.answered, timeout)
        return record.answer()

    # -- membership events -------------------------------------------------------------

    def block_bot(self, user_id: int) -> None:
        """The user blocks the bot: my_chat_member (kicked) and 403 on later sends."""
        self._set_private(user_id, blocked=True)

    def unblock_bot(self, user_id: int) -> None:
        self._set_private(user_id, blocked=False)

    def kick_bot(self, chat_id: int, by_user: int | None = None) -> None:
        """An admin removes the bot: "kicked" in supergroups, "left" in basic groups."""
        chat = self._group(chat_id)
        status = "kicked" if chat.type == "supergroup" else "left"
        self._set_bot_status(chat, status, by_user)
        chat.bot_was_kicked = True

    def add_bot_to_group(
        self, chat_id: int, by_user: int | None = None, as_admin: bool = False
    ) -> None:
        """(Re-)add the bot: my_chat_member plus the new_chat_members service message."""
        chat = self._group(chat_id)
        self._set_bot_status(chat, "administrator" if as_admin else "member", by_user)
        chat.bot_was_kicked = False
        sender = by_user if by_user is not None else self._someone(chat)
        self._deliver(chat, sender, extra={"new_chat_members": [self.world.bot.to_api()]})

    def migrate_group(self, old_id: int, new_id: int, by_user: int | None = None) -> JSON:
        """Upgrade a basic group to a supergroup with a new id, with both service messages."""
        old = self._group(old_id)
        if old.type != "group" or new_id in self.world.chats or new_id >= 0:
            raise ValueError("only a basic group can migrate, to a new negative id")
        new = Chat(new_id, "supergroup", old.title, None, False, dict(old.members))
        new.bot_status, old.migrated_to = old.bot_status, new_id
        self.world.chats[new_id] = new
        sender = by_user if by_user is not None else self._someone(old)
        self._deliver(old, sender, extra={"migrate_to_chat_id": new_id}, force=True)
        self._deliver(new, sender, extra={"migrate_from_chat_id": old_id}, force=True)
        return self.world.chat_json(new)

    def flood(self, chat_id: int | None = None, retry_after: int = 1, count: int = 1) -> None:
        """The next `count` send/edit calls (to `chat_id`, or any) get 429 retry_after."""
        self.world.flood.arm(chat_id, retry_after, count)

    # -- reading state -----------------------------------------------------------------

    def messages(self, chat_id: int, include_deleted: bool = True) -> list[StoredMessage]:
        """Messages of a chat in order (live objects; deleted ones are flagged)."""
        chat = self.world.chats.get(chat_id)
        if chat is None:
            return []
        return [m for m in chat.messages.values() if include_deleted or not m.deleted]

    def last_message(self, chat_id: int, from_bot: bool | None = None) -> StoredMessage | None:
        """The newest visible message (optionally only the bot's or only users')."""
        for msg in reversed(self.messages(chat_id, include_deleted=False)):
            if from_bot is None or msg.from_bot == from_bot:
                return msg
        return None

    def dm(self, user_id: int) -> list[StoredMessage]:
        """Messages of the private chat with a user."""
        return self.messages(user_id)

    def calls(self, method: str | None = None, include_polling: bool = False) -> list[CallRecord]:
        """Recorded Bot API calls; getUpdates is left out unless asked for or named."""
        if method is not None:
            return [c for c in self.world.call_log if c.method.lower() == method.lower()]
        return [c for c in self.world.call_log if include_polling or c.method != _POLLING]

    def call_count(self, method: str | None = None, include_polling: bool = False) -> int:
        return len(self.calls(method, include_polling))

    def commands(self, scope: str | JSON | None = None, language_code: str = "") -> list[JSON]:
        """Commands set with setMyCommands for a scope ("default", {"type": "chat", ...})."""
        return list(self.world.bot_commands.get((scope_key(self.world, scope), language_code), []))

    def bot_texts(self) -> dict[str, str]:
        """setMyDescription/ShortDescription/Name values as "field" or "field:lang"."""
        return {f"{f}:{lang}" if lang else f: v for (f, lang), v in self.world.bot_texts.items()}

    def pending_updates(self) -> list[JSON]:
        """Updates not yet confirmed by the bot."""
        return [update for _, _, update in self.world.updates]

    def transcript(self, chat_id: int) -> str:
        """The chat as a human would read it: one line per message, buttons underneath."""
        lines = []
        for msg in self.messages(chat_id):
            sender = self.world.user(msg.sender_id).full_name if msg.sender_id else "?"
            body = msg.text if msg.text is not None else f"[{', '.join(msg.extra) or 'empty'}]"
            flags = (" (edited)" if msg.edit_count else "") + (" [deleted]" if msg.deleted else "")
            sound = ("🔕 " if msg.silent else "") + ("🎉 " if msg.effect_id else "")
            lines.append(f"#{msg.message_id} {sound}{sender}: {body}{flags}")
            for row in msg.buttons():
                lines.append("    " + " ".join(f"[{b.get('text')}]" for b in row))
        return "\n".join(lines)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event, obj)` on every change; returns an unsubscribe function."""
        self.world.listeners.append(listener)
        return lambda: self.world.listeners.remove(listener)

    # -- waiting -----------------------------------------------------------------------

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = 10.0,  # noqa: ASYNC109 - the test-facing API takes plain timeouts
    ) -> T:
        """Re-check `predicate` on every change; return its first truthy value."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            signal = self.world.change_signal()
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(signal.wait(), remaining)

    async def wait_for_message(
        self,
        chat_id: int,
        contains: str | None = None,
        timeout: float = 10.0,  # noqa: ASYNC109
        from_bot: bool = True,
        after: int | None = None,
    ) -> StoredMessage:
        """First visible message (by default the bot's) with id > `after` containing `contains`."""

        def find() -> StoredMessage | None:
            for msg in self.messages(chat_id, include_deleted=False):
                if msg.from_bot != from_bot or msg.message_id <= (after or 0):
                    continue
                if contains is None or contains in (msg.text or ""):
                    return msg
            return None

        try:
            return await self.wait_for(find, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"no message containing {contains!r} in chat {chat_id} within {timeout}s; "
                f"chat shows:\n{self.transcript(chat_id)}"
            ) from None

    async def wait_idle(self, quiet: float = 0.3, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until the bot made no Bot API call except getUpdates for `quiet` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            before = self.call_count()
            await asyncio.sleep(quiet)  # a quiet period is inherently time based
            if self.call_count() == before:
                return
        raise TimeoutError(f"bot still busy after {timeout}s")

    # -- webhook delivery ----------------------------------------------------------------

    def webhook_targets(self, urls: list[str] | None = None) -> None:
        """Send updates to these URLs in turn instead of the webhook's URL (None: back to it).

        A load balancer in front of several bot instances: each new update goes to the next
        URL of the list, in the order updates are sent (one chat's updates wait for each
        other). An update a target does not take (refused connection, timeout, non-2xx
        answer) goes to the target after it when it is sent again.
        """
        self.world.delivery.set_targets(urls)

    def webhook_duplicate(self, every: int) -> None:
        """Deliver every `every`-th update twice, as Telegram does when it misses an answer.

        Of the updates taken from this call on, every `every`-th is sent again to the target
        after the one that took it (the same URL when there is only one), once that one
        answered 2xx and before the chat's next update; it is retried like any other until
        a target takes it. 0 switches duplicates off.
        """
        self.world.delivery.set_duplicate(every)

    def webhook_deliveries(self, update_id: int | None = None) -> list[DeliveryRecord]:
        """Every POST to a webhook so far (or those of one update), in the order answered."""
        records = self.world.delivery.records
        return [r for r in records if update_id is None or r.update_id == update_id]

    def delivered_update_ids(self) -> list[int]:
        """Ids of the updates a webhook took (2xx), once each, in the order taken."""
        return list(self.world.delivery.delivered)

    def webhook_pending(self) -> int:
        """Updates not yet delivered (in flight or waiting) plus duplicates not yet made."""
        return self.world.delivery.pending()

    async def wait_webhook_idle(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until every update was delivered (duplicates too) and nothing is in flight."""
        delivery = self.world.delivery
        try:
            await self.wait_for(delivery.idle, timeout)
        except TimeoutError:
            state = "no webhook is set" if delivery.config is None else "webhook set"
            raise TimeoutError(
                f"webhook delivery not idle after {timeout}s ({state}): "
                f"{delivery.pending()} pending; last error: {delivery.last_error_message!r}"
            ) from None

    # -- internals ---------------------------------------------------------------------

    def _group(self, chat_id: int) -> Chat:
        chat = self.world.chats.get(chat_id)
        if chat is None or chat.type == "private":
            raise ValueError(f"no group {chat_id}; add_group() first")
        return chat

    def _someone(self, chat: Chat) -> int:
        """An admin (or any member) to attribute a service action to."""
        for status in ("creator", "administrator", "member"):
            for uid, st in chat.members.items():
                if st == status:
                    return uid
        raise ValueError(f"chat {chat.id} has no members; pass by_user")

    def _chat_of(self, user_id: int, chat_id: int) -> Chat:
        """A chat the user can see and write in."""
        if chat_id > 0:
            if chat_id != user_id:
                raise ValueError("a user's private chat with the bot has the user's id")
            return self.world.private_chat(user_id)
        chat = self._group(chat_id)
        if chat.migrated_to is not None:
            raise ValueError(f"chat {chat_id} migrated to {chat.migrated_to}")
        if chat.members.get(user_id) not in MEMBER_STATUSES:
            raise ValueError(f"user {user_id} is not a member of chat {chat_id}")
        return chat

    def _bot_sees(self, chat: Chat, msg: StoredMessage) -> bool:
        """Telegram's privacy mode: in groups the bot sees commands, replies and mentions."""
        if chat.type == "private":
            return not self.world.users[chat.id].blocked
        if not chat.bot_is_member:
            return False
        if not self.world.privacy_mode or chat.bot_status == "administrator":
            return True
        text = msg.text or ""
        name = (self.world.bot.username or "").lower()
        for ent in msg.entities:
            piece = text.encode("utf-16-le")[
                2 * ent["offset"] : 2 * (ent["offset"] + ent["length"])
            ]
            token = piece.decode("utf-16-le").lower()
            if ent["type"] == "bot_command" and ("@" not in token or token.endswith("@" + name)):
                return True
            if ent["type"] == "mention" and token == "@" + name:
                return True
        reply = chat.messages.get(msg.reply_to_message_id or 0)
        return reply is not None and reply.from_bot

    def _deliver(
        self, chat: Chat, sender: int, force: bool = False, **fields: Any
    ) -> StoredMessage:
        msg = self.world.add_message(chat, sender, **fields)
        self._enqueue_message(chat, msg, force=force or "extra" in fields)
        return msg

    def _enqueue_message(self, chat: Chat, msg: StoredMessage, force: bool = False) -> None:
        """Queue a message update if the bot can see it (service messages always reach it)."""
        visible = (
            chat.bot_is_member if force and chat.type != "private" else self._bot_sees(chat, msg)
        )
        if visible:
            self.world.enqueue("message", self.world.message_json(msg))

    def _set_bot_status(self, chat: Chat, status: str, by_user: int | None) -> None:
        old = self.world.member_json(chat, self.world.bot.id)
        chat.bot_status = status
        actor = by_user if by_user is not None else self._someone(chat)
        self.world.enqueue(
            "my_chat_member",
            {
                "chat": self.world.chat_json(chat),
                "from": self.world.user(actor).to_api(),
                "date": now(),
                "old_chat_member": old,
                "new_chat_member": self.world.member_json(chat, self.world.bot.id),
            },
        )

    def _set_private(self, user_id: int, *, blocked: bool) -> None:
        user = self.world.user(user_id)
        if user.blocked == blocked:
            return
        chat = self.world.private_chat(user_id)
        bot = self.world.bot.to_api()
        old = self.world.status_json(
            "kicked" if user.blocked else "member", bot, chat, can_be_edited=False
        )
        user.blocked = blocked
        new = self.world.status_json(
            "kicked" if blocked else "member", bot, chat, can_be_edited=False
        )
        update = {
            "chat": self.world.chat_json(chat),
            "from": user.to_api(),
            "date": now(),
            "old_chat_member": old,
            "new_chat_member": new,
        }
        self.world.enqueue("my_chat_member", update)
