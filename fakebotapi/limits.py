"""Flood control: 429s armed by tests, plus an optional limiter with Telegram's published limits."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .errors import too_many_requests

GROUP_MESSAGES_PER_MINUTE = 20
MESSAGES_PER_SECOND = 30
PRIVATE_MESSAGES_PER_SECOND = 1


@dataclass
class _Armed:
    chat_id: int | None
    retry_after: int
    remaining: int


class FloodControl:
    """Decides whether a send/edit call is answered with 429 Too Many Requests."""

    def __init__(
        self, automatic: bool = False, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.automatic = automatic
        self.clock = clock
        self._armed: list[_Armed] = []
        self._per_chat: dict[int, deque[float]] = {}
        self._overall: deque[float] = deque()

    def arm(self, chat_id: int | None = None, retry_after: int = 1, count: int = 1) -> None:
        """The next `count` send/edit calls (to `chat_id`, or any chat) get 429."""
        self._armed.append(_Armed(chat_id, retry_after, count))

    def check(self, chat_id: int, *, is_send: bool, is_group: bool) -> None:
        """Raise ApiError(429) if this call must be refused; otherwise count it."""
        for armed in self._armed:
            if armed.remaining > 0 and armed.chat_id in (None, chat_id):
                armed.remaining -= 1
                self._armed = [a for a in self._armed if a.remaining > 0]
                raise too_many_requests(armed.retry_after)
        # Automatic limits, as Telegram publishes them: 30 messages a second overall, 20 calls
        # a minute in a group (sends and edits), one message a second in a private chat.
        if not self.automatic or not (is_send or is_group):
            return
        now = self.clock()
        window = self._per_chat.setdefault(chat_id, deque())
        chat_limit = (
            (window, GROUP_MESSAGES_PER_MINUTE, 60.0)
            if is_group
            else (window, PRIVATE_MESSAGES_PER_SECOND, 1.0)
        )
        for stamps, limit, span in ((self._overall, MESSAGES_PER_SECOND, 1.0), chat_limit):
            while stamps and stamps[0] <= now - span:
                stamps.popleft()
            if len(stamps) >= limit:
                raise too_many_requests(max(1, math.ceil(stamps[0] + span - now)))
        self._overall.append(now)
        window.append(now)
