"""The live table's hub: one read of a game per change, shared by all its watchers; every
watcher woken by a change, and a failed read made again."""

from __future__ import annotations

import asyncio

import pytest

from cuckoo_bot.persistence.listen import asyncpg_dsn, parse
from cuckoo_bot.transport.webapp.hub import Hub


class Reads:
    def __init__(self) -> None:
        self.count = 0
        self.fail = False
        self.gate = asyncio.Event()
        self.gate.set()

    async def __call__(self, game_id: int) -> tuple[int, int]:
        self.count += 1
        made = self.count  # which read this is
        await self.gate.wait()
        if self.fail:
            raise ConnectionError("the database went away")
        return game_id, made


async def test_watchers_of_a_game_share_one_read_per_change() -> None:
    reads = Reads()
    hub = Hub(reads)
    with hub.watch(7) as first, hub.watch(7) as second, hub.watch(8) as other:
        reads.gate.clear()
        pending = [asyncio.create_task(hub.latest(7)) for _ in range(50)]
        await asyncio.sleep(0)
        reads.gate.set()
        assert {await task for task in pending} == {(7, 1)}
        assert await hub.latest(7) == (7, 1)  # nothing changed: no new read
        assert reads.count == 1

        hub.changed(frozenset({7}))
        assert first.is_set() and second.is_set() and not other.is_set()
        assert await hub.latest(7) == (7, 2)
        assert await hub.latest(7) == (7, 2)
        assert reads.count == 2

        hub.changed(None)  # the listener reconnected: anything may have changed
        assert other.is_set()
        assert hub.watchers == 3
    assert hub.watchers == 0


async def test_a_failed_read_is_made_again_by_the_next_caller() -> None:
    reads = Reads()
    hub = Hub(reads)
    with hub.watch(3):
        reads.fail = True
        with pytest.raises(ConnectionError):
            await hub.latest(3)
        reads.fail = False
        assert await hub.latest(3) == (3, 2)


async def test_a_game_nobody_watches_is_read_each_time() -> None:
    reads = Reads()
    hub = Hub(reads)
    await hub.latest(1)
    await hub.latest(1)
    hub.changed(frozenset({1}))  # nobody to wake: nothing kept
    assert reads.count == 2


def test_a_notify_payload_is_its_game_ids_and_anything_else_means_read_everything() -> None:
    assert parse("3,17") == frozenset({3, 17})
    assert parse("") == frozenset()
    assert parse("3,x") is None


def test_the_listener_connects_with_the_bots_own_database_url() -> None:
    url = "postgresql+asyncpg://cuckoo:s3cret@db.example:5433/games"
    assert asyncpg_dsn(url) == "postgresql://cuckoo:s3cret@db.example:5433/games"
    tuned = url + "?prepared_statement_cache_size=0&sslmode=require"
    assert asyncpg_dsn(tuned) == "postgresql://cuckoo:s3cret@db.example:5433/games?sslmode=require"


async def test_pages_asking_together_share_one_read_even_of_a_game_nobody_watches() -> None:
    reads = Reads()
    hub = Hub(reads)
    reads.gate.clear()
    together = [asyncio.create_task(hub.latest(4)) for _ in range(30)]
    await asyncio.sleep(0)
    reads.gate.set()
    assert {await task for task in together} == {(4, 1)}
    # A change while a read is under way: whoever asks next reads anew.
    reads.gate.clear()
    first = asyncio.create_task(hub.latest(4))
    await asyncio.sleep(0)
    hub.changed(frozenset({4}))
    second = asyncio.create_task(hub.latest(4))
    await asyncio.sleep(0)
    reads.gate.set()
    assert (await first, await second) == ((4, 2), (4, 3))


async def test_while_changes_are_not_heard_no_read_is_kept() -> None:
    reads = Reads()
    heard = True
    hub = Hub(reads, hearing=lambda: heard)
    with hub.watch(5):
        assert await hub.latest(5) == (5, 1)
        assert await hub.latest(5) == (5, 1)  # kept: a change would have been heard
        heard = False  # the listener lost its connection
        assert await hub.latest(5) == (5, 2)
        assert await hub.latest(5) == (5, 3)


async def test_a_change_is_read_before_its_watchers_wake_and_they_have_it_at_their_first_turn() -> (
    None
):
    """A page's push waits for as few turns of the event loop as can be: the read starts at
    the change, and a watcher woken by it finds the read made (a read that never waits, as
    SQLite's) in the same turn, with no read of its own. Each turn of a busy loop runs every
    other task ready then (twenty games pressing at once: tens of ms a turn)."""
    reads = Reads()
    hub = Hub(reads)
    turns = 0
    got: list[tuple[int, int, int]] = []  # (the turn a watcher had the game, game, read)

    async def page() -> None:
        with hub.watch(9) as wake:
            await hub.latest(9)
            ready.set()
            await wake.wait()
            game, read = await hub.latest(9)
            got.append((turns, game, read))

    ready = asyncio.Event()
    pages = [asyncio.create_task(page()) for _ in range(3)]
    await ready.wait()
    for _ in range(3):
        await asyncio.sleep(0)
    assert reads.count == 1
    hub.changed(frozenset({9}))
    while not all(p.done() for p in pages):
        await asyncio.sleep(0)
        turns += 1
    assert got == [(0, 9, 2)] * 3  # one read for the change, every page served in turn 1
    assert reads.count == 2


async def test_a_read_made_at_a_change_that_failed_is_made_again_by_the_next_caller() -> None:
    reads = Reads()
    hub = Hub(reads)
    with hub.watch(6):
        await hub.latest(6)
        reads.fail = True
        hub.changed(frozenset({6}))
        await asyncio.sleep(0)  # the read made at the change fails; nobody asked yet
        reads.fail = False
        assert await hub.latest(6) == (6, 3)


async def test_waking_every_watcher_changes_nothing() -> None:
    reads = Reads()
    hub = Hub(reads)
    with hub.watch(2) as first, hub.watch(3) as second:
        await hub.latest(2)
        hub.wake_all()
        assert first.is_set() and second.is_set()
        assert await hub.latest(2) == (2, 1)  # no change: the read kept
