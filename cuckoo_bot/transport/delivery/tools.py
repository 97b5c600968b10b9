"""What every lane works with: the Bot API calls, the renderer, Telegram's limits, and which
notices this process made itself (``Tools``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime

from cachetools import LRUCache

from cuckoo_bot.app import shown
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices import Delivered, Notice, SentMessage
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.tuning import HOLD, NOTICES_KEPT
from cuckoo_bot.transport.delivery.calls import Calls
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Rendered, Renderer


class Tools:
    """What every lane works with. Besides the calls, the renderer and Telegram's limits, it
    remembers which notices this process made itself: any other may have been shown already by
    the process that made it (a previous life, an instance that died), its mark lost."""

    def __init__(
        self,
        deps: Deps,
        calls: Calls,
        renderer: Renderer,
        budget: GroupBudget,
        pacer: PrivatePacer,
        *,
        alone: bool,
    ) -> None:
        self.deps = deps
        self.calls = calls
        self.renderer = renderer
        self.budget = budget
        self.pacer = pacer
        # The only process delivering (polling: one process per token): no other process can
        # be showing a message this one does not know of, right now.
        self.alone = alone
        self.started = deps.clock.now()
        # Notices this process made and handed to itself (a press, a clock, a reroute).
        self.handed: LRUCache[int, None] = LRUCache(NOTICES_KEPT)
        # Chats where a message may stand that the store never learnt of (a send whose
        # answer was lost, a leftover another process may have shown): the store's doubts
        # (rows of ``messages`` with no message id), as last read (every sweep) or written
        # by this process.
        self._doubted: dict[int, int] = {}  # chat: its oldest doubtful notice
        # The notices in this process's hands, each with when it was last known to be its
        # own (written, claimed or renewed then or later: its lease runs from there). A cache
        # of the outbox's claims, kept to fence the calls (``holds``).
        self._held: dict[int, datetime] = {}

    def hand(self, batch: Batch) -> None:
        for notice in batch.notices:
            self.handed[notice.id] = None

    def hold(self, notices: Iterable[Notice], since: datetime | None) -> None:
        """These notices are this process's from ``since`` (None: each from its writing)."""
        now = self.deps.clock.now()
        for notice in notices:
            held = since or notice.created_at or now
            self._held[notice.id] = max(self._held.get(notice.id, held), held)

    def renewed(self, ids: Collection[int], since: datetime) -> None:
        """Their claims were renewed at ``since`` or later."""
        for notice_id in ids:
            if notice_id in self._held:
                self._held[notice_id] = max(self._held[notice_id], since)

    def release(self, ids: Collection[int]) -> None:
        for notice_id in ids:
            self._held.pop(notice_id, None)

    def holds(self, notices: Iterable[Notice]) -> bool:
        """Every one of these notices is surely still this process's: a call for them may be
        made now (``tuning.HOLD``)."""
        since = self.deps.clock.now() - HOLD
        return all(self._held.get(n.id, since) >= since for n in notices)

    @staticmethod
    def keys_gone(old: SentMessage) -> Delivered:
        """The message ``old`` describes has no keys any more: the report to record. Batches
        are marked as they finish, not in the order they showed things; the store keeps the
        newest state whatever order the reports come in (``Message.after``)."""
        return Delivered(old.notice.id, old.message_id, False, tries=0)

    def left_over(self, notice: Notice) -> bool:
        """Made before this process started: maybe shown already by the one before."""
        return notice.created_at is not None and notice.created_at < self.started

    def maybe_shown(self, notice: Notice) -> bool:
        """Made by another process: it may have been shown already, its mark lost with it."""
        return self.left_over(notice) or notice.id not in self.handed

    async def doubt(self, chat_id: int, notice_id: int) -> None:
        """A notice of this chat may have been shown without the store learning its
        message (a send whose answer was lost, a leftover of another process): it stands after
        the newest message the notices before it put there. Written to the store (the oldest
        such notice is kept), so any instance clears it."""
        self._doubted[chat_id] = min(self._doubted.get(chat_id, notice_id), notice_id)
        await shown.doubt(self.deps, chat_id, notice_id)

    async def send(self, chat_id: int, notice: Notice, rendered: Rendered, *, guess: bool) -> int:
        """Send ``notice``. ``guess``: another process (a previous life, an instance that died)
        may have shown it already, keys and all. Then the chat's doubt is written before the
        call, so that dying after Telegram answers leaves one, and the message is recorded the
        moment Telegram answers, not with the batch's mark: lives killed one after another,
        each right after showing the notice again, would leave more copies with keys than the
        search for a lost one reaches (one statement each, on crash paths only)."""
        if guess:
            await self.doubt(chat_id, notice.id)
        message_id = await self.calls.send(notice, rendered)
        if guess:
            await shown.record(self.deps, Delivered(notice.id, message_id, True))
        return message_id

    def learn_doubts(self, doubts: dict[int, int]) -> None:
        """The chats in doubt as the store has them (read at every sweep)."""
        self._doubted = dict(doubts)

    def doubted(self, chat_id: int) -> bool:
        return chat_id in self._doubted

    def doubts(self, chat_id: int | None = None) -> dict[int, int]:
        """The chats in doubt (this one, or every one), each with its oldest doubtful notice."""
        if chat_id is not None:
            found = self._doubted.get(chat_id)
            return {} if found is None else {chat_id: found}
        return dict(self._doubted)

    async def settled(self, chat_id: int) -> None:
        """The keys of what no notice accounts for in the chat were cleared: no doubt left."""
        since = self._doubted.pop(chat_id, None)
        if since is not None:
            await shown.settle_doubt(self.deps, chat_id, since)
