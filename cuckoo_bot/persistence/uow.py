"""The unit of work: one session, one transaction; only ``commit`` keeps what was written."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from collections.abc import Callable
from datetime import timedelta
from types import TracebackType
from typing import Self

from sqlalchemy import text
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from cuckoo_bot.app.clock import Clock, SystemClock
from cuckoo_bot.app.ports import (
    ChatRepository,
    GameRepository,
    MessageRepository,
    OutboxRepository,
    PlayerRepository,
    StandingRepository,
    SweepRepository,
    UnitOfWork,
    UnitOfWorkFactory,
    UpdateLog,
)
from cuckoo_bot.app.tuning import LEASE
from cuckoo_bot.persistence.engine import (
    BEGIN,
    BEGIN_NONE,
    BEGIN_READ,
    BEGIN_WRITE,
    SQLITE_BUSY_TIMEOUT_MS,
    write_gate,
)
from cuckoo_bot.persistence.repositories import (
    SqlChats,
    SqlGames,
    SqlMessages,
    SqlOutbox,
    SqlPlayers,
    SqlStandings,
    SqlSweep,
    SqlUpdateLog,
    Store,
)

# Told the ids of the games a committed unit of work wrote (the live table's pages watch them).
Changed = Callable[[frozenset[int]], None]
CHANNEL = "cuckoo_games"  # PostgreSQL's NOTIFY channel for those ids, heard by every instance
NOTIFY = text("SELECT pg_notify(:channel, :ids)")


class GateTimeout(PoolTimeout):
    """A unit of work that may write did not get its turn (``engine.write_gate``) in time: as a
    pool that has no connection to give raises, not as the network's timeouts (``OSError``)."""


class SqlUnitOfWork:
    """``ports.UnitOfWork`` over SQLAlchemy.

    Locks: ``lock=True`` reads use ``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite every
    transaction starts with ``BEGIN IMMEDIATE`` (see ``engine.py``), so writers take turns;
    on a SQLite file, a unit of work that may write first takes its turn at ``gate``
    (``engine.write_gate``), held until it ends.
    """

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
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        instance: str,
        lease: timedelta,
        changed: Changed | None = None,
        gate: asyncio.Lock | None = None,
    ) -> None:
        self._sessions = sessions
        self._gate = gate
        self._gated = False
        self._changed = changed
        self._store: Store | None = None
        self._clock = clock
        self._instance = instance
        self._lease = lease
        self._session: AsyncSession | None = None

    async def __aenter__(self) -> Self:
        if self._session is not None:
            raise RuntimeError("a unit of work is entered once")
        session = self._sessions()
        self._session = session
        bind = session.bind
        assert bind is not None
        store = Store(
            session=session,
            dialect=bind.dialect.name,
            now=self._clock.now,
            instance=self._instance,
            lease=self._lease,
        )
        self._store = store
        self.chats = SqlChats(store)
        self.players = SqlPlayers(store)
        self.games = SqlGames(store)
        self.outbox = SqlOutbox(store)
        self.messages = SqlMessages(store)
        self.standings = SqlStandings(store)
        self.updates = SqlUpdateLog(store)
        self.sweep = SqlSweep(store)
        if self._gate is not None:  # last: nothing after it can fail and leave the turn held
            try:
                # As long as SQLite's busy handler would have waited for its write lock.
                async with asyncio.timeout(SQLITE_BUSY_TIMEOUT_MS / 1000):
                    await self._gate.acquire()
            except TimeoutError:
                self._session = None  # not yet connected: nothing to close
                raise GateTimeout(
                    "a unit of work that may write waited its turn as long as SQLite's busy"
                    " timeout (one opened inside another that may write?)"
                ) from None
            self._gated = True
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session, self._session = self._session, None
        try:
            if session is not None:
                # Whatever was not committed is dropped: rollback, then hand the connection back.
                await session.close()
        finally:
            if self._gated:
                self._gated = False
                assert self._gate is not None
                self._gate.release()

    async def commit(self) -> None:
        if self._session is None or self._store is None:
            raise RuntimeError("commit outside the unit of work")
        store = self._store
        ids = frozenset(store.changed)
        store.changed.clear()
        if not ids or self._changed is None:
            await self._session.commit()
            return
        if store.dialect == "postgresql":
            # Sent by PostgreSQL at commit, to every instance listening (``listen.py``), this
            # one included; nothing is sent if the commit fails.
            payload = ",".join(str(i) for i in sorted(ids))
            await self._session.execute(NOTIFY, {"channel": CHANNEL, "ids": payload})
            await self._session.commit()
        else:  # SQLite: one process, told in process once the commit holds
            await self._session.commit()
            self._changed(ids)


def instance_name() -> str:
    """A name for this process among the instances sharing a database: host, pid, and a few
    random characters (a restarted process is a new instance; its old claims run out)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"


def _bound(engine: AsyncEngine, mode: str) -> AsyncEngine:
    """The engine a unit of work of ``mode`` runs on. On PostgreSQL one that only reads, or
    writes a single statement, runs with no transaction (``AUTOCOMMIT``): at PostgreSQL's
    READ COMMITTED every statement sees the data as of its own start even inside a
    transaction, so a transaction that only reads is no more consistent than its statements
    alone, and one statement commits by itself, as on SQLite (``BEGIN_NONE``). Each such unit
    of work is then two round trips shorter (no BEGIN, no COMMIT or ROLLBACK): a press's
    reads and its marks, and every one of the sweep's."""
    if engine.dialect.name == "postgresql" and mode != BEGIN_WRITE:
        return engine.execution_options(**{BEGIN: mode, "isolation_level": "AUTOCOMMIT"})
    return engine.execution_options(**{BEGIN: mode})


def sql_uow_factory(
    engine: AsyncEngine,
    clock: Clock | None = None,
    *,
    instance: str | None = None,
    lease: timedelta = LEASE,
    changed: Changed | None = None,
) -> UnitOfWorkFactory:
    """A ``ports.UnitOfWorkFactory``: each call gives a fresh unit of work on ``engine``.

    ``read_only=True`` begins without SQLite's write lock; ``autocommit=True`` begins no
    transaction at all, for a unit of work that writes with a single statement. ``instance``
    names this process in outbox claims (one name per process by default). ``changed`` hears
    which games each commit wrote (on PostgreSQL through NOTIFY, so every instance hears it:
    one more statement in such a transaction); None: nobody watches, nothing is sent.
    """
    moment = clock or SystemClock()
    name = instance or instance_name()
    gate = write_gate(engine)
    sessions = {
        mode: async_sessionmaker(_bound(engine, mode), expire_on_commit=False, autoflush=False)
        for mode in (BEGIN_WRITE, BEGIN_READ, BEGIN_NONE)
    }

    def make(*, read_only: bool = False, autocommit: bool = False) -> UnitOfWork:
        mode = BEGIN_NONE if autocommit else BEGIN_READ if read_only else BEGIN_WRITE
        writes = None if mode == BEGIN_READ else gate
        return SqlUnitOfWork(sessions[mode], moment, name, lease, changed, writes)

    return make
