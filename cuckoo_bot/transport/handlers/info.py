"""Help and the rules, in any chat."""

from __future__ import annotations

from telegram import Update

from cuckoo_bot.app import chats
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.handlers.common import (
    GROUP_TYPES,
    chat_of,
    group_help,
    language_of,
    say,
)


async def cmd_help(update: Update, context: CuckooContext) -> None:
    s = context.services
    lang = await language_of(s, update)
    chat = update.effective_chat
    if chat is not None and chat.type in GROUP_TYPES:
        await say(s, update, await group_help(s, chat_of(chat), lang))
    else:
        await say(s, update, s.renderer.tr.t(lang, "help_private"))


async def cmd_rules(update: Update, context: CuckooContext) -> None:
    s = context.services
    lang = await language_of(s, update)
    chat = update.effective_chat
    if chat is not None and chat.type in GROUP_TYPES:
        stored = await chats.chat_settings(s.deps, chat_of(chat))
        text = s.renderer.rules(lang, stored.rules, stored.turn_timeout or s.deps.turn_timeout)
    else:
        text = s.renderer.rules(lang, HouseRules(), s.deps.turn_timeout)
    await say(s, update, text)
