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
    def __init__(self, read: Callable[[int], Coroutine[object, object, T]]) -> None:
        self._read = read
        self._games: dict[int, _Game[T]] = {}

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
        """``game_ids`` changed (None: any may have; after the listener reconnected)."""
        ids = self._games.keys() if game_ids is None else game_ids
        for game_id in list(ids):
            game = self._games.get(game_id)
            if game is None:
                continue
            game.generation += 1
            for wake in game.watchers:
                wake.set()

    async def latest(self, game_id: int) -> T:
        """The game as read since its latest change: one read shared by every caller."""
        game = self._games.get(game_id)
        if game is None:  # nobody watches: nothing to share
            return await self._read(game_id)
        if game.read is None or game.read[0] != game.generation or _failed(game.read[1]):
            task: asyncio.Task[T] = asyncio.get_running_loop().create_task(self._read(game_id))
            game.read = (game.generation, task)
        return await asyncio.shield(game.read[1])


def _failed(task: asyncio.Task[T]) -> bool:
    """A read that failed is made again by the next caller (the database may be back)."""
    return task.done() and (task.cancelled() or task.exception() is not None)
