"""The courier: shows committed notices in Telegram, each chat in its own lane.

One loop for every batch, whether a press hands it over or it is read back from the outbox:
split the notices by chat, run each chat's lane side by side (a group held back by its budget
never delays a private chat), then hand the lanes' report to the app (``app.delivery.settle``),
which records it in one go and says what to deliver next.

- A private lane sends in order, one message a second at most; a card dealt edits the
  player's last prompt when that is still the newest message in their chat (the prompt's keys
  go in the same call), and the keys of a prompt are gone at the latest when the round ends.
- A group lane spends the group's budget: only the newest view of a lobby or of a round's table
  is shown, rounds that ended before their table was posted are folded into the next table,
  and what the budget does not allow now waits, coalesced, for the next run.
- Several instances: a chat's notices are shown in order whichever instance holds them (a lane
  waits while another instance holds older notices of its chat), and keys of a message no
  notice accounts for are cleared only while no other instance is showing something there.

The rules this keeps, (a)-(d), are in the README's "Delivery's rules" and checked by
``tests/unit/transport/test_delivery_invariants.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Coroutine
from datetime import datetime, timedelta
from typing import Any

from telegram import Bot
from telegram.error import TelegramError

from cuckoo_bot.app import outbox
from cuckoo_bot.app.delivery import Report, settle
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices import (
    Notice,
    SentMessage,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.delivery.calls import Calls, Unreachable
from cuckoo_bot.transport.delivery.group import GroupLane
from cuckoo_bot.transport.delivery.lanes import Known, Lane, LaneResult, Shown, Tools
from cuckoo_bot.transport.delivery.private import PrivateLane
from cuckoo_bot.transport.flood import Floods
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Renderer

log = logging.getLogger(__name__)

FRESH = timedelta(seconds=10)  # a sweep of every chat leaves younger notices to their press
# A chat where another instance is showing older notices is looked at again this soon.
ELSEWHERE = 0.25


class Courier:
    """Delivers notices chat by chat. Nothing here is the truth: the store is (the outbox's
    notices, the ``messages`` table's rows); a notice in flight is only kept from being sent
    twice by two runs of this process."""

    def __init__(
        self,
        deps: Deps,
        bot: Bot,
        renderer: Renderer,
        budget: GroupBudget,
        pacer: PrivatePacer,
        floods: Floods | None = None,
        *,
        alone: bool = False,
    ) -> None:
        self.deps = deps
        self.bot = bot
        self.floods = floods or Floods(deps.clock.now)
        self.tools = Tools(deps, Calls(bot), renderer, budget, pacer, alone=alone)
        self._lanes: dict[int, asyncio.Lock] = {}
        self._lane_users: dict[int, int] = {}
        self._in_flight: set[int] = set()
        self._waiting: set[int] = set()  # chats with notices left for a later run
        self._wakeups: dict[int, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        # What this process showed lately, per chat: a press can be handled before the batch
        # that sent the previous prompt has been marked in the outbox, and its lane must still
        # know that message (to edit it, or take its keys off). The outbox stays the truth.
        self._recent: OrderedDict[int, dict[int, SentMessage]] = OrderedDict()
        # Notices marked lately: a sweep that read them before the mark committed, or a press
        # handed over after a sweep took its notices, must not send them again.
        self._marked: OrderedDict[int, None] = OrderedDict()
        # The newest message seen in each private chat outside the outbox (replies to commands,
        # the player's own messages): a deal edits a prompt only if it is still at the bottom.
        self._seen: OrderedDict[int, int] = OrderedDict()
        self._closing = False

    @property
    def calls(self) -> Calls:
        return self.tools.calls

    @property
    def renderer(self) -> Renderer:
        return self.tools.renderer

    @property
    def budget(self) -> GroupBudget:
        return self.tools.budget

    @property
    def pacer(self) -> PrivatePacer:
        return self.tools.pacer

    def knows(self, chat_id: int, message_id: int, batch: Batch) -> bool:
        """The store (as of this batch) or this process knows this message of the chat."""
        known = {s.message_id for s in batch.sent if s.notice.chat_id == chat_id}
        return message_id in known or message_id in self._recent.get(chat_id, {})

    def clear_keys_later(self, chat_id: int, message_id: int) -> None:
        """Take the keys off a message in the background (one edit, not paced)."""

        async def clear() -> None:
            try:
                await self.calls.remove_keys(chat_id, message_id)
            except (Unreachable, TelegramError) as exc:
                log.info("keys of message %s in chat %s left: %s", message_id, chat_id, exc)

        self._spawn(clear())

    def saw(self, chat_id: int, message_id: int) -> None:
        """A message outside the outbox appeared in a private chat (a reply, the user's own)."""
        if chat_id > 0:
            self._seen[chat_id] = max(self._seen.pop(chat_id, 0), message_id)
            while len(self._seen) > 10_000:
                self._seen.popitem(last=False)

    # -- entry points ---------------------------------------------------------------------------

    def post(self, batch: Batch | None) -> None:
        """Deliver a committed batch in the background: the press is answered at once."""
        if batch:
            self.tools.hand(batch)
            self._spawn(self.deliver(batch))

    def schedule(self, chat_id: int | None = None) -> None:
        """Deliver what the outbox holds (for one chat, or all) in the background."""
        self._spawn(self.sweep(chat_id))

    async def sweep(self, chat_id: int | None = None) -> int:
        """Deliver what the outbox still holds: leftovers of a crash, chats that had to wait,
        what another instance left. Sweeping every chat leaves the notices a press of this
        process handed over less than ``FRESH`` ago to that press."""
        batch = await outbox.claim(self.deps, chat_id, skip=set(self._in_flight))
        if chat_id is None:
            young = self.deps.clock.now() - FRESH
            batch.notices = [
                n
                for n in batch.notices
                if n.chat_id in self._waiting
                or n.created_at is None
                # A notice this process made and handed to itself (a press, a clock, a
                # reroute) is left to that delivery for a moment (it may not have started).
                or n.id not in self.tools.handed
                or n.created_at < young
            ]
        handled = await self._deliver(batch, from_store=True)
        if chat_id is None:
            self.tools.learn_doubts(await outbox.doubts(self.deps))
        shown = {n.chat_id for n in batch.notices}
        for doubted, since in self.tools.doubts(chat_id).items():
            if doubted not in shown:
                await self._tidy(doubted, since)
        return handled

    async def deliver(self, batch: Batch) -> int:
        return await self._deliver(batch, from_store=False)

    async def drain(self, within: float | None = None) -> None:
        """Wait for deliveries under way (at shutdown); later wake-ups are dropped. After
        ``within`` seconds the rest is cancelled: what was shown is marked, what was not stays
        in the outbox for the next instance (nothing is lost, at worst shown again)."""
        self._closing = True
        for handle in self._wakeups.values():
            handle.cancel()
        self._wakeups.clear()
        loop = asyncio.get_running_loop()
        until = None if within is None else loop.time() + within
        while self._tasks:
            left = None if until is None else until - loop.time()
            if left is not None and left <= 0:
                for task in self._tasks:
                    task.cancel()
                await asyncio.gather(*list(self._tasks), return_exceptions=True)
                break
            await asyncio.wait(list(self._tasks), timeout=left)

    async def hand_back(self) -> None:
        """At shutdown, once drained: what this instance still holds is free for the next one
        now, not when its lease runs out."""
        try:
            freed = await outbox.hand_back(self.deps)
        except Exception as exc:
            log.warning("shutdown: could not hand back the undelivered notices: %r", exc)
        else:
            if freed:
                log.info("handed back %s undelivered notice(s)", freed)

    async def renew(self) -> None:
        """Keep this instance's claims on the notices it is delivering (from the sweeper)."""
        await outbox.renew(self.deps, set(self._in_flight))

    # -- the loop -------------------------------------------------------------------------------

    async def _deliver(self, batch: Batch, *, from_store: bool) -> int:
        """Show a batch, then what settling it wrote (a turn asked in the group for a player
        who blocked the bot, a moved group's table), and so on; how many tries that took."""
        handled = 0
        while batch:
            batch, tries = await self._deliver_once(batch, from_store=from_store)
            handled += tries
            from_store = False
        return handled

    async def _deliver_once(self, batch: Batch, *, from_store: bool) -> tuple[Batch, int]:
        """Every chat's lane side by side; then the app settles their report in one go, before
        these notices leave this run's hands (a sweep must find them marked). What settling
        wrote is delivered next."""
        if not from_store:
            self.tools.hand(batch)
        notices = [
            n for n in batch.notices if n.id not in self._in_flight and n.id not in self._marked
        ]
        if not notices:
            return Batch([]), 0
        ids = {n.id for n in notices}
        claimed: set[int] = set()  # notices a lane read back from the outbox for its chat
        self._in_flight |= ids
        shown = Shown()  # every lane's result so far, even one cut short
        try:
            known = Known(batch)
            by_chat: dict[int, list[Notice]] = {}
            for notice in notices:
                by_chat.setdefault(notice.chat_id, []).append(notice)
            behind = await self._behind(by_chat, known, batch.read_at)
            try:
                results = await asyncio.gather(
                    *(
                        self._lane(chat, items, known, from_store, claimed, shown)
                        if chat not in behind
                        else self._after_elsewhere(chat)
                        for chat, items in by_chat.items()
                    )
                )
            except asyncio.CancelledError:
                # Shutting down: what was shown is marked (briefly), the rest stays claimable.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(shown.mark(self.tools), timeout=2)
                raise
            report = Report(
                delivered=[d for result in results for d in result.unmarked()],
                unreachable=[n for result in results for n in result.unreachable],
                migrated=[m for result in results for m in result.migrated],
            )
            following = await settle(self.deps, report)
            for done in (d for result in results for d in result.delivered):
                if done.retry_at is None:  # a failed try is taken again later
                    self._marked[done.notice_id] = None
            while len(self._marked) > 20_000:
                self._marked.popitem(last=False)
        finally:
            self._in_flight -= ids | claimed
        return following, sum(d.tries for d in report.delivered)

    async def _behind(
        self, by_chat: dict[int, list[Notice]], known: Known, read_at: datetime | None
    ) -> frozenset[int]:
        """The chats where another instance still holds older notices than these: a chat's
        notices are shown in order, whichever instance shows them. Where a notice was shown
        since the batch read its chats' messages, they are read again. A private chat sent a
        message by another instance within its pace waits the rest of it here (Telegram's one
        a second counts every instance's). One statement, and a read more only where needed;
        none for the only process delivering."""
        if self.tools.alone:
            return frozenset()
        oldest = {chat: min(n.id for n in items) for chat, items in by_chat.items()}
        now = self.deps.clock.now()
        interval = self.tools.pacer.interval
        paced_since = now - timedelta(seconds=interval) if interval > 0 else None
        found = await outbox.elsewhere(self.deps, oldest, read_at, paced_since)
        for chat, at in found.sent.items():  # another instance's message keeps the pace too
            self.tools.pacer.sent(chat, ago=(now - at).total_seconds())
        stale = {
            n.game_id
            for chat in found.shown - found.held
            for n in by_chat[chat]
            if n.game_id is not None
        }
        if stale:
            for sent in await outbox.reread(self.deps, stale):
                known.remember(sent)
        return found.held

    async def _after_elsewhere(self, chat_id: int) -> LaneResult:
        """This chat's notices wait, in this instance's hands, for the older ones another
        instance is showing there."""
        self._waiting.add(chat_id)
        self._wake(chat_id, ELSEWHERE)
        return LaneResult(waiting=True)

    async def _lane(
        self,
        chat_id: int,
        notices: list[Notice],
        known: Known,
        from_store: bool,
        claimed: set[int],
        shown: Shown,
    ) -> LaneResult:
        logfields.bind(chat_id=chat_id, game_id=notices[0].game_id if notices else None)
        lane: Lane | None = None
        try:
            async with self._chat(chat_id):
                if not from_store and chat_id in self._waiting:
                    # Older notices of this chat wait in the outbox: these wait with them, in
                    # order, unless the chat may be written to again now; then all go together.
                    mine = {n.id for n in notices}
                    if not self._ready(chat_id):
                        self._wake(chat_id)
                        return LaneResult(waiting=True)
                    batch = await outbox.claim(self.deps, chat_id)
                    held = {n.id for n in batch.notices} & (self._in_flight - mine)
                    if held:  # another run holds older ones: it goes first, these after
                        self._wake(chat_id)
                        return LaneResult(waiting=True)
                    taken = {n.id for n in batch.notices} - mine
                    self._in_flight |= taken
                    claimed |= taken
                    notices, known = batch.notices, Known(batch)
                self._waiting.discard(chat_id)
                for sent in self._recent.get(chat_id, {}).values():
                    known.remember(sent)
                if chat_id > 0:
                    seen = self._seen.get(chat_id, 0)
                    known.newest[chat_id] = max(known.newest.get(chat_id, 0), seen)
                    lane = PrivateLane(self.tools, chat_id, known, shown)
                else:
                    lane = GroupLane(self.tools, chat_id, known, shown)
                result = await lane.run(notices)
                await shown.lane_done(self.tools)
                if result.waiting:
                    self._waiting.add(chat_id)
                if result.waiting or result.deferred:
                    self._wake(chat_id)
                self._note_recent(chat_id, result.shown)
                return result
        except Exception:
            # One chat's fault must not cost the others their marks: what this lane did is
            # kept, the rest waits for a later run.
            log.exception("delivery to chat %s failed", chat_id)
            result = lane.result if lane is not None else LaneResult()
            result.waiting = True
            self._waiting.add(chat_id)
            self._wake(chat_id)
            return result

    @contextlib.asynccontextmanager
    async def _chat(self, chat_id: int) -> AsyncIterator[None]:
        """One lane at a time in a chat, in this process."""
        lock = self._lanes.setdefault(chat_id, asyncio.Lock())
        self._lane_users[chat_id] = self._lane_users.get(chat_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._lane_users[chat_id] -= 1
            if not self._lane_users[chat_id]:
                del self._lane_users[chat_id]
                del self._lanes[chat_id]

    async def _tidy(self, chat_id: int, since: int) -> None:
        """A chat in doubt (a send whose answer was lost, a prompt another process may have
        shown) with nothing to show: what no notice accounts for loses its keys, once no
        other instance is showing something there."""
        async with self._chat(chat_id):
            if not self.tools.doubted(chat_id):
                return
            known = Known(Batch([]))
            for sent in self._recent.get(chat_id, {}).values():
                known.remember(sent)  # shown by this process, maybe not marked yet
            kind = PrivateLane if chat_id > 0 else GroupLane
            lane = kind(self.tools, chat_id, known, Shown())
            try:
                await lane.tidy(since)
            except Exception as exc:
                log.info("keys in chat %s not cleared yet: %r", chat_id, exc)
                lane.result.deferred = True
            if lane.result.deferred:
                self._wake(chat_id, ELSEWHERE)

    def _note_recent(self, chat_id: int, shown: list[SentMessage]) -> None:
        if not shown:
            return
        recent = self._recent.pop(chat_id, {})
        for sent in shown:
            recent[sent.message_id] = sent
        # The newest few messages of the chat are all a later lane can need.
        self._recent[chat_id] = dict(sorted(recent.items())[-8:])
        while len(self._recent) > 10_000:
            self._recent.popitem(last=False)

    def _ready(self, chat_id: int) -> bool:
        if chat_id > 0:
            return True
        return not self.budget.next_free(chat_id) and not self.budget.calm(chat_id)

    def _wake(self, chat_id: int, soon: float | None = None) -> None:
        """Run this chat's lane again once its budget allows a call, or once Telegram takes
        calls to it again (a 429), or soon after a fault (or ``soon``, at the earliest)."""
        wait = (
            max(self.budget.next_free(chat_id), self.budget.calm(chat_id))
            if chat_id < 0
            else max(1.0 if soon is None else soon, self.floods.left(chat_id))
        )
        delay = max(wait, soon or 0.05)
        if chat_id in self._wakeups or self._closing:
            return
        loop = asyncio.get_running_loop()

        def fire() -> None:
            self._wakeups.pop(chat_id, None)
            self.schedule(chat_id)

        self._wakeups[chat_id] = loop.call_later(delay, fire)

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("delivery failed; the sweeper retries", exc_info=task.exception())
