"""Nothing stalls in silence: the sweeper of a running bot finds a turn that no message asks
with keys, asks it again, says so in one WARNING naming the game, and counts it."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram.ext import ExtBot

from cuckoo_bot.app import tuning
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.notices import NoticeKind
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.transport.metrics import Metrics
from fakebotapi import FakeBotApi
from tests.support.demo import polling
from tests.support.driver import TableDriver
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

TOKEN = "783:stall-test-token-0123456789abcdef"
GROUP = -100783
PEOPLE = (1, 2, 3)


def _bot(fake: FakeBotApi, world: World, clock: FakeClock, metrics: Metrics) -> Any:
    """One life of the bot on the store ``world``."""
    deps = Deps(
        uow=FakeUnitOfWorkFactory(world, clock),
        rng=random.Random(5),
        clock=clock,
        turn_timeout=600,
    )
    return assemble(
        TOKEN,
        fake.base_url,
        deps,
        Translator(),
        metrics,
        group_rate=1000,
        private_interval=0,
        sole_poller=True,
    )


@pytest.fixture
async def running() -> AsyncIterator[tuple[FakeBotApi, World, FakeClock, Metrics]]:
    async with FakeBotApi(token=TOKEN) as fake:
        world, clock, metrics = World(), FakeClock(), Metrics()
        async with polling(_bot(fake, world, clock, metrics)):
            for user in PEOPLE:
                fake.add_user(user, f"P{user}", started=True)
            fake.add_group(GROUP, "Club", type="supergroup", members=list(PEOPLE), admins=[1])
            yield fake, world, clock, metrics


async def test_a_turn_no_message_asks_with_keys_is_asked_again_and_said_so(
    running: tuple[FakeBotApi, World, FakeClock, Metrics], caplog: pytest.LogCaptureFixture
) -> None:
    fake, world, clock, metrics = running
    table = TableDriver(fake, GROUP)
    await table.start_game(1, list(PEOPLE), wait=10)
    prompt = await table.next_prompt(wait=10)
    assert prompt is not None
    # Another process took the prompt's keys off by mistake, and the store learnt of it.
    async with ExtBot(TOKEN, base_url=fake.base_url) as other:
        await other.edit_message_reply_markup(
            chat_id=prompt.message.chat_id, message_id=prompt.message.message_id
        )
    (asked,) = [
        i for i, n in world.outbox.items() if n.kind is NoticeKind.PROMPT and i in world.sent
    ]
    world.put(asked, prompt.message.message_id, False)
    assert table.prompt() is None  # the game waits for a player with nothing to press

    clock.advance(tuning.REPAIR_GRACE.total_seconds() + tuning.REPAIR_EVERY.total_seconds())
    with caplog.at_level(logging.WARNING):
        again = await table.next_prompt(wait=10)  # the sweeper runs every 2 s
    assert again is not None and again.order == prompt.order and again.actor == prompt.actor
    assert again.message.message_id != prompt.message.message_id
    warned = [r for r in caplog.records if "asked again" in r.getMessage()]
    assert [r.levelno for r in warned] == [logging.WARNING], caplog.text
    assert f"game {prompt.order[0]}" in warned[0].getMessage()
    assert metrics.repairs == {"prompt": 1}
    assert "cuckoo_delivery_repairs_total" in metrics.exposition(None).decode()


async def test_a_round_whose_table_no_message_shows_is_shown_again_and_said_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with FakeBotApi(token=TOKEN) as fake:
        world, clock, metrics = World(), FakeClock(), Metrics()
        table = TableDriver(fake, GROUP)
        async with polling(_bot(fake, world, clock, metrics)):
            for user in PEOPLE:
                fake.add_user(user, f"P{user}", started=True)
            fake.add_group(GROUP, "Club", type="supergroup", members=list(PEOPLE), admins=[1])
            await table.start_game(1, list(PEOPLE), wait=10)
            assert await table.next_prompt(wait=10) is not None
            shown = await fake.wait_for(table.table)
        # That life is gone, and the round's table with it: passed over while nothing showed
        # it (its message gone, its notice marked superseded). The group no longer sees the
        # game, and nothing in the store says why.
        async with ExtBot(TOKEN, base_url=fake.base_url) as other:
            await other.delete_message(chat_id=GROUP, message_id=shown.message_id)
        newest = max(i for i, n in world.outbox.items() if n.kind is NoticeKind.TABLE)
        for row_id, row in list(world.messages.items()):
            if row.kind is NoticeKind.TABLE:
                del world.messages[row_id]
        world.errors[newest] = "superseded"
        assert table.table() is None

        with caplog.at_level(logging.WARNING):
            async with polling(_bot(fake, world, clock, metrics)):
                clock.advance(
                    tuning.REPAIR_GRACE.total_seconds() + tuning.REPAIR_EVERY.total_seconds()
                )
                again = await fake.wait_for(table.table)  # the sweeper runs every 2 s
        assert again.message_id != shown.message_id and again.text == shown.text
        warned = [r for r in caplog.records if "table of round 1" in r.getMessage()]
        assert [r.levelno for r in warned] == [logging.WARNING], caplog.text
        assert f"game {world.outbox[newest].game_id}" in warned[0].getMessage()
        assert metrics.repairs == {"table": 1}
