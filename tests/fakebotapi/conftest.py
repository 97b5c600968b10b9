"""Fixtures for the fake Bot API's tests: a populated server and a real PTB bot in front of it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import telegram

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import ANN, BOB, CAT, TOKEN, make_bot, populate


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN) as server:
        populate(server)
        yield server


@pytest.fixture
async def client(fake: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with make_bot(fake.base_url) as bot:
        yield bot


@pytest.fixture
async def server() -> AsyncIterator[FakeBotApi]:
    """Ann and Cat started the bot, Bob never did; no groups yet."""
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_test_bot") as srv:
        srv.add_user(ANN, "Ann", username="ann_user", started=True)
        srv.add_user(BOB, "Bob", last_name="Builder")  # never pressed Start
        srv.add_user(CAT, "Cat", started=True)
        yield srv


@pytest.fixture
async def bot(server: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with make_bot(server.base_url) as client:
        yield client
