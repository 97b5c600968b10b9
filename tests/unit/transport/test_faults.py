"""Faults are answered: while the store fails, a command or a press gets "try again in a
moment" instead of silence, and the bot works again by itself once the store is back."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.i18n.translator import Translator
from fakebotapi import FakeBotApi
from tests.support.demo import polling
from tests.support.driver import TableDriver
from tests.unit.app.fakes import FailingStore, FakeClock, World

TOKEN = "779:fault-test-token-0123456789abcdef"
GROUP = -100779


@pytest.fixture
async def running() -> AsyncIterator[tuple[FakeBotApi, FailingStore, TableDriver]]:
    async with FakeBotApi(token=TOKEN) as fake:
        store = FailingStore(World())
        deps = Deps(uow=store, rng=random.Random(1), clock=FakeClock())
        app: Any = assemble(
            TOKEN, fake.base_url, deps, Translator(), group_rate=1000, private_interval=0
        )
        async with polling(app):
            fake.add_user(1, "Ann", started=True)
            fake.add_group(GROUP, "Club", type="supergroup", members=[1], admins=[1])
            yield fake, store, TableDriver(fake, GROUP)


async def test_a_command_while_the_store_fails_is_answered_and_the_bot_recovers_by_itself(
    running: tuple[FakeBotApi, FailingStore, TableDriver],
) -> None:
    fake, store, table = running
    store.down = True
    await table.say(1, "/newgame")
    answer = await fake.wait_for_message(GROUP, contains="Try again")
    assert "nothing changed" in (answer.text or "")
    await table.say(1, "/stats", chat_id=1)
    await fake.wait_for_message(1, contains="Try again")
    store.down = False  # the store is back: no restart needed
    await table.say(1, "/newgame")
    lobby = await fake.wait_for(table.lobby)
    store.down = True
    query = fake.press_button(1, GROUP, lobby.message_id, lobby.button_data("Join"))
    pressed = await fake.wait_callback_answer(query)
    assert "Try again" in (pressed["text"] or "")
