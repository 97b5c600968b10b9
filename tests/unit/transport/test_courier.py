"""The courier against the fake Bot API over real HTTP: edits in place, 'not modified' is done,
a private chat that refuses (403) marks the player unreachable and blocks nothing else."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from cuckoo_bot.app import lobby
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, NoticeKind, Player
from cuckoo_bot.fakeapi import FakeBotApi
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.render import Renderer
from tests.unit.app.fakes import FakeClock, FakeUnitOfWork, World

TOKEN = "777:courier-test-token-0123456789"
GROUP = -100777


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN) as server:
        for user, name in ((1, "Ann"), (2, "Ben"), (3, "Cat")):
            server.add_user(user, name, started=user != 3)
        server.add_group(GROUP, "Club", type="supergroup", members=[1, 2, 3], admins=[1])
        yield server


@pytest.fixture
async def setup(fake: FakeBotApi) -> AsyncIterator[tuple[Deps, World, Courier]]:
    world = World()
    deps = Deps(uow=lambda: FakeUnitOfWork(world), rng=random.Random(1), clock=FakeClock())
    bot = Bot(TOKEN, base_url=fake.base_url)
    async with bot:
        yield deps, world, Courier(deps, bot, Renderer(Translator()))


async def test_the_lobby_is_one_message_edited_in_place_and_not_modified_counts_as_sent(
    fake: FakeBotApi, setup: tuple[Deps, World, Courier]
) -> None:
    deps, world, courier = setup
    ann = Player(id=1, first_name="Ann", can_dm=True)
    opened = await lobby.open_lobby(deps, Chat(id=GROUP, title="Club"), ann, thread_id=None)
    assert opened.game_id is not None
    await courier.flush(opened.game_id)
    await lobby.join(deps, opened.game_id, Player(id=2, first_name="Ben", can_dm=True))
    await courier.flush(opened.game_id)
    lobbies = [m for m in fake.messages(GROUP) if m.from_bot]
    assert len(lobbies) == 1 and lobbies[0].edit_count == 1 and "Ben" in (lobbies[0].text or "")
    # The same content again: Telegram answers 400 "message is not modified"; that is done.
    from cuckoo_bot.app.lobby import lobby_notice

    async with deps.uow() as uow:
        game = await uow.games.get(opened.game_id)
        assert game is not None
        await uow.outbox.add(lobby_notice(game))
        await uow.commit()
    await courier.flush(opened.game_id)
    assert any(c.status == 400 and "not modified" in (c.description or "") for c in fake.calls())
    assert not [n for i, n in world.outbox.items() if i not in world.sent]


async def test_a_private_chat_that_refuses_marks_the_player_and_the_rest_still_goes_out(
    fake: FakeBotApi, setup: tuple[Deps, World, Courier]
) -> None:
    deps, world, courier = setup
    people = [
        Player(id=i, first_name=n, can_dm=True) for i, n in ((1, "Ann"), (2, "Ben"), (3, "Cat"))
    ]
    opened = await lobby.open_lobby(deps, Chat(id=GROUP, title="Club"), people[0], thread_id=None)
    assert opened.game_id is not None
    for person in people:
        await lobby.join(deps, opened.game_id, person)
    await lobby.start(deps, GROUP, people[0], is_admin=False)
    await courier.flush()
    assert world.players[3].can_dm is False  # Cat never started the bot: 403
    for user in (1, 2):
        assert fake.dm(user), f"user {user} got no card"
    tables = [m for m in fake.messages(GROUP) if m.from_bot and "Round 1" in (m.text or "")]
    assert len(tables) == 1
    assert not [
        n for i, n in world.outbox.items() if i not in world.sent and n.kind is NoticeKind.TABLE
    ]
