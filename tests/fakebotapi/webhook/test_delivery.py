"""Webhook delivery: what arrives, the webhook and getUpdates, setWebhook's parameters."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
import telegram
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Conflict

from fakebotapi import FakeBotApi
from tests.fakebotapi.webhook.support import (
    ANN,
    CAT,
    PUBLIC,
    Receiver,
    closed_port_url,
)

# -- what arrives ------------------------------------------------------------------------------


async def test_every_kind_of_update_is_posted_as_json_with_the_secret_header(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    server.webhook_targets([hook.url])
    assert await bot.set_webhook(PUBLIC, secret_token="s3cret_-TOKEN")
    sent = await bot.send_message(
        ANN, "Pick", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Go", None, "go")]])
    )
    first = server.user_sends(ANN, ANN, "/start")
    query_id = server.press_button(ANN, ANN, sent.message_id, "go")
    server.block_bot(CAT)

    await server.wait_webhook_idle(timeout=5)

    arrivals = sorted(hook.arrivals, key=lambda a: a.update_id)
    kinds = [next(k for k in a.update if k != "update_id") for a in arrivals]
    assert kinds == ["message", "callback_query", "my_chat_member"]
    assert {(a.secret, a.content_type) for a in arrivals} == {("s3cret_-TOKEN", "application/json")}
    message = telegram.Update.de_json(arrivals[0].update, bot).message
    assert message is not None
    assert (message.message_id, message.text) == (first.message_id, "/start")
    query = telegram.Update.de_json(arrivals[1].update, bot).callback_query
    assert query is not None and (query.id, query.data) == (query_id, "go")
    ids = [a.update_id for a in arrivals]
    assert sorted(server.delivered_update_ids()) == ids
    assert [(r.update_id, r.url, r.status) for r in server.webhook_deliveries()] == [
        (i, hook.url, 200) for i in server.delivered_update_ids()
    ]
    assert server.pending_updates() == [] and server.webhook_pending() == 0
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.last_error_date) == (PUBLIC, 0, None)


async def test_no_secret_no_header(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    server.webhook_targets([hook.url])
    await bot.set_webhook(PUBLIC)
    server.user_sends(ANN, ANN, "hello")
    await server.wait_webhook_idle(timeout=5)
    assert [(a.text, a.secret) for a in hook.arrivals] == [("hello", None)]


# -- the webhook and getUpdates -------------------------------------------------------------


async def test_get_updates_conflicts_while_a_webhook_is_set_and_polling_resumes_after_delete(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    server.webhook_targets([closed_port_url()])
    await bot.set_webhook(PUBLIC)
    with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
        await bot.get_updates()
    assert server.calls("getUpdates")[-1].status == 409
    server.user_sends(ANN, ANN, "kept")
    await server.wait_for(lambda: len(server.webhook_deliveries()) >= 2)

    assert await bot.delete_webhook()
    attempts = len(server.webhook_deliveries())
    await asyncio.sleep(0.2)  # four retry delays: deliveries stopped with the webhook
    assert len(server.webhook_deliveries()) == attempts
    (update,) = await bot.get_updates(timeout=0)  # what was not delivered is still pending
    assert update.message is not None and update.message.text == "kept"
    info = await bot.get_webhook_info()
    assert (info.url, info.pending_update_count, info.last_error_date) == ("", 1, None)

    # An empty url removes the webhook as well.
    await bot.set_webhook(PUBLIC)
    assert await bot.set_webhook("")
    assert (await bot.get_webhook_info()).url == ""
    assert [u.update_id for u in await bot.get_updates(timeout=0)] == [update.update_id]


async def test_set_webhook_ends_a_waiting_long_poll(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    before = server.world.poll_generation
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await server.wait_for(lambda: server.world.poll_generation > before)
    server.webhook_targets([hook.url])
    await bot.set_webhook(PUBLIC)
    with pytest.raises(Conflict, match="terminated by setWebhook request"):
        await poll


async def test_drop_pending_updates_forgets_what_was_not_delivered(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    server.webhook_targets([closed_port_url()])
    await bot.set_webhook(PUBLIC)
    server.user_sends(ANN, ANN, "lost")
    with pytest.raises(TimeoutError, match="1 pending; last error: 'Connection refused'"):
        await server.wait_webhook_idle(timeout=0.2)
    await bot.set_webhook(PUBLIC, drop_pending_updates=True)
    await server.wait_webhook_idle(timeout=1)
    assert (await bot.get_webhook_info()).pending_update_count == 0

    server.user_sends(ANN, ANN, "lost too")
    await bot.delete_webhook(drop_pending_updates=True)
    assert await bot.get_updates(timeout=0) == ()


# -- setWebhook's parameters, getWebhookInfo ------------------------------------------------


async def test_set_webhook_checks_its_parameters_and_get_webhook_info_reports_them(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    local = "https://127.0.0.1:8443/hook"  # an address the fake can report without DNS
    info = await bot.get_webhook_info()
    assert (info.url, info.has_custom_certificate, info.pending_update_count) == ("", False, 0)
    assert (info.max_connections, info.ip_address, info.allowed_updates) == (None, None, ())

    for bad in ("a b", "a+b/c=", "секрет", "ok\n"):
        with pytest.raises(BadRequest, match=r"^Secret token contains unallowed characters$"):
            await bot.set_webhook(local, secret_token=bad)
    with pytest.raises(BadRequest, match=r"^Secret token is too long$"):
        await bot.set_webhook(local, secret_token="a" * 257)
    for bad_url in ("ftp://example.org/hook", "https:///hook"):
        with pytest.raises(BadRequest, match=r"(?i)^invalid webhook URL specified$"):
            await bot.set_webhook(bad_url)
    assert (await bot.get_webhook_info()).url == ""

    assert await bot.set_webhook(local, secret_token="a" * 256)
    info = await bot.get_webhook_info()
    assert (info.url, info.max_connections, info.ip_address) == (local, 40, "127.0.0.1")
    assert info.allowed_updates == ()

    await bot.set_webhook(
        local,
        max_connections=500,  # Telegram clamps to 1-100
        allowed_updates=["message", "callback_query"],
        ip_address="10.0.0.7",
    )
    info = await bot.get_webhook_info()
    assert (info.max_connections, info.ip_address) == (100, "10.0.0.7")
    assert info.allowed_updates == ("callback_query", "message")
    server.block_bot(CAT)  # my_chat_member is no longer wanted
    assert server.pending_updates() == []
    await bot.set_webhook(local, max_connections=0)
    assert (await bot.get_webhook_info()).max_connections == 1
