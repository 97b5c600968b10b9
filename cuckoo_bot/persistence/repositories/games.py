"""Games: the row with its state, seats and lives, rounds, and the append-only log."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from cuckoo_bot.app.model import (
    Game,
    GameStatus,
    LogEntry,
    is_computer,
)
from cuckoo_bot.app.ports import ConcurrentUpdate
from cuckoo_bot.domain.actions import Deal
from cuckoo_bot.domain.events import (
    LifeLost,
    Misdealt,
    PlayerEliminated,
    Revealed,
    RoundDealt,
)
from cuckoo_bot.persistence.mapping import (
    GAME_COLUMNS,
    STATES,
    game_from_row,
    game_values,
    log_entry_from_row,
    log_values,
    stored_seats,
)
from cuckoo_bot.persistence.models import (
    OPEN_STATUSES,
    TIMED_STATUSES,
    ChatRow,
    GameLogRow,
    GamePlayerRow,
    GameRow,
    RoundRow,
)
from cuckoo_bot.persistence.repositories.store import Prefixed, Store, table_of

_CHAT = "chat__"  # the chat's columns in a game's row, each under this prefix


def due_at(now: Any) -> ColumnElement[bool]:
    """A game whose clock has woken at ``now`` (a time, or a bound parameter): its deadline or
    its nudge has come. What ``due`` reads, and what the sweeper asks first (``sweep.py``)."""
    # One comparison a status, not ``IN``: an ``IN`` list is expanded at every run, and the
    # driver's own path (``direct.py``) leaves such a statement to the session.
    timed = or_(*(GameRow.status == status for status in TIMED_STATUSES))
    woke = or_(GameRow.deadline <= now, GameRow.warn_at <= now)
    return and_(timed, GameRow.deadline.is_not(None), woke)


def _game_and_chat() -> Select[Any]:
    """A game's columns and its chat's (``_CHAT`` before each name), in Core: a row of plain
    values, without the ORM's loading (its identity map, its instances), which cost a read
    about as much again as the statement itself."""
    games, chats = table_of(GameRow), table_of(ChatRow)
    return select(games, *[column.label(_CHAT + column.name) for column in chats.c]).outerjoin(
        chats, chats.c.id == games.c.chat_id
    )


def _game(row: Any) -> Game:
    """The game of a ``_game_and_chat`` row, with its chat if it has one."""
    return game_from_row(row, Prefixed(row, _CHAT) if row.chat__id is not None else None)


@cache
def _getting(lock: bool) -> Select[Any]:
    """A game and its chat by the parameter ``game_id`` (locked: the game's row), built once:
    every press and every delivery asks it."""
    games = table_of(GameRow)
    query = _game_and_chat().where(games.c.id == bindparam("game_id"))
    return query.with_for_update(of=games) if lock else query  # the chat's row stays unlocked


@cache
def _saving() -> Any:
    """The game's row rewritten if its version is still ``g_version`` (optimistic locking),
    each column from the parameter ``v_<column>``: built once, in Core (the ORM's bulk UPDATE
    would only add its bookkeeping)."""
    rows = table_of(GameRow)
    columns = [*GAME_COLUMNS, "version", "log_seq"]
    return (
        update(rows)
        .where(rows.c.id == bindparam("g_id"), rows.c.version == bindparam("g_version"))
        .values({name: bindparam(f"v_{name}", type_=rows.c[name].type) for name in columns})
    )


@cache
def _seat_lives() -> Any:
    """The seats' lives and eliminations, for the parameters ``g``, ``p``, ``lives_`` and
    ``out``: built once, as a press that takes a life runs it."""
    seats = table_of(GamePlayerRow)
    return (
        update(seats)
        .where(seats.c.game_id == bindparam("g"), seats.c.player_id == bindparam("p"))
        .values(lives=bindparam("lives_"), eliminated_in_round=bindparam("out"))
    )


@cache
def _inserting(model: type[Any]) -> Any:
    """A plain INSERT into ``model``'s table, its columns from the parameters: built once."""
    return insert(table_of(model))


@cache
def _ending_rounds() -> Any:
    """A round's end, for the parameters ``g``, ``n``, ``status``, ``outcome`` and
    ``ended_at``: built once."""
    rounds = table_of(RoundRow)
    return (
        update(rounds)
        .where(rounds.c.game_id == bindparam("g"), rounds.c.number == bindparam("n"))
        .values(
            status=bindparam("status"),
            outcome=bindparam("outcome"),
            ended_at=bindparam("ended_at"),
        )
    )


class SqlGames:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def _one(self, query: Select[Any], lock: bool) -> Game | None:
        if lock:
            query = query.with_for_update(of=table_of(GameRow))  # the chat's row stays unlocked
        found = (await self._s.session.execute(query)).first()
        return None if found is None else _game(found)

    async def get(self, game_id: int, *, lock: bool = False) -> Game | None:
        found = await self._s.fetch(_getting(lock), {"game_id": game_id})
        return _game(found[0]) if found else None

    async def open_in_chat(self, chat_id: int, *, lock: bool = False) -> Game | None:
        games = table_of(GameRow)
        query = _game_and_chat().where(
            games.c.chat_id == chat_id, games.c.status.in_(OPEN_STATUSES)
        )
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
        columns = game_values(game)
        values = {f"v_{name}": value for name, value in columns.items()}
        matched = await self._s.write(
            _saving(),
            {
                **values,
                "g_id": game.id,
                "g_version": game.version,
                "v_version": game.version + 1,
                "v_log_seq": log_seq,
            },
        )
        if matched != 1:
            raise ConcurrentUpdate(game.id)
        if game.state is not None:  # the next press reads it back
            STATES.keep(game.id, columns["state"], game.state)
        game.version += 1
        await self._written(game)

    async def _written(self, game: Game) -> None:
        """Bring the rows derived from ``game`` in line: seats, log, rounds. Nothing is read:
        the game row says where the log goes on and what the seats were."""
        self._s.changed.add(game.id)
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
            await self._s.write(
                _seat_lives(),
                [
                    {"g": game.id, "p": player, "lives_": lives, "out": out}
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
        """Games whose deadline or nudge is at or before ``now``, with when they woke."""
        result = await self._s.session.execute(
            select(GameRow.id, GameRow.deadline, GameRow.warn_at)
            .where(due_at(now))
            .order_by(GameRow.deadline, GameRow.id)  # a nudge is always before its deadline
            .limit(limit)
        )
        return [(game_id, _wake(warn, deadline)) for game_id, deadline, warn in result if deadline]

    async def with_deadlines(self) -> list[tuple[int, datetime]]:
        result = await self._s.session.execute(
            select(GameRow.id, GameRow.deadline, GameRow.warn_at)
            .where(GameRow.status.in_(TIMED_STATUSES), GameRow.deadline.is_not(None))
            .order_by(GameRow.deadline, GameRow.id)
        )
        return [(game_id, _wake(warn, deadline)) for game_id, deadline, warn in result if deadline]

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
        games = table_of(GameRow)
        result = await self._s.session.execute(
            _game_and_chat()
            .where(games.c.chat_id == chat_id, games.c.status == "finished")
            .order_by(games.c.finished_at.desc(), games.c.id.desc())
            .limit(limit)
        )
        return [_game(row) for row in result.all()]


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
        await self._s.write(_inserting(GameLogRow), rows)
        if self._dealt:
            await self._s.write(_inserting(RoundRow), self._dealt)
        if self._closed:
            ended = [{**closed, "g": self._game_id} for closed in self._closed.values()]
            await self._s.write(_ending_rounds(), ended)
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
                        "outcome": None,  # every row the same columns: one executemany
                        "dealt_at": entry.at,
                        "ended_at": None,
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


def _wake(warn_at: datetime | None, deadline: datetime) -> datetime:
    return min(warn_at, deadline) if warn_at is not None else deadline
