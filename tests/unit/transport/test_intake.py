"""The poller tells Telegram an update is done only once it has been handled: an update whose
handler has not finished stays unconfirmed (a process killed now gets it again), and is
confirmed once it and every update before it are done."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from telegram import Update
from telegram.ext import ApplicationHandlerStop, ContextTypes, TypeHandler

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.i18n.translator import Translator
from fakebotapi import FakeBotApi
from tests.support.demo import polling
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

TOKEN = "782:intake-test-token-0123456789abcdef"
ANN = 1


async def test_an_update_is_confirmed_only_once_it_and_those_before_it_are_handled() -> None:
    release, held = asyncio.Event(), asyncio.Event()

    async def slow(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        text = update.message.text if update.message else ""
        if text == "/slow":
            held.set()
            await release.wait()
            raise ApplicationHandlerStop

    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_intake_bot") as fake:
        fake.add_user(ANN, "Ann", started=True)
        deps = Deps(uow=FakeUnitOfWorkFactory(World()), rng=random.Random(1), clock=FakeClock())
        app: Any = assemble(
            TOKEN, fake.base_url, deps, Translator(), group_rate=1000, private_interval=0
        )
        app.add_handler(TypeHandler(Update, slow), group=-1)
        async with polling(app):
            fake.user_sends(ANN, ANN, "/slow")
            async with asyncio.timeout(5):
                await held.wait()
            fake.user_sends(ANN, ANN, "/rules")  # handled meanwhile, in its own task
            await fake.wait_for_message(ANN, "the rules", timeout=5)
            # The probe: a confirmation travels in a poll (its offset), so the polls asked after
            # the answer would carry it (the first one answered from now may have been asked
            # before; the second was not). Neither is confirmed: the first is still in hand,
            # and it comes before the second.
            polls = fake.call_count("getUpdates")
            await fake.wait_for(lambda: fake.call_count("getUpdates") >= polls + 2, 10)
            assert [u["message"]["text"] for u in fake.pending_updates()] == ["/slow", "/rules"]
            release.set()
            await fake.wait_for(lambda: not fake.pending_updates(), 5)
