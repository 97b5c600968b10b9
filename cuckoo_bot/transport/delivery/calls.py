"""Bot API calls for the courier's lanes."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, ReplyParameters
from telegram.error import (
    BadRequest,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.request import BaseRequest

from cuckoo_bot.app.notices import (
    Notice,
)
from cuckoo_bot.app.tuning import AGAIN_WITHIN
from cuckoo_bot.transport.flood import retry_seconds
from cuckoo_bot.transport.render import Rendered

log = logging.getLogger(__name__)


class Unreachable(Exception):
    """Telegram cannot deliver right now (flood control, network): try the rest later.
    ``retry_after``: the seconds Telegram asked for (a 429; the chat's hold is kept by the
    rate limiter, ``flood.py``). ``maybe_sent``: a send whose answer was lost: Telegram may
    have shown it (its message unknown), so the next message there clears the keys of
    whatever stands unaccounted for above it."""

    def __init__(self, why: str, *, retry_after: float | None = None, maybe_sent: bool = False):
        super().__init__(why)
        self.retry_after = retry_after
        self.maybe_sent = maybe_sent


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

    async def call(
        self, work: Callable[[], Awaitable[Any]], *, send: bool = False, again: bool = True
    ) -> Any:
        """One Bot API call; flood control and network faults stop the lane for now. A
        ``send`` whose answer never came may have been shown all the same. Any other call
        whose answer never came is made ``again`` at once: an edit or a delete comes out the
        same whether the first was carried out or not (Telegram then says "not modified" or
        "not found"), and a message left in a state nobody recorded could be taken back to
        an older one by the next plan. (Only when the lost call was quick: a slow one may
        have outlived the claims it was made under.)"""
        started = time.monotonic()
        try:
            return await work()
        except RetryAfter as exc:
            raise Unreachable(str(exc), retry_after=retry_seconds(exc)) from exc
        except (TimedOut, NetworkError) as exc:
            # PTB 22 makes BadRequest a NetworkError: Telegram's answer, not a lost one.
            if isinstance(exc, BadRequest):
                raise
            if again and not send and time.monotonic() - started < AGAIN_WITHIN:
                log.info("no answer to a call (%s): made again", exc)
                return await self.call(work, again=False)
            log.warning("Telegram is not taking messages now: %s", exc)
            raise Unreachable(str(exc), maybe_sent=send) from exc

    async def send(self, notice: Notice, rendered: Rendered) -> int:
        """Send a notice's message; the new message's id."""
        sent = await self.call(
            send=True,
            work=lambda: self._post(
                "sendMessage",
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
            ),
        )
        return int(sent["message_id"])

    async def edit(self, chat_id: int, message_id: int, rendered: Rendered) -> bool:
        """Edit a message in place; False if it is gone (deleted by someone)."""
        return await self._edited(
            lambda: self._post(
                "editMessageText",
                chat_id=chat_id,
                message_id=message_id,
                text=rendered.text,
                reply_markup=rendered.keyboard,
            )
        )

    def _post(self, method: str, **params: Any) -> Awaitable[Any]:
        """A call through PTB's own request path (its defaults: HTML and no link previews; the
        rate limiter; the counting; the HTTP client; Telegram's refusals raised as PTB's
        errors), its answer left as the Bot API's JSON. ``Bot.send_message`` and
        ``edit_message_text`` build a ``Message`` of every answer, which the courier never
        reads but for a new message's id: 175 µs of CPU a call of about 300 (measured with a
        canned answer, 3,000 calls each way). PTB's public way to skip that,
        ``Bot.do_api_request``, warns when given a method PTB has; ``_post`` is what it and
        every method call, and PTB is pinned by the lock file. The parameters PTB's methods
        take from ``Defaults`` are passed as ``DEFAULT_NONE`` for PTB to fill in, as its
        methods do (``test_calls_send_what_ptbs_methods_send``)."""
        unset = BaseRequest.DEFAULT_NONE
        data = {"parse_mode": unset, "link_preview_options": unset, **params}
        return self.bot._post(method, data)

    async def remove_keys(self, chat_id: int, message_id: int) -> bool:
        """Take a message's keys off; False if it is gone or not the bot's to edit."""
        return await self._edited(
            lambda: self.bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=None
            )
        )

    async def _edited(self, edit: Callable[[], Awaitable[Any]]) -> bool:
        """Make an edit: True once the message shows it (made now, or already so: Telegram
        says "not modified"), False if the message is gone or not the bot's to edit."""
        try:
            await self.call(edit)
        except BadRequest as exc:
            if _not_modified(exc):
                return True
            if _edit_target_gone(exc):
                return False
            raise
        return True

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
