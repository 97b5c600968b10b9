"""Telegram's flood control, chat by chat.

Telegram answers a call it will not take now with 429 and ``retry_after``, the seconds before it
takes calls again: a group past its 20 messages a minute, a burst, a long message. PTB's
``AIORateLimiter`` answers any 429 by holding *every* request of the process for
``retry_after`` (one process-wide event): one group under flood control froze every game, and
the taps of that time lost their answers (Telegram gives up on an unanswered tap after about
15 s). No kept library limits chat by chat with the waits kept in a store, so this module does,
in PTB's own extension point (``BaseRateLimiter``):

- A 429 to a call naming a chat holds that chat alone until ``retry_after`` has passed
  (``Floods``). The hold goes to the store (``app.chats.hold``), so the other instances and the
  next life of this one honour it too; it is read back at start and at every sweep.
- A call that would post to a held chat (a send, an edit, a delete) is never made before the
  hold ends. A short hold (``SHORT_HOLD``: the overall rate's second, a private chat's pace) is
  waited out by that call alone, as PTB would; a longer one fails at once with ``RetryAfter``
  for the time left, and whoever made it (a chat's delivery lane, an answer's queue) waits in
  its own lane, showing the newest state when the hold ends. Nothing else waits.
- A 429 to a call naming no chat is the bot's overall rate: calls naming a chat wait it out,
  each in its own task; answers to taps never wait for anything.
- The overall rate (30 messages a second) is kept in a strict window (``OverallWindow``), split
  evenly among the instances alive. It counts what Telegram counts (``counted``): a message
  sent anywhere, and in a group an edit or a delete too; a private chat's edits and deletes
  and every read go by without taking a place (the FAQ's limits speak of messages sent, and
  the fake Bot API counts the same: fakebotapi/RULES.md, "Flood control").
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from datetime import datetime, timedelta
from typing import Any

from telegram.constants import FloodLimit
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

Now = Callable[[], datetime]
Persist = Callable[[int, datetime], Awaitable[None]]
JSONDict = dict[str, Any]

# The methods that put something in a chat or change it: what a chat's flood control counts.
POSTS = ("send", "edit", "delete", "copy", "forward", "pin", "unpin", "stop")
# Calls that never wait for a flood: a tap's answer (Telegram's window is about 15 s) and a
# poll for updates, which name no chat.
NEVER_WAIT = frozenset({"answerCallbackQuery", "getUpdates"})
SHORT_HOLD = 3.0  # seconds of a hold a call waits out itself; a longer hold fails it at once
OVERALL_LOOK = 0.5  # seconds between two looks at the overall hold, while a call waits for it
START_RETRIES = 2  # a call refused for a moment (or, naming no chat, at start) tries again


# The methods that send a message: counted by Telegram's overall limit in every chat.
SENDS = ("send", "copy", "forward")


def counted(endpoint: str, chat: int) -> bool:
    """Telegram's 30 messages a second count this call: a message sent anywhere, or any post
    in a group (a negative chat id). A private chat's edits (the answers on prompts, the
    deals: half of all calls) and reads such as getChatMember take no place in the window."""
    return endpoint.startswith(SENDS) or (chat < 0 and endpoint.startswith(POSTS))


# Telegram counts a second's calls as they arrive, and a call is stamped here when it leaves:
# the window is a little longer than a second, so that a call slow on its way never lands in
# the same second as the thirty after it.
OVERALL_PERIOD = 1.1


class OverallWindow:
    """At most ``rate`` calls in any ``period`` seconds, first come first served: a call takes
    the earliest moment at least ``period`` after the call ``rate`` places before it, and waits
    until then. Written here because aiolimiter's leaky bucket (PTB's) lets up to twice its
    rate through in one second (its full bucket, then its drain), and Telegram's count answers
    the calls past thirty with 429s (benchmarks/cpu.py at 40 tables: a 429 for every eleventh
    press). Each call's moment is fixed when it arrives, so no call is ever passed by later
    ones: a window that let every waiter race for each freed place let later calls overtake
    (tests/unit/transport/test_flood.py), and the one run at 40 tables made with it ended
    with a prompt unsent for a minute."""

    def __init__(
        self,
        rate: float,
        period: float = OVERALL_PERIOD,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.rate = max(1, math.floor(rate))
        self.period = period
        self._clock, self._sleep = clock, sleep
        self._moments: deque[float] = deque()  # the last ``rate`` calls' moments, in order
        self.placed = 0  # calls given a moment, ever

    async def __aenter__(self) -> None:
        now = self._clock()
        moment = now
        if len(self._moments) == self.rate:
            moment = max(now, self._moments.popleft() + self.period)
        self._moments.append(moment)
        self.placed += 1
        if moment > now:
            await self._sleep(moment - now)

    async def __aexit__(self, *exc: object) -> None:
        return None

    def backlog(self) -> float:
        """Seconds a call that came now would wait for its place (0: it would go at once)."""
        if len(self._moments) < self.rate:
            return 0.0
        return max(0.0, self._moments[0] + self.period - self._clock())


def retry_seconds(exc: RetryAfter) -> float:
    """``retry_after`` in seconds (PTB warns on reading it until its int form is gone)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def chat_of(data: Mapping[str, Any]) -> int | None:
    """The chat a call names (by id; the bot never names one by @username)."""
    chat = data.get("chat_id")
    try:
        return int(chat) if chat is not None else None
    except (TypeError, ValueError):
        return None


class Floods:
    """Until when Telegram refuses each chat, and the bot as a whole. This is the process's
    cache; the store holds the chats' holds (``persist`` writes one, ``learn`` reads them)."""

    def __init__(
        self,
        now: Now,
        persist: Persist | None = None,
        counted: Callable[[int | None], None] | None = None,
    ) -> None:
        self._now = now
        self.persist = persist
        self.counted = counted  # told of every 429 (the metrics)
        self._held: dict[int, datetime] = {}
        self._overall: datetime | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def hold(self, chat_id: int | None, seconds: float) -> datetime:
        """Telegram said 429, retry after ``seconds``: to ``chat_id``, or (None) to a call that
        named no chat. The hold is written to the store in the background."""
        until = self._now() + timedelta(seconds=max(seconds, 0.0))
        if self.counted is not None:
            self.counted(chat_id)
        if chat_id is None:
            self._overall = max(until, self._overall or until)
            log.warning("Telegram's overall flood control: sends wait %.1f s", seconds)
            return until
        if until > self._held.get(chat_id, until - timedelta(seconds=1)):
            self._held[chat_id] = until
        log.warning("chat %s: Telegram's flood control; no call for %.1f s", chat_id, seconds)
        if self.persist is not None:
            self._spawn(self._persist(self.persist, chat_id, until))
        return until

    async def _persist(self, persist: Persist, chat_id: int, until: datetime) -> None:
        try:
            await persist(chat_id, until)
        except Exception as exc:  # the store is away: this process still honours it
            log.warning("chat %s: the flood wait was not stored: %r", chat_id, exc)

    def learn(self, held: Mapping[int, datetime]) -> None:
        """What the store says (every instance's 429s): holds over are forgotten here."""
        now = self._now()
        self._held = {c: t for c, t in self._held.items() if t > now}
        for chat_id, until in held.items():
            if until > self._held.get(chat_id, now):
                self._held[chat_id] = until

    def left(self, chat_id: int) -> float:
        """Seconds before ``chat_id`` may be posted to again (0: now)."""
        until = self._held.get(chat_id)
        if until is None:
            return 0.0
        left = (until - self._now()).total_seconds()
        if left <= 0:
            del self._held[chat_id]
            return 0.0
        return left

    def overall_left(self) -> float:
        """Seconds before a call naming any chat may go (after a 429 that named none)."""
        if self._overall is None:
            return 0.0
        left = (self._overall - self._now()).total_seconds()
        if left <= 0:
            self._overall = None
            return 0.0
        return left

    def held(self) -> dict[int, float]:
        """Every chat held now, with its seconds left."""
        return {c: s for c in list(self._held) if (s := self.left(c)) > 0}

    async def close(self) -> None:
        """Let the holds being written finish (at shutdown)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class ChatLimiter(BaseRateLimiter[int]):
    """PTB's rate limiter, with flood control chat by chat (see the module's docstring)."""

    def __init__(self, floods: Floods, overall: float = FloodLimit.MESSAGES_PER_SECOND) -> None:
        self.floods = floods
        self.overall = overall
        self.instances = 1
        self.window = OverallWindow(overall)

    async def initialize(self) -> None:
        """Nothing to open."""

    async def shutdown(self) -> None:
        await self.floods.close()

    def share(self, instances: int) -> None:
        """``instances`` are alive now: this one may use its share of the overall rate (an even
        split wastes what an idle instance does not use, but costs no statement per call)."""
        instances = max(instances, 1)
        if instances != self.instances:
            self.instances = instances
            self.window = OverallWindow(self.overall / instances)

    def backlog(self) -> float:
        """Seconds a call Telegram's 30 a second counts would wait now for this instance's
        share of them (``GroupBudget`` spreads a group's updates that can wait further while
        it is long)."""
        return self.window.backlog()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | JSONDict | list[JSONDict]:
        chat = chat_of(data)
        if chat is None:
            return await self._unnamed(callback, args, kwargs, endpoint)
        posts = endpoint.startswith(POSTS)
        tries = 0
        while True:
            # A read naming the chat is no post: held back only once it was refused itself.
            left = self.floods.left(chat) if posts or tries else 0.0
            if left > SHORT_HOLD:  # Telegram said not before then: the call is not made now
                raise RetryAfter(max(1, math.ceil(left)))
            if left > 0:  # a moment: this call waits it out, nothing else does
                await asyncio.sleep(min(left, OVERALL_LOOK))
                continue
            while (overall := self.floods.overall_left()) > 0:  # noqa: ASYNC110 - a clock
                await asyncio.sleep(min(overall, OVERALL_LOOK))
            try:
                if counted(endpoint, chat):
                    async with self.window:
                        return await callback(*args, **kwargs)
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                self.floods.hold(chat, retry_seconds(exc))
                tries += 1
                if tries > START_RETRIES or retry_seconds(exc) > SHORT_HOLD:
                    raise

    async def _unnamed(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | JSONDict | list[JSONDict]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
    ) -> bool | JSONDict | list[JSONDict]:
        """A call naming no chat: never held back. A 429 to it slows the sends (they wait);
        a start-up call alone waits and tries again, a tap's answer or a poll does not."""
        attempt = 0
        while True:
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                seconds = retry_seconds(exc)
                self.floods.hold(None, seconds)
                if endpoint in NEVER_WAIT or attempt >= START_RETRIES:
                    raise
                attempt += 1
                await asyncio.sleep(seconds)
