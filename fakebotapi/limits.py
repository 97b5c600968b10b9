"""Flood control: 429s armed by tests, chats held back, Telegram's published limits, and a record
of the calls a client made before the retry_after it was given had passed.

Telegram's limits (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this):
about one message a second in a chat, 30 messages a second overall, 20 messages a minute in a
group. A call is *counted* when it sends a message anywhere, or edits or deletes one in a group;
edits and deletes in a private chat are not counted (the FAQ speaks of messages sent).

Invariants:
- a 429 answered to a call naming chat C at time t with retry_after R holds C until t + R: a
  counted call naming C before then is a violation, answered 429 with what is left, and recorded;
- a violation's 429 does not move that deadline (a client that waits it out is never punished);
- armed 429s (`arm`) apply to sends and edits, as they always did, never to deletes.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from .errors import ApiError, too_many_requests

GROUP_MESSAGES_PER_MINUTE = 20
MESSAGES_PER_SECOND = 30
PRIVATE_MESSAGES_PER_SECOND = 1

Kind = Literal["send", "edit", "delete"]


@dataclass
class _Armed:
    chat_id: int | None
    retry_after: int
    remaining: int


@dataclass(frozen=True)
class FloodViolation:
    """A counted call made `early_by` seconds before the retry_after its chat was given ended."""

    chat_id: int
    method: str
    early_by: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _seconds_left(until: float, now: float) -> int:
    return max(1, math.ceil(until - now))


class FloodControl:
    """Decides whether a send/edit/delete call is answered with 429 Too Many Requests."""

    def __init__(
        self, automatic: bool = False, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.automatic = automatic
        self.clock = clock
        self.violations: list[FloodViolation] = []
        self._armed: list[_Armed] = []
        self._holds: dict[int, float] = {}  # chat -> until (flood_chat)
        self._penalties: dict[int, float] = {}  # chat -> end of the last retry_after given
        self._per_chat: dict[int, deque[float]] = {}
        self._overall: deque[float] = deque()

    def arm(self, chat_id: int | None = None, retry_after: int = 1, count: int = 1) -> None:
        """The next `count` send/edit calls (to `chat_id`, or any chat) get 429."""
        self._armed.append(_Armed(chat_id, retry_after, count))

    def hold(self, chat_id: int, seconds: float) -> None:
        """For the next `seconds`, every counted call naming the chat gets 429."""
        until = self.clock() + seconds
        self._holds[chat_id] = max(self._holds.get(chat_id, until), until)

    def check(self, chat_id: int, method: str, *, kind: Kind, is_group: bool) -> None:
        """Raise ApiError(429) if this call must be refused; otherwise count it."""
        now = self.clock()
        counted = kind == "send" or is_group
        until = self._penalties.get(chat_id, 0.0)
        if counted and now < until:
            self.violations.append(FloodViolation(chat_id, method, until - now))
            raise too_many_requests(_seconds_left(until, now))
        try:
            self._decide(chat_id, now, kind=kind, counted=counted, is_group=is_group)
        except ApiError as error:
            retry_after = int((error.parameters or {}).get("retry_after", 0))
            self._penalties[chat_id] = max(until, now + retry_after)
            raise

    def _decide(
        self, chat_id: int, now: float, *, kind: Kind, counted: bool, is_group: bool
    ) -> None:
        if kind != "delete":
            for armed in self._armed:
                if armed.remaining > 0 and armed.chat_id in (None, chat_id):
                    armed.remaining -= 1
                    self._armed = [a for a in self._armed if a.remaining > 0]
                    raise too_many_requests(armed.retry_after)
        if not counted:
            return
        held = self._holds.get(chat_id, 0.0)
        if now < held:
            raise too_many_requests(_seconds_left(held, now))
        if not self.automatic:
            return
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
                raise too_many_requests(_seconds_left(stamps[0] + span, now))
        self._overall.append(now)
        window.append(now)
