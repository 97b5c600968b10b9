"""The courier: shows committed notices in Telegram, each chat in its own lane.

One loop for every batch, whether a press hands it over or it is read back from the outbox:
split the notices by chat, run each chat's lane side by side (a group held back by its budget
never delays a private chat), then mark what happened in one statement.

- A private lane sends in order, one message a second at most; a card dealt edits the
  player's last prompt when that is still the newest message in their chat (the prompt's keys
  go in the same call), and the keys of a prompt are gone at the latest when the round ends.
- A group lane spends the group's budget: only the newest view of a lobby or of a round's table
  is shown, rounds that ended before their table was posted are folded into the next table,
  and what the budget does not allow now waits, coalesced, for the next run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, Message, User
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from cuckoo_bot.app import chats
from cuckoo_bot.app import dispatch as outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.dispatch import Delivered, Dispatch, SentMessage
from cuckoo_bot.app.model import Game, GameStatus, Player, supported_language
from cuckoo_bot.app.notices import (
    CloseNote,
    DealNote,
    Notice,
    NoticeKind,
    PromptNote,
    RoundResult,
    TableView,
    TurnView,
)
from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Rendered, Renderer, group_language

log = logging.getLogger(__name__)

MAX_FOLDED = 3  # finished rounds shown under one table message (Telegram's 4,096 characters)
FRESH = timedelta(seconds=10)  # a sweep of every chat leaves younger notices to their press


class Unreachable(Exception):
    """Telegram cannot deliver right now (flood control, network): try the rest later."""


def _not_modified(error: BadRequest) -> bool:
    return "message is not modified" in error.message.lower()


def _edit_target_gone(error: BadRequest) -> bool:
    text = error.message.lower()
    return "message to edit not found" in text or "message can't be edited" in text


class Context:
    """What a batch knows of the chats: games, players, and the messages already there."""

    def __init__(self, dispatch: Dispatch) -> None:
        self.games = dispatch.games
        self.players = dispatch.players
        self.live: dict[tuple[int, int], list[SentMessage]] = {}  # (chat, game): with keys
        self.newest_table: dict[tuple[int, int], SentMessage] = {}
        self.newest_lobby: dict[tuple[int, int], SentMessage] = {}
        self.newest: dict[int, int] = {}  # chat: the newest message the bot sent there
        for sent in dispatch.sent:
            self.remember(sent)

    def remember(self, sent: SentMessage) -> None:
        notice = sent.notice
        chat, game = notice.chat_id, notice.game_id or 0
        self.newest[chat] = max(self.newest.get(chat, 0), sent.newest, sent.message_id)
        if notice.kind is NoticeKind.TABLE:
            known = self.newest_table.get((chat, game))
            if known is None or known.notice.id < notice.id:
                self.newest_table[(chat, game)] = sent
        elif notice.kind is NoticeKind.LOBBY:
            known = self.newest_lobby.get((chat, game))
            if known is None or known.notice.id < notice.id:
                self.newest_lobby[(chat, game)] = sent
        live = [s for s in self.live.get((chat, game), []) if s.message_id != sent.message_id]
        if sent.live_keys:
            live.append(sent)
        self.live[(chat, game)] = live

    def live_of(self, notice: Notice, kind: NoticeKind) -> list[SentMessage]:
        found = self.live.get((notice.chat_id, notice.game_id or 0), [])
        return sorted((s for s in found if s.notice.kind is kind), key=lambda s: s.message_id)

    def game(self, notice: Notice) -> Game | None:
        return self.games.get(notice.game_id) if notice.game_id is not None else None


@dataclass
class LaneResult:
    delivered: list[Delivered] = field(default_factory=list)
    unreachable: list[Notice] = field(default_factory=list)  # private notices refused (403)
    migrated: list[tuple[int, int]] = field(default_factory=list)  # (old chat id, new chat id)
    waiting: bool = False  # notices left for a later run; later ones must wait behind them
    deferred: bool = False  # an update that can wait was left for a later run
    shown: list[SentMessage] = field(default_factory=list)  # messages sent or edited
    flushed: int = 0  # ``delivered[:flushed]`` are marked already (before a wait)

    def unmarked(self) -> list[Delivered]:
        return self.delivered[self.flushed :]


class Courier:
    """Delivers notices chat by chat. Nothing here is the truth: the outbox is; a notice in
    flight is only kept from being sent twice by two runs of this process."""

    def __init__(
        self,
        deps: Deps,
        bot: Bot,
        renderer: Renderer,
        budget: GroupBudget,
        pacer: PrivatePacer,
    ) -> None:
        self.deps = deps
        self.bot = bot
        self.renderer = renderer
        self.budget = budget
        self.pacer = pacer
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
        self._started = deps.clock.now()

    def saw(self, chat_id: int, message_id: int) -> None:
        """A message outside the outbox appeared in a private chat (a reply, the user's own)."""
        if chat_id > 0:
            self._seen[chat_id] = max(self._seen.pop(chat_id, 0), message_id)
            while len(self._seen) > 10_000:
                self._seen.popitem(last=False)

    # -- entry points ---------------------------------------------------------------------------

    def dispatch(self, dispatch: Dispatch | None) -> None:
        """Deliver a committed batch in the background: the press is answered at once."""
        if dispatch:
            self._spawn(self.deliver(dispatch))

    def schedule(self, chat_id: int | None = None) -> None:
        """Deliver what the outbox holds (for one chat, or all) in the background."""
        self._spawn(self.sweep(chat_id))

    async def sweep(self, chat_id: int | None = None) -> int:
        """Deliver what the outbox still holds: leftovers of a crash, chats that had to wait.
        Sweeping every chat leaves this process's notices younger than ``FRESH`` to the press
        that made them (a leftover from before a restart has no press: it goes at once)."""
        batch = await outbox.pending(self.deps, chat_id, skip=set(self._in_flight))
        if chat_id is None:
            young = self.deps.clock.now() - FRESH
            batch.notices = [
                n
                for n in batch.notices
                if n.chat_id in self._waiting
                or n.created_at is None
                or n.created_at < self._started
                or n.created_at < young
            ]
        return await self._deliver(batch, from_store=True)

    async def deliver(self, dispatch: Dispatch) -> int:
        return await self._deliver(dispatch, from_store=False)

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

    async def renew(self) -> None:
        """Keep this instance's claims on the notices it is delivering (from the sweeper)."""
        await outbox.renew(self.deps, set(self._in_flight))

    # -- the loop -------------------------------------------------------------------------------

    async def _deliver(self, dispatch: Dispatch, *, from_store: bool) -> int:
        notices = [
            n for n in dispatch.notices if n.id not in self._in_flight and n.id not in self._marked
        ]
        if not notices:
            return 0
        ids = {n.id for n in notices}
        claimed: set[int] = set()  # notices a lane read back from the outbox for its chat
        self._in_flight |= ids
        results: list[LaneResult] = []
        started: list[LaneResult] = []  # every lane's result so far, even one cut short
        try:
            context = Context(dispatch)
            by_chat: dict[int, list[Notice]] = {}
            for notice in notices:
                by_chat.setdefault(notice.chat_id, []).append(notice)
            try:
                results = list(
                    await asyncio.gather(
                        *(
                            self._lane(chat, items, context, from_store, claimed, started)
                            for chat, items in by_chat.items()
                        )
                    )
                )
            except asyncio.CancelledError:
                # Shutting down: what was shown is marked (briefly), the rest stays claimable.
                shown = [d for result in started for d in result.unmarked()]
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(outbox.mark(self.deps, shown), timeout=2)
                raise
            delivered = [d for result in results for d in result.unmarked()]
            await outbox.mark(self.deps, delivered)
            for done in (d for result in results for d in result.delivered):
                if done.retry_at is None:  # a failed try is taken again later
                    self._marked[done.notice_id] = None
            while len(self._marked) > 20_000:
                self._marked.popitem(last=False)
        finally:
            self._in_flight -= ids | claimed
        handled = sum(d.tries for d in delivered)
        for result in results:
            for old, new in result.migrated:
                moved = (await chats.chat_migrated(self.deps, old, new)).dispatch
                handled += await self._deliver(moved, from_store=False) if moved else 0
        refused = [n for result in results for n in result.unreachable]
        if refused:
            # Their turn goes to the group instead, at once: the game must not wait.
            handled += await self._deliver(
                await outbox.unreachable(self.deps, refused), from_store=False
            )
        return handled

    async def _lane(
        self,
        chat_id: int,
        notices: list[Notice],
        context: Context,
        from_store: bool,
        claimed: set[int],
        started: list[LaneResult],
    ) -> LaneResult:
        logfields.bind(chat_id=chat_id, game_id=notices[0].game_id if notices else None)
        lock = self._lanes.setdefault(chat_id, asyncio.Lock())
        self._lane_users[chat_id] = self._lane_users.get(chat_id, 0) + 1
        lane: _Lane | None = None
        try:
            async with lock:
                if not from_store and chat_id in self._waiting:
                    # Older notices of this chat wait in the outbox: these wait with them, in
                    # order, unless the chat may be written to again now; then all go together.
                    mine = {n.id for n in notices}
                    if not self._ready(chat_id):
                        self._wake(chat_id)
                        return LaneResult(waiting=True)
                    batch = await outbox.pending(self.deps, chat_id)
                    held = {n.id for n in batch.notices} & (self._in_flight - mine)
                    if held:  # another run holds older ones: it goes first, these after
                        self._wake(chat_id)
                        return LaneResult(waiting=True)
                    taken = {n.id for n in batch.notices} - mine
                    self._in_flight |= taken
                    claimed |= taken
                    notices, context = batch.notices, Context(batch)
                self._waiting.discard(chat_id)
                for sent in self._recent.get(chat_id, {}).values():
                    context.remember(sent)
                if chat_id > 0:
                    seen = self._seen.get(chat_id, 0)
                    context.newest[chat_id] = max(context.newest.get(chat_id, 0), seen)
                    lane = _PrivateLane(self, chat_id, context)
                else:
                    lane = _GroupLane(self, chat_id, context)
                started.append(lane.result)
                result = await lane.run(notices)
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
        finally:
            self._lane_users[chat_id] -= 1
            if not self._lane_users[chat_id]:
                del self._lane_users[chat_id]
                del self._lanes[chat_id]

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

    def _wake(self, chat_id: int) -> None:
        """Run this chat's lane again once its budget allows a call (or soon, after a fault)."""
        wait = (
            max(self.budget.next_free(chat_id), self.budget.calm(chat_id)) if chat_id < 0 else 1.0
        )
        delay = max(wait, 0.05)
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

    # -- Telegram calls -------------------------------------------------------------------------

    async def call(self, work: Callable[[], Awaitable[Any]]) -> Any:
        """One Bot API call; flood control and network faults stop the lane for now."""
        try:
            return await work()
        except (RetryAfter, TimedOut, NetworkError) as exc:
            if isinstance(exc, BadRequest | Forbidden | ChatMigrated):
                raise
            log.warning("Telegram is not taking messages now: %s", exc)
            raise Unreachable from exc

    async def send(self, notice: Notice, rendered: Rendered) -> Message:
        message: Message = await self.call(
            lambda: self.bot.send_message(
                chat_id=notice.chat_id,
                text=rendered.text,
                reply_markup=rendered.keyboard,
                message_thread_id=notice.thread_id,
            )
        )
        return message

    async def edit(self, chat_id: int, message_id: int, rendered: Rendered) -> bool:
        """Edit a message in place; False if it is gone (deleted by someone)."""
        try:
            await self.call(
                lambda: self.bot.edit_message_text(
                    chat_id=chat_id,
                    message_id=message_id,
                    text=rendered.text,
                    reply_markup=rendered.keyboard,
                )
            )
        except BadRequest as exc:
            if _not_modified(exc):
                return True
            if _edit_target_gone(exc):
                return False
            raise
        return True

    async def remove_keys(self, chat_id: int, message_id: int) -> None:
        try:
            await self.call(
                lambda: self.bot.edit_message_reply_markup(
                    chat_id=chat_id, message_id=message_id, reply_markup=None
                )
            )
        except BadRequest as exc:
            if not _not_modified(exc) and not _edit_target_gone(exc):
                raise

    async def remove(self, chat_id: int, message_id: int) -> None:
        """Delete a message; if Telegram refuses, at least drop its keys."""
        try:
            await self.call(lambda: self.bot.delete_message(chat_id=chat_id, message_id=message_id))
        except Unreachable:
            raise
        except TelegramError:
            try:
                await self.call(
                    lambda: self.bot.edit_message_reply_markup(
                        chat_id=chat_id, message_id=message_id, reply_markup=None
                    )
                )
            except Unreachable:
                raise
            except TelegramError as exc:  # gone, migrated, not ours any more: nothing to clear
                log.info("message %s left as it was: %s", message_id, exc)


def _keys_live(keyboard: InlineKeyboardMarkup | None) -> bool:
    return keyboard is not None and bool(keyboard.inline_keyboard)


class _Lane:
    def __init__(self, courier: Courier, chat_id: int, context: Context) -> None:
        self.courier = courier
        self.chat_id = chat_id
        self.context = context
        self.result = LaneResult()
        self.finished: set[int] = set()  # notices this lane has recorded an outcome for

    def done(
        self, notice: Notice, message_id: int | None, keyboard: InlineKeyboardMarkup | None
    ) -> None:
        live = _keys_live(keyboard)
        self.result.delivered.append(Delivered(notice.id, message_id, live))
        if message_id is not None:
            # Older rows that showed this message no longer describe it.
            for old in self.context.live.get((self.chat_id, notice.game_id or 0), []):
                if old.message_id == message_id and old.notice.id != notice.id:
                    self.result.delivered.append(Delivered(old.notice.id, None, False, tries=0))
            sent = SentMessage(
                notice, message_id, live, max(self.context.newest.get(self.chat_id, 0), message_id)
            )
            self.context.remember(sent)
            self.result.shown.append(sent)

    def skip(self, notice: Notice, why: str) -> None:
        self.finished.add(notice.id)
        self.result.delivered.append(Delivered(notice.id, error=why, tries=0))

    def failed(self, notice: Notice, exc: Exception) -> None:
        """An error nobody expected (a fault of ours, an answer Telegram does not usually
        give): this notice is tried again later and given up after a few tries; the notices
        behind it go on."""
        if notice.id in self.finished:
            log.exception("tidying up after notice %s failed", notice.id, exc_info=exc)
            return
        self.finished.add(notice.id)
        done = outbox.failed(notice, f"{type(exc).__name__}: {exc}", self.courier.deps.clock.now())
        if done.retry_at is None:
            log.error("notice %s to chat %s: %s", notice.id, self.chat_id, done.error, exc_info=exc)
        else:
            log.warning(
                "notice %s to chat %s failed (try %s), again at %s: %r",
                notice.id,
                self.chat_id,
                notice.attempts + 1,
                done.retry_at.isoformat(timespec="seconds"),
                exc,
                exc_info=exc,
            )
        self.result.delivered.append(done)

    def refused(self, notice: Notice, why: str) -> None:
        log.warning("notice %s refused: %s", notice.id, why)
        if notice.id in self.finished:
            return  # shown already; what failed was tidying up after it
        self.finished.add(notice.id)
        self.result.delivered.append(Delivered(notice.id, error=why))


class _PrivateLane(_Lane):
    """One player's private chat: deals, prompts and the end of the game, in order."""

    def language(self, notice: Notice) -> str:
        reader = self.context.players.get(self.chat_id)
        game = self.context.game(notice)
        chosen = reader.language if reader else None
        return chosen or group_language(game.chat if game else None, game)

    async def run(self, notices: list[Notice]) -> LaneResult:
        for index, notice in enumerate(notices):
            game = self.context.game(notice)
            try:
                if game is None:
                    self.skip(notice, "no game")
                elif notice.kind is NoticeKind.DEAL:
                    await self.deal(notice, game)
                elif notice.kind is NoticeKind.PROMPT:
                    await self.prompt(notice, game)
                elif notice.kind is NoticeKind.CLOSE:
                    await self.close(notice, game)
                else:
                    self.skip(notice, "not a private notice")
            except Unreachable:
                self.result.waiting = True
                return self.result
            except Forbidden as exc:
                self.refused(notice, f"forbidden: {exc.message}")
                self.result.unreachable.append(notice)
                # The player blocked the bot: the rest of this chat's notices cannot go either.
                for later in notices[index + 1 :]:
                    self.refused(later, "forbidden")
                    self.result.unreachable.append(later)
                return self.result
            except BadRequest as exc:
                self.refused(notice, f"bad request: {exc.message}")
            except Exception as exc:
                self.failed(notice, exc)
        return self.result

    def _live_prompts(self, notice: Notice) -> list[SentMessage]:
        return self.context.live_of(notice, NoticeKind.PROMPT)

    async def _send(self, notice: Notice, rendered: Rendered) -> None:
        if self.courier.pacer.delay(self.chat_id) > 0 and self.result.unmarked():
            # About to wait for the chat's pace: what this lane showed is marked first, so a
            # crash during the wait cannot send it again (a statement only when a lane waits).
            await outbox.mark(self.courier.deps, self.result.unmarked())
            self.result.flushed = len(self.result.delivered)
        await self.courier.pacer.wait(self.chat_id)
        message = await self.courier.send(notice, rendered)
        self.courier.pacer.sent(self.chat_id)
        self.done(notice, message.message_id, rendered.keyboard)

    async def _clear(self, old: SentMessage, rendered: Rendered | None, notice: Notice) -> None:
        """Take the keys off an earlier prompt, with how its round ended when known."""
        if rendered is not None:
            await self.courier.edit(self.chat_id, old.message_id, rendered)
        else:
            await self.courier.remove_keys(self.chat_id, old.message_id)
        self.result.delivered.append(Delivered(old.notice.id, None, False, tries=0))
        cleared = SentMessage(old.notice, old.message_id, False, old.newest)
        self.context.remember(cleared)
        self.result.shown.append(cleared)

    async def _clear_all(
        self,
        prompts: list[SentMessage],
        prev: RoundResult | None,
        game: Game,
        lang: str,
        notice: Notice,
    ) -> None:
        """Take the keys off earlier prompts. The newest prompt of the round that just ended
        says how it ended; any older one (a prompt another instance sent, learnt of late) only
        loses its keys, so no message tells a round that is not its own."""
        told = next(
            (p for p in reversed(prompts) if prev is not None and p.notice.round == prev.round),
            None,
        )
        for old in prompts:
            shown = self.courier.renderer.result(prev, game, lang) if old is told else None
            await self._clear(old, shown, notice)

    async def deal(self, notice: Notice, game: Game) -> None:
        note = notice.payload
        assert isinstance(note, DealNote)
        lang = self.language(notice)
        render = self.courier.renderer
        # Only prompts of earlier rounds: a prompt of this round or later is not this deal's.
        prompts = [p for p in self._live_prompts(notice) if (p.notice.round or 0) < note.round]
        newest = self.context.newest.get(self.chat_id, 0)
        if prompts and prompts[-1].message_id == newest:
            # The last prompt is what the player sees: it becomes the new deal, keys gone.
            rendered = render.deal(note, game, self.context.players, lang, with_result=True)
            if await self.courier.edit(self.chat_id, prompts[-1].message_id, rendered):
                self.done(notice, prompts[-1].message_id, None)
                for old in prompts[:-1]:
                    await self._clear(old, None, notice)
                return
        await self._send(
            notice, render.deal(note, game, self.context.players, lang, with_result=False)
        )
        await self._clear_all(prompts, note.prev, game, lang, notice)

    async def prompt(self, notice: Notice, game: Game) -> None:
        note = notice.payload
        assert isinstance(note, PromptNote)
        if game.state is None or game.state.turn != note.turn or not game.status.open:
            self.skip(notice, "turn over")  # read back after the turn moved on
            return
        lang = self.language(notice)
        render = self.courier.renderer
        rendered = render.prompt(note, game, self.context.players, lang)
        prompts = [
            p
            for p in self._live_prompts(notice)
            if isinstance(p.notice.payload, PromptNote) and p.notice.payload.turn < note.turn
        ]
        newest = self.context.newest.get(self.chat_id, 0)
        # The dealer's second cut: they are looking at this prompt, so it asks again in place.
        again = note.again and prompts and prompts[-1].message_id == newest
        if again and await self.courier.edit(self.chat_id, prompts[-1].message_id, rendered):
            self.done(notice, prompts[-1].message_id, rendered.keyboard)
            return
        await self._send(notice, rendered)
        await self._clear_all(prompts, note.prev, game, lang, notice)

    async def close(self, notice: Notice, game: Game) -> None:
        note = notice.payload
        assert isinstance(note, CloseNote)
        prompts = self._live_prompts(notice)
        lang = self.language(notice)
        rendered = self.courier.renderer.close(note, game, self.context.players, lang)
        if not prompts:
            # Not asked this round yet (the game ended mid-round): the last word this player
            # had was "I'll write when it's your turn", so they are told.
            await self._send(notice, rendered)
            return
        if await self.courier.edit(self.chat_id, prompts[-1].message_id, rendered):
            self.done(notice, prompts[-1].message_id, None)
        else:
            await self._send(notice, rendered)  # deleted by the player: a new message
        for old in prompts[:-1]:
            await self._clear(old, None, notice)


@dataclass
class _Step:
    """One group call (or none, for a notice already shown as it is)."""

    notice: Notice
    folded: list[Notice] = field(default_factory=list)  # finished rounds shown with this table


class _GroupLane(_Lane):
    """A group chat: the lobby, one table per round, asks for unreachable players, the end."""

    def language(self, notice: Notice) -> str:
        game = self.context.game(notice)
        return group_language(game.chat if game else None, game)

    async def run(self, notices: list[Notice]) -> LaneResult:
        steps = self.plan(notices)
        try:
            try:
                await self.retract_old_turns(notices)
            except Unreachable:
                raise
            except Exception:  # an old ask left in place is no reason to hold the table back
                log.exception("retracting turns asked in chat %s failed", self.chat_id)
            for step in steps:
                try:
                    shown = await self.perform(step)
                except Unreachable:
                    raise
                except Exception as exc:
                    self.failed(step.notice, exc)
                    continue
                if shown is None:
                    self.result.deferred = True  # a move mid-round: shown with the next ones
                elif not shown:
                    self.result.waiting = True  # the budget is spent: the rest waits
                    return self.result
        except Unreachable:
            self.result.waiting = True
        return self.result

    def plan(self, notices: list[Notice]) -> list[_Step]:
        """Coalesce: the newest view of each lobby and round table; stale asks dropped; rounds
        that ended before their table was posted folded into the next table."""
        newest: dict[tuple[Any, ...], Notice] = {}
        for notice in notices:
            key = self._key(notice)
            if key is not None:
                newest[key] = notice
        steps: list[_Step] = []
        for notice in notices:
            key = self._key(notice)
            if key is not None and newest[key] is not notice:
                self.skip(notice, "superseded")
                continue
            game = self.context.game(notice)
            if notice.kind is NoticeKind.TURN and not self._current(notice, game):
                self.skip(notice, "turn over")
                continue
            if notice.kind is NoticeKind.TABLE and self._outdated(notice):
                self.skip(notice, "superseded")
                continue
            steps.append(_Step(notice))
        # A finished round that never had its table posted is shown under the table of an
        # earlier finished round (a message never edited again), a few rounds per message.
        carriers: dict[int | None, _Step] = {}
        kept: list[_Step] = []
        for step in steps:
            view = step.notice.payload
            if not isinstance(view, TableView):
                kept.append(step)
                continue
            game_id = step.notice.game_id
            carrier = carriers.get(game_id)
            if (
                view.final
                and carrier is not None
                and len(carrier.folded) < MAX_FOLDED
                and self._table_message(step.notice) is None
            ):
                carrier.folded.append(step.notice)
                continue
            kept.append(step)
            if view.final:
                carriers[game_id] = step
            else:
                carriers.pop(game_id, None)
        return kept

    @staticmethod
    def _key(notice: Notice) -> tuple[Any, ...] | None:
        if notice.kind in (NoticeKind.LOBBY, NoticeKind.TURN):
            return (notice.kind, notice.game_id)
        if notice.kind is NoticeKind.TABLE:
            return (notice.kind, notice.game_id, notice.round)
        return None

    @staticmethod
    def _current(notice: Notice, game: Game | None) -> bool:
        view = notice.payload
        return (
            isinstance(view, TurnView)
            and game is not None
            and game.status is GameStatus.RUNNING
            and game.state is not None
            and game.state.turn == view.turn
        )

    def _outdated(self, notice: Notice) -> bool:
        """A table view older than one already shown (read back after a restart): a newer view
        of the same round, or the middle of a round whose next round is shown. The final view
        of a round is never dropped for a later round's: its reveal must be seen."""
        shown = self.context.newest_table.get((self.chat_id, notice.game_id or 0))
        if shown is None or shown.notice.id < notice.id:
            return False
        view = notice.payload
        assert isinstance(view, TableView)
        return shown.notice.round == notice.round or not view.final

    def _table_message(self, notice: Notice) -> SentMessage | None:
        shown = self.context.newest_table.get((self.chat_id, notice.game_id or 0))
        return shown if shown is not None and shown.notice.round == notice.round else None

    async def retract_old_turns(self, notices: list[Notice]) -> None:
        """A turn asked in the group is deleted once it is over."""
        for game_id in {n.game_id for n in notices if n.game_id is not None}:
            game = self.context.games.get(game_id)
            for old in list(self.context.live.get((self.chat_id, game_id), [])):
                if old.notice.kind is NoticeKind.TURN and not self._current(old.notice, game):
                    if not self.courier.budget.take(self.chat_id):
                        return
                    await self.courier.remove(self.chat_id, old.message_id)
                    self.result.delivered.append(Delivered(old.notice.id, None, False, tries=0))
                    gone = SentMessage(old.notice, old.message_id, False, 0)
                    self.context.remember(gone)
                    self.result.shown.append(gone)

    async def perform(self, step: _Step) -> bool | None:
        """Show one step; False when the group's budget allows no call now, None when the step
        can wait (it is shown, coalesced, by a later run)."""
        notice = step.notice
        game = self.context.game(notice)
        render = self.courier.renderer
        lang = self.language(notice)
        players = self.context.players
        if notice.kind is NoticeKind.TABLE:
            assert game is not None
            rendered = render.table(notice, step.folded, game, players, lang)
            target = self._table_message(notice)
            if target is not None and target.notice.payload == notice.payload:
                self.done(notice, target.message_id, rendered.keyboard)  # shown as it is
                for inner in step.folded:
                    self.skip(inner, "folded")
                return True
            assert isinstance(notice.payload, TableView)
            if (
                target is not None
                and not notice.payload.final
                and self.courier.budget.calm(self.chat_id)
            ):
                return None
        elif notice.kind is NoticeKind.LOBBY:
            assert game is not None
            rendered = render.lobby(notice, game, players, lang)
            lobby = self.context.newest_lobby.get((self.chat_id, notice.game_id or 0))
            target = lobby if lobby is not None and lobby.notice.chat_id == self.chat_id else None
        else:
            rendered = render.group_notice(notice, game, players, lang)
            target = None
        if not self.courier.budget.take(self.chat_id):
            return False
        try:
            if target is not None and await self.courier.edit(
                self.chat_id, target.message_id, rendered
            ):
                self.done(notice, target.message_id, rendered.keyboard)
            else:
                message = await self.courier.send(notice, rendered)
                self.done(notice, message.message_id, rendered.keyboard)
            for inner in step.folded:
                self.skip(inner, "folded")
        except ChatMigrated as exc:
            self.result.migrated.append((self.chat_id, exc.new_chat_id))
            self.skip(notice, f"migrated to {exc.new_chat_id}")
        except Forbidden as exc:
            self.refused(notice, f"forbidden: {exc.message}")
        except BadRequest as exc:
            self.refused(notice, f"bad request: {exc.message}")
        return True


def player_of(user: User) -> Player:
    """A ``telegram.User`` as the app's player (names refreshed on every sight)."""
    return Player(
        id=user.id,
        first_name=user.first_name,
        last_name=user.last_name,
        username=user.username,
        language=supported_language(user.language_code),
    )
