"""What a lane knows of its chat before it plans: the games and players of the batch, and the
chat's messages as the store's ``messages`` table had them (plus what this process showed
since). Pure data: the planners (``plan_private.py``, ``plan_group.py``) read it, the lanes
update it as Telegram answers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import Notice, NoticeKind, SentMessage
from cuckoo_bot.app.outbox import Batch

# The newest message of each of these kinds, per chat and game: what a later notice edits.
_NEWEST = (NoticeKind.TABLE, NoticeKind.LOBBY, NoticeKind.PLAYED)


class Known:
    """What a batch knows of the chats: games, players, and the messages already there."""

    def __init__(self, batch: Batch) -> None:
        self.games = batch.games
        self.players = batch.players
        self.live: dict[tuple[int, int], list[SentMessage]] = {}  # (chat, game): with keys
        # (kind, chat, game): the newest table, lobby, or answered prompt (no keys left: the
        # next deal edits it).
        self.newest_of: dict[tuple[NoticeKind, int, int], SentMessage] = {}
        self.newest: dict[int, int] = {}  # chat: the newest message the bot sent there
        self.telling: dict[int, set[int]] = {}  # chat: every message known to show a notice
        for sent in batch.sent:
            self.remember(sent)

    def remember(self, sent: SentMessage) -> None:
        notice = sent.notice
        chat, game = notice.chat_id, notice.game_id or 0
        self.newest[chat] = max(self.newest.get(chat, 0), sent.newest, sent.message_id)
        self.telling.setdefault(chat, set()).add(sent.message_id)
        if notice.kind in _NEWEST:
            known = self.newest_of.get((notice.kind, chat, game))
            if known is None or known.notice.id < notice.id:
                self.newest_of[(notice.kind, chat, game)] = sent
        played = self.newest_of.get((NoticeKind.PLAYED, chat, game))
        same = played is not None and played.message_id == sent.message_id
        if same and played is not None and played.notice.id != notice.id:
            del self.newest_of[(NoticeKind.PLAYED, chat, game)]  # it shows something newer now
        live = [s for s in self.live.get((chat, game), []) if s.message_id != sent.message_id]
        if sent.live_keys:
            live.append(sent)
        self.live[(chat, game)] = live

    def newest_kind(self, notice: Notice, kind: NoticeKind) -> SentMessage | None:
        """The newest message of ``kind`` in the notice's chat, for its game."""
        return self.newest_of.get((kind, notice.chat_id, notice.game_id or 0))

    def live_of(self, notice: Notice, kind: NoticeKind) -> list[SentMessage]:
        found = self.live.get((notice.chat_id, notice.game_id or 0), [])
        return sorted((s for s in found if s.notice.kind is kind), key=lambda s: s.message_id)

    def showing(self, notice: Notice) -> SentMessage | None:
        """The newest message the store knows shows this very notice with its keys: a copy
        recorded the moment Telegram answered, by a process that died before its mark."""
        found = self.live.get((notice.chat_id, notice.game_id or 0), [])
        mine = [s for s in found if s.notice.id == notice.id]
        return max(mine, key=lambda s: s.message_id, default=None)

    def game(self, notice: Notice) -> Game | None:
        return self.games.get(notice.game_id) if notice.game_id is not None else None


@dataclass(frozen=True)
class ChatView:
    """All a planner reads of one chat: what is known there, whether a message the store never
    learnt of may stand there (a send whose answer was lost), and which notices another process
    may have shown already (made before this one started, or not made here)."""

    id: int
    known: Known
    doubted: bool = False
    maybe_shown: Callable[[Notice], bool] = lambda notice: False

    @property
    def newest(self) -> int:
        return self.known.newest.get(self.id, 0)
