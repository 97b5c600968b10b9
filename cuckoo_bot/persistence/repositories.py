"""The SQL implementations of the app's repositories. One ``AsyncSession`` is one transaction."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    Executable,
    Integer,
    Select,
    Table,
    Text,
    and_,
    bindparam,
    case,
    delete,
    exists,
    func,
    insert,
    null,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from cuckoo_bot.app.dispatch import Delivered, SentMessage
from cuckoo_bot.app.model import (
    Chat,
    Game,
    GameStatus,
    LogEntry,
    Player,
    Standing,
    is_computer,
)
from cuckoo_bot.app.notices import Notice, NoticeKind
from cuckoo_bot.app.ports import ConcurrentUpdate
from cuckoo_bot.domain.actions import Deal, PlayerId
from cuckoo_bot.domain.events import (
    LifeLost,
    Misdealt,
    PlayerEliminated,
    Revealed,
    RoundDealt,
)
from cuckoo_bot.persistence.mapping import (
    chat_from_row,
    chat_values,
    game_from_row,
    game_values,
    log_entry_from_row,
    log_values,
    notice_from_row,
    notice_values,
    player_from_row,
    player_values,
    standing_from_row,
    standing_values,
    stored_seats,
)
from cuckoo_bot.persistence.models import (
    OPEN_GAME,
    OPEN_STATUSES,
    ChatRow,
    GameLogRow,
    GamePlayerRow,
    GameRow,
    OutboxRow,
    PlayerRow,
    ProcessedUpdateRow,
    RoundRow,
    StandingRow,
)
from cuckoo_bot.persistence.types import UtcDateTime

Row = TypeVar("Row")
Now = Callable[[], datetime]

# Processed update ids are kept this long; a redelivery comes within seconds or minutes.
UPDATE_RETENTION = timedelta(days=1)
PRUNE_EVERY = 256  # prune when an update id is a multiple of this: about once per 256 updates


def _table(model: type[Any]) -> Table:
    """A model's table: statements run with many parameter sets go through Core, one
    ``executemany`` each (the ORM would read rows back by primary key)."""
    return cast(Table, model.__table__)


@dataclass(frozen=True)
class Store:
    """What every repository of one unit of work shares."""

    session: AsyncSession
    dialect: str
    now: Now
    instance: str = "local"  # who claims outbox notices (several instances share a database)
    lease: timedelta = timedelta(seconds=20)  # how long a claim holds without being renewed

    def insert(self, table: Any) -> Any:
        """The dialect's INSERT, which knows ON CONFLICT."""
        if self.dialect == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)

    async def rows(self, query: Select[Row]) -> list[Row]:
        # populate_existing: a row read again in the same session reflects UPDATE statements.
        result = await self.session.scalars(query.execution_options(populate_existing=True))
        return list(result.all())

    async def row(self, query: Select[Row]) -> Row | None:
        found = await self.rows(query)
        return found[0] if found else None

    async def rowcount(self, statement: Executable) -> int:
        result = await self.session.execute(statement)
        return cast(CursorResult[Any], result).rowcount


class SqlChats:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def get(self, chat_id: int, *, lock: bool = False) -> Chat | None:
        query = select(ChatRow).where(ChatRow.id == chat_id)
        row = await self._s.row(query.with_for_update() if lock else query)
        return chat_from_row(row) if row is not None else None

    async def add(self, chat: Chat) -> None:
        now = self._s.now()
        await self._s.session.execute(
            insert(ChatRow).values(**chat_values(chat), created_at=now, updated_at=now)
        )

    async def save(self, chat: Chat) -> None:
        await self._s.session.execute(
            update(ChatRow)
            .where(ChatRow.id == chat.id)
            .values(**chat_values(chat), updated_at=self._s.now())
            .execution_options(synchronize_session=False)
        )

    async def migrate(self, old_id: int, new_id: int) -> None:
        """Move the chat row, its games and its league rows to ``new_id``.

        A row already stored under ``new_id`` (the supergroup spoke first) takes the old chat's
        settings, as do league rows of the same player and season.
        """
        s = self._s.session
        old = await self._s.row(select(ChatRow).where(ChatRow.id == old_id).with_for_update())
        if old is None:
            return
        chat = chat_from_row(old)
        chat.id, chat.migrated_from = new_id, old_id
        now = self._s.now()
        replaced = await self._s.rowcount(
            update(ChatRow)
            .where(ChatRow.id == new_id)
            .values(**chat_values(chat), updated_at=now)
            .execution_options(synchronize_session=False)
        )
        if not replaced:
            await s.execute(
                insert(ChatRow).values(
                    **chat_values(chat), created_at=old.created_at, updated_at=now
                )
            )
        await s.execute(
            update(GameRow)
            .where(GameRow.chat_id == old_id)
            .values(chat_id=new_id)
            .execution_options(synchronize_session=False)
        )
        older = aliased(StandingRow)
        await s.execute(
            delete(StandingRow)
            .where(
                StandingRow.scope == new_id,
                exists().where(
                    older.scope == old_id,
                    older.season == StandingRow.season,
                    older.player_id == StandingRow.player_id,
                ),
            )
            .execution_options(synchronize_session=False)
        )
        await s.execute(
            update(StandingRow)
            .where(StandingRow.scope == old_id)
            .values(scope=new_id)
            .execution_options(synchronize_session=False)
        )
        await s.execute(
            delete(ChatRow).where(ChatRow.id == old_id).execution_options(synchronize_session=False)
        )


class SqlPlayers:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def get(self, player_id: PlayerId) -> Player | None:
        row = await self._s.row(select(PlayerRow).where(PlayerRow.id == player_id))
        return player_from_row(row) if row is not None else None

    async def get_many(self, player_ids: Sequence[PlayerId]) -> dict[PlayerId, Player]:
        if not player_ids:
            return {}
        rows = await self._s.rows(select(PlayerRow).where(PlayerRow.id.in_(set(player_ids))))
        return {row.id: player_from_row(row) for row in rows}

    async def upsert(self, player: Player) -> Player:
        now = self._s.now()
        statement = self._s.insert(PlayerRow).values(
            **player_values(player), created_at=now, updated_at=now
        )
        new = statement.excluded
        statement = statement.on_conflict_do_update(
            index_elements=[PlayerRow.id],
            set_={
                "first_name": new.first_name,
                "last_name": new.last_name,
                "username": new.username,
                # Telegram's language only counts on first sight; ``set_language`` changes it.
                "language": func.coalesce(PlayerRow.language, new.language),
                # Unknown (None) keeps what the store knew.
                "can_dm": func.coalesce(new.can_dm, PlayerRow.can_dm),
                "is_computer": new.is_computer,
                "updated_at": new.updated_at,
            },
        ).returning(PlayerRow)
        result = await self._s.session.execute(
            statement, execution_options={"populate_existing": True}
        )
        return player_from_row(result.scalar_one())

    async def set_language(self, player_id: PlayerId, language: str) -> None:
        await self._s.session.execute(
            update(PlayerRow)
            .where(PlayerRow.id == player_id)
            .values(language=language, updated_at=self._s.now())
            .execution_options(synchronize_session=False)
        )

    async def set_reachable(self, player_id: PlayerId, reachable: bool) -> None:
        await self._s.session.execute(
            update(PlayerRow)
            .where(PlayerRow.id == player_id)
            .values(can_dm=reachable, updated_at=self._s.now())
            .execution_options(synchronize_session=False)
        )


class SqlGames:
    def __init__(self, store: Store) -> None:
        self._s = store

    def _select(self) -> Select[GameRow, ChatRow]:
        return select(GameRow, ChatRow).outerjoin(ChatRow, ChatRow.id == GameRow.chat_id)

    async def _one(self, query: Select[GameRow, ChatRow], lock: bool) -> Game | None:
        if lock:
            query = query.with_for_update(of=GameRow)  # the chat's row stays unlocked
        result = await self._s.session.execute(query.execution_options(populate_existing=True))
        found = result.first()
        if found is None:
            return None
        game_row, chat_row = found
        return game_from_row(game_row, chat_row)

    async def get(self, game_id: int, *, lock: bool = False) -> Game | None:
        return await self._one(self._select().where(GameRow.id == game_id), lock)

    async def open_in_chat(self, chat_id: int, *, lock: bool = False) -> Game | None:
        query = self._select().where(GameRow.chat_id == chat_id, GameRow.status.in_(OPEN_STATUSES))
        return await self._one(query, lock)

    async def add(self, game: Game) -> Game:
        result = await self._s.session.execute(
            insert(GameRow)
            .values(**game_values(game), version=game.version, log_seq=0)
            .returning(GameRow.id)
        )
        game.id = result.scalar_one()
        await self._written(game)
        return game

    async def save(self, game: Game) -> None:
        log_seq = game.stored_log_seq + len(game.new_log)
        matched = await self._s.rowcount(
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.version == game.version)
            .values(**game_values(game), version=game.version + 1, log_seq=log_seq)
            .execution_options(synchronize_session=False)
        )
        if matched != 1:
            raise ConcurrentUpdate(game.id)
        game.version += 1
        await self._written(game)

    async def _written(self, game: Game) -> None:
        """Bring the rows derived from ``game`` in line: seats, log, rounds. Nothing is read:
        the game row says where the log goes on and what the seats were."""
        await self._sync_seats(game)
        entries, game.new_log = game.new_log, []
        writer = _LogWriter(self._s, game.id, game.stored_log_seq, game.stored_round)
        game.stored_log_seq, game.stored_round = await writer.append(entries)
        await self._sync_rounds(game)

    async def _sync_seats(self, game: Game) -> None:
        wanted, stored = stored_seats(game), game.stored_seats
        if wanted == stored:
            return
        game.stored_seats = wanted
        s = self._s.session
        if [p for p, _, _ in wanted] == [p for p, _, _ in stored]:
            # The same seats: only lives or eliminations changed (one statement).
            seats = _table(GamePlayerRow)
            await s.execute(
                update(seats)
                .where(seats.c.game_id == bindparam("g"), seats.c.player_id == bindparam("p"))
                .values(lives=bindparam("lives"), eliminated_in_round=bindparam("out")),
                [
                    {"g": game.id, "p": player, "lives": lives, "out": out}
                    for player, lives, out in wanted
                ],
            )
            return
        await s.execute(
            delete(GamePlayerRow)
            .where(GamePlayerRow.game_id == game.id)
            .execution_options(synchronize_session=False)
        )
        if wanted:
            await s.execute(
                insert(GamePlayerRow),
                [
                    {
                        "game_id": game.id,
                        "player_id": player,
                        "seat": seat,
                        "lives": lives,
                        "eliminated_in_round": out,
                        "is_computer": is_computer(player),
                    }
                    for seat, (player, lives, out) in enumerate(wanted)
                ],
            )

    async def _sync_rounds(self, game: Game) -> None:
        state = game.state
        if state is None or game.status.open:
            return
        # Still "playing" but the game is over: it ended while the round was being played
        # (the last opponent resigned and the deal was gathered, or the game was cancelled).
        playing = (RoundRow.game_id == game.id, RoundRow.status == "playing")
        await self._s.session.execute(
            update(RoundRow)
            .where(*playing)
            .values(
                status="misdealt" if state.finished else "abandoned",
                ended_at=game.finished_at or self._s.now(),
            )
            .execution_options(synchronize_session=False)
        )

    async def due(self, now: datetime, limit: int = 100) -> list[tuple[int, datetime]]:
        result = await self._s.session.execute(
            select(GameRow.id, GameRow.deadline)
            .where(
                GameRow.status.in_(OPEN_STATUSES),
                GameRow.deadline.is_not(None),
                GameRow.deadline <= now,
            )
            .order_by(GameRow.deadline, GameRow.id)
            .limit(limit)
        )
        return [(game_id, deadline) for game_id, deadline in result if deadline]

    async def with_deadlines(self) -> list[tuple[int, datetime]]:
        result = await self._s.session.execute(
            select(GameRow.id, GameRow.deadline)
            .where(GameRow.status.in_(OPEN_STATUSES), GameRow.deadline.is_not(None))
            .order_by(GameRow.deadline, GameRow.id)
        )
        return [(game_id, deadline) for game_id, deadline in result if deadline]

    async def count_by_status(self) -> dict[GameStatus, int]:
        result = await self._s.session.execute(
            select(GameRow.status, func.count()).group_by(GameRow.status)
        )
        return {GameStatus(status): count for status, count in result.all()}

    async def log(self, game_id: int) -> list[LogEntry]:
        rows = await self._s.rows(
            select(GameLogRow).where(GameLogRow.game_id == game_id).order_by(GameLogRow.seq)
        )
        return [log_entry_from_row(row) for row in rows]

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Game]:
        result = await self._s.session.execute(
            self._select()
            .where(GameRow.chat_id == chat_id, GameRow.status == "finished")
            .order_by(GameRow.finished_at.desc(), GameRow.id.desc())
            .limit(limit)
        )
        return [game_from_row(row, chat) for row, chat in result.all()]


class _LogWriter:
    """Appends log entries and derives the ``rounds`` rows from their events."""

    def __init__(self, store: Store, game_id: int, seq: int, round_no: int | None) -> None:
        self._s = store
        self._game_id = game_id
        self._seq = seq
        self._round = round_no
        self._dealt: list[dict[str, Any]] = []
        self._closed: dict[int, dict[str, Any]] = {}

    async def append(self, entries: Sequence[LogEntry]) -> tuple[int, int | None]:
        """Write the entries and their rounds; the last log position and round number."""
        if not entries:
            return self._seq, self._round
        rows = []
        for entry in entries:
            self._seq += 1
            self._derive_rounds(entry)
            rows.append(log_values(self._game_id, self._seq, self._round, entry))
        s = self._s.session
        await s.execute(insert(_table(GameLogRow)), rows)
        if self._dealt:
            await s.execute(insert(_table(RoundRow)), self._dealt)
        if self._closed:
            rounds = _table(RoundRow)
            await s.execute(
                update(rounds)
                .where(rounds.c.game_id == self._game_id, rounds.c.number == bindparam("n"))
                .values(
                    status=bindparam("status"),
                    outcome=bindparam("outcome"),
                    ended_at=bindparam("ended_at"),
                ),
                list(self._closed.values()),
            )
        return self._seq, self._round

    def _derive_rounds(self, entry: LogEntry) -> None:
        """Note the rounds an entry deals or ends; moves on the round the entry belongs to."""
        outcome: dict[str, Any] | None = None
        revealed: int | None = None
        for event in entry.events:
            if isinstance(event, RoundDealt):
                self._round = event.round
                deck = entry.action.deck if isinstance(entry.action, Deal) else ()
                self._dealt.append(
                    {
                        "game_id": self._game_id,
                        "number": event.round,
                        "dealer_id": event.dealer,
                        "deck": [card.code for card in deck],
                        "status": "playing",
                        "dealt_at": entry.at,
                    }
                )
            elif isinstance(event, Revealed):
                revealed = event.round
                outcome = {
                    "order": list(event.order),
                    "cards": [card.code for card in event.cards],
                    "lowest": list(event.lowest),
                    "life_losses": [],
                    "eliminated": [],
                }
            elif isinstance(event, LifeLost) and outcome is not None:
                outcome["life_losses"].append(
                    {
                        "player": event.player,
                        "lives_left": event.lives_left,
                        "cause": event.cause.value,
                    }
                )
            elif isinstance(event, PlayerEliminated) and outcome is not None:
                outcome["eliminated"].append(event.player)
            elif isinstance(event, Misdealt):
                self._close(event.round, "misdealt", None, entry.at)
        if revealed is not None:
            self._close(revealed, "revealed", outcome, entry.at)

    def _close(
        self, number: int, status: str, outcome: dict[str, Any] | None, at: datetime
    ) -> None:
        for dealt in self._dealt:
            if dealt["number"] == number:  # dealt and ended in the same move: one insert
                dealt.update(status=status, outcome=outcome, ended_at=at)
                return
        self._closed[number] = {"n": number, "status": status, "outcome": outcome, "ended_at": at}


class SqlOutbox:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add_many(self, notices: Sequence[Notice]) -> None:
        if not notices:
            return
        now = self._s.now()
        rows = _table(OutboxRow)
        # Claimed by this instance from the start: the press that made them delivers them.
        claim = {"claimed_by": self._s.instance, "claim_until": now + self._s.lease}
        values = [{**notice_values(n, n.created_at or now), **claim} for n in notices]
        # One statement for the whole batch. Both engines number the rows of one INSERT in the
        # order of its VALUES, so the ids, sorted, follow the notices.
        result = await self._s.session.execute(insert(rows).values(values).returning(rows.c.id))
        for notice, new_id in zip(notices, sorted(result.scalars().all()), strict=True):
            notice.id = new_id
            notice.created_at = notice.created_at or now

    async def claim(self, chat_id: int | None = None, limit: int = 100) -> list[Notice]:
        now = self._s.now()
        free = or_(
            OutboxRow.claim_until.is_(None),
            OutboxRow.claim_until < now,
            and_(OutboxRow.claimed_by == self._s.instance, OutboxRow.claim_until > now),
        )
        choice = select(OutboxRow.id).where(OutboxRow.sent_at.is_(None), free)
        if chat_id is not None:
            choice = choice.where(OutboxRow.chat_id == chat_id)
        # PostgreSQL: rows another instance is claiming right now are skipped, not waited for.
        # SQLite has one writer at a time (BEGIN IMMEDIATE) and ignores the clause.
        choice = choice.order_by(OutboxRow.id).limit(limit).with_for_update(skip_locked=True)
        rows = _table(OutboxRow)
        result = await self._s.session.execute(
            update(rows)
            .where(rows.c.id.in_(choice.scalar_subquery()))
            .values(claimed_by=self._s.instance, claim_until=now + self._s.lease)
            .returning(*rows.c)
        )
        found = sorted(result.all(), key=lambda row: row.id)
        return [notice_from_row(cast(OutboxRow, row)) for row in found]

    async def renew(self, ids: Collection[int]) -> None:
        if not ids:
            return
        await self._s.session.execute(
            update(OutboxRow)
            .where(
                OutboxRow.id.in_(sorted(ids)),
                OutboxRow.claimed_by == self._s.instance,
                OutboxRow.sent_at.is_(None),
            )
            .values(claim_until=self._s.now() + self._s.lease)
            .execution_options(synchronize_session=False)
        )

    async def sent(self, game_id: int) -> list[SentMessage]:
        newest_here = (
            select(func.max(OutboxRow.id))
            .where(
                OutboxRow.game_id == game_id,
                OutboxRow.message_id.is_not(None),
                OutboxRow.kind.in_([NoticeKind.LOBBY.value, NoticeKind.TABLE.value]),
            )
            .group_by(OutboxRow.kind)
        )
        other = aliased(OutboxRow)
        newest_in_chat = (
            select(func.max(other.message_id))
            .where(other.chat_id == OutboxRow.chat_id, other.message_id.is_not(None))
            .scalar_subquery()
        )
        result = await self._s.session.execute(
            select(OutboxRow, newest_in_chat)
            .where(
                OutboxRow.game_id == game_id,
                OutboxRow.message_id.is_not(None),
                or_(OutboxRow.live_keys, OutboxRow.id.in_(newest_here)),
            )
            .order_by(OutboxRow.id)
        )
        return [
            SentMessage(
                notice=notice_from_row(row),
                message_id=row.message_id or 0,
                live_keys=row.live_keys,
                newest=newest or 0,
            )
            for row, newest in result.all()
        ]

    async def mark(self, delivered: Sequence[Delivered]) -> None:
        if not delivered:
            return
        rows = _table(OutboxRow)
        now = self._s.now()
        await self._s.session.execute(
            update(rows)
            .where(rows.c.id == bindparam("n"))
            .values(
                # A notice to try again is not done: no sent_at, and free for any instance
                # from ``retry_at`` on.
                sent_at=func.coalesce(rows.c.sent_at, bindparam("at", type_=UtcDateTime)),
                message_id=func.coalesce(
                    bindparam("message_id", type_=BigInteger), rows.c.message_id
                ),
                live_keys=bindparam("live", type_=Boolean),
                error=func.coalesce(bindparam("error", type_=Text), rows.c.error),
                attempts=rows.c.attempts + bindparam("tries", type_=Integer),
                claimed_by=case(
                    (bindparam("retry_at", type_=UtcDateTime).is_(None), rows.c.claimed_by),
                    else_=null(),
                ),
                claim_until=func.coalesce(
                    bindparam("retry_at", type_=UtcDateTime), rows.c.claim_until
                ),
            ),
            [
                {
                    "n": d.notice_id,
                    "at": None if d.retry_at is not None else now,
                    "message_id": d.message_id,
                    "live": d.live_keys,
                    "error": d.error,
                    "tries": d.tries,
                    "retry_at": d.retry_at,
                }
                for d in delivered
            ],
        )

    async def prune(self, before: datetime) -> int:
        """Delete notices sent before ``before`` that nothing edits any more: no keys left on
        their message, and their game over (or none)."""
        open_games = select(GameRow.id).where(OPEN_GAME)
        return await self._s.rowcount(
            delete(OutboxRow)
            .where(
                OutboxRow.sent_at < before,
                OutboxRow.live_keys.is_(False),
                or_(OutboxRow.game_id.is_(None), OutboxRow.game_id.not_in(open_games)),
            )
            .execution_options(synchronize_session=False)
        )

    async def backlog(self) -> int:
        found = await self._s.session.scalar(
            select(func.count()).select_from(OutboxRow).where(OutboxRow.sent_at.is_(None))
        )
        return int(found or 0)


class SqlStandings:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def get_many(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, Standing]:
        if not player_ids:
            return {}
        rows = await self._s.rows(
            select(StandingRow).where(
                StandingRow.scope == scope,
                StandingRow.season == season,
                StandingRow.player_id.in_(set(player_ids)),
            )
        )
        return {row.player_id: standing_from_row(row) for row in rows}

    async def claim(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, Standing]:
        # Rows that do not exist yet cannot be locked: insert them first (a concurrent insert
        # of the same row waits for the other transaction, then does nothing), then lock them
        # all in one order, so two games ending at once queue instead of losing an update.
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        fresh = [standing_values(Standing(player_id=p, scope=scope, season=season)) for p in ids]
        await self._s.session.execute(
            self._s.insert(_table(StandingRow)).on_conflict_do_nothing(
                index_elements=["scope", "season", "player_id"]
            ),
            fresh,
        )
        rows = await self._s.rows(
            select(StandingRow)
            .where(
                StandingRow.scope == scope,
                StandingRow.season == season,
                StandingRow.player_id.in_(ids),
            )
            .order_by(StandingRow.player_id)
            .with_for_update()
        )
        return {row.player_id: standing_from_row(row) for row in rows}

    async def save(self, standing: Standing) -> None:
        values = standing_values(standing)
        statement = self._s.insert(StandingRow).values(**values)
        await self._s.session.execute(
            statement.on_conflict_do_update(
                index_elements=[StandingRow.scope, StandingRow.season, StandingRow.player_id],
                set_={k: v for k, v in values.items() if k not in ("scope", "season", "player_id")},
            )
        )

    @staticmethod
    def _ranked(scope: int, season: str) -> Select[Any]:
        rating = StandingRow.rating_mu - 3 * StandingRow.rating_sigma
        return (
            select(StandingRow)
            .where(StandingRow.scope == scope, StandingRow.season == season)
            .order_by(rating.desc(), StandingRow.wins.desc(), StandingRow.player_id)
        )

    async def table(self, scope: int, season: str, limit: int = 20) -> list[Standing]:
        rows = await self._s.rows(self._ranked(scope, season).limit(limit))
        return [standing_from_row(row) for row in rows]

    async def places(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, int]:
        ranked = self._ranked(scope, season).with_only_columns(StandingRow.player_id)
        order = (await self._s.session.execute(ranked)).scalars().all()
        wanted = set(player_ids)
        return {pid: i + 1 for i, pid in enumerate(order) if pid in wanted}

    async def of_player(self, player_id: PlayerId, season: str) -> list[Standing]:
        rows = await self._s.rows(
            select(StandingRow)
            .where(StandingRow.player_id == player_id, StandingRow.season == season)
            .order_by(StandingRow.scope)
        )
        return [standing_from_row(row) for row in rows]


class SqlUpdateLog:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def first_time(self, update_id: int) -> bool:
        now = self._s.now()
        inserted = await self._s.rowcount(
            self._s.insert(ProcessedUpdateRow)
            .values(update_id=update_id, processed_at=now)
            .on_conflict_do_nothing(index_elements=[ProcessedUpdateRow.update_id])
        )
        if inserted and update_id % PRUNE_EVERY == 0:
            await self._s.session.execute(
                delete(ProcessedUpdateRow)
                .where(ProcessedUpdateRow.processed_at < now - UPDATE_RETENTION)
                .execution_options(synchronize_session=False)
            )
        return inserted == 1
