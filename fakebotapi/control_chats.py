"""Test controls for membership events, and the helpers that act as people in chats."""

from __future__ import annotations

from typing import Any

from .control_read import ReadControls
from .models import JSON, MEMBER_STATUSES, Chat, StoredMessage
from .state import now


class ChatControls(ReadControls):
    """Membership events (block, kick, re-add, migrate) and delivering messages people write."""

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
