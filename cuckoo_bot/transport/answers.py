"""Answers to commands, queued per chat: a group's answer goes at once while the group's budget
allows a call, otherwise it waits in that group's own queue (never in a handler), a few at
most, the same text once; while it waits, the game's own updates to the group wait behind it.
A private chat's answer goes at once; a long one (a game's story) goes a page a second. A chat
that Telegram holds back (a 429) gets its answers when the hold ends, from here, never from a
handler waiting for it.

An answer that could not be shown (its send failed on the way: a network fault, Telegram's
answer lost) or that still waits at shutdown is kept in the outbox (``keep``): the courier
tries it again like any notice, whichever instance is alive."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import MessageLimit
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices import AnswerNote
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.transport.flood import Floods, retry_seconds
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import utf16_len

log = logging.getLogger(__name__)

LOOK = 1.0  # seconds between two looks at a group's budget while answers wait for it
QUEUED = 3  # answers one group may have waiting; more join the last one, one message for both


@dataclass(frozen=True)
class Answer:
    chat_id: int
    thread_id: int | None
    text: str
    keyboard: InlineKeyboardMarkup | None = None
    parts: tuple[str, ...] = ()  # the answers it carries, when several were joined

    def carries(self, text: str) -> bool:
        return text == self.text or text in self.parts


def _merged(first: Answer, then: Answer) -> Answer | None:
    """Two answers as one message, when they can be: same topic, at most one keyboard (kept
    under the whole message), within Telegram's length."""
    if first.thread_id != then.thread_id or (first.keyboard and then.keyboard):
        return None
    text = f"{first.text}\n\n{then.text}"
    if utf16_len(text) > MessageLimit.MAX_TEXT_LENGTH:
        return None
    parts = (*(first.parts or (first.text,)), then.text)
    return Answer(first.chat_id, first.thread_id, text, first.keyboard or then.keyboard, parts)


# Keeps an answer in the outbox (``maybe_shown``: Telegram may have shown it already).
Keep = Callable[[Answer, bool], Awaitable[None]]


def keeper(deps: Deps, post: Callable[[Batch], None]) -> Keep:
    """Keep an answer as a notice of the outbox, and hand it to the courier (``post``)."""

    async def keep(answer: Answer, maybe_shown: bool) -> None:
        keys = answer.keyboard.to_dict() if answer.keyboard is not None else None
        note = AnswerNote(answer.text, keys)
        chat, thread = answer.chat_id, answer.thread_id
        post(await outbox.keep_answer(deps, chat, thread, note, maybe_shown=maybe_shown))

    return keep


class AnswerQueue:
    def __init__(
        self,
        bot: Bot,
        budget: GroupBudget,
        saw: Callable[[int, int], None],
        pacer: PrivatePacer | None = None,
        floods: Floods | None = None,
        keep: Keep | None = None,
    ) -> None:
        self.bot = bot
        self.budget = budget
        self.floods = floods
        self.pacer = pacer or PrivatePacer(0)  # a private chat's pace, shared with the courier
        self.saw = saw  # a private chat's newest message (a deal must not edit above it)
        self.keep = keep  # an answer not shown, kept to be tried again (None: dropped)
        self._queues: dict[int, deque[Answer]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False

    async def say(self, answer: Answer) -> None:
        chat = answer.chat_id
        if chat > 0:
            held = self.floods.left(chat) if self.floods is not None else 0.0
            if held > 0:
                self._later(answer, held)
                return
            try:
                await self._send(answer)
            except RetryAfter as exc:
                self._later(answer, retry_seconds(exc))
            return
        if chat not in self._queues and await self.budget.take(chat, answer=True):
            await self._send(answer)
            return
        self._queue(answer)

    def _later(self, answer: Answer, seconds: float) -> None:
        """A private answer to a chat Telegram holds back: sent once the hold is over."""

        async def later() -> None:
            await asyncio.sleep(seconds)
            try:
                await self.say(answer)
            except TelegramError as exc:
                log.info("chat %s: an answer was not delivered: %s", answer.chat_id, exc)

        self._track(asyncio.get_running_loop().create_task(later()))

    def _queue(self, answer: Answer, *, first: bool = False) -> None:
        chat = answer.chat_id
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = deque()
            self._spawn(chat, queue)
        if any(waiting.carries(answer.text) for waiting in queue):
            return  # the same answer already waits: once is enough
        if first:  # Telegram refused it a moment ago: it goes before those that came later
            queue.appendleft(answer)
            self.budget.answers_waiting(chat, len(queue))
            return
        if len(queue) >= QUEUED:
            merged = _merged(queue[-1], answer)
            if merged is None:
                log.warning("chat %s: an answer dropped (%s wait, it joins none)", chat, QUEUED)
            else:
                queue[-1] = merged  # one call answers both
            return
        queue.append(answer)
        self.budget.answers_waiting(chat, len(queue))

    async def say_privately(self, chat_id: int, texts: list[str]) -> None:
        """A long answer in a private chat: the first part now (a refusal raises, for the
        handler to report), the rest after it, in order, without holding the handler."""
        first, *rest = texts
        await self._send(Answer(chat_id, None, first))
        self.pacer.sent(chat_id)
        if not rest:
            return

        async def send_rest() -> None:
            pages = deque(rest)
            while pages:
                await self.pacer.wait(chat_id)  # Telegram's pace: about one a second
                try:
                    await self._send(Answer(chat_id, None, pages[0]))
                    self.pacer.sent(chat_id)
                    pages.popleft()
                except RetryAfter as exc:  # held back: the same page after the hold
                    await asyncio.sleep(retry_seconds(exc))
                except TelegramError as exc:
                    log.info("chat %s: a long answer stopped: %s", chat_id, exc)
                    return

        self._track(asyncio.get_running_loop().create_task(send_rest()))

    async def close(self) -> None:
        """At shutdown: answers still waiting for their group's budget are kept in the outbox
        (the courier, this instance's or the next, shows them)."""
        self._closing = True
        waiting = [answer for queue in self._queues.values() for answer in queue]
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for answer in waiting:
            await self._kept(answer, maybe_shown=False)

    async def _kept(self, answer: Answer, *, maybe_shown: bool) -> bool:
        """Keep an answer not shown; False if it cannot be (no store, or it is down)."""
        if self.keep is None:
            return False
        try:
            await self.keep(answer, maybe_shown)
        except Exception as exc:
            log.warning("chat %s: an answer was not kept: %r", answer.chat_id, exc)
            return False
        return True

    def _spawn(self, chat: int, queue: deque[Answer]) -> None:
        self._track(asyncio.get_running_loop().create_task(self._drain(chat, queue)))

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self, chat: int, queue: deque[Answer]) -> None:
        try:
            while queue and not self._closing:
                wait = self.budget.next_free(chat, answer=True)
                if wait > 0:  # looked at again now and then: a hold may be learnt meanwhile
                    await asyncio.sleep(min(wait, LOOK))
                    continue
                if await self.budget.take(chat, answer=True):
                    answer = queue.popleft()
                    self.budget.answers_waiting(chat, len(queue))
                    await self._send(answer)
                else:  # another instance took the call (shared budget): wait for the next
                    await asyncio.sleep(max(self.budget.next_free(chat, answer=True), 0.2))
        finally:
            self._queues.pop(chat, None)
            self.budget.answers_waiting(chat, 0)

    async def _send(self, answer: Answer) -> None:
        try:
            message = await self.bot.send_message(
                answer.chat_id,
                answer.text,
                reply_markup=answer.keyboard,
                message_thread_id=answer.thread_id,
            )
        except RetryAfter:
            if answer.chat_id > 0:
                raise  # the caller waits for the hold
            self._queue(answer, first=True)  # the group's queue waits for the hold
            return
        except NetworkError as exc:
            # Lost on the way (PTB 22 makes Telegram's BadRequest a NetworkError: a refusal,
            # not a fault): Telegram may have shown it, or not. Kept, it is tried again; where
            # the first shows keys, the chat is in doubt until they are off.
            keys = answer.keyboard is not None
            if isinstance(exc, BadRequest) or not await self._kept(answer, maybe_shown=keys):
                if answer.chat_id > 0:
                    raise
                log.info("chat %s: an answer was not delivered: %s", answer.chat_id, exc)
            return
        except TelegramError as exc:
            if answer.chat_id > 0:
                raise  # a private answer that fails is the handler's to report
            log.info("chat %s: an answer was not delivered: %s", answer.chat_id, exc)
            return
        self.saw(answer.chat_id, message.message_id)
