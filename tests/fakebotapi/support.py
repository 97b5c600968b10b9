"""What the fake Bot API's own tests share: a real python-telegram-bot client, raw calls."""

from __future__ import annotations

import ssl
from typing import Any

import aiohttp
import telegram
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.request import HTTPXRequest

from fakebotapi import FakeBotApi

TOKEN = "123456:TEST-token"
ANN, BOB, CAT = 1001, 1002, 1003
GROUP, SUPER = -500, -1000000000500
# Building an httpx client loads CA certificates (~90 ms); share one context to keep tests fast.
TLS = ssl.create_default_context()

JSON = dict[str, Any]


def make_bot(base_url: str, token: str = TOKEN) -> telegram.Bot:
    """A real PTB Bot talking to the fake server."""
    return telegram.Bot(
        token,
        base_url=base_url,
        request=HTTPXRequest(httpx_kwargs={"verify": TLS}),
        get_updates_request=HTTPXRequest(httpx_kwargs={"verify": TLS}),
    )


def populate(server: FakeBotApi) -> None:
    """Ann and Cat started the bot, Bob never did; a basic group and a supergroup with them."""
    server.add_user(ANN, "Ann", username="ann_user", started=True)
    server.add_user(BOB, "Bob", last_name="Builder")
    server.add_user(CAT, "Cat", started=True)
    server.add_group(GROUP, "Basic", members=[ANN, BOB], creator=CAT)
    server.add_group(SUPER, "Super", type="supergroup", members=[ANN, BOB], creator=CAT)


async def call(server: FakeBotApi, method: str, **params: Any) -> tuple[int, JSON]:
    """One Bot API call with a JSON body, as any client makes it: (HTTP status, body)."""
    url = f"{server.base_url}{server.token}/{method}"
    async with aiohttp.ClientSession() as http, http.post(url, json=params) as resp:
        return resp.status, await resp.json()


async def control(server: FakeBotApi, action: str, **args: Any) -> tuple[int, JSON]:
    """One call of the HTTP control API: (HTTP status, body)."""
    url = f"{server.control_url}/{action}"
    async with aiohttp.ClientSession() as http, http.post(url, json=args) as resp:
        return resp.status, await resp.json()


async def refused(server: FakeBotApi, method: str, **params: Any) -> str:
    """The description of a 400 answer (fails the test if the call was not refused so)."""
    status, body = await call(server, method, **params)
    assert status == 400 and body["ok"] is False, body
    description: str = body["description"]
    return description


def one_button(data: str, text: str = "Go") -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(text, callback_data=data)]])


async def drain(bot: telegram.Bot) -> tuple[telegram.Update, ...]:
    """Fetch pending updates and confirm them, like a poller does."""
    updates = await bot.get_updates(timeout=0)
    if updates:
        await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0)
    return updates
