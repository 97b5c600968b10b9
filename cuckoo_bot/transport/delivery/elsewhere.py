"""Several instances: before a batch is shown, what other instances are doing in its chats."""

from __future__ import annotations

from datetime import datetime, timedelta

from cuckoo_bot.app import outbox, shown
from cuckoo_bot.app.notices import Notice
from cuckoo_bot.app.tuning import MARK_LAG
from cuckoo_bot.transport.delivery.known import Known
from cuckoo_bot.transport.delivery.tools import Tools


async def behind(
    tools: Tools, by_chat: dict[int, list[Notice]], known: Known, read_at: datetime | None
) -> tuple[frozenset[int], frozenset[int]]:
    """The chats where another instance still holds older notices than these (they wait for
    them), and those where older notices are left for anyone to take (an instance died and its
    lease ran out: the lane takes them and shows them first): a chat's notices are shown in
    order, whichever instance shows them. Where a notice was shown since the batch read its
    chats' messages, they are read again (into ``known``): since ``MARK_LAG`` before the read,
    as a mark stamped before the read may have committed after it. What this process showed
    it remembers (``Chats.recall``): only another process's marks count. A private chat
    sent a message by another instance within its pace waits the rest of it here (Telegram's
    one a second counts every instance's). One statement, and a read more only where needed;
    none for the only process delivering."""
    if tools.alone:
        return frozenset(), frozenset()
    deps = tools.deps
    oldest = {chat: min(n.id for n in items) for chat, items in by_chat.items()}
    now = deps.clock.now()
    interval = tools.pacer.interval
    paced_since = now - timedelta(seconds=interval) if interval > 0 else None
    since = read_at - MARK_LAG if read_at is not None else None
    found = await outbox.elsewhere(deps, oldest, since, paced_since, tools.started)
    for chat, at in found.sent.items():  # another instance's message keeps the pace too
        tools.pacer.sent(chat, ago=(now - at).total_seconds())
    stale = {
        n.game_id
        for chat in found.told_since - found.held
        for n in by_chat[chat]
        if n.game_id is not None
    }
    if stale:
        for sent in await shown.reread(deps, stale):
            known.remember(sent)
    return found.held, found.left
