"""Webhook delivery to several bot instances (webhook_targets), and the server's lifecycle."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest
import telegram

from fakebotapi import CONTROL_ACTIONS, FakeBotApi
from tests.fakebotapi.support import TOKEN, make_bot
from tests.fakebotapi.webhook.support import (
    ANN,
    BOB,
    CAT,
    GROUP,
    PUBLIC,
    Receiver,
    closed_port_url,
    populate,
)

# -- several bot instances ----------------------------------------------------------------


async def test_targets_take_new_updates_in_turn(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    one, two = await receiver(), await receiver()
    registered = "https://127.0.0.1:88/hook"  # nothing listens there: connections are refused
    await bot.set_webhook(registered)
    server.webhook_targets([one.url, two.url])
    for user in (ANN, BOB, CAT):
        server.user_sends(user, user, "hi")
    server.user_sends(ANN, GROUP, "/play")
    await server.wait_webhook_idle(timeout=5)
    taken = sorted((r.update_id, r.url) for r in server.webhook_deliveries())
    assert [url for _, url in taken] == [one.url, two.url, one.url, two.url]
    assert (len(one.arrivals), len(two.arrivals)) == (2, 2)
    assert registered not in {r.url for r in server.webhook_deliveries()}

    server.webhook_targets(None)
    server.user_sends(BOB, BOB, "back to the registered URL")
    await server.wait_for(lambda: server.webhook_deliveries()[-1].url == registered)
    assert server.webhook_deliveries()[-1].status == "Connection refused"


async def test_a_refused_target_passes_the_update_to_the_next_target(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    dead = closed_port_url()
    await bot.set_webhook(PUBLIC)
    server.webhook_targets([dead, hook.url])
    for text in ("one", "two", "three"):
        server.user_sends(ANN, ANN, text)
    server.user_sends(BOB, BOB, "bob")
    await server.wait_webhook_idle(timeout=5)

    assert [t for t in hook.texts if t != "bob"] == ["one", "two", "three"]
    assert sorted(hook.texts, key=str) == ["bob", "one", "three", "two"]
    for update_id in server.delivered_update_ids():
        tries = [(r.url, r.status) for r in server.webhook_deliveries(update_id)]
        assert tries in ([(hook.url, 200)], [(dead, "Connection refused"), (hook.url, 200)])
    assert any(r.url == dead for r in server.webhook_deliveries())


async def test_every_nth_update_is_delivered_again_to_the_next_target(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    one, two = await receiver(), await receiver()
    await bot.set_webhook(PUBLIC)
    server.webhook_targets([one.url, two.url])
    server.webhook_duplicate(2)
    for n in range(1, 5):
        server.user_sends(ANN, ANN, f"m{n}")
    await server.wait_webhook_idle(timeout=5)

    assert one.texts == ["m1", "m2", "m3", "m4"]  # m2 and m4 a second time, in chat order
    assert two.texts == ["m2", "m4"]
    u1, u2, u3, u4 = server.delivered_update_ids()
    assert one.update_ids == [u1, u2, u3, u4] and two.update_ids == [u2, u4]
    records = server.webhook_deliveries(u2)
    assert [(r.url, r.duplicate) for r in records] == [(two.url, False), (one.url, True)]
    # The duplicate went out only after the first delivery was answered.
    first = next(a for a in two.arrivals if a.update_id == u2)
    again = next(a for a in one.arrivals if a.update_id == u2)
    assert first.answered is not None and again.arrived >= first.answered

    server.webhook_duplicate(0)
    server.user_sends(ANN, ANN, "m5")
    await server.wait_webhook_idle(timeout=5)
    assert (one.texts + two.texts).count("m5") == 1
    with pytest.raises(ValueError, match="every"):
        server.webhook_duplicate(-1)
    with pytest.raises(ValueError, match="URL"):
        server.webhook_targets(["not a url"])


async def test_webhook_controls_over_http(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    one, two = await receiver(), await receiver()

    async def control(action: str, **args: Any) -> tuple[int, Any]:
        async with http.post(f"{server.control_url}/{action}", json=args) as resp:
            body = await resp.json()
            return resp.status, body.get("result", body.get("error"))

    assert {
        "webhook_targets",
        "webhook_duplicate",
        "webhook_deliveries",
        "delivered_update_ids",
        "webhook_pending",
        "wait_webhook_idle",
    } <= CONTROL_ACTIONS
    await bot.set_webhook(PUBLIC)
    async with aiohttp.ClientSession() as http:
        assert await control("webhook_targets", urls=[two.url, one.url]) == (200, None)
        assert await control("webhook_duplicate", every=1) == (200, None)
        status, message = await control("user_sends", user_id=ANN, chat_id=ANN, text="hey")
        assert (status, message["text"]) == (200, "hey")
        assert await control("wait_webhook_idle", timeout=5) == (200, None)
        status, records = await control("webhook_deliveries")
        assert status == 200
        (update_id,) = {r["update_id"] for r in records}
        assert [(r["url"], r["status"], r["duplicate"]) for r in records] == [
            (two.url, 200, False),
            (one.url, 200, True),
        ]
        assert all(isinstance(r["at"], float) for r in records)
        assert await control("delivered_update_ids") == (200, [update_id])
        assert await control("webhook_pending") == (200, 0)
        assert await control("webhook_targets", urls=None) == (200, None)
        assert (await control("webhook_duplicate", every=-1))[0] == 400
        assert (await control("webhook_targets", urls=[]))[0] == 400


# -- lifecycle -----------------------------------------------------------------------------


async def test_stopping_the_server_cancels_deliveries_and_leaves_no_task(
    receiver: Callable[..., Awaitable[Receiver]],
) -> None:
    hook = await receiver()
    hook.gate.clear()
    server = FakeBotApi(token=TOKEN)
    await server.start()
    try:
        populate(server)
        server.webhook_targets([hook.url])
        async with make_bot(server.base_url) as bot:
            await bot.set_webhook(PUBLIC)
        server.user_sends(ANN, ANN, "in flight")
        await hook.wait_arrivals(1)
        assert any(t.get_name().startswith("fakeapi-webhook") for t in asyncio.all_tasks())
    finally:
        await server.stop()

    assert [t for t in asyncio.all_tasks() if t.get_name().startswith("fakeapi-webhook")] == []
    assert [u["message"]["text"] for u in server.pending_updates()] == ["in flight"]
