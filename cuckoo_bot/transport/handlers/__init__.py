"""PTB handlers, by area: a handler parses the update, calls one use case and answers; what
the use case queued is delivered after the commit. This module registers them: the commands
(one table, also the command menus) and the keys (one table, by the key's kind)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import (
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from cuckoo_bot.app.model import DEFAULT_LANGUAGE
from cuckoo_bot.app.ports import ConcurrentUpdate
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.transport import keydata, logfields
from cuckoo_bot.transport.context import CuckooApp, CuckooContext
from cuckoo_bot.transport.handlers import info, league, lobby, membership, play, quiet, settings
from cuckoo_bot.transport.handlers.common import (
    Handler,
    KeyHandler,
    Press,
    language_of,
    player_of,
    players_named,
    say,
)
from cuckoo_bot.transport.services import Services

__all__ = ["COMMANDS", "KEYS", "Command", "Services", "install"]

log = logging.getLogger(__name__)

GROUP, PRIVATE = "group", "private"


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    menus: tuple[str, ...]  # the command menus it is listed in (its description: cmd_<name>)

    @property
    def description_key(self) -> str:
        return f"cmd_{self.name}"


# Every command, in menu order. A group command typed in a private chat is answered with where
# it works (``group_command``).
COMMANDS = (
    Command("newgame", lobby.cmd_newgame, (GROUP,)),
    Command("join", lobby.cmd_join, (GROUP,)),
    Command("leave", lobby.cmd_leave, (GROUP,)),
    Command("startgame", lobby.cmd_startgame, (GROUP,)),
    Command("cancel", lobby.cmd_cancel, (GROUP,)),
    Command("skip", quiet.cmd_skip, (GROUP,)),
    Command("kick", quiet.cmd_kick, (GROUP,)),
    Command("leaderboard", league.cmd_leaderboard, (GROUP,)),
    Command("history", league.cmd_history, (GROUP,)),
    Command("start", lobby.cmd_start, (PRIVATE,)),
    Command("stats", league.cmd_stats, (PRIVATE,)),
    Command("rules", info.cmd_rules, (GROUP, PRIVATE)),
    Command("settings", settings.cmd_settings, (GROUP,)),
    Command("language", settings.cmd_language, (GROUP, PRIVATE)),
    Command("help", info.cmd_help, (GROUP, PRIVATE)),
)

# Every key, by its kind (``keydata.py``).
KEYS: dict[str, KeyHandler] = {
    **{kind: play.move_key for kind in keydata.MOVES},
    keydata.MY_CARD: play.my_card_key,
    keydata.JOIN: lobby.join_key,
    keydata.AGAIN: lobby.again_key,
    keydata.LEAVE: lobby.leave_key,
    keydata.COMPUTER: lobby.computer_key,
    keydata.START: lobby.start_key,
    keydata.CANCEL: lobby.cancel_key,
    keydata.SETTING: settings.setting_key,
    keydata.LANGUAGE: settings.language_key,
}


async def on_button(update: Update, context: CuckooContext) -> None:
    s = context.services
    query = update.callback_query
    if query is None:
        return
    try:
        data = keydata.decode(query.data)
    except keydata.BadKeyData:
        lang = await language_of(s, update)
        await query.answer(s.renderer.popup(lang, Reply(ReplyCode.UNKNOWN_BUTTON)))
        return
    chat = update.effective_chat
    logfields.bind(chat_id=chat.id if chat else None, game_id=data.game or None)
    press = Press(update, context, s, player_of(query.from_user), data, query)
    handler = KEYS.get(data.kind)
    outcome = await handler(press) if handler else Outcome(reply=Reply(ReplyCode.UNKNOWN_BUTTON))
    if outcome is None:
        return  # answered by the key's handler
    reply = outcome.reply
    text = None
    if reply is not None:
        # A move's use case says what its answer needs (no read here); other keys ask.
        lang = outcome.lang or await press.language()
        named = outcome.named if outcome.named is not None else await players_named(s, reply)
        text = s.renderer.popup(lang, reply, named)
    try:
        await query.answer(text, show_alert=bool(reply and reply.alert))
    except TelegramError as exc:  # an answer after Telegram's deadline: the move still counts
        log.info("callback answer failed: %s", exc)
    await s.after(outcome)


async def on_error(update: object, context: CuckooContext) -> None:
    """Nothing goes unanswered: whoever pressed or typed hears to try again in a moment (the
    move was not made: its transaction never committed). The next update starts afresh."""
    if isinstance(context.error, ConcurrentUpdate):
        # Another instance (or a timeout) changed the game between our read and our write;
        # nothing was written. Expected now and then: no traceback.
        log.warning("the game changed meanwhile: %s", context.error)
    else:
        log.error("error while handling an update", exc_info=context.error)
    if not isinstance(update, Update):
        return
    s = context.services
    chat = update.effective_chat
    lang = DEFAULT_LANGUAGE
    try:
        lang = await language_of(s, update)
    except Exception:  # the database may be what failed: answer in English then
        log.debug("no language for the answer", exc_info=True)
    text = s.renderer.reply(lang, Reply(ReplyCode.TRY_AGAIN))
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(s.renderer.popup(lang, Reply(ReplyCode.TRY_AGAIN)))
        elif update.effective_message is not None and chat is not None:
            await say(s, update, text)
    except TelegramError as exc:
        log.info("could not answer after an error: %s", exc)


def install(application: CuckooApp) -> None:
    """Register every handler. Commands work with ``@botname`` too (PTB matches it)."""
    for command in COMMANDS:
        # Edited messages are not commands again: an edited old /leave must not resign twice.
        application.add_handler(
            CommandHandler(command.name, command.handler, filters.UpdateType.MESSAGE)
        )
    application.add_handler(CallbackQueryHandler(on_button))
    application.add_handler(
        ChatMemberHandler(membership.on_my_membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, membership.on_migrate))
    application.add_error_handler(on_error)
