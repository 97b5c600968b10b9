"""A committed change of a game reaches the live table's watchers: in process on SQLite, through
PostgreSQL's NOTIFY on every instance listening; a rolled-back one reaches nobody."""

from __future__ import annotations

import asyncio

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

from cuckoo_bot.persistence.listen import GameListener
from cuckoo_bot.persistence.uow import sql_uow_factory
from tests.databases import StepClock
from tests.integration.builders import CHAT_ID, lobby, seed


async def test_a_commit_tells_which_games_it_wrote_and_a_rollback_tells_nothing(
    engine: AsyncEngine, database_url: URL, clock: StepClock
) -> None:
    heard: list[frozenset[int] | None] = []
    arrived = asyncio.Event()

    def hear(ids: frozenset[int] | None) -> None:
        heard.append(ids)
        arrived.set()

    listener = None
    if engine.dialect.name == "postgresql":
        # Another instance's listener: it hears through the database, never in process.
        listener = GameListener(database_url.render_as_string(hide_password=False), hear)
        listener.start()
        await asyncio.wait_for(listener.listening.wait(), 10)
        await asyncio.wait_for(arrived.wait(), 5)
        assert heard == [None]  # listening (again): whatever changed before is read again
        heard.clear()
        arrived.clear()
    # On PostgreSQL the commit NOTIFYs and only the listener tells; SQLite tells in process.
    factory = sql_uow_factory(engine, clock, changed=hear)
    try:
        async with factory() as uow:
            await seed(uow)
            game = await uow.games.add(lobby())
            await uow.commit()
        await asyncio.wait_for(arrived.wait(), 5)
        assert heard == [frozenset({game.id})]

        heard.clear()
        arrived.clear()
        async with factory() as uow:
            stored = await uow.games.get(game.id, lock=True)
            assert stored is not None
            await uow.games.save(stored)
            # not committed: rolled back when the unit of work ends
        async with factory() as uow:
            await uow.chats.get(-1)  # a commit that wrote no game
            await uow.commit()
        async with factory() as uow:
            stored = await uow.games.get(game.id, lock=True)
            assert stored is not None
            await uow.games.save(stored)
            await uow.commit()
        await asyncio.wait_for(arrived.wait(), 5)
        await asyncio.sleep(0.2)  # anything else would have come by now
        assert heard == [frozenset({game.id})]

        # The group moves to a supergroup: its open game moves with it, and its pages hear.
        heard.clear()
        arrived.clear()
        async with factory() as uow:
            await uow.chats.migrate(CHAT_ID, CHAT_ID - 1)
            await uow.commit()
        await asyncio.wait_for(arrived.wait(), 5)
        assert heard == [frozenset({game.id})]
    finally:
        if listener is not None:
            await listener.stop()
