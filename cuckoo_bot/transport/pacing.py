"""How fast the bot may talk to each chat: a group's budget, and a private chat's pace.

Telegram allows a bot about 20 messages a minute in one group and about one a second in one
private chat (and 30 a second in all). The rate limiter (``flood.py``) keeps the overall limit
and a 429's wait, chat by chat, but it can only refuse or delay a call: the group table must
instead know *whether* a call is allowed now, so it can show the latest state in one edit later
rather than queue a call per move. aiolimiter (which PTB uses) has no injectable clock, and the
budget test runs on a controlled one, so the sliding window below is written here.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable

from cachetools import LRUCache
from telegram.constants import FloodLimit

from cuckoo_bot.app.ports import CallLedger
from cuckoo_bot.app.tuning import CHATS_KEPT
from cuckoo_bot.transport.flood import Floods

log = logging.getLogger(__name__)

Seconds = Callable[[], float]

# Telegram counts a group's calls per minute as they arrive; a call is counted here when it is
# decided, and may then wait a moment for the overall limiter or a 429's retry. Instances that
# share the overall rate wait there longer (each has its share only), so a shared window is a
# little longer than a minute: a late call never lands in the minute after the others.
GROUP_PERIOD = 60.0
SHARED_GROUP_PERIOD = GROUP_PERIOD + 3.0
# While answers to commands wait for a group's budget, the game's own updates (which can be
# coalesced) look again this often: the answers take the next calls.
ANSWERS_FIRST = 0.5
# A group's updates that can wait (the table's edits) are spread evenly over its minute, one
# every ``period / rate`` seconds (3 s). While the token is at Telegram's 30 messages a second
# (a counted call would wait longer than ``BUSY`` for its place), they are spread ``BUSY_SPREAD``
# times wider: the table then shows the latest moves every 9 s instead of 3, and the places it
# leaves go to the prompts, which the game waits for. Measured with ``benchmarks.cpu`` at 40
# tables (the only load that reaches the ceiling): see the development notes, "The table
# yields at Telegram's ceiling".
BUSY = 0.5  # seconds
BUSY_SPREAD = 3


class GroupBudget:
    """At most ``rate`` calls to one group in any ``period`` seconds (sends, edits, deletes).

    With a ``ledger`` (several instances on one PostgreSQL) the budget is the group's, not this
    instance's: a call is taken in the shared ledger, and this instance's window follows what
    the ledger says (every instance's calls), so its decisions to wait, coalesce or send count
    them all. Without one, the window is this process's (one instance)."""

    def __init__(
        self,
        rate: int,
        clock: Seconds,
        period: float = GROUP_PERIOD,
        ledger: CallLedger | None = None,
        floods: Floods | None = None,
        busy: Seconds | None = None,
    ) -> None:
        self.rate = rate
        self.floods = floods  # a group Telegram holds back (a 429) gets no call until then
        # How long a call Telegram's overall limit counts would wait now (``ChatLimiter``).
        self.busy = busy
        self.period = period
        self.ledger = ledger
        self._clock = clock
        self._calls: dict[int, deque[float]] = {}
        self._answers: dict[int, int] = {}  # groups with answers to commands waiting

    def answers_waiting(self, chat_id: int, count: int) -> None:
        """``count`` answers to commands wait for the group's budget: they go first."""
        if count > 0:
            self._answers[chat_id] = count
        else:
            self._answers.pop(chat_id, None)

    def _behind_answers(self, chat_id: int, answer: bool) -> bool:
        return not answer and self._answers.get(chat_id, 0) > 0

    def _window(self, chat_id: int) -> deque[float]:
        now = self._clock()
        calls = self._calls.setdefault(chat_id, deque())
        while calls and calls[0] <= now - self.period:
            calls.popleft()
        return calls

    async def take(self, chat_id: int, *, answer: bool = False) -> bool:
        """Spend one call if the budget allows it now. ``answer``: the call answers a command
        (the game's own updates wait while answers do)."""
        calls = self._window(chat_id)
        if len(calls) >= self.rate or self._behind_answers(chat_id, answer):
            return False
        if self.floods is not None and self.floods.left(chat_id) > 0:
            return False
        now = self._clock()
        if self.ledger is None:
            calls.append(now)
            return True
        try:
            taken, window, held = await self.ledger.take(chat_id, now, self.rate, self.period)
        except Exception as exc:  # the database is away: no call now, the caller waits
            log.warning("group %s: the shared budget does not answer: %r", chat_id, exc)
            calls.append(now)  # and retries a little later, not at once
            return False
        self._follow(chat_id, window)
        if held is not None and self.floods is not None:  # another instance was told a 429
            self.floods.learn({chat_id: held})
        return taken

    async def spend(self, chat_id: int) -> None:
        """Count a call that was made anyway (a reply to a command): later calls wait longer."""
        now = self._clock()
        self._window(chat_id).append(now)
        if self.ledger is not None:
            try:
                self._follow(chat_id, await self.ledger.spend(chat_id, now, self.period))
            except Exception as exc:
                log.warning("group %s: the shared budget does not answer: %r", chat_id, exc)

    def _follow(self, chat_id: int, window: list[float]) -> None:
        """This instance's view of the group's window becomes the ledger's."""
        self._calls[chat_id] = deque(sorted(window))

    def calm(self, chat_id: int) -> float:
        """Seconds until an update that can wait is welcome: calls spread evenly over the
        period, so a burst of moves is shown in one edit instead of spending the budget, and
        wider while the token is at Telegram's overall limit (``BUSY``)."""
        calls = self._window(chat_id)
        if not calls:
            return 0.0
        spacing = self.period / self.rate
        if self.busy is not None and self.busy() > BUSY:
            spacing *= BUSY_SPREAD
        return max(0.0, calls[-1] + spacing - self._clock())

    def next_free(self, chat_id: int, *, answer: bool = False) -> float:
        """Seconds until the budget allows a call again (0 when it does now)."""
        calls = self._window(chat_id)
        free = self.floods.left(chat_id) if self.floods is not None else 0.0
        if len(calls) >= self.rate:
            free = max(free, calls[len(calls) - self.rate] + self.period - self._clock())
        return max(free, ANSWERS_FIRST) if self._behind_answers(chat_id, answer) else free

    def forget_idle(self) -> None:
        """Drop the windows of groups with no recent call (keeps memory bounded)."""
        for chat_id in [c for c in self._calls if not self._window(c)]:
            del self._calls[chat_id]


class PrivatePacer:
    """At least ``interval`` seconds between two messages sent to one private chat. Edits are
    not paced: they change what the chat shows without a new notification."""

    def __init__(self, interval: float = 1 / FloodLimit.MESSAGES_PER_SECOND_PER_CHAT) -> None:
        self.interval = interval
        # When each chat was last written to (the chats written to longest ago forgotten first).
        self._last: LRUCache[int, float] = LRUCache(CHATS_KEPT)

    def delay(self, chat_id: int) -> float:
        """Seconds a new message to ``chat_id`` must wait now (0: it may go)."""
        last = self._last.get(chat_id)
        if self.interval <= 0 or last is None:
            return 0.0
        return max(0.0, last + self.interval - asyncio.get_running_loop().time())

    async def wait(self, chat_id: int) -> None:
        """Wait until a new message to ``chat_id`` keeps the pace; call ``sent`` after it."""
        delay = self.delay(chat_id)
        if delay > 0:
            await asyncio.sleep(delay)

    def sent(self, chat_id: int, ago: float = 0.0) -> None:
        """A message reached ``chat_id`` (counted from Telegram's answer, which comes after
        Telegram counted it), ``ago`` seconds ago (another instance's, read in the store)."""
        if self.interval <= 0:
            return
        now = asyncio.get_running_loop().time()
        self._last[chat_id] = max(now - max(ago, 0.0), self._last.get(chat_id, 0.0))
