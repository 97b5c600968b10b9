"""Fixtures for the webhook tests: a server with short retries, a PTB bot, webhook endpoints."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import telegram

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import TOKEN, make_bot
from tests.fakebotapi.webhook.support import Receiver, populate


@pytest.fixture
async def server() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN, webhook_retry_delay=0.05) as srv:
        populate(srv)
        yield srv


@pytest.fixture
async def bot(server: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with make_bot(server.base_url) as client:
        yield client


@pytest.fixture
async def receiver() -> AsyncIterator[Callable[..., Awaitable[Receiver]]]:
    """Starts webhook endpoints (on a given port if asked) and stops them after the test."""
    started: list[Receiver] = []

    async def start(port: int = 0) -> Receiver:
        started.append(await Receiver().start(port))
        return started[-1]

    yield start
    for each in started:
        await each.stop()
