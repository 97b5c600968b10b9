"""The courier: shows committed notices in Telegram, each chat in its own lane.

One loop for every batch, whether a press hands it over or it is read back from the outbox:
split the notices by chat, run each chat's lane side by side (``chats.py``: a group held back
by its budget never delays a private chat), then hand the lanes' report to the app
(``app.delivery.settle``), which records it in one go and says what to deliver next. A lane
plans what its chat needs (``plan_private.py``, ``plan_group.py``: pure) and carries it out
(``lanes.py``). Several instances: a chat's notices are shown in order whichever instance
holds them (``elsewhere.py``), and keys of a message no notice accounts for are cleared only
while no other instance is showing something there (``orphans.py``).

The rules this keeps, (a)-(d), are in ``app/notices/message.py`` and the README's "Delivery's
rules", checked by ``tests/unit/transport/test_delivery_invariants.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from cachetools import LRUCache
from telegram import Bot
from telegram.error import TelegramError

from cuckoo_bot.app import outbox, shown
from cuckoo_bot.app.delivery import Report, settle
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices import (
    Notice,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.sweep import Look
from cuckoo_bot.app.tuning import FRESH, NOTICES_KEPT
from cuckoo_bot.transport.delivery import copies, elsewhere
from cuckoo_bot.transport.delivery.background import Background
from cuckoo_bot.transport.delivery.calls import Calls, Unreachable
from cuckoo_bot.transport.delivery.chats import Chats
from cuckoo_bot.transport.delivery.known import Known
from cuckoo_bot.transport.delivery.results import Marks
from cuckoo_bot.transport.delivery.tools import Tools
from cuckoo_bot.transport.flood import Floods
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Renderer

log = logging.getLogger(__name__)


class Courier(Background):
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
        self._in_flight: set[int] = set()  # notices this process is showing (shared with chats)
        self.chats = Chats(self.tools, self.floods, self.schedule, self._in_flight)
        super().__init__()
        # Notices marked lately: a sweep that read them before the mark committed, or a press
        # handed over after a sweep took its notices, must not send them again.
        self._marked: LRUCache[int, None] = LRUCache(NOTICES_KEPT)

    @property
    def budget(self) -> GroupBudget:
        return self.tools.budget

    @property
    def pacer(self) -> PrivatePacer:
        return self.tools.pacer

    def clear_keys_later(self, chat_id: int, message_id: int) -> None:
        """Take the keys off a message in the background (one edit, not paced)."""

        async def clear() -> None:
            try:
                await self.tools.calls.remove_keys(chat_id, message_id)
            except (Unreachable, TelegramError) as exc:
                log.info("keys of message %s in chat %s left: %s", message_id, chat_id, exc)

        self._spawn(clear())

    def saw(self, chat_id: int, message_id: int) -> None:
        """A message outside the outbox appeared in a private chat (a reply, the user's own)."""
        self.chats.saw(chat_id, message_id)

    # -- entry points ---------------------------------------------------------------------------

    def post(self, batch: Batch | None) -> None:
        """Deliver a committed batch in the background: the press is answered at once."""
        if batch:
            self.tools.hand(batch)
            self._spawn(self.deliver(batch))

    def schedule(self, chat_id: int | None = None) -> None:
        """Deliver what the outbox holds (for one chat, or all) in the background."""
        self._spawn(self.sweep(chat_id))

    async def sweep(self, chat_id: int | None = None, look: Look | None = None) -> int:
        """Deliver what the outbox still holds: leftovers of a crash, chats that had to wait,
        what another instance left. Sweeping every chat leaves the notices a press of this
        process handed over less than ``FRESH`` ago to that press. ``look``: what the sweeper
        just read (None: read here); with nothing undelivered there is nothing to claim."""
        young = self.deps.clock.now() - FRESH

        def ours_now(n: Notice) -> bool:
            return (
                chat_id is not None
                or n.chat_id in self.chats.waiting
                or n.created_at is None
                # A notice this process made and handed to itself (a press, a clock, a
                # reroute) is left to that delivery for a moment (it may not have started).
                or n.id not in self.tools.handed
                or n.created_at < young
            )

        if chat_id is None:  # first: what is delivered next must know where a copy may stand
            self.tools.learn_doubts(await shown.doubts(self.deps) if look is None else look.doubts)
        batch = Batch([])
        if look is None or look.unsent:
            batch = await outbox.claim(self.deps, chat_id, skip=set(self._in_flight), keep=ours_now)
        handled = await self._deliver(batch, from_store=True)
        chats = {n.chat_id for n in batch.notices}
        for doubted, since in self.tools.doubts(chat_id).items():
            if doubted not in chats:
                await self.chats.tidy(doubted, since)
        if chat_id is None:  # the look's copies stand if this sweep changed no message
            seen = None if look is None or handled or look.doubts else look.copies
            await copies.settle(self.chats, await shown.copies(self.deps) if seen is None else seen)
        return handled

    async def deliver(self, batch: Batch) -> int:
        return await self._deliver(batch, from_store=False)

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
        since = self.deps.clock.now()
        self.tools.renewed(await outbox.renew(self.deps, set(self._in_flight)), since)

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
        self.tools.hold(notices, batch.claimed_at)
        marks = Marks()  # every lane's result so far, even one cut short
        try:
            known = Known(batch)
            by_chat: dict[int, list[Notice]] = {}
            for notice in notices:
                by_chat.setdefault(notice.chat_id, []).append(notice)
            behind, left = await elsewhere.behind(self.tools, by_chat, known, batch.read_at)
            if not from_store:  # older notices left by an instance that died go first
                self.chats.waiting |= left - behind
            try:
                results = await asyncio.gather(
                    *(
                        self.chats.run(chat, items, known, from_store, claimed, marks)
                        if chat not in behind
                        else self.chats.after_elsewhere(chat)
                        for chat, items in by_chat.items()
                    )
                )
            except asyncio.CancelledError:
                # Shutting down: what was shown is marked (briefly), the rest stays claimable.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(marks.mark(self.tools), timeout=2)
                raise
            report = Report(
                delivered=[d for result in results for d in result.unmarked()],
                unreachable=[n for result in results for n in result.unreachable],
                migrated=[m for result in results for m in result.migrated],
            )
            following = await _settle(self.deps, self.tools, report, notices)
            for done in (d for result in results for d in result.delivered):
                if done.retry_at is None:  # a failed try is taken again later
                    self._marked[done.notice_id] = None
        finally:
            self._in_flight -= ids | claimed
            self.tools.release(ids | claimed)
        return following, sum(d.tries for d in report.delivered)

    def closing(self) -> None:
        self.chats.close()

    def reopen(self) -> None:
        """Wake-ups are taken again (a test's instance back after a drain)."""
        self.chats.closing = False


async def _settle(deps: Deps, tools: Tools, report: Report, notices: list[Notice]) -> Batch:
    """Record a delivery. The store may refuse it once (two instances' marks deadlocked on
    PostgreSQL, which undoes one of them): tried again at once. Refused twice, what these
    notices showed stays unrecorded, so their next delivery treats them as another process's
    (shown maybe: a doubt, the copy looked for and recorded), not as new."""
    try:
        return await settle(deps, report)
    except Exception as exc:
        log.info("recording a delivery failed (%r); once more", exc)
    try:
        return await settle(deps, report)
    except Exception:
        for notice in notices:
            tools.handed.pop(notice.id, None)
        raise
