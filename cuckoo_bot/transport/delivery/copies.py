"""Second copies of a notice (``MessageRepository.copies``), found by the sweep: a copy that
shows keys loses them, a twin without keys is deleted, so the chat reads each notice once
(delivery's rule (c), ``app/notices/message.py``)."""

from __future__ import annotations

import logging

from telegram.error import TelegramError

from cuckoo_bot.app import outbox, shown
from cuckoo_bot.app.notices import Delivered
from cuckoo_bot.app.notices.message import Message
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.chats import Chats
from cuckoo_bot.transport.delivery.known import Known
from cuckoo_bot.transport.delivery.results import Marks

log = logging.getLogger(__name__)


async def settle(chats: Chats, copies: list[Message]) -> None:
    """Each copy found: its keys off, or deleted (a twin), one call each, in the chat's turn
    and within its budget (a group's spent budget leaves the copy for a later sweep)."""
    for copy in copies:
        async with chats.lock(copy.chat_id):
            lane = chats.lane(copy.chat_id, Known(Batch([])), Marks())
            if await lane.spend():
                await (unkey(chats, copy) if copy.keys else drop(chats, copy))


async def unkey(chats: Chats, copy: Message) -> None:
    """A second copy of a notice shows keys (an instance whose lease ran out while it was
    still showing the notice, another showing it again): they come off; the copy later
    notices edit keeps them. Where Telegram cannot take them off (the chat refuses the
    bot), nobody can press them either: recorded as gone. (In the chat's lock, paid for.)"""
    chat, message_id = copy.chat_id, copy.message_id
    assert message_id is not None
    try:
        await chats.tools.calls.remove_keys(chat, message_id)
    except Unreachable as exc:
        log.info("keys of message %s in chat %s left for now: %s", message_id, chat, exc)
        return
    except TelegramError as exc:
        log.info("keys of message %s in chat %s cannot come off: %s", message_id, chat, exc)
    gone = Delivered(copy.shown, message_id, False, tries=0)
    await outbox.mark(chats.tools.deps, [gone])
    log.warning("chat %s: message %s, a second copy, showed keys; taken off", chat, message_id)


async def drop(chats: Chats, twin: Message) -> None:
    """A second copy of a notice without keys shows what a newer copy shows (a card dealt
    twice, by an instance whose lease ran out while it was still sending): it is deleted,
    and its row with it, so the chat reads each notice once. Where Telegram refuses the
    deletion (older than it allows), the message stays as it is, its row forgotten. (In the
    chat's lock, paid for.)"""
    chat, message_id = twin.chat_id, twin.message_id
    assert message_id is not None
    try:
        await chats.tools.calls.remove(chat, message_id)
    except Unreachable as exc:
        log.info("message %s in chat %s, a twin, left for now: %s", message_id, chat, exc)
        return
    await shown.forget(chats.tools.deps, twin)
    log.warning(
        "chat %s: message %s, a second copy of notice %s, deleted", chat, message_id, twin.shown
    )
