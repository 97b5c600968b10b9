"""Keys of a message no notice accounts for: a copy another process may have shown before it
died (its mark lost with it), or a send whose answer was lost. Such a message stands after the
newest one the notices before it put in the chat (a chat's notices are shown in order)."""

from __future__ import annotations

import logging
from typing import Protocol

from telegram.error import TelegramError

from cuckoo_bot.app import outbox, shown
from cuckoo_bot.app.tuning import GAP
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.known import Known
from cuckoo_bot.transport.delivery.results import LaneResult
from cuckoo_bot.transport.delivery.tools import Tools

log = logging.getLogger(__name__)


class Clearing(Protocol):
    """The lane that clears (``lanes.Lane``)."""

    tools: Tools
    chat_id: int
    known: Known
    result: LaneResult

    async def spend(self) -> bool: ...

    def holds(self) -> bool: ...


async def clear(lane: Clearing, notice_id: int, below: int | None = None) -> None:
    """The first few messages no notice accounts for lose their keys: those just ``below`` the
    message this notice became, or else those right after the earlier notices' newest.
    Messages the store or this run know of are left; people's own (a player's, a group
    member's) cannot be edited (Telegram says so and nothing changes; never a delete). While
    another instance is showing something in the chat, a message no notice accounts for yet
    may be its own: the chat stays in doubt and is looked at again soon (``Courier.sweep``),
    the keys cleared once that instance is done."""
    tools, chat = lane.tools, lane.chat_id
    deps = tools.deps
    if not tools.alone and (await outbox.elsewhere(deps, {chat: None})).held:
        await tools.doubt(chat, notice_id)
        lane.result.deferred = True
        return
    ids = await shown.unaccounted(deps, chat, notice_id, below=below, span=4 * GAP)
    known = {d.message_id for d in lane.result.delivered if d.message_id}
    known |= lane.known.telling.get(chat, set())
    cleared: list[int] = []
    for message_id in [m for m in ids if m not in known][:GAP]:
        # The rest when the chat's budget allows, or (the claims having run out meanwhile)
        # once no other instance is showing something there.
        if not await lane.spend() or not lane.holds():
            await shown.cleared(deps, chat, cleared, notice_id)
            await tools.doubt(chat, notice_id)
            lane.result.deferred = True
            return
        try:
            if await tools.calls.remove_keys(chat, message_id):
                cleared.append(message_id)
        except Unreachable:
            raise
        except TelegramError as exc:
            log.debug("message %s in chat %s left as it is: %s", message_id, chat, exc)
    # Written down, so that a late report of the notice one of them showed (an instance that
    # lagged past its lease) cannot say it shows keys: the store says what the chat shows.
    await shown.cleared(deps, chat, cleared, notice_id)
    await tools.settled(chat)
