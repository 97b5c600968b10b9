"""The membership handlers in process: the bot removed from a group cancels its lobby, and a
group upgraded to a supergroup keeps its lobby under the new id, posted afresh there."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.i18n.translator import Translator
from fakebotapi import FakeBotApi
from tests.support.demo import polling
from tests.support.driver import TableDriver
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

TOKEN = "782:membership-test-token-0123456789"
GROUP, SUPERGROUP = -782, -100782
ANN, BEN = 1, 2


@pytest.fixture
async def running() -> AsyncIterator[tuple[FakeBotApi, World, TableDriver]]:
    async with FakeBotApi(token=TOKEN) as fake:
        world = World()
        deps = Deps(uow=FakeUnitOfWorkFactory(world), rng=random.Random(3), clock=FakeClock())
        app: Any = assemble(
            TOKEN, fake.base_url, deps, Translator(), group_rate=1000, private_interval=0
        )
        async with polling(app):
            for user, name in ((ANN, "Ann"), (BEN, "Ben")):
                fake.add_user(user, name, started=True)
            fake.add_group(GROUP, "Club", type="group", members=[ANN, BEN], admins=[ANN])
            yield fake, world, TableDriver(fake, GROUP)


async def open_lobby(fake: FakeBotApi, world: World, table: TableDriver) -> int:
    await table.say(ANN, "/newgame")
    await fake.wait_for(table.lobby)
    (game,) = world.games.values()
    return game.id


async def test_removing_the_bot_cancels_the_open_lobby(
    running: tuple[FakeBotApi, World, TableDriver],
) -> None:
    fake, world, table = running
    game_id = await open_lobby(fake, world, table)
    fake.kick_bot(GROUP, by_user=ANN)
    await fake.wait_for(lambda: world.games[game_id].status is GameStatus.CANCELLED)


async def test_an_upgraded_group_keeps_its_lobby_under_the_new_id(
    running: tuple[FakeBotApi, World, TableDriver],
) -> None:
    fake, world, table = running
    game_id = await open_lobby(fake, world, table)
    fake.migrate_group(GROUP, SUPERGROUP, by_user=ANN)
    await fake.wait_for(lambda: world.games[game_id].chat_id == SUPERGROUP)
    assert world.games[game_id].status is GameStatus.LOBBY
    # The lobby is posted afresh in the supergroup, with its keys.
    lobby = await fake.wait_for(TableDriver(fake, SUPERGROUP).lobby)
    assert lobby.button_data("Join")
