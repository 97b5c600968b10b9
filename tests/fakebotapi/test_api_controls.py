"""The fake Bot API's test side: waiting helpers, the HTTP control API, standalone use."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
from typing import Any

import aiohttp
import pytest
import telegram

from fakebotapi import FakeBotApi, FakeBotApiThread
from fakebotapi.errors import ApiError
from tests.fakebotapi.support import (
    ANN,
    TOKEN,
    drain,
    one_button,
)

# PTB warns whenever RetryAfter.retry_after is read, including inside its own __init__.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


# -- waiting helpers, control API, standalone use ---------------------------------------------


async def test_wait_for_message_wakes_on_new_message(server: FakeBotApi, bot: telegram.Bot) -> None:
    waiter = asyncio.create_task(server.wait_for_message(ANN, contains="Round 2", timeout=2))
    await bot.send_message(ANN, "Round 1")
    await bot.send_message(ANN, "Round 2 starts")
    assert (await waiter).text == "Round 2 starts"
    with pytest.raises(TimeoutError, match=r"Round 3"):
        await server.wait_for_message(ANN, contains="Round 3", timeout=0.05)


async def test_http_control_api_drives_a_game_step(server: FakeBotApi, bot: telegram.Bot) -> None:
    async def control(action: str, **args: Any) -> tuple[int, Any]:
        async with http.post(f"{server.control_url}/{action}", json=args) as resp:
            body = await resp.json()
            return resp.status, body.get("result", body.get("error"))

    async with aiohttp.ClientSession() as http:
        assert await control("add_user", user_id=2001, first_name="Dan", started=True) == (
            200,
            {"id": 2001, "is_bot": False, "first_name": "Dan", "language_code": "en"},
        )
        status, msg = await control("user_sends", user_id=2001, chat_id=2001, text="/play")
        assert status == 200 and msg["entities"][0]["type"] == "bot_command"
        sent = await bot.send_message(2001, "Deal?", reply_markup=one_button("deal"))
        status, query_id = await control(
            "press_button",
            user_id=2001,
            chat_id=2001,
            message_id=sent.message_id,
            callback_data="deal",
        )
        await drain(bot)
        await bot.answer_callback_query(query_id, text="Dealt")
        assert (await control("callback_answer", query_id=query_id))[1]["text"] == "Dealt"
        async with http.get(f"{server.control_url}/messages?chat_id=2001") as resp:
            texts = [m["text"] for m in (await resp.json())["result"]]
        assert texts == ["/play", "Deal?"]
        assert (await control("call_count", method="answerCallbackQuery"))[1] == 1
        assert (await control("wait_for_message", chat_id=2001, contains="nope", timeout=0.05))[
            0
        ] == 408
        assert (await control("user_sends", user_id=2001))[0] == 400
        assert (await control("no_such_action"))[0] == 404


async def test_json_body_with_object_markup(server: FakeBotApi) -> None:
    payload = {
        "chat_id": ANN,
        "text": "json",
        "reply_markup": {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]},
    }
    url = f"{server.base_url}{TOKEN}/sendMessage"
    bad = {**payload, "reply_markup": {"inline_keyboard": [[{"text": "A"}]]}}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=payload) as resp:
            body = await resp.json()
        assert body["ok"] and body["result"]["reply_markup"] == payload["reply_markup"]
        async with http.post(url, json=bad) as resp:
            assert resp.status == 400
            assert "can't parse inline keyboard button" in (await resp.json())["description"]


def test_threaded_server_for_sync_callers() -> None:
    with FakeBotApiThread(token=TOKEN) as runner:
        runner.call(runner.server.add_user, ANN, "Ann", started=True)
        request = urllib.request.Request(
            f"{runner.server.base_url}{TOKEN}/sendMessage",
            data=json.dumps({"chat_id": ANN, "text": "sync"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert json.load(resp)["result"]["text"] == "sync"
        assert runner.call(runner.server.dm, ANN)[0].text == "sync"


def test_module_runs_standalone() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "fakebotapi", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("base_url http://127.0.0.1:") and line.rstrip().endswith("/bot")
        with urllib.request.urlopen(f"{line.split()[1]}123:ABC/getMe", timeout=5) as resp:
            assert json.load(resp)["result"]["is_bot"] is True
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_api_error_body_shape() -> None:
    error = ApiError(429, "Too Many Requests: retry after 5", {"retry_after": 5})
    assert error.body() == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 5",
        "parameters": {"retry_after": 5},
    }
