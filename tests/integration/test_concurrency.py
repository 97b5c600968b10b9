"""Two units of work racing for one game: the lock makes the second wait, so nothing is lost."""

from __future__ import annotations

import asyncio

from cuckoo_bot.app.ports import UnitOfWorkFactory
from tests.integration.builders import PLAYERS, lobby, seed


async def test_locked_get_serializes_writers(uow_factory: UnitOfWorkFactory) -> None:
    async with uow_factory() as uow:
        await seed(uow)
        game = await uow.games.add(lobby(seats=[PLAYERS[0].id]))
        await uow.commit()
    trace: list[str] = []

    async def join(player: int, name: str) -> None:
        async with uow_factory() as uow:
            locked = await uow.games.get(game.id, lock=True)
            assert locked is not None
            trace.append(f"{name} read {len(locked.seats)}")
            await asyncio.sleep(0.2)  # the other one runs meanwhile, and must wait
            locked.seats.append(player)
            await uow.games.save(locked)
            trace.append(f"{name} commits")
            await uow.commit()

    await asyncio.gather(join(PLAYERS[1].id, "first"), join(PLAYERS[2].id, "second"))
    async with uow_factory() as uow:
        stored = await uow.games.get(game.id)
    assert stored is not None
    assert sorted(stored.seats[1:]) == sorted([PLAYERS[1].id, PLAYERS[2].id])
    assert stored.version == 2
    # Strictly one after the other: the second read saw the first one's seat.
    assert [t.split()[1] for t in trace] == ["read", "commits", "read", "commits"]
    assert trace[0].endswith("read 1") and trace[2].endswith("read 2")


async def test_a_read_only_unit_of_work_reads_while_a_writer_holds_the_lock(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Leaderboards, languages and the courier's reads never queue behind a move."""
    from tests.integration.builders import CHAT_ID, chat

    async with uow_factory() as writer:
        await writer.chats.add(chat())  # the write lock is held until commit
        async with uow_factory(read_only=True) as reader:
            # A second writer would wait here for the lock (15 s on SQLite); a reader does not.
            seen = await asyncio.wait_for(reader.chats.get(CHAT_ID), timeout=5)
        assert seen is None  # nor does it see what is not committed
        await writer.commit()
    async with uow_factory(read_only=True) as reader:
        assert await reader.chats.get(CHAT_ID) is not None
