"""An in-memory unit of work with the store's semantics, for use-case tests without a database."""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Self

from cuckoo_bot.app.clock import Clock
from cuckoo_bot.app.model import Chat, Game, GameStatus, LogEntry, Player, Standing
from cuckoo_bot.app.notices import Delivered, Notice, NoticeKind, SentMessage
from cuckoo_bot.app.ports import ConcurrentUpdate

# A deadline wakes a lobby, a turn, or a finished game's "Play again" key.
TIMED = (GameStatus.LOBBY, GameStatus.RUNNING, GameStatus.FINISHED)


@dataclass
class World:
    """What a database would hold. Units of work copy it in and write it back on commit."""

    chats: dict[int, Chat] = field(default_factory=dict)
    players: dict[int, Player] = field(default_factory=dict)
    games: dict[int, Game] = field(default_factory=dict)
    log: dict[int, list[LogEntry]] = field(default_factory=dict)
    outbox: dict[int, Notice] = field(default_factory=dict)
    sent: set[int] = field(default_factory=set)
    messages: dict[int, tuple[int | None, bool]] = field(
        default_factory=dict
    )  # id: (message, keys)
    standings: dict[tuple[int, str, int], Standing] = field(default_factory=dict)
    updates: set[int] = field(default_factory=set)
    retry_at: dict[int, datetime] = field(default_factory=dict)  # failed notices: next try
    next_id: int = 1
    commits: int = 0

    def __deepcopy__(self, memo: dict[int, object]) -> World:
        """A copy for a unit of work. What is frozen (log entries, notice payloads, game
        states) is shared, not copied: a 20-player game's log would make every unit of work
        cost seconds."""
        for game in self.games.values():
            memo[id(game.state)] = game.state
        rest = {k: v for k, v in self.__dict__.items() if k not in ("log", "outbox")}
        new = World.__new__(World)
        new.__dict__.update(copy.deepcopy(rest, memo))
        new.log = {game: list(entries) for game, entries in self.log.items()}
        new.outbox = {i: copy.copy(notice) for i, notice in self.outbox.items()}
        return new


class FakeChats:
    def __init__(self, world: World) -> None:
        self.w = world

    async def get(self, chat_id: int, *, lock: bool = False) -> Chat | None:
        return self.w.chats.get(chat_id)

    async def add(self, chat: Chat) -> None:
        self.w.chats[chat.id] = chat

    async def save(self, chat: Chat) -> None:
        self.w.chats[chat.id] = chat

    async def migrate(self, old_id: int, new_id: int) -> None:
        chat = self.w.chats.pop(old_id)
        self.w.chats[new_id] = replace(chat, id=new_id, migrated_from=old_id)
        for game in self.w.games.values():
            if game.chat_id == old_id:
                game.chat_id = new_id
        for key in [k for k in self.w.standings if k[0] == old_id]:
            row = self.w.standings.pop(key)
            row.scope = new_id
            self.w.standings[(new_id, key[1], key[2])] = row


class FakePlayers:
    def __init__(self, world: World) -> None:
        self.w = world

    async def get(self, player_id: int) -> Player | None:
        return self.w.players.get(player_id)

    async def get_many(self, player_ids: Sequence[int]) -> dict[int, Player]:
        return {p: self.w.players[p] for p in player_ids if p in self.w.players}

    async def upsert(self, player: Player) -> Player:
        old = self.w.players.get(player.id)
        if old is not None:
            player = replace(
                player,
                can_dm=player.can_dm if player.can_dm is not None else old.can_dm,
                language=old.language or player.language,
            )
        self.w.players[player.id] = player
        return player

    async def set_reachable(self, player_id: int, reachable: bool) -> None:
        if player_id in self.w.players:
            self.w.players[player_id] = replace(self.w.players[player_id], can_dm=reachable)

    async def set_language(self, player_id: int, language: str) -> None:
        self.w.players[player_id] = replace(self.w.players[player_id], language=language)


class FakeGames:
    async def count_by_status(self) -> dict[GameStatus, int]:
        counts: dict[GameStatus, int] = {}
        for game in self.w.games.values():
            counts[game.status] = counts.get(game.status, 0) + 1
        return counts

    def __init__(self, world: World) -> None:
        self.w = world

    async def get(self, game_id: int, *, lock: bool = False) -> Game | None:
        game = self.w.games.get(game_id)
        if game is not None:
            game.chat = self.w.chats.get(game.chat_id)
        return game

    async def open_in_chat(self, chat_id: int, *, lock: bool = False) -> Game | None:
        return next(
            (g for g in self.w.games.values() if g.chat_id == chat_id and g.status.open), None
        )

    async def add(self, game: Game) -> Game:
        game.id = self.w.next_id
        self.w.next_id += 1
        self.w.games[game.id] = game
        self.w.log[game.id] = []
        return game

    async def save(self, game: Game) -> None:
        stored = self.w.games.get(game.id)
        if stored is not None and stored is not game and stored.version != game.version:
            raise ConcurrentUpdate(game.id)
        game.version += 1
        self.w.log[game.id].extend(game.new_log)
        game.new_log = []
        self.w.games[game.id] = game

    async def due(self, now: datetime, limit: int = 100) -> list[tuple[int, datetime]]:
        rows = [
            (g.id, g.wake)
            for g in self.w.games.values()
            if g.status in TIMED and g.wake and g.wake <= now
        ]
        return sorted(rows, key=lambda r: r[1])[:limit]  # type: ignore[return-value]

    async def with_deadlines(self) -> list[tuple[int, datetime]]:
        return [(g.id, g.wake) for g in self.w.games.values() if g.status in TIMED and g.wake]

    async def log(self, game_id: int) -> list[LogEntry]:
        return list(self.w.log.get(game_id, []))

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Game]:
        done = [
            g
            for g in self.w.games.values()
            if g.chat_id == chat_id and g.status.value == "finished"
        ]
        return sorted(done, key=lambda g: (g.finished_at, g.id), reverse=True)[:limit]


class FakeOutbox:
    def __init__(self, world: World, now: Callable[[], datetime]) -> None:
        self.w = world
        self.now = now

    async def add_many(self, notices: Sequence[Notice]) -> None:
        for notice in notices:
            notice.id = self.w.next_id
            self.w.next_id += 1
            self.w.outbox[notice.id] = notice

    async def claim(self, chat_id: int | None = None, limit: int = 100) -> list[Notice]:
        # One instance: every notice not sent is this one's, unless it waits for a retry.
        now = self.now()
        rows = [
            n
            for i, n in sorted(self.w.outbox.items())
            if i not in self.w.sent and self.w.retry_at.get(i, now) <= now
        ]
        return [n for n in rows if chat_id is None or n.chat_id == chat_id][:limit]

    async def renew(self, ids: Collection[int]) -> None:
        return None

    async def take_back(self, *, everyone: bool) -> int:
        # One instance holds everything already.
        return sum(1 for i in self.w.outbox if i not in self.w.sent and i not in self.w.retry_at)

    async def hand_back(self) -> int:
        return 0

    def _shown_in(self, chat_id: int) -> dict[int, int]:
        return {
            i: m
            for i, (m, _) in self.w.messages.items()
            if m and self.w.outbox[i].chat_id == chat_id
        }

    async def newest_before(self, chat_id: int, notice_id: int) -> int:
        return max((m for i, m in self._shown_in(chat_id).items() if i < notice_id), default=0)

    async def messages_between(self, chat_id: int, low: int, high: int) -> frozenset[int]:
        return frozenset(m for m in self._shown_in(chat_id).values() if low <= m <= high)

    async def prune(self, before: datetime) -> int:
        return 0

    async def backlog(self) -> int:
        return sum(1 for i in self.w.outbox if i not in self.w.sent)

    async def sent(self, game_id: int) -> list[SentMessage]:
        shown = [
            (n, *self.w.messages[i])
            for i, n in sorted(self.w.outbox.items())
            if n.game_id == game_id and self.w.messages.get(i, (None, False))[0] is not None
        ]
        newest: dict[tuple[NoticeKind, int], int] = {}
        for n, _, _ in shown:
            if n.kind in (NoticeKind.LOBBY, NoticeKind.TABLE, NoticeKind.PLAYED):
                newest[(n.kind, n.chat_id)] = n.id
        top = {
            chat: max(
                (m or 0)
                for i, (m, _) in self.w.messages.items()
                if self.w.outbox[i].chat_id == chat
            )
            for chat in {n.chat_id for n, _, _ in shown}
        }
        return [
            SentMessage(n, message_id or 0, live, top[n.chat_id])
            for n, message_id, live in shown
            if live or newest.get((n.kind, n.chat_id)) == n.id
        ]

    async def mark(self, delivered: Sequence[Delivered]) -> None:
        for d in delivered:
            if d.retry_at is not None:
                self.w.retry_at[d.notice_id] = d.retry_at
                notice = self.w.outbox[d.notice_id]
                notice.attempts += d.tries
                continue
            self.w.sent.add(d.notice_id)
            message, _ = self.w.messages.get(d.notice_id, (None, False))
            self.w.messages[d.notice_id] = (d.message_id or message, d.live_keys)


class FakeStandings:
    def __init__(self, world: World) -> None:
        self.w = world

    async def get_many(
        self, scope: int, season: str, player_ids: Sequence[int]
    ) -> dict[int, Standing]:
        return {
            p: self.w.standings[(scope, season, p)]
            for p in player_ids
            if (scope, season, p) in self.w.standings
        }

    async def claim(
        self, scope: int, season: str, player_ids: Sequence[int]
    ) -> dict[int, Standing]:
        found = await self.get_many(scope, season, player_ids)
        return {
            p: found.get(p) or Standing(player_id=p, scope=scope, season=season) for p in player_ids
        }

    async def save(self, standing: Standing) -> None:
        self.w.standings[(standing.scope, standing.season, standing.player_id)] = standing

    async def table(self, scope: int, season: str, limit: int = 20) -> list[Standing]:
        rows = [s for (sc, se, _), s in self.w.standings.items() if sc == scope and se == season]
        return sorted(rows, key=lambda s: (-s.rating, -s.wins, s.player_id))[:limit]

    async def places(self, scope: int, season: str, player_ids: Sequence[int]) -> dict[int, int]:
        order = [s.player_id for s in await self.table(scope, season, limit=10_000)]
        return {p: order.index(p) + 1 for p in player_ids if p in order}

    async def of_player(self, player_id: int, season: str) -> list[Standing]:
        return [s for (_, se, p), s in self.w.standings.items() if p == player_id and se == season]


class FakeUpdates:
    def __init__(self, world: World) -> None:
        self.w = world

    async def first_time(self, update_id: int) -> bool:
        if update_id in self.w.updates:
            return False
        self.w.updates.add(update_id)
        return True


class FakeUnitOfWorkFactory:
    """``ports.UnitOfWorkFactory`` over one in-memory world (every mode behaves the same)."""

    def __init__(self, world: World, clock: Clock | None = None) -> None:
        self.world = world
        self.clock = clock or FakeClock()

    def __call__(self, *, read_only: bool = False, autocommit: bool = False) -> FakeUnitOfWork:
        return FakeUnitOfWork(self.world, self.clock.now)


class FakeUnitOfWork:
    """Works on a deep copy of the world; commit swaps it in, so a missing commit loses all."""

    def __init__(self, world: World, now: Callable[[], datetime]) -> None:
        self._world = world
        self._now = now

    async def __aenter__(self) -> Self:
        self._draft = copy.deepcopy(self._world)
        self.chats = FakeChats(self._draft)
        self.players = FakePlayers(self._draft)
        self.games = FakeGames(self._draft)
        self.outbox = FakeOutbox(self._draft, self._now)
        self.standings = FakeStandings(self._draft)
        self.updates = FakeUpdates(self._draft)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        del self._draft

    async def commit(self) -> None:
        self._world.__dict__.update(copy.deepcopy(self._draft).__dict__)
        self._world.commits += 1


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)
