"""Which updates are handled, when: no chat can hold back another.

PTB hands every update to an update processor, which runs up to ``max_concurrent_updates``
handlers side by side. This one puts a lane per chat in front of that: a chat has at most
``PER_CHAT`` updates in handling, the others of that chat wait in their lane (holding none of
the shared slots), a command the same person sends again while the first is still waiting or
being handled is handled once (a retry after the answer is a new command), and a lane holds at
most ``BACKLOG`` waiting updates (the excess is dropped, with a log line). A flood in one
group therefore costs that group its own updates only.
Each update is also counted by kind and timed, and its chat named on its log lines.

PTB's ``SimpleUpdateProcessor`` has one shared semaphore and nothing per chat, so the lanes are
written here.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.metrics import Metrics, update_kind

log = logging.getLogger(__name__)

PER_CHAT = 2  # updates of one chat in handling at once
BACKLOG = 50  # updates of one chat waiting; more are dropped


@dataclass
class _Lane:
    running: int = 0
    waiting: deque[asyncio.Future[None]] = field(default_factory=deque)
    pending: set[tuple[int, str]] = field(default_factory=set)  # (user, command) not done yet
    dropped: int = 0
    told: float = 0.0  # when the last "dropped" line was logged


def chat_of(update: object) -> int | None:
    if not isinstance(update, Update):
        return None
    if update.effective_chat is not None:
        return update.effective_chat.id
    return update.effective_user.id if update.effective_user is not None else None


def command_of(update: object) -> tuple[int, str] | None:
    """(who, what) for a command message: the same person sending the same text again."""
    if not isinstance(update, Update) or update.message is None:
        return None
    text = (update.message.text or "").strip()
    user = update.message.from_user
    if not text.startswith("/") or user is None:
        return None
    return user.id, " ".join(text.split()).lower()


class FairUpdates(BaseUpdateProcessor):
    """PTB's processor semaphore (``process_update`` is final) is given room for every lane's
    waiting updates; the ``slots`` shared by all chats are taken below, once it is a chat's
    turn, so no waiting update holds one."""

    def __init__(self, metrics: Metrics, slots: int) -> None:
        super().__init__(max_concurrent_updates=slots + 10_000)
        self.metrics = metrics
        self._slots = asyncio.Semaphore(slots)
        self._lanes: dict[int, _Lane] = {}

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = chat_of(update)
        if chat is None:
            async with self._slots:
                await self._handle(update, coroutine)
            return
        lane = self._lanes.setdefault(chat, _Lane())
        if not self._admit(chat, lane, update):
            _discard(coroutine)
            self._forget(chat, lane)
            return
        command = command_of(update)
        try:
            if lane.running >= PER_CHAT:
                turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                lane.waiting.append(turn)
                try:
                    await turn
                except asyncio.CancelledError:
                    if turn in lane.waiting:
                        lane.waiting.remove(turn)
                    elif not turn.cancelled():
                        self._next(lane)  # our turn came as we were cancelled: pass it on
                    raise
            else:
                lane.running += 1
            try:
                async with self._slots:  # taken only once it is this chat's turn
                    await self._handle(update, coroutine)
            finally:
                self._next(lane)
        finally:
            if command is not None:
                lane.pending.discard(command)
            _discard(coroutine)  # never started (cancelled while waiting): no warning
            self._forget(chat, lane)

    def _admit(self, chat: int, lane: _Lane, update: object) -> bool:
        command = command_of(update)
        if command is not None and command in lane.pending:
            self._drop(chat, lane, "a command sent again before its answer")
            return False
        if lane.running >= PER_CHAT and len(lane.waiting) >= BACKLOG:
            self._drop(chat, lane, "the chat's backlog is full")
            return False
        if command is not None:
            lane.pending.add(command)
        return True

    def _drop(self, chat: int, lane: _Lane, why: str) -> None:
        lane.dropped += 1
        now = time.monotonic()
        if now - lane.told >= 10:  # one line per chat every 10 s, with the count
            log.warning("chat %s: %s updates dropped (%s)", chat, lane.dropped, why)
            lane.told, lane.dropped = now, 0

    @staticmethod
    def _next(lane: _Lane) -> None:
        """Hand this chat's slot to the next waiting update, or free it."""
        while lane.waiting:
            turn = lane.waiting.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot passes on: ``running`` stays
                return
        lane.running -= 1

    def _forget(self, chat: int, lane: _Lane) -> None:
        if not lane.running and not lane.waiting and not lane.pending:
            self._lanes.pop(chat, None)

    async def _handle(self, update: object, coroutine: Awaitable[Any]) -> None:
        kind = update_kind(update)
        logfields.bind(chat_id=chat_of(update), game_id=None)
        started = time.perf_counter()
        try:
            await coroutine
        finally:
            self.metrics.handled(kind, time.perf_counter() - started)


def _discard(coroutine: Awaitable[Any]) -> None:
    close = getattr(coroutine, "close", None)
    if close is not None and getattr(coroutine, "cr_frame", None) is not None:
        close()  # a coroutine that never ran: closed, so Python does not warn about it
