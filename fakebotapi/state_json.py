"""How the fake world shows itself in Bot API objects: User, Chat, Message, ChatMember."""

from __future__ import annotations

from .models import JSON, Chat, StoredMessage, User


class JsonViews:
    """Bot API objects built from the world's records (mixed into ``TelegramState``)."""

    bot: User
    users: dict[int, User]
    chats: dict[int, Chat]

    def user_json(self, user_id: int) -> JSON | None:
        """Public User object, or None for an account the fake world doesn't know."""
        if user_id == self.bot.id:
            return self.bot.to_api()
        known = self.users.get(user_id)
        return known.to_api() if known else None

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
        if msg.effect_id is not None:
            out["effect_id"] = msg.effect_id
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
