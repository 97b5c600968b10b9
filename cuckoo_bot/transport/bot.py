"""The PTB Application as this bot builds it (its requests, rate limiter, defaults and
concurrency), and its command menus, registered at start."""

from __future__ import annotations

import logging
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    LinkPreviewOptions,
)
from telegram.constants import ParseMode
from telegram.ext import Application, ApplicationBuilder, Defaults

from cuckoo_bot.app.model import DEFAULT_LANGUAGE
from cuckoo_bot.i18n.translator import LANGUAGES, Translator
from cuckoo_bot.transport import handlers
from cuckoo_bot.transport.admission import FairUpdates
from cuckoo_bot.transport.context import CONTEXT_TYPES, CuckooApp
from cuckoo_bot.transport.flood import ChatLimiter
from cuckoo_bot.transport.metrics import CountingRequest, Metrics
from cuckoo_bot.transport.requests import AnswersApart

log = logging.getLogger(__name__)

# Every message in HTML, without link previews (PTB fills them into each call).
DEFAULTS = Defaults(
    parse_mode=ParseMode.HTML, link_preview_options=LinkPreviewOptions(is_disabled=True)
)


def build_application(
    token: str, api_base_url: str, metrics: Metrics, limiter: ChatLimiter
) -> CuckooApp:
    """The bot's PTB application, with nothing installed yet (the composition root,
    ``bootstrap.py``, gives it its services and handlers)."""
    return (
        ApplicationBuilder()
        .token(token)
        .base_url(api_base_url)
        # Answers to taps have connections of their own: never queued behind the sends.
        .request(
            AnswersApart(
                CountingRequest(metrics, connection_pool_size=16),
                CountingRequest(metrics, connection_pool_size=4),
            )
        )
        .get_updates_request(CountingRequest(metrics, read_timeout=40))
        # The overall limit (30 a second) and a 429's wait, chat by chat (``flood.py``); a
        # group's budget is the courier's, which coalesces instead of queueing (``pacing.py``).
        .rate_limiter(limiter)
        .defaults(DEFAULTS)
        # Updates are handled side by side (each press is its own transaction on a locked game
        # row), a few per chat at most, so no chat's flood or rate limit holds back the others.
        .concurrent_updates(FairUpdates(metrics, 32))
        .context_types(CONTEXT_TYPES)
        .build()
    )


async def register_commands(
    application: Application[Any, Any, Any, Any, Any, Any], tr: Translator
) -> None:
    """The bot's description (what someone arriving by a link sees in the empty chat), its
    short description (its profile) and its command menus, in each language: 12 calls at
    start, none naming a chat. The commands go last: once they are set, the bot is ready."""
    bot = application.bot
    for language in LANGUAGES:
        code = None if language == DEFAULT_LANGUAGE else language
        await bot.set_my_description(tr.t(language, "bot_description"), language_code=code)
        await bot.set_my_short_description(
            tr.t(language, "bot_short_description"), language_code=code
        )
    for language in LANGUAGES:
        code = None if language == DEFAULT_LANGUAGE else language
        for scope, menu in (
            (BotCommandScopeAllGroupChats(), handlers.GROUP),
            (BotCommandScopeAllPrivateChats(), handlers.PRIVATE),
        ):
            commands = [
                BotCommand(c.name, tr.t(language, c.description_key))
                for c in handlers.COMMANDS
                if menu in c.menus
            ]
            await application.bot.set_my_commands(commands, scope=scope, language_code=code)
