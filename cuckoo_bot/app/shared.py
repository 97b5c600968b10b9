"""Steps inside a use case's unit of work that several use cases take: skip a redelivered
update, and the stored chat made on first sight."""

from __future__ import annotations

from cuckoo_bot.app.model import Chat, Player, supported_language
from cuckoo_bot.app.ports import UnitOfWork


async def first_time(uow: UnitOfWork, update_id: int | None) -> bool:
    """False when this Telegram update was processed before (a redelivery): do nothing."""
    return update_id is None or await uow.updates.first_time(update_id)


async def ensure_chat(uow: UnitOfWork, chat: Chat, founder: Player | None = None) -> Chat:
    """The stored chat, made on first sight. ``founder`` opens a lobby: while the group has no
    language yet, it takes the founder's (when the bot speaks it)."""
    stored = await uow.chats.get(chat.id, lock=True)
    if stored is None:
        await uow.chats.add(chat)
        stored = chat
    changed = False
    if chat.title and stored.title != chat.title:
        stored.title, changed = chat.title, True
    if stored.language is None and founder is not None:
        stored.language = supported_language(founder.language)
        changed = changed or stored.language is not None
    if changed:
        await uow.chats.save(stored)
    return stored
