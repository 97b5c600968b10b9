"""``/skip`` and ``/kick``: the game's creator or a group admin moves a game on past a player
gone quiet (``app/quiet.py``)."""

from __future__ import annotations

from telegram import Update

from cuckoo_bot.app import quiet
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.handlers.common import group_command, is_admin, player_of, reply
from cuckoo_bot.transport.services import Services


@group_command
async def cmd_skip(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    chat_id, user = update.effective_chat.id, player_of(update.effective_user)
    admin = await is_admin(context, chat_id, user.id, update)
    await reply(update, s, lang, await quiet.skip(s.deps, chat_id, user, admin, update.update_id))


@group_command
async def cmd_kick(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    """``/kick`` while it is the quiet player's turn, or as a reply to one of their messages."""
    assert update.effective_chat and update.effective_user
    chat_id, user = update.effective_chat.id, player_of(update.effective_user)
    replied = update.effective_message.reply_to_message if update.effective_message else None
    author = replied.from_user if replied is not None else None
    target = author.id if author is not None and not author.is_bot else None
    admin = await is_admin(context, chat_id, user.id, update)
    outcome = await quiet.kick(s.deps, chat_id, user, admin, target, update.update_id)
    await reply(update, s, lang, outcome)
