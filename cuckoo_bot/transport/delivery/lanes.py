"""What a delivery lane works with and records: its tools (``Tools``: the Bot API calls, the
renderer, Telegram's limits, which notices this process made itself), the chats' messages as
the store's ``messages`` table had them (``Known``), what became of each notice and of the
messages it showed (``LaneResult``, which the courier hands to the app as a report; ``Shown``,
one batch's lanes, marked early while one waits), and the steps every lane shares (``Lane``).
Reports are merged into ``messages`` by a conditional write, so they may be marked in any
order (``app/notices/message.py``)."""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from telegram import InlineKeyboardMarkup
from telegram.error import TelegramError

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import (
    Delivered,
    Notice,
    NoticeKind,
    SentMessage,
)
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.transport.delivery.calls import Calls, Unreachable
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Renderer

log = logging.getLogger(__name__)

GAP = 5  # messages before a resent leftover whose keys are cleared


class Tools:
    """What every lane works with. Besides the calls, the renderer and Telegram's limits, it
    remembers which notices this process made itself: any other may have been shown already by
    the process that made it (a previous life, an instance that died), its mark lost."""

    def __init__(
        self,
        deps: Deps,
        calls: Calls,
        renderer: Renderer,
        budget: GroupBudget,
        pacer: PrivatePacer,
        *,
        alone: bool,
    ) -> None:
        self.deps = deps
        self.calls = calls
        self.renderer = renderer
        self.budget = budget
        self.pacer = pacer
        # The only process delivering (polling: one process per token): no other process can
        # be showing a message this one does not know of, right now.
        self.alone = alone
        self.started = deps.clock.now()
        # Notices this process made and handed to itself (a press, a clock, a reroute).
        self.handed: OrderedDict[int, None] = OrderedDict()
        # Chats where a message may stand that the store never learnt of (a send whose
        # answer was lost, a leftover another process may have shown): the store's
        # ``delivery_doubts``, as last read (every sweep) or written by this process.
        self._doubted: dict[int, int] = {}  # chat: its oldest doubtful notice

    def hand(self, batch: Batch) -> None:
        for notice in batch.notices:
            self.handed[notice.id] = None
        while len(self.handed) > 20_000:
            self.handed.popitem(last=False)

    @staticmethod
    def keys_gone(old: SentMessage) -> Delivered:
        """The message ``old`` describes has no keys any more: the report to record. Batches
        are marked as they finish, not in the order they showed things; the store keeps the
        newest state whatever order the reports come in (``Message.after``)."""
        return Delivered(old.notice.id, old.message_id, False, tries=0)

    def left_over(self, notice: Notice) -> bool:
        """Made before this process started: maybe shown already by the one before."""
        return notice.created_at is not None and notice.created_at < self.started

    def maybe_shown(self, notice: Notice) -> bool:
        """Made by another process: it may have been shown already, its mark lost with it."""
        return self.left_over(notice) or notice.id not in self.handed

    async def doubt(self, chat_id: int, notice_id: int) -> None:
        """A notice of this chat may have been shown without the store learning its
        message (a send whose answer was lost, a leftover of another process): it stands after
        the newest message the notices before it put there. Written to the store (the oldest
        such notice is kept), so any instance clears it."""
        self._doubted[chat_id] = min(self._doubted.get(chat_id, notice_id), notice_id)
        await outbox.doubt(self.deps, chat_id, notice_id)

    def learn_doubts(self, doubts: dict[int, int]) -> None:
        """The chats in doubt as the store has them (read at every sweep)."""
        self._doubted = dict(doubts)

    def doubted(self, chat_id: int) -> bool:
        return chat_id in self._doubted

    def doubts(self, chat_id: int | None = None) -> dict[int, int]:
        """The chats in doubt (this one, or every one), each with its oldest doubtful notice."""
        if chat_id is not None:
            found = self._doubted.get(chat_id)
            return {} if found is None else {chat_id: found}
        return dict(self._doubted)

    async def settled(self, chat_id: int) -> None:
        """The keys of what no notice accounts for in the chat were cleared: no doubt left."""
        since = self._doubted.pop(chat_id, None)
        if since is not None:
            await outbox.settle_doubt(self.deps, chat_id, since)


class Known:
    """What a batch knows of the chats: games, players, and the messages already there."""

    def __init__(self, batch: Batch) -> None:
        self.games = batch.games
        self.players = batch.players
        self.live: dict[tuple[int, int], list[SentMessage]] = {}  # (chat, game): with keys
        self.newest_table: dict[tuple[int, int], SentMessage] = {}
        self.newest_lobby: dict[tuple[int, int], SentMessage] = {}
        # A player's newest answered prompt (no keys left): the next deal edits it.
        self.newest_played: dict[tuple[int, int], SentMessage] = {}
        self.newest: dict[int, int] = {}  # chat: the newest message the bot sent there
        self.shown: dict[int, set[int]] = {}  # chat: every message known to show a notice
        for sent in batch.sent:
            self.remember(sent)

    def remember(self, sent: SentMessage) -> None:
        notice = sent.notice
        chat, game = notice.chat_id, notice.game_id or 0
        self.newest[chat] = max(self.newest.get(chat, 0), sent.newest, sent.message_id)
        self.shown.setdefault(chat, set()).add(sent.message_id)
        if notice.kind is NoticeKind.TABLE:
            known = self.newest_table.get((chat, game))
            if known is None or known.notice.id < notice.id:
                self.newest_table[(chat, game)] = sent
        elif notice.kind is NoticeKind.LOBBY:
            known = self.newest_lobby.get((chat, game))
            if known is None or known.notice.id < notice.id:
                self.newest_lobby[(chat, game)] = sent
        elif notice.kind is NoticeKind.PLAYED:
            known = self.newest_played.get((chat, game))
            if known is None or known.notice.id < notice.id:
                self.newest_played[(chat, game)] = sent
        played = self.newest_played.get((chat, game))
        if (
            played is not None
            and played.message_id == sent.message_id
            and played.notice.id != notice.id
        ):
            del self.newest_played[(chat, game)]  # that message shows something newer now
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


@dataclass
class Shown:
    """What every lane of one batch has done so far. The courier settles a batch once all its
    lanes are done; while one of them waits for its chat's pace, nothing the batch showed
    stays unmarked (a quicker lane's messages, the group's or another player's), so a crash
    during the wait cannot show any of it again."""

    results: list[LaneResult] = field(default_factory=list)
    waiting: int = 0  # lanes waiting for their chat's pace now

    async def mark(self, tools: Tools) -> None:
        """One statement for what the batch's lanes showed and nobody marked yet (none when
        there is nothing). What it marks is taken before it waits for the database, so two
        lanes marking at once never mark one outcome twice (its tries would count twice);
        should the statement fail, it is left for the batch's settling."""
        taken = [(result, result.flushed, len(result.delivered)) for result in self.results]
        shown = [d for result, start, end in taken for d in result.delivered[start:end]]
        if not shown:
            return
        for result, _, end in taken:
            result.flushed = end
        try:
            await outbox.mark(tools.deps, shown)
        except BaseException:
            for result, start, end in taken:
                if result.flushed == end:
                    result.flushed = start
            raise

    @contextlib.asynccontextmanager
    async def pause(self, tools: Tools) -> AsyncIterator[None]:
        """A lane is about to wait: what the batch showed is marked first."""
        await self.mark(tools)
        self.waiting += 1
        try:
            yield
        finally:
            self.waiting -= 1

    async def lane_done(self, tools: Tools) -> None:
        """A lane has finished while another still waits: what it showed is marked now."""
        if self.waiting:
            await self.mark(tools)


def keys_live(keyboard: InlineKeyboardMarkup | None) -> bool:
    return keyboard is not None and bool(keyboard.inline_keyboard)


class Lane:
    def __init__(self, tools: Tools, chat_id: int, known: Known, shown: Shown) -> None:
        self.tools = tools
        self.chat_id = chat_id
        self.known = known
        self.result = LaneResult()
        self.shown = shown  # the batch's lanes, this one among them
        shown.results.append(self.result)
        self.finished: set[int] = set()  # notices this lane has recorded an outcome for

    def done(
        self, notice: Notice, message_id: int | None, keyboard: InlineKeyboardMarkup | None
    ) -> None:
        live = keys_live(keyboard)
        self.result.delivered.append(Delivered(notice.id, message_id, live))
        if message_id is not None:
            # Older rows that showed this message no longer describe it.
            for old in self.known.live.get((self.chat_id, notice.game_id or 0), []):
                if old.message_id == message_id and old.notice.id != notice.id:
                    self.result.delivered.append(self.tools.keys_gone(old))
            sent = SentMessage(
                notice, message_id, live, max(self.known.newest.get(self.chat_id, 0), message_id)
            )
            self.known.remember(sent)
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
        done = outbox.failed(notice, f"{type(exc).__name__}: {exc}", self.tools.deps.clock.now())
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

    async def spend(self) -> bool:
        """A call that is not a notice's own may be made now (a group's spends its budget)."""
        return True

    async def _clear_orphans(self, notice_id: int, below: int | None = None) -> None:
        """A notice left over from before a restart may have been shown already, its mark lost
        with the process: that message stands after the newest one an earlier notice put in
        the chat (a chat's notices are shown in order), and no notice accounts for it. The
        first few such messages lose their keys: those just ``below`` the message this notice
        became, or else those right after the earlier notices' newest. Messages the store or
        this run know of are left; people's own (a player's, a group member's) cannot be
        edited (Telegram says so and nothing changes; never a delete). While another instance
        is showing something in the chat, a message no notice accounts for yet may be its own:
        the chat stays in doubt and is looked at again soon (``Courier.sweep``), the keys
        cleared once that instance is done."""
        deps, chat = self.tools.deps, self.chat_id
        if not self.tools.alone and (await outbox.elsewhere(deps, {chat: None})).held:
            await self.tools.doubt(chat, notice_id)
            self.result.deferred = True
            return
        ids = await outbox.unaccounted(deps, chat, notice_id, below=below, span=4 * GAP)
        known = {d.message_id for d in self.result.delivered if d.message_id}
        known |= self.known.shown.get(chat, set())
        for message_id in [m for m in ids if m not in known][:GAP]:
            if not await self.spend():  # the rest when the chat's budget allows
                await self.tools.doubt(chat, notice_id)
                self.result.deferred = True
                return
            try:
                await self.tools.calls.remove_keys(chat, message_id)
            except Unreachable:
                raise
            except TelegramError as exc:
                log.debug("message %s in chat %s left as it is: %s", message_id, chat, exc)
        await self.tools.settled(chat)

    async def tidy(self, notice_id: int) -> None:
        """A chat in doubt since notice ``notice_id``, with nothing to show: what no notice
        accounts for, after the newest message the notices before it put there, loses its
        keys now."""
        await self._clear_orphans(notice_id)
