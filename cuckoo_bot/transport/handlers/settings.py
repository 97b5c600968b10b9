"""A group's house rules and language, and a player's language: commands and keys."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import TelegramError

from cuckoo_bot.app import chats
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.transport.context import CuckooContext
from cuckoo_bot.transport.handlers.common import (
    GROUP_TYPES,
    Press,
    chat_of,
    group_command,
    is_admin,
    language_of,
    player_of,
    say,
)
from cuckoo_bot.transport.services import Services

log = logging.getLogger(__name__)


@group_command
async def cmd_settings(update: Update, context: CuckooContext, s: Services, lang: str) -> None:
    assert update.effective_chat and update.effective_user
    if not await is_admin(context, update.effective_chat.id, update.effective_user.id, update):
        await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.NOT_ADMIN)))
        return
    chat = await chats.chat_settings(s.deps, chat_of(update.effective_chat))
    rendered = s.renderer.settings(lang, chat, s.deps.turn_timeout)
    await say(s, update, rendered.text, rendered.keyboard)


async def cmd_language(update: Update, context: CuckooContext) -> None:
    s = context.services
    lang = await language_of(s, update)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    if context.args:
        choice = context.args[0]
        if chat.type in GROUP_TYPES:
            if not await is_admin(context, chat.id, user.id, update):
                await say(s, update, s.renderer.reply(lang, Reply(ReplyCode.NOT_ADMIN)))
                return
            outcome = await chats.set_language(s.deps, chat_of(chat), choice)
        else:
            outcome = await chats.set_player_language(s.deps, player_of(user), choice)
        new_lang = outcome.reply.params.get("language", lang) if outcome.reply else lang
        if outcome.reply is not None:
            await say(s, update, s.renderer.reply(new_lang, outcome.reply))
        return
    rendered = s.renderer.languages(lang)
    await say(s, update, rendered.text, rendered.keyboard)


async def setting_key(press: Press) -> Outcome | None:
    """One write transaction: the change, the settings as they now stand and the answer's
    language; then the settings message is edited to show them."""
    s, query, chat = press.services, press.query, press.update.effective_chat
    if chat is None or not await is_admin(press.context, chat.id, query.from_user.id):
        return Outcome(reply=Reply(ReplyCode.NOT_ADMIN))
    name, _, raw = press.data.arg.partition("=")
    outcome, stored = await chats.change_setting(
        s.deps,
        chat_of(chat),
        name,
        raw,
        press.update.update_id,
        asker=press.asker,
        admin=query.from_user.id,
    )
    if stored is None:
        return outcome  # a redelivered tap: nothing changed, nothing to show again
    lang = outcome.lang or await press.language()
    rendered = s.renderer.settings(lang, stored, s.deps.turn_timeout)
    if query.message is not None:
        await s.courier.budget.spend(chat.id)
        try:
            await query.edit_message_text(rendered.text, reply_markup=rendered.keyboard)
        except TelegramError as exc:
            log.info("settings message not edited: %s", exc)
    return outcome


async def language_button(
    update: Update, context: CuckooContext, s: Services, code: str
) -> Outcome:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return Outcome()
    if chat.type in GROUP_TYPES:
        if not await is_admin(context, chat.id, user.id):
            return Outcome(reply=Reply(ReplyCode.NOT_ADMIN))
        return await chats.set_language(s.deps, chat_of(chat), code, update.update_id)
    return await chats.set_player_language(s.deps, player_of(user), code)


async def language_key(press: Press) -> Outcome | None:
    outcome = await language_button(press.update, press.context, press.services, press.data.arg)
    if outcome.reply and outcome.reply.code == "language_set":
        press.lang = press.data.arg  # the answer comes in the language just chosen
    return outcome
