"""Bot API calls for the courier's lanes."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, Message, ReplyParameters
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from cuckoo_bot.app.notices import (
    Notice,
)
from cuckoo_bot.transport.render import Rendered

log = logging.getLogger(__name__)


class Unreachable(Exception):
    """Telegram cannot deliver right now (flood control, network): try the rest later."""


def _not_modified(error: BadRequest) -> bool:
    return "message is not modified" in error.message.lower()


def _edit_target_gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


class Calls:
    """The Bot API calls a lane makes: flood control and network faults become ``Unreachable``
    (the lane stops for now); an edit of a message that is gone says so."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def call(self, work: Callable[[], Awaitable[Any]]) -> Any:
        """One Bot API call; flood control and network faults stop the lane for now."""
        try:
            return await work()
        except (RetryAfter, TimedOut, NetworkError) as exc:
            if isinstance(exc, BadRequest | Forbidden | ChatMigrated):
                raise
            log.warning("Telegram is not taking messages now: %s", exc)
            raise Unreachable from exc

    async def send(self, notice: Notice, rendered: Rendered) -> Message:
        message: Message = await self.call(
            lambda: self.bot.send_message(
                chat_id=notice.chat_id,
                text=rendered.text,
                reply_markup=rendered.keyboard,
                message_thread_id=notice.thread_id,
                disable_notification=rendered.quiet,
                message_effect_id=rendered.effect,
                reply_parameters=(
                    ReplyParameters(rendered.reply_to, allow_sending_without_reply=True)
                    if rendered.reply_to is not None
                    else None
                ),
            )
        )
        return message

    async def edit(self, chat_id: int, message_id: int, rendered: Rendered) -> bool:
        """Edit a message in place; False if it is gone (deleted by someone)."""
        try:
            await self.call(
                lambda: self.bot.edit_message_text(
                    chat_id=chat_id,
                    message_id=message_id,
                    text=rendered.text,
                    reply_markup=rendered.keyboard,
                )
            )
        except BadRequest as exc:
            if _not_modified(exc):
                return True
            if _edit_target_gone(exc):
                return False
            raise
        return True

    async def remove_keys(self, chat_id: int, message_id: int) -> None:
        try:
            await self.call(
                lambda: self.bot.edit_message_reply_markup(
                    chat_id=chat_id, message_id=message_id, reply_markup=None
                )
            )
        except BadRequest as exc:
            if not _not_modified(exc) and not _edit_target_gone(exc):
                raise

    async def remove(self, chat_id: int, message_id: int) -> None:
        """Delete a message; if Telegram refuses, at least drop its keys."""
        try:
            await self.call(lambda: self.bot.delete_message(chat_id=chat_id, message_id=message_id))
        except Unreachable:
            raise
        except TelegramError:
            try:
                await self.call(
                    lambda: self.bot.edit_message_reply_markup(
                        chat_id=chat_id, message_id=message_id, reply_markup=None
                    )
                )
            except Unreachable:
                raise
            except TelegramError as exc:  # gone, migrated, not ours any more: nothing to clear
                log.info("message %s left as it was: %s", message_id, exc)
