"""An in-memory unit of work with the store's semantics, for use-case tests without a database.

It keeps the contract the SQL store keeps (``tests/contract`` runs the same statements over
both): reads hand out copies and only ``save`` writes back, outbox notices are claimed by one
instance at a time under a lease, and sent notices are pruned.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, Self

from cuckoo_bot.app.clock import Clock
from cuckoo_bot.app.model import Chat, Game, GameStatus, LogEntry, Player, Standing
from cuckoo_bot.app.notices import (
    PASSED_OVER,
    Delivered,
    Elsewhere,
    Notice,
    NoticeKind,
    SentMessage,
    dump_payload,
    load_payload,
)
from cuckoo_bot.app.notices.message import Message
from cuckoo_bot.app.ports import (
    ChatRepository,
    ConcurrentUpdate,
    GameRepository,
    MessageRepository,
    OutboxRepository,
    Pending,
    PlayerRepository,
    StandingRepository,
    SweepRepository,
    UpdateLog,
)
from cuckoo_bot.app.tuning import LEASE

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
    sent: dict[int, datetime] = field(default_factory=dict)  # notice id: when it was done
    messages: dict[int, Message] = field(default_factory=dict)  # row id: the ``messages`` row
    # Who holds each undelivered notice, and until when: (instance, lease end); (None, retry)
    # for a failed try waiting for its next one; (None, None) for a notice handed back.
    claims: dict[int, tuple[str | None, datetime | None]] = field(default_factory=dict)
    standings: dict[tuple[int, str, int], Standing] = field(default_factory=dict)
    updates: set[int] = field(default_factory=set)
    holds: dict[int, datetime] = field(default_factory=dict)  # chat: refused until
    errors: dict[int, str] = field(default_factory=dict)  # notice id: why it was not shown
    next_id: int = 1
    commits: int = 0

    def shows(self, notice_id: int) -> tuple[int | None, bool]:
        """The message showing this notice now, and whether with keys ((None, False): none)."""
        for row in self.messages.values():
            if row.shown == notice_id and row.message_id is not None:
                return row.message_id, row.keys
        return None, False

    def message(self, chat_id: int, message_id: int) -> Message | None:
        """The row of a message, if the store knows it."""
        for row in self.messages.values():
            if (row.chat_id, row.message_id) == (chat_id, message_id):
                return row
        return None

    def doubts(self) -> dict[int, int]:
        """Chats with a message of unknown id, each with its oldest such notice."""
        found: dict[int, int] = {}
        for row in self.messages.values():
            if row.message_id is None:
                found[row.chat_id] = min(found.get(row.chat_id, row.sent_by), row.sent_by)
        return found

    def put(self, notice_id: int, message_id: int | None, keys: bool) -> None:
        """Record that a notice shows a message (as ``mark`` would), for tests to set up."""
        FakeMessages(self, lambda: datetime(2026, 1, 1, tzinfo=UTC)).merge(
            notice_id, message_id, keys
        )

    def waiting(self) -> list[int]:
        """The notices whose last try failed, waiting for their next one."""
        return [
            i
            for i, (holder, until) in self.claims.items()
            if holder is None and until is not None and i not in self.sent
        ]

    def __deepcopy__(self, memo: dict[int, object]) -> World:
        """A copy for a unit of work. What is frozen (log entries, notice payloads, game
        states) is shared, not copied: a 20-player game's log would make every unit of work
        cost seconds."""
        for game in self.games.values():
            memo[id(game.state)] = game.state
        flat = (
            "sent",
            "messages",
            "claims",
            "updates",
            "errors",
        )  # immutable values: copied shallow
        rest = {k: v for k, v in self.__dict__.items() if k not in ("log", "outbox", *flat)}
        new = World.__new__(World)
        new.__dict__.update(copy.deepcopy(rest, memo))
        new.__dict__.update({k: copy.copy(self.__dict__[k]) for k in flat})
        new.log = {game: list(entries) for game, entries in self.log.items()}
        new.outbox = {i: copy.copy(notice) for i, notice in self.outbox.items()}
        return new


def _game(game: Game) -> Game:
    """A copy of a game that shares nothing its holder may change (the state is frozen)."""
    new = copy.copy(game)
    new.seats, new.offered, new.new_log = list(game.seats), list(game.offered), list(game.new_log)
    return new


class FakeChats:
    def __init__(self, world: World) -> None:
        self.w = world

    async def get(self, chat_id: int, *, lock: bool = False) -> Chat | None:
        chat = self.w.chats.get(chat_id)
        return copy.copy(chat) if chat is not None else None

    async def add(self, chat: Chat) -> None:
        self.w.chats[chat.id] = copy.copy(chat)

    async def save(self, chat: Chat) -> None:
        if chat.id in self.w.chats:  # the pot is only a game's end's to write
            self.w.chats[chat.id] = replace(chat, pot=self.w.chats[chat.id].pot)

    async def take_pot(self, chat_id: int) -> int:
        chat = self.w.chats.get(chat_id)
        return chat.pot if chat is not None else 0

    async def put_pot(self, chat_id: int, chips: int) -> None:
        if chat_id in self.w.chats:
            self.w.chats[chat_id] = replace(self.w.chats[chat_id], pot=chips)

    async def migrate(self, old_id: int, new_id: int) -> None:
        chat = self.w.chats.pop(old_id, None)
        if chat is None:
            return
        self.w.chats[new_id] = replace(chat, id=new_id, migrated_from=old_id)
        for game in self.w.games.values():
            if game.chat_id == old_id:
                game.chat_id = new_id
        for key in [k for k in self.w.standings if k[0] == old_id]:
            row = self.w.standings.pop(key)
            self.w.standings[(new_id, key[1], key[2])] = replace(row, scope=new_id)

    async def hold(self, chat_id: int, until: datetime) -> None:
        self.w.holds[chat_id] = max(until, self.w.holds.get(chat_id, until))
        self.w.holds = {c: t for c, t in self.w.holds.items() if t >= until - timedelta(days=1)}

    async def held(self, now: datetime) -> dict[int, datetime]:
        return {c: t for c, t in self.w.holds.items() if t > now}


class FakePlayers:
    def __init__(self, world: World) -> None:
        self.w = world

    async def get(self, player_id: int) -> Player | None:
        player = self.w.players.get(player_id)
        return copy.copy(player) if player is not None else None

    async def get_many(self, player_ids: Sequence[int]) -> dict[int, Player]:
        return {p: copy.copy(self.w.players[p]) for p in player_ids if p in self.w.players}

    async def upsert(self, player: Player) -> Player:
        old = self.w.players.get(player.id)
        if old is not None:
            player = replace(
                player,
                can_dm=player.can_dm if player.can_dm is not None else old.can_dm,
                language=old.language if old.language is not None else player.language,
            )
        self.w.players[player.id] = copy.copy(player)
        return copy.copy(player)

    async def set_reachable(self, player_id: int, reachable: bool) -> None:
        if player_id in self.w.players:
            self.w.players[player_id] = replace(self.w.players[player_id], can_dm=reachable)

    async def set_language(self, player_id: int, language: str) -> None:
        if player_id in self.w.players:
            self.w.players[player_id] = replace(self.w.players[player_id], language=language)


class FakeGames:
    def __init__(self, world: World) -> None:
        self.w = world

    def _loaded(self, game: Game) -> Game:
        """A copy of the stored game with its chat, as the store reads it."""
        found = _game(game)
        chat = self.w.chats.get(game.chat_id)
        found.chat = copy.copy(chat) if chat is not None else None
        return found

    async def count_by_status(self) -> dict[GameStatus, int]:
        counts: dict[GameStatus, int] = {}
        for game in self.w.games.values():
            counts[game.status] = counts.get(game.status, 0) + 1
        return counts

    async def get(self, game_id: int, *, lock: bool = False) -> Game | None:
        game = self.w.games.get(game_id)
        return self._loaded(game) if game is not None else None

    async def open_in_chat(self, chat_id: int, *, lock: bool = False) -> Game | None:
        found = (g for g in self.w.games.values() if g.chat_id == chat_id and g.status.open)
        game = next(found, None)
        return self._loaded(game) if game is not None else None

    async def add(self, game: Game) -> Game:
        game.id = self.w.next_id
        self.w.next_id += 1
        self.w.log[game.id] = list(game.new_log)
        game.new_log = []
        self.w.games[game.id] = _game(game)
        return game

    async def save(self, game: Game) -> None:
        stored = self.w.games.get(game.id)
        if stored is None or stored.version != game.version:
            raise ConcurrentUpdate(game.id)
        game.version += 1
        self.w.log[game.id].extend(game.new_log)
        game.new_log = []
        self.w.games[game.id] = _game(game)

    def _timed(self) -> list[tuple[datetime, int, datetime]]:
        """(deadline, id, wake) of the games a timer may wake, by deadline."""
        return sorted(
            (g.deadline, g.id, g.wake)
            for g in self.w.games.values()
            if g.status in TIMED and g.deadline is not None and g.wake is not None
        )

    async def due(self, now: datetime, limit: int = 100) -> list[tuple[int, datetime]]:
        return [(i, wake) for _, i, wake in self._timed() if wake <= now][:limit]

    async def with_deadlines(self) -> list[tuple[int, datetime]]:
        return [(i, wake) for _, i, wake in self._timed()]

    async def log(self, game_id: int) -> list[LogEntry]:
        return list(self.w.log.get(game_id, []))

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Game]:
        done = [
            g
            for g in self.w.games.values()
            if g.chat_id == chat_id and g.status is GameStatus.FINISHED
        ]
        done.sort(key=lambda g: (g.finished_at, g.id), reverse=True)
        return [self._loaded(g) for g in done[:limit]]


class FakeOutbox:
    """The outbox as instance ``instance`` sees it: a notice is held by one instance at a time,
    for ``lease`` unless renewed; a failed try is free for anyone once its retry is due."""

    def __init__(
        self, world: World, now: Callable[[], datetime], instance: str, lease: timedelta
    ) -> None:
        self.w = world
        self.now = now
        self.instance = instance
        self.lease = lease

    def _hold(self, notice_id: int) -> None:
        self.w.claims[notice_id] = (self.instance, self.now() + self.lease)

    def _undelivered(self) -> list[int]:
        return [i for i in sorted(self.w.outbox) if i not in self.w.sent]

    async def add_many(self, notices: Sequence[Notice]) -> None:
        now = self.now()
        for notice in notices:
            # As strict as the store: a payload must come back from its JSON as it went in
            # (the store keeps what it writes as the value it will read: ``decoded.py``).
            data = json.loads(json.dumps(dump_payload(notice.payload)))
            back = load_payload(notice.kind, data)
            assert back == notice.payload, f"{notice.kind}: {notice.payload!r} came back {back!r}"
            notice.id = self.w.next_id
            notice.created_at = notice.created_at or now
            self.w.next_id += 1
            self.w.outbox[notice.id] = replace(notice, attempts=0)
            self._hold(notice.id)  # the press that made them delivers them

    def _free(self, notice_id: int, now: datetime) -> bool:
        holder, until = self.w.claims.get(notice_id, (None, None))
        return until is None or until <= now or holder == self.instance

    async def claim(self, chat_id: int | None = None, limit: int = 100) -> list[Notice]:
        now = self.now()
        chosen = [
            i
            for i in self._undelivered()
            if (chat_id is None or self.w.outbox[i].chat_id == chat_id) and self._free(i, now)
        ][:limit]
        for i in chosen:
            self._hold(i)
        return [copy.copy(self.w.outbox[i]) for i in chosen]

    async def renew(self, ids: Collection[int]) -> set[int]:
        renewed = set()
        for i in ids:
            holder, _ = self.w.claims.get(i, (None, None))
            if i in self.w.outbox and i not in self.w.sent and holder == self.instance:
                self._hold(i)
                renewed.add(i)
        return renewed

    async def take_back(self, *, everyone: bool) -> int:
        # A failed try waiting for its retry has no holder: untouched.
        taken = [
            i
            for i in self._undelivered()
            if (holder := self.w.claims.get(i, (None, None))[0]) is not None
            and (everyone or holder == self.instance)
        ]
        for i in taken:
            self._hold(i)
        return len(taken)

    async def hand_back(self) -> int:
        mine = [i for i in self._undelivered() if self.w.claims.get(i, (None,))[0] == self.instance]
        for i in mine:
            self.w.claims[i] = (None, None)
        return len(mine)

    async def elsewhere(
        self,
        chats: Mapping[int, int | None],
        since: datetime | None = None,
        paced_since: datetime | None = None,
        born: datetime | None = None,
    ) -> Elsewhere:
        now = self.now()
        rows = []
        for i, notice in self.w.outbox.items():
            chat = notice.chat_id
            if chat not in chats or (chats[chat] is not None and i >= (chats[chat] or 0)):
                continue
            holder, until = self.w.claims.get(i, (None, None))
            done = self.w.sent.get(i)
            shown = i not in self.w.errors
            held = done is None and holder not in (None, self.instance) and bool(until)
            held = held and until is not None and until > now
            left = (
                done is None
                and (until is None or until <= now)
                and (holder is None or holder != self.instance)
            )
            # What it showed itself, it remembers; not what its previous life marked late.
            theirs = holder != self.instance or (
                born is not None and done is not None and done < born
            )
            if (
                held
                or left
                or (done is not None and since is not None and done >= since and shown and theirs)
                or (done is not None and paced_since is not None and done >= paced_since)
            ):
                rows.append((chat, done, notice.kind.value, shown, held, theirs))
        return Elsewhere.of(rows, since, paced_since)

    async def unprompted(self, game_id: int | None = None, limit: int = 50) -> list[int]:
        asks = (NoticeKind.PROMPT, NoticeKind.TURN)
        newest: dict[int | None, int] = {}
        for i, notice in sorted(self.w.outbox.items()):
            if notice.kind in asks:
                newest[notice.game_id] = i
        asking = {g for g, i in newest.items() if i not in self.w.sent} | {
            m.game_id
            for m in self.w.messages.values()
            if m.kind in asks and m.keys and m.shown >= newest.get(m.game_id, m.shown + 1)
        }
        found = [
            g
            for g, game in sorted(self.w.games.items())
            if game.status is GameStatus.RUNNING
            and g not in asking
            and (game_id is None or g == game_id)
        ]
        return found[:limit]

    async def untold(
        self, before: datetime, game_id: int | None = None, limit: int = 50
    ) -> list[Notice]:
        newest: dict[int, Notice] = {}
        for _, notice in sorted(self.w.outbox.items()):
            if notice.kind is NoticeKind.TABLE and notice.game_id is not None:
                newest[notice.game_id] = notice
        shown = {
            m.game_id: m.shown
            for m in sorted(self.w.messages.values(), key=lambda m: m.shown)
            if m.kind is NoticeKind.TABLE and m.message_id is not None
        }
        found = [
            replace(notice)
            for g, notice in sorted(newest.items(), key=lambda item: item[1].id)
            if self.w.games[g].status is GameStatus.RUNNING
            and (game_id is None or g == game_id)
            and notice.id in self.w.sent
            and self.w.sent[notice.id] <= before
            and self.w.errors.get(notice.id) in (None, *PASSED_OVER)
            and shown.get(g, 0) < notice.id
        ]
        return found[:limit]

    async def prune(self, before: datetime) -> int:
        open_games = {i for i, g in self.w.games.items() if g.status.open}
        keyed = {m.shown for m in self.w.messages.values() if m.keys and m.message_id}
        gone = [
            i
            for i, at in self.w.sent.items()
            if at < before and i not in keyed and self.w.outbox[i].game_id not in open_games
        ]
        for i in gone:
            for rows in (self.w.outbox, self.w.sent, self.w.claims):
                rows.pop(i, None)
        return len(gone)

    async def backlog(self) -> int:
        return len(self._undelivered())

    async def mark(self, delivered: Sequence[Delivered]) -> None:
        now = self.now()
        for d in delivered:
            notice = self.w.outbox.get(d.notice_id)
            if notice is None:  # pruned meanwhile
                continue
            notice.attempts += d.tries
            if d.message_id is not None:
                FakeMessages(self.w, self.now).merge(d.notice_id, d.message_id, d.live_keys)
            if d.error is not None:
                self.w.errors[d.notice_id] = d.error
            if d.retry_at is not None:
                # Not done: free for any instance from ``retry_at`` on.
                self.w.claims[d.notice_id] = (None, d.retry_at)
            else:
                self.w.sent.setdefault(d.notice_id, now)


class FakeMessages:
    """The ``messages`` table: a report merges into its message's row by ``Message.after``."""

    def __init__(self, world: World, now: Callable[[], datetime]) -> None:
        self.w = world
        self.now = now

    def _row(self, notice: Notice, message_id: int | None, keys: bool) -> Message:
        return Message(
            chat_id=notice.chat_id,
            message_id=message_id,
            game_id=notice.game_id,
            kind=notice.kind,
            sent_by=notice.id,
            shown=notice.id,
            keys=keys,
            at=self.now(),
        )

    async def record(self, delivered: Sequence[Delivered]) -> None:
        for d in delivered:
            if d.message_id is not None:
                self.merge(d.notice_id, d.message_id, d.live_keys)

    def merge(self, notice_id: int, message_id: int | None, keys: bool) -> None:
        notice = self.w.outbox.get(notice_id)
        if notice is None:  # pruned meanwhile
            return
        report = self._row(notice, message_id, keys)
        for key, row in self.w.messages.items():
            if message_id is not None and (row.chat_id, row.message_id) == (
                notice.chat_id,
                message_id,
            ):
                self.w.messages[key] = row.after(report)
                return
        self.w.messages[max(self.w.messages, default=0) + 1] = report

    async def get(self, chat_id: int, message_id: int) -> Message | None:
        return self.w.message(chat_id, message_id)

    async def copies(self, limit: int = 20) -> list[Message]:
        rows = sorted(
            (r for r in self.w.messages.values() if r.message_id is not None),
            key=lambda r: (r.shown, r.message_id or 0),
        )
        # The newest state of each sender; a cleared copy (no kind) keeps nothing.
        best = {(r.chat_id, r.sent_by): r for r in rows if r.kind is not None}
        beaten = [r for r in rows if r.keys and best.get((r.chat_id, r.sent_by), r) is not r]
        # A keyless message showing just what a newer one sent by the same notice shows.
        twins = [
            r
            for r in rows
            if not r.keys
            and r.kind is not None
            and any(
                (o.chat_id, o.sent_by, o.shown, o.kind) == (r.chat_id, r.sent_by, r.shown, r.kind)
                and (o.message_id or 0) > (r.message_id or 0)
                for o in rows
            )
        ]
        order = {id(r): key for key, r in self.w.messages.items()}
        return sorted([*beaten, *twins], key=lambda r: order[id(r)])[:limit]

    async def forget(self, chat_id: int, message_id: int) -> None:
        for key, row in list(self.w.messages.items()):
            if (row.chat_id, row.message_id) == (chat_id, message_id):
                del self.w.messages[key]

    async def sent(self, game_id: int) -> list[SentMessage]:
        shown = sorted(
            (m for m in self.w.messages.values() if m.game_id == game_id and m.message_id),
            key=lambda m: m.shown,
        )
        edited = (NoticeKind.LOBBY, NoticeKind.TABLE, NoticeKind.PLAYED)
        newest: dict[tuple[NoticeKind | None, int], int] = {}
        for m in shown:
            if m.kind in edited:
                newest[(m.kind, m.chat_id)] = m.shown
        chats = {m.chat_id for m in shown}
        top = {chat: max(self._shown_in(chat)) for chat in chats}
        return [
            SentMessage(
                copy.copy(self.w.outbox[m.shown]), m.message_id or 0, m.keys, top[m.chat_id]
            )
            for m in shown
            if m.shown in self.w.outbox and (m.keys or newest.get((m.kind, m.chat_id)) == m.shown)
        ]

    async def doubt(self, chat_id: int, since: int) -> None:
        if self.w.doubts().get(chat_id, since + 1) <= since:
            return  # an older doubt stands: one row
        notice = self.w.outbox.get(since)
        self.w.messages[max(self.w.messages, default=0) + 1] = Message(
            chat_id=chat_id,
            message_id=None,
            game_id=notice.game_id if notice else None,
            kind=notice.kind if notice else None,
            sent_by=since,
            shown=since,
            keys=True,
            at=self.now(),
        )

    async def doubts(self) -> dict[int, int]:
        return self.w.doubts()

    async def cleared(self, chat_id: int, message_ids: Sequence[int], shown: int) -> None:
        for message_id in sorted(set(message_ids)):
            report = Message(chat_id, message_id, None, None, shown, shown, False, self.now())
            for key, row in self.w.messages.items():
                if (row.chat_id, row.message_id) == (chat_id, message_id):
                    self.w.messages[key] = row.after(report)
                    break
            else:
                self.w.messages[max(self.w.messages, default=0) + 1] = report

    async def settle_doubt(self, chat_id: int, since: int) -> None:
        for key, row in list(self.w.messages.items()):
            if row.chat_id == chat_id and row.message_id is None and row.sent_by >= since:
                del self.w.messages[key]

    def _shown_in(self, chat_id: int, before: int | None = None) -> list[int]:
        return [
            m.message_id
            for m in self.w.messages.values()
            if m.chat_id == chat_id
            and m.message_id is not None
            and (before is None or m.sent_by < before)
        ]

    async def newest_before(self, chat_id: int, notice_id: int) -> int:
        return max(self._shown_in(chat_id, notice_id), default=0)

    async def messages_between(self, chat_id: int, low: int, high: int) -> frozenset[int]:
        return frozenset(m for m in self._shown_in(chat_id) if low <= m <= high)

    async def later_game_shown(self, chat_id: int, game_id: int, after: int) -> bool:
        return any(
            m.chat_id == chat_id
            and m.message_id is not None
            and (m.game_id or 0) > game_id
            and m.sent_by > after
            for m in self.w.messages.values()
        )

    async def prune(self, before: datetime) -> int:
        open_games = {i for i, g in self.w.games.items() if g.status.open}
        gone = [
            key
            for key, m in self.w.messages.items()
            if m.at < before
            and (not m.keys or m.message_id is None)
            and m.game_id not in open_games
        ]
        for key in gone:
            del self.w.messages[key]
        return len(gone)


class FakeStandings:
    def __init__(self, world: World) -> None:
        self.w = world

    async def get_many(
        self, scope: int, season: str, player_ids: Sequence[int]
    ) -> dict[int, Standing]:
        return {
            p: copy.copy(self.w.standings[(scope, season, p)])
            for p in player_ids
            if (scope, season, p) in self.w.standings
        }

    async def claim(
        self, scope: int, season: str, player_ids: Sequence[int]
    ) -> dict[int, Standing]:
        for p in player_ids:  # made if missing
            self.w.standings.setdefault(
                (scope, season, p), Standing(player_id=p, scope=scope, season=season)
            )
        return await self.get_many(scope, season, sorted(set(player_ids)))

    async def save(self, standing: Standing) -> None:
        key = (standing.scope, standing.season, standing.player_id)
        self.w.standings[key] = copy.copy(standing)

    async def table(self, scope: int, season: str, limit: int | None = 20) -> list[Standing]:
        rows = [s for (sc, se, _), s in self.w.standings.items() if sc == scope and se == season]
        rows.sort(key=lambda s: (-s.rating, -s.wins, s.player_id))
        return [copy.copy(s) for s in rows[:limit]]

    async def of_player(self, player_id: int, season: str) -> list[Standing]:
        return [
            copy.copy(s)
            for (_, se, p), s in sorted(self.w.standings.items())
            if p == player_id and se == season
        ]


class FakeUpdates:
    def __init__(self, world: World) -> None:
        self.w = world

    async def first_time(self, update_id: int) -> bool:
        if update_id in self.w.updates:
            return False
        self.w.updates.add(update_id)
        return True


class FakeSweep:
    """The sweeper's question, answered by the other repositories' own reads."""

    def __init__(
        self, games: FakeGames, chats: FakeChats, messages: FakeMessages, outbox: FakeOutbox
    ) -> None:
        self.games, self.chats, self.messages, self.outbox = games, chats, messages, outbox

    async def pending(self, now: datetime) -> Pending:
        return Pending(
            due=bool(await self.games.due(now, limit=1)),
            held=bool(await self.chats.held(now)),
            doubts=bool(await self.messages.doubts()),
            unsent=bool(await self.outbox.backlog()),
            copies=bool(await self.messages.copies(limit=1)),
        )


class FakeUnitOfWorkFactory:
    """``ports.UnitOfWorkFactory`` over one in-memory world (every mode behaves the same).

    ``instance`` names this process in outbox claims; several factories over one world are
    several instances sharing a database."""

    def __init__(
        self,
        world: World,
        clock: Clock | None = None,
        *,
        instance: str = "local",
        lease: timedelta = LEASE,
    ) -> None:
        self.world = world
        self.clock = clock or FakeClock()
        self.instance = instance
        self.lease = lease

    def __call__(self, *, read_only: bool = False, autocommit: bool = False) -> FakeUnitOfWork:
        return FakeUnitOfWork(self.world, self.clock.now, self.instance, self.lease)


class StoreDown(ConnectionError):
    """The store cannot be reached (``FailingStore.down``)."""


class FailingStore(FakeUnitOfWorkFactory):
    """The in-memory store, which fails every unit of work while ``down`` is set (a database
    that is away, or the connection of a process that was killed), and whose units of work
    wait while it is ``slow`` (a connection that lags: this process's reads and marks reach
    the store after others' that came later)."""

    down = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.flowing = asyncio.Event()
        self.flowing.set()

    def slow(self) -> None:
        self.flowing.clear()

    def flow(self) -> None:
        self.flowing.set()

    def __call__(self, *, read_only: bool = False, autocommit: bool = False) -> FakeUnitOfWork:
        if self.down:
            raise StoreDown("database is unavailable")
        return LaggingUnitOfWork(self, self.world, self.clock.now, self.instance, self.lease)


class FakeUnitOfWork:
    """Works on a deep copy of the world; commit swaps it in, so a missing commit loses all."""

    chats: ChatRepository
    players: PlayerRepository
    games: GameRepository
    outbox: OutboxRepository
    messages: MessageRepository
    standings: StandingRepository
    updates: UpdateLog
    sweep: SweepRepository

    def __init__(
        self,
        world: World,
        now: Callable[[], datetime],
        instance: str = "local",
        lease: timedelta = LEASE,
    ) -> None:
        self._world = world
        self._now = now
        self._instance = instance
        self._lease = lease

    async def __aenter__(self) -> Self:
        self._draft = copy.deepcopy(self._world)
        chats, games = FakeChats(self._draft), FakeGames(self._draft)
        outbox = FakeOutbox(self._draft, self._now, self._instance, self._lease)
        messages = FakeMessages(self._draft, self._now)
        self.chats, self.games, self.outbox, self.messages = chats, games, outbox, messages
        self.players = FakePlayers(self._draft)
        self.standings = FakeStandings(self._draft)
        self.updates = FakeUpdates(self._draft)
        self.sweep = FakeSweep(games, chats, messages, outbox)
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


class LaggingUnitOfWork(FakeUnitOfWork):
    """A unit of work of a ``FailingStore``: it begins once the store flows (and fails if the
    store went down meanwhile)."""

    def __init__(self, store: FailingStore, *args: Any) -> None:
        super().__init__(*args)
        self._store = store

    async def __aenter__(self) -> Self:
        await self._store.flowing.wait()
        if self._store.down:
            raise StoreDown("database is unavailable")
        return await super().__aenter__()


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)
