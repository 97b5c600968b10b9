"""What tests do to the fake world: act as users and admins, read chats, wait for the bot.

``Controls`` gathers them: setting up the world and acting as users here, membership events in
``control_chats``, reading and waiting in ``control_read``, faults (flood control, lost answers,
old messages) in ``control_faults``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable

from .control_chats import ChatControls
from .control_faults import FaultControls
from .models import JSON, CallbackQueryRecord, Chat, StoredMessage, User
from .state import now
from .text import detect_entities


class Controls(ChatControls, FaultControls):
    """Test-side API. Actions are synchronous (they only change state and queue updates);
    waits are coroutines that wake on every change instead of sleeping in a loop."""

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
