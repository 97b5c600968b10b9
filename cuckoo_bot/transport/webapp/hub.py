"""Who watches which game in this process, and one read of a game per change for all of them.

A committed change (``uow.py``: in process on SQLite, through PostgreSQL's NOTIFY from any
instance) wakes the game's watchers. The first watcher to ask reads the game; those asking
for the same change share that read, so a move costs one read per game and instance however
many pages are open. Nothing here is the game's state: the database is read again after
every change, and a watcher that missed a wake-up still gets the newest version next time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class _Game(Generic[T]):
    generation: int = 0  # how many changes were heard
    watchers: set[asyncio.Event] = field(default_factory=set)
    read: tuple[int, asyncio.Task[T]] | None = None  # (generation, the read made for it)


class Hub(Generic[T]):
    def __init__(
        self,
        read: Callable[[int], Coroutine[object, object, T]],
        hearing: Callable[[], bool] = lambda: True,
    ) -> None:
        self._read = read
        # Are changes heard now? (PostgreSQL: while the listener listens.) Until they are, a
        # read is never kept: it may be older than a change nobody heard.
        self.hearing = hearing
        self._games: dict[int, _Game[T]] = {}
        self._reading: dict[int, asyncio.Task[T]] = {}  # reads under way, kept or not

    @property
    def watchers(self) -> int:
        return sum(len(game.watchers) for game in self._games.values())

    @contextlib.contextmanager
    def watch(self, game_id: int) -> Iterator[asyncio.Event]:
        """An event set at each change of ``game_id``, while the block runs."""
        game = self._games.setdefault(game_id, _Game())
        wake = asyncio.Event()
        game.watchers.add(wake)
        try:
            yield wake
        finally:
            game.watchers.discard(wake)
            if not game.watchers:
                self._games.pop(game_id, None)

    def changed(self, game_ids: frozenset[int] | None) -> None:
        """``game_ids`` changed (None: any may have; after the listener reconnected). A watched
        game's read starts here, before its watchers wake: they find it made (on SQLite a read
        never waits) and send at their first turn of the event loop. Left to the first watcher
        to ask, the read began only after the wake-up's own turns, and a page's push waited
        about five turns of a loop that, twenty games pressing at once, each took tens of ms."""
        for game_id in list(self._reading if game_ids is None else game_ids):
            # A read under way may have begun before the change: the next asker starts anew.
            self._reading.pop(game_id, None)
        ids = self._games.keys() if game_ids is None else game_ids
        woken = [(game_id, game) for game_id in list(ids) if (game := self._games.get(game_id))]
        for game_id, game in woken:
            game.generation += 1
            if self.hearing():
                game.read = (game.generation, self._now(game_id))
        for _, game in woken:
            for wake in game.watchers:
                wake.set()

    def wake_all(self) -> None:
        """Every watcher woken, nothing changed (shutting down: the streams end)."""
        for game in self._games.values():
            for wake in game.watchers:
                wake.set()

    async def latest(self, game_id: int) -> T:
        """The game as read since its latest change: one read shared by every caller."""
        game = self._games.get(game_id)
        if game is None or not self.hearing():
            # Not kept, but shared while under way: pages reconnecting together (after a
            # restart) make one read of their game, not one each.
            return await asyncio.shield(self._now(game_id))
        if game.read is None or game.read[0] != game.generation or _failed(game.read[1]):
            game.read = (game.generation, self._now(game_id))
        return await asyncio.shield(game.read[1])

    def _now(self, game_id: int) -> asyncio.Task[T]:
        """A read of ``game_id`` starting now, or the one that started since the last change."""
        task = self._reading.get(game_id)
        if task is None or _failed(task):  # (a failed read's callbacks may not have run yet)
            task = asyncio.get_running_loop().create_task(self._read(game_id))
            self._reading[game_id] = task
            task.add_done_callback(lambda done: self._forget(game_id, done))
            task.add_done_callback(_seen)
        return task

    def _forget(self, game_id: int, done: asyncio.Task[T]) -> None:
        if self._reading.get(game_id) is done:
            del self._reading[game_id]


def _seen(task: asyncio.Task[T]) -> None:
    """A read's failure is its askers' to see; one made at a change that nobody asked for
    before the watchers left is not reported as an exception never retrieved."""
    if not task.cancelled():
        task.exception()


def _failed(task: asyncio.Task[T]) -> bool:
    """A read that failed is made again by the next caller (the database may be back)."""
    return task.done() and (task.cancelled() or task.exception() is not None)
