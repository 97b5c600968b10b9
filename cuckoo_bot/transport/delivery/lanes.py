"""A delivery lane: one chat's notices, planned (``plan_private.py``, ``plan_group.py``) and
carried out step by step (``Lane.execute``), each answer recorded (``results.py``); reports
merge into ``messages`` by a conditional write, in any order (``app/notices/message.py``)."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from telegram import InlineKeyboardMarkup

from cuckoo_bot.app.notices import FOLDED, Delivered, Notice, SentMessage
from cuckoo_bot.transport.delivery import orphans
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.known import ChatView, Known
from cuckoo_bot.transport.delivery.results import LaneResult, Marks
from cuckoo_bot.transport.delivery.steps import (
    CALLS,
    FENCED,
    ClaimsRanOut,
    Clear,
    Delete,
    Edit,
    Orphans,
    Send,
    Show,
    Skip,
    Step,
    TakeKeys,
    Unchanged,
)
from cuckoo_bot.transport.delivery.tools import Tools
from cuckoo_bot.transport.render import Rendered

log = logging.getLogger(__name__)


def keys_live(keyboard: InlineKeyboardMarkup | None) -> bool:
    return keyboard is not None and bool(keyboard.inline_keyboard)


class Lane:
    """Carries a plan out: one Bot API call per step at most, each answer recorded. A kind of
    lane says how a notice looks, what a call costs and which faults it gets over."""

    def __init__(self, tools: Tools, chat_id: int, known: Known, marks: Marks) -> None:
        self.tools = tools
        self.chat_id = chat_id
        self.known = known
        self.result = LaneResult()
        self.marks = marks  # the batch's lanes, this one among them
        marks.results.append(self.result)
        self.holding: tuple[Notice, ...] = ()  # the notices this run shows (``holds``)
        self.suspect = False  # a notice passed over here may have been shown (a copy above)

    def view(self) -> ChatView:
        tools = self.tools
        return ChatView(self.chat_id, self.known, tools.doubted(self.chat_id), tools.maybe_shown)

    # -- what a kind of lane says -----------------------------------------------------------

    def render(self, notice: Notice, show: Show, folded: tuple[Notice, ...]) -> Rendered:
        raise NotImplementedError

    def recall(self, target: SentMessage, rendered: Rendered, notice: Notice) -> Rendered:
        return rendered

    def retold(self, step: Clear) -> Rendered | None:
        return None

    async def spend(self) -> bool:
        """A call may be made now (a group's spends its budget)."""
        return True

    async def pace(self) -> None:
        """Wait, if need be, before a new message (a private chat's one a second)."""

    def sent(self) -> None:
        """A new message was sent (a private chat's pace counts it)."""

    def fault(self, step: Step, exc: Exception) -> bool:
        """A step's call failed (not for Telegram being away): True if the plan goes on."""
        return False

    def waits(self) -> bool:
        """An update that may wait waits now."""
        return False

    def holds(self) -> bool:
        """The notices of this run are surely still this process's (their lease has not run
        out while it waited for the store, the budget or the pace): calls may be made."""
        done = {d.notice_id for d in self.result.delivered}  # told (marked early, perhaps)
        if self.tools.holds(n for n in self.holding if n.id not in done):
            return True
        log.info("chat %s: the claims ran out before the notices were shown; left", self.chat_id)
        return False

    def fence(self) -> None:
        """Right before a call that shows a notice: the claims still hold, or the plan stops
        here (``ClaimsRanOut``) and another instance shows the rest."""
        if not self.holds():
            raise ClaimsRanOut(self.chat_id)

    # -- the executor ---------------------------------------------------------------------------

    async def execute(self, steps: Sequence[Step]) -> bool:
        """Carry the steps out in order; False when the chat allows no call now (the rest of
        the chat waits), or when the notices' claims may have run out (another instance may
        be showing them). An edit whose message is gone does its ``otherwise`` instead of the
        rest; that fallback is the call already paid for."""
        pending = deque(steps)
        paid = False
        while pending:
            step = pending.popleft()
            if isinstance(step, Edit) and step.may_wait and self.waits():
                self.result.deferred = True  # shown, coalesced, with the next moves
                continue
            if isinstance(step, CALLS) and not paid and not await self.spend():
                return False
            paid = False
            try:
                # A step that shows a notice is fenced by its claims (after the budget's
                # statement: right before its call); an older message's keys coming off is
                # right whoever holds the notices now, and is finished.
                if isinstance(step, FENCED):
                    self.fence()
                if isinstance(step, Edit):
                    if not await self._edit(step):
                        pending, paid = deque(step.otherwise), True
                    continue
                await self._HANDLERS[type(step)](self, step)
            except ClaimsRanOut:
                return False
            except Unreachable as exc:
                if exc.maybe_sent and isinstance(step, Send):  # shown, maybe: keys off later
                    await self.tools.doubt(self.chat_id, step.notice.id)
                raise
            except Exception as exc:
                if not self.fault(step, exc):
                    raise
        return True

    async def _edit(self, step: Edit) -> bool:
        rendered = self.render(step.notice, step.show, step.folded)
        if step.recall:
            rendered = self.recall(step.target, rendered, step.notice)
        if not await self.tools.calls.edit(self.chat_id, step.target.message_id, rendered):
            return False
        keys = step.keys and keys_live(rendered.keyboard)
        self.done(step.notice, step.target.message_id, keys)
        self._folded(step.folded)
        return True

    async def _send(self, step: Send) -> None:
        rendered = self.render(step.notice, step.show, step.folded)
        if step.reply_to is not None:
            rendered = replace(rendered, reply_to=step.reply_to)
        # A copy another process may have shown (dead before its mark, or sending it now) has
        # keys only if this one does. In a group each guess costs budget.
        keys = keys_live(rendered.keyboard)
        guess = keys and self.tools.maybe_shown(step.notice)
        await self.pace()
        self.fence()  # the pace may have taken a while
        message_id = await self.tools.send(self.chat_id, step.notice, rendered, guess=guess)
        self.sent()
        self.done(step.notice, message_id, keys)
        self._folded(step.folded)
        if guess or self.suspect or self.tools.doubted(self.chat_id):
            await orphans.clear(self, step.notice.id, below=message_id)

    async def _unchanged(self, step: Unchanged) -> None:
        rendered = self.render(step.notice, Show.OWN, step.folded)
        keys = keys_live(rendered.keyboard)
        self.done(step.notice, step.target.message_id, keys)
        self._folded(step.folded)

    async def _clear(self, step: Clear) -> None:
        rendered = self.retold(step)
        old = step.old
        if rendered is None and not old.live_keys:
            return  # answered already: no keys to take off
        if rendered is not None:
            await self.tools.calls.edit(self.chat_id, old.message_id, rendered)
        else:
            await self.tools.calls.remove_keys(self.chat_id, old.message_id)
        self._gone(old)

    async def _delete(self, step: Delete) -> None:
        await self.tools.calls.remove(self.chat_id, step.old.message_id)
        self._gone(step.old)

    async def _take_keys(self, step: TakeKeys) -> None:
        await self.tools.calls.remove_keys(self.chat_id, step.target.message_id)
        self.done(step.notice, step.target.message_id, False)

    async def _skip(self, step: Skip) -> None:
        self.result.skip(step.notice, step.why)
        self.suspect = self.suspect or self.tools.maybe_shown(step.notice)

    async def _orphans(self, step: Orphans) -> None:
        await orphans.clear(self, step.notice.id)

    _HANDLERS: ClassVar[dict[type, Callable[[Lane, Any], Awaitable[None]]]] = {
        Send: _send,
        Unchanged: _unchanged,
        Clear: _clear,
        Delete: _delete,
        TakeKeys: _take_keys,
        Skip: _skip,
        Orphans: _orphans,
    }

    # -- what is recorded -----------------------------------------------------------------------

    def done(self, notice: Notice, message_id: int | None, keys: bool) -> None:
        self.result.delivered.append(Delivered(notice.id, message_id, keys))
        if message_id is not None:
            # Older rows that showed this message no longer describe it.
            for old in self.known.live.get((self.chat_id, notice.game_id or 0), []):
                if old.message_id == message_id and old.notice.id != notice.id:
                    self.result.delivered.append(self.tools.keys_gone(old))
            newest = max(self.known.newest.get(self.chat_id, 0), message_id)
            sent = SentMessage(notice, message_id, keys, newest)
            self.known.remember(sent)
            self.result.messages.append(sent)

    def _gone(self, old: SentMessage) -> None:
        """``old`` has no keys any more."""
        self.result.delivered.append(self.tools.keys_gone(old))
        cleared = SentMessage(old.notice, old.message_id, False, old.newest)
        self.known.remember(cleared)
        self.result.messages.append(cleared)

    def _folded(self, folded: tuple[Notice, ...]) -> None:
        """Rounds folded under a table are shown by its message (no call of their own). They
        are not recorded on it: a later view of such a round must not edit that message."""
        for inner in folded:
            self.result.skip(inner, FOLDED)

    async def tidy(self, notice_id: int) -> None:
        """A chat in doubt since notice ``notice_id``, with nothing to show: what no notice
        accounts for, after the newest message the notices before it put there, loses its
        keys now."""
        await orphans.clear(self, notice_id)
