"""How fast the bot may talk to each chat: a group's budget, and a private chat's pace.

Telegram allows a bot about 20 messages a minute in one group and about one a second in one
private chat (and 30 a second in all). PTB's ``AIORateLimiter`` keeps the overall limit and
waits out a 429, but it can only make a call wait: the group table must instead know *whether*
a call is allowed now, so it can show the latest state in one edit later rather than queue a
call per move. aiolimiter (which PTB uses) has no injectable clock, and the budget test runs on
a controlled one, so the sliding window below is written here.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

Seconds = Callable[[], float]


class GroupBudget:
    """At most ``rate`` calls to one group in any ``period`` seconds (sends, edits, deletes)."""

    def __init__(self, rate: int, clock: Seconds, period: float = 60.0) -> None:
        self.rate = rate
        self.period = period
        self._clock = clock
        self._calls: dict[int, deque[float]] = {}

    def _window(self, chat_id: int) -> deque[float]:
        now = self._clock()
        calls = self._calls.setdefault(chat_id, deque())
        while calls and calls[0] <= now - self.period:
            calls.popleft()
        return calls

    def take(self, chat_id: int) -> bool:
        """Spend one call if the budget allows it now."""
        calls = self._window(chat_id)
        if len(calls) >= self.rate:
            return False
        calls.append(self._clock())
        return True

    def spend(self, chat_id: int) -> None:
        """Count a call that was made anyway (a reply to a command): later calls wait longer."""
        self._window(chat_id).append(self._clock())

    def calm(self, chat_id: int) -> float:
        """Seconds until an update that can wait is welcome: calls spread evenly over the
        period, so a burst of moves is shown in one edit instead of spending the budget."""
        calls = self._window(chat_id)
        if not calls:
            return 0.0
        return max(0.0, calls[-1] + self.period / self.rate - self._clock())

    def next_free(self, chat_id: int) -> float:
        """Seconds until the budget allows a call again (0 when it does now)."""
        calls = self._window(chat_id)
        if len(calls) < self.rate:
            return 0.0
        return max(0.0, calls[len(calls) - self.rate] + self.period - self._clock())

    def forget_idle(self) -> None:
        """Drop the windows of groups with no recent call (keeps memory bounded)."""
        for chat_id in [c for c in self._calls if not self._window(c)]:
            del self._calls[chat_id]


class PrivatePacer:
    """At least ``interval`` seconds between two messages sent to one private chat. Edits are
    not paced: they change what the chat shows without a new notification."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self._last: dict[int, float] = {}

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

    def sent(self, chat_id: int) -> None:
        """A message reached ``chat_id`` (counted from Telegram's answer, which comes after
        Telegram counted it)."""
        if self.interval <= 0:
            return
        now = asyncio.get_running_loop().time()
        self._last[chat_id] = now
        if len(self._last) > 10_000:  # forget chats not written to for a while
            self._last = {c: t for c, t in self._last.items() if t > now - self.interval}
