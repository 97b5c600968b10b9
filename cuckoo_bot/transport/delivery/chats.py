"""The courier's chats: one lane at a time in each (``lock``), the chats whose notices wait for
a later run and when that run comes (``wake``), and what this process showed lately in each
(a cache: the store's ``messages`` rows stay the truth)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from cachetools import LRUCache

from cuckoo_bot.app import outbox
from cuckoo_bot.app.notices import Notice, SentMessage
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.tuning import CHATS_KEPT, ELSEWHERE, RECENT_PER_CHAT
from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.delivery.group import GroupLane
from cuckoo_bot.transport.delivery.known import Known
from cuckoo_bot.transport.delivery.lanes import Lane
from cuckoo_bot.transport.delivery.private import PrivateLane
from cuckoo_bot.transport.delivery.results import LaneResult, Marks
from cuckoo_bot.transport.delivery.tools import Tools
from cuckoo_bot.transport.flood import Floods

log = logging.getLogger(__name__)


class Chats:
    def __init__(
        self,
        tools: Tools,
        floods: Floods,
        schedule: Callable[[int], None],
        in_flight: set[int],
    ) -> None:
        self.tools = tools
        self.in_flight = in_flight  # notices this process is showing (the courier's)
        self.floods = floods
        self._schedule = schedule  # runs a chat's lane again (the courier's sweep of it)
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}
        self.waiting: set[int] = set()  # chats with notices left for a later run
        self.wakeups: dict[int, asyncio.TimerHandle] = {}
        self.closing = False
        # What this process showed lately, per chat: a press can be handled before the batch
        # that sent the previous prompt has been marked in the store, and its lane must still
        # know that message (to edit it, or take its keys off).
        self._recent: LRUCache[int, dict[int, SentMessage]] = LRUCache(CHATS_KEPT)
        # The newest message seen in each private chat outside the outbox (replies to commands,
        # the player's own messages): a deal edits a prompt only if it is still at the bottom.
        self._seen: LRUCache[int, int] = LRUCache(CHATS_KEPT)

    @contextlib.asynccontextmanager
    async def lock(self, chat_id: int) -> AsyncIterator[None]:
        """One lane at a time in a chat, in this process."""
        lock = self._locks.setdefault(chat_id, asyncio.Lock())
        self._users[chat_id] = self._users.get(chat_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[chat_id] -= 1
            if not self._users[chat_id]:
                del self._users[chat_id]
                del self._locks[chat_id]

    # -- a chat's lane ---------------------------------------------------------------------------

    async def after_elsewhere(self, chat_id: int) -> LaneResult:
        """This chat's notices wait, in this instance's hands, for the older ones another
        instance is showing there."""
        self.waiting.add(chat_id)
        self.wake(chat_id, ELSEWHERE)
        return LaneResult(waiting=True)

    async def run(
        self,
        chat_id: int,
        notices: list[Notice],
        known: Known,
        from_store: bool,
        claimed: set[int],
        marks: Marks,
    ) -> LaneResult:
        logfields.bind(chat_id=chat_id, game_id=notices[0].game_id if notices else None)
        chats = self
        lane: Lane | None = None
        try:
            async with chats.lock(chat_id):
                if not from_store and chat_id in chats.waiting:
                    taken = await self._behind_older(chat_id, notices)
                    if taken is None:
                        chats.wake(chat_id)
                        return LaneResult(waiting=True)
                    claimed |= {n.id for n in taken.notices}
                    notices, known = taken.notices, Known(taken)
                chats.waiting.discard(chat_id)
                lane = chats.lane(chat_id, known, marks)
                result = await lane.run(notices)
                # Remembered before the mark: a later batch of this process counts on it, as
                # the store tells it only what other processes showed (``elsewhere``).
                chats.note(chat_id, result.messages)
                await marks.lane_done(self.tools)
                if result.waiting:
                    chats.waiting.add(chat_id)
                if result.waiting or result.deferred:
                    chats.wake(chat_id)
                return result
        except Exception:
            # One chat's fault must not cost the others their marks: what this lane did is
            # kept (and remembered), the rest waits for a later run.
            log.exception("delivery to chat %s failed", chat_id)
            if lane is not None:
                chats.note(chat_id, lane.result.messages)
            result = lane.result if lane is not None else LaneResult()
            result.waiting = True
            chats.waiting.add(chat_id)
            chats.wake(chat_id)
            return result

    async def _behind_older(self, chat_id: int, notices: list[Notice]) -> Batch | None:
        """Older notices of this chat wait in the outbox: these wait with them, in order
        (None), unless the chat may be written to again now; then all go together (the batch
        to show, its older notices now in this run's hands)."""
        mine = {n.id for n in notices}
        if not self.ready(chat_id):
            return None
        batch = await outbox.claim(self.tools.deps, chat_id)
        if {n.id for n in batch.notices} & (self.in_flight - mine):
            return None  # another run holds older ones: it goes first, these after
        self.in_flight |= {n.id for n in batch.notices} - mine
        self.tools.hold(batch.notices, batch.claimed_at)
        return batch

    # -- what this process showed lately --------------------------------------------------------

    def saw(self, chat_id: int, message_id: int) -> None:
        """A message outside the outbox appeared in a private chat (a reply, the user's own)."""
        if chat_id > 0:
            self._seen[chat_id] = max(self._seen.get(chat_id, 0), message_id)

    def recall(self, chat_id: int, known: Known) -> Known:
        """``known``, with what this process showed or saw in the chat since the store was read."""
        for sent in self._recent.get(chat_id, {}).values():
            known.remember(sent)
        if chat_id > 0:
            seen = self._seen.get(chat_id, 0)
            known.newest[chat_id] = max(known.newest.get(chat_id, 0), seen)
        return known

    def note(self, chat_id: int, messages: list[SentMessage]) -> None:
        if not messages:
            return
        recent = dict(self._recent.get(chat_id, {}))
        for sent in messages:
            recent[sent.message_id] = sent
        # The newest few messages of the chat are all a later lane can need.
        self._recent[chat_id] = dict(sorted(recent.items())[-RECENT_PER_CHAT:])

    def lane(self, chat_id: int, known: Known, marks: Marks) -> PrivateLane | GroupLane:
        kind = PrivateLane if chat_id > 0 else GroupLane
        return kind(self.tools, chat_id, self.recall(chat_id, known), marks)

    async def tidy(self, chat_id: int, since: int) -> None:
        """A chat in doubt (a send whose answer was lost, a prompt another process may have
        shown) with nothing to show: what no notice accounts for loses its keys, once no
        other instance is showing something there."""
        async with self.lock(chat_id):
            if not self.tools.doubted(chat_id):
                return
            lane = self.lane(chat_id, Known(Batch([])), Marks())
            try:
                await lane.tidy(since)
            except Exception as exc:
                log.info("keys in chat %s not cleared yet: %r", chat_id, exc)
                lane.result.deferred = True
            if lane.result.deferred:
                self.wake(chat_id, ELSEWHERE)

    # -- when a chat's lane runs again ----------------------------------------------------------

    def ready(self, chat_id: int) -> bool:
        """The chat may be written to again now."""
        if chat_id > 0:
            return True
        budget = self.tools.budget
        return not budget.next_free(chat_id) and not budget.calm(chat_id)

    def wake(self, chat_id: int, soon: float | None = None) -> None:
        """Run this chat's lane again once its budget allows a call, or once Telegram takes
        calls to it again (a 429), or soon after a fault (or ``soon``, at the earliest)."""
        budget = self.tools.budget
        wait = (
            max(budget.next_free(chat_id), budget.calm(chat_id))
            if chat_id < 0
            else max(1.0 if soon is None else soon, self.floods.left(chat_id))
        )
        delay = max(wait, soon or 0.05)
        if chat_id in self.wakeups or self.closing:
            return
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self.wakeups.pop(chat_id, None)
            self._schedule(chat_id)

        self.wakeups[chat_id] = loop.call_later(delay, fire)

    def close(self) -> None:
        """No more wake-ups (shutting down)."""
        self.closing = True
        for handle in self.wakeups.values():
            handle.cancel()
        self.wakeups.clear()
