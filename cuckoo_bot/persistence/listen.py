"""Hearing every instance's game changes on PostgreSQL: ``LISTEN`` on the channel the units of
work ``NOTIFY`` at commit (``uow.py``), on one connection of its own, kept open.

SQLAlchemy has no LISTEN of its own; asyncpg, the driver the bot already uses, does
(``Connection.add_listener``), so this module talks to asyncpg directly. A lost connection
is opened again; whatever was sent while it was down is lost with it, so after every
(re)connection the listener says "everything may have changed" (``heard(None)``) and the
watchers read again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import asyncpg
from sqlalchemy.engine import make_url

from cuckoo_bot.persistence.uow import CHANNEL

log = logging.getLogger(__name__)

RETRY = 1.0  # seconds before the first attempt to reconnect; doubled after each failure
RETRY_AT_MOST = 30.0

Heard = Callable[[frozenset[int] | None], None]  # the games changed; None: any may have


# What asyncpg's DSN understands of a URL's query; SQLAlchemy's own options (such as
# ``prepared_statement_cache_size``) would reach the server as settings and be refused.
DSN_OPTIONS = frozenset(
    {
        "host",
        "port",
        "sslmode",
        "ssl",
        "sslrootcert",
        "sslcert",
        "sslkey",
        "sslpassword",
        "sslcrl",
        "passfile",
        "application_name",
        "connect_timeout",
        "target_session_attrs",
        "options",
        "server_settings",
    }
)


def asyncpg_dsn(database_url: str) -> str:
    """The SQLAlchemy URL (``postgresql+asyncpg://...``) as asyncpg's own DSN."""
    url = make_url(database_url)
    query = {key: value for key, value in url.query.items() if key in DSN_OPTIONS}
    return url.set(drivername="postgresql", query=query).render_as_string(False)


def parse(payload: str) -> frozenset[int] | None:
    """A NOTIFY's ids ("3,17"); None (read everything again) for anything else."""
    try:
        return frozenset(int(part) for part in payload.split(",") if part)
    except ValueError:
        return None


class GameListener:
    def __init__(self, database_url: str, heard: Heard) -> None:
        self._dsn = asyncpg_dsn(database_url)
        self._heard = heard
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()  # set while a connection listens

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="game-listener")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        wait = RETRY
        while True:
            try:
                await self._listen()
                wait = RETRY  # it listened a while: the next loss is new
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database went away: try again, less and less often
                log.warning("listening for game changes: %s; again in %.0f s", exc, wait)
                wait = min(wait * 2, RETRY_AT_MOST)
            self.listening.clear()
            await asyncio.sleep(wait)

    async def _listen(self) -> None:
        connection = await asyncpg.connect(self._dsn)
        lost = asyncio.Event()
        try:
            connection.add_termination_listener(lambda _: lost.set())
            await connection.add_listener(CHANNEL, self._notified)
            self.listening.set()
            self._heard(None)  # what changed while nobody listened is not known
            while not lost.is_set():
                # A connection can die without a word (a network cut): ask now and then.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(lost.wait(), 15)
                if not lost.is_set():
                    await asyncio.wait_for(connection.execute("SELECT 1"), 5)
        finally:
            if not connection.is_closed():
                await connection.close(timeout=2)

    def _notified(self, connection: object, pid: int, channel: str, payload: str) -> None:
        self._heard(parse(payload))
