"""The bot's HTTP client (``transport/http.py``): PTB's bot on aiohttp against the fake Bot API
over real HTTP. A call's parameters reach Telegram as PTB's own client sends them, and every
failure comes back as the error PTB's own client raises: the rest of the bot (flood control,
lost answers) reads only those."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputFile
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import ExtBot

from cuckoo_bot.transport.http import AiohttpRequest
from fakebotapi import FakeBotApi

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

TOKEN = "4343:http-client-test-token-0123456789ab"
ANN = 12


@pytest.fixture
async def fake() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN) as server:
        server.add_user(ANN, "Ann", started=True)
        yield server


async def test_a_call_reaches_telegram_with_its_parameters_and_reads_its_answer(
    fake: FakeBotApi,
) -> None:
    key = InlineKeyboardMarkup([[InlineKeyboardButton("Keep ✋", callback_data="k:1:2")]])
    async with ExtBot(TOKEN, base_url=fake.base_url, request=AiohttpRequest(4)) as bot:
        shown = await bot.send_message(ANN, "Your <b>turn</b> · 9♦", "HTML", reply_markup=key)
        edited = await bot.edit_message_text("✅ kept", chat_id=ANN, message_id=shown.message_id)
    assert shown.text == "Your turn · 9♦" and shown.reply_markup == key
    assert not isinstance(edited, bool) and edited.text == "✅ kept"
    sent = [c for c in fake.calls() if c.method == "sendMessage"]
    assert len(sent) == 1 and sent[0].params["chat_id"] in (ANN, str(ANN))


async def test_telegram_refusals_read_as_ptb_reads_them(fake: FakeBotApi) -> None:
    async with ExtBot(TOKEN, base_url=fake.base_url, request=AiohttpRequest()) as bot:
        with pytest.raises(BadRequest, match="not found"):
            await bot.edit_message_text("gone", chat_id=ANN, message_id=999)
        fake.flood(chat_id=ANN, retry_after=7)
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(ANN, "too soon")
    assert refused.value.retry_after in (7, 7.0) or refused.value.retry_after.total_seconds() == 7


async def test_an_answer_lost_on_the_way_is_a_network_error(fake: FakeBotApi) -> None:
    fake.drop_answers("sendMessage", chat_id=ANN)
    async with ExtBot(TOKEN, base_url=fake.base_url, request=AiohttpRequest()) as bot:
        with pytest.raises(NetworkError) as lost:
            await bot.send_message(ANN, "carried out, its answer lost")
        assert not isinstance(lost.value, TimedOut)
        again = await bot.send_message(ANN, "the next call goes through")
    assert again.text == "the next call goes through"
    assert [c.params["text"] for c in fake.calls() if c.method == "sendMessage"] == [
        "carried out, its answer lost",
        "the next call goes through",
    ]


@pytest.fixture
async def slow() -> AsyncIterator[str]:
    """A Bot API that answers after a second."""

    async def answer(request: web.Request) -> web.Response:
        await asyncio.sleep(1.0)
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/bot{TOKEN}/"
    finally:
        await runner.cleanup()


async def test_an_answer_later_than_the_read_timeout_is_timed_out(slow: str) -> None:
    request = AiohttpRequest(read_timeout=0.1, write_timeout=0.1)
    await request.initialize()
    try:
        with pytest.raises(TimedOut):
            await request.post(slow + "deleteMessage", read_timeout=0.1, write_timeout=0.1)
    finally:
        await request.shutdown()


async def test_a_call_waiting_longer_than_the_pool_timeout_for_a_connection_is_timed_out(
    slow: str,
) -> None:
    request = AiohttpRequest(connection_pool_size=1, connect_timeout=0.1, pool_timeout=0.1)
    await request.initialize()
    try:
        holding = asyncio.create_task(request.post(slow + "deleteMessage"))
        await asyncio.sleep(0.2)  # the one connection is taken
        with pytest.raises(TimedOut):
            await request.post(slow + "deleteMessage")
        assert await holding is True  # the call holding it is answered in its time
    finally:
        await request.shutdown()


async def test_a_client_not_initialized_or_asked_to_upload_refuses_before_sending(
    fake: FakeBotApi,
) -> None:
    request = AiohttpRequest()
    with pytest.raises(NetworkError, match="not initialized"):
        await request.post(fake.base_url + "getMe")
    async with ExtBot(TOKEN, base_url=fake.base_url, request=request) as bot:
        with pytest.raises(NetworkError, match="no files"):
            await bot.send_document(ANN, InputFile(b"a card", filename="card.txt"))
    assert [c.method for c in fake.calls() if c.method == "sendDocument"] == []
