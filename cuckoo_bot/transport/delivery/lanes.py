"""What a delivery lane knows and records: the chats' messages (``Context``), what became of
each notice (``LaneResult``), and the steps every lane shares (``Lane``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from telegram import InlineKeyboardMarkup

from cuckoo_bot.app import dispatch as outbox
from cuckoo_bot.app.dispatch import Delivered, Dispatch, SentMessage
from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import (
    Notice,
    NoticeKind,
)

if TYPE_CHECKING:
    from cuckoo_bot.transport.delivery.courier import Courier

log = logging.getLogger(__name__)


class Context:
    """What a batch knows of the chats: games, players, and the messages already there."""

    def __init__(self, dispatch: Dispatch) -> None:
        self.games = dispatch.games
        self.players = dispatch.players
        self.live: dict[tuple[int, int], list[SentMessage]] = {}  # (chat, game): with keys
        self.newest_table: dict[tuple[int, int], SentMessage] = {}
        self.newest_lobby: dict[tuple[int, int], SentMessage] = {}
        # A player's newest answered prompt (no keys left): the next deal edits it.
        self.newest_played: dict[tuple[int, int], SentMessage] = {}
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


def keys_live(keyboard: InlineKeyboardMarkup | None) -> bool:
    return keyboard is not None and bool(keyboard.inline_keyboard)


class Lane:
    def __init__(self, courier: Courier, chat_id: int, context: Context) -> None:
        self.courier = courier
        self.chat_id = chat_id
        self.context = context
        self.result = LaneResult()
        self.finished: set[int] = set()  # notices this lane has recorded an outcome for

    def done(
        self, notice: Notice, message_id: int | None, keyboard: InlineKeyboardMarkup | None
    ) -> None:
        live = keys_live(keyboard)
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
