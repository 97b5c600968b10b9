"""The bot added to or removed from a group, and a group upgraded to a supergroup."""

from __future__ import annotations

from telegram import ChatMember, ChatMemberUpdated, Update

from cuckoo_bot.app import chats
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.handlers.common import (
    GROUP_TYPES,
    chat_of,
)


async def on_my_membership(update: Update, context: CuckooContext) -> None:
    s = context.services
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None or change.chat.type not in GROUP_TYPES:
        return
    status = change.new_chat_member.status
    if status in (ChatMember.LEFT, ChatMember.BANNED):
        await s.after(await chats.bot_removed(s.deps, change.chat.id))
    elif status in (ChatMember.MEMBER, ChatMember.ADMINISTRATOR):
        await chats.bot_added(s.deps, chat_of(change.chat))


async def on_migrate(update: Update, context: CuckooContext) -> None:
    s = context.services
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old, new = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old, new = message.migrate_from_chat_id, message.chat.id
    else:
        return
    await s.after(await chats.chat_migrated(s.deps, old, new))
