"""Webhook delivery: failures and retries, order and concurrency."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import telegram

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import TOKEN, make_bot
from tests.fakebotapi.webhook.support import (
    ANN,
    BOB,
    CAT,
    PUBLIC,
    Receiver,
    closed_port_url,
    free_port,
    populate,
)

# -- failures and retries ----------------------------------------------------------------


async def test_a_non_2xx_answer_is_retried_until_the_webhook_takes_the_update(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.status = 500
    server.webhook_targets([hook.url])
    await bot.set_webhook(PUBLIC)
    server.user_sends(ANN, ANN, "retry me")
    await hook.wait_arrivals(2)

    info = await bot.get_webhook_info()
    assert info.pending_update_count == 1
    assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"
    assert info.last_error_date is not None

    hook.answers.append(404)
    hook.status = 200
    await server.wait_webhook_idle(timeout=5)
    (update_id,) = set(hook.update_ids)
    statuses = [r.status for r in server.webhook_deliveries(update_id)]
    assert statuses[-2:] == [404, 200] and set(statuses[:-2]) == {500}
    assert hook.texts == ["retry me"] * len(statuses)
    assert server.delivered_update_ids() == [update_id]
    info = await bot.get_webhook_info()
    assert info.pending_update_count == 0
    assert info.last_error_message == "Wrong response from the webhook: 404 Not Found"


async def test_a_refused_connection_is_retried_until_the_bot_listens(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    port = free_port()
    server.webhook_targets([closed_port_url(port)])
    await bot.set_webhook(PUBLIC)
    server.user_sends(ANN, ANN, "anyone there?")
    await server.wait_for(lambda: len(server.webhook_deliveries()) >= 2)
    assert {r.status for r in server.webhook_deliveries()} == {"Connection refused"}
    assert (await bot.get_webhook_info()).last_error_message == "Connection refused"

    hook = await receiver(port=port)
    await server.wait_webhook_idle(timeout=5)
    assert hook.texts == ["anyone there?"]
    assert server.webhook_deliveries()[-1].status == 200


async def test_a_webhook_that_does_not_answer_in_time_gets_the_update_again(
    receiver: Callable[..., Awaitable[Receiver]],
) -> None:
    hook = await receiver()
    hook.stall = 1
    async with FakeBotApi(token=TOKEN, webhook_timeout=0.2, webhook_retry_delay=0.05) as server:
        populate(server)
        async with make_bot(server.base_url) as bot:
            server.webhook_targets([hook.url])
            await bot.set_webhook(PUBLIC)
            server.user_sends(ANN, ANN, "slow")
            await server.wait_webhook_idle(timeout=5)
            assert [r.status for r in server.webhook_deliveries()] == ["Read timeout expired", 200]
            assert hook.texts == ["slow", "slow"]
            assert (await bot.get_webhook_info()).last_error_message == "Read timeout expired"


# -- order and concurrency -------------------------------------------------------------------


async def test_an_update_waits_for_the_answer_to_the_previous_one_from_its_chat(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.gate.clear()
    server.webhook_targets([hook.url])
    await bot.set_webhook(PUBLIC)
    server.user_sends(ANN, ANN, "first")
    server.user_sends(ANN, ANN, "second")
    server.user_sends(BOB, BOB, "other chat")

    await hook.wait_arrivals(2)
    # The probe: an update of a third chat, sent after "second". Deliveries start in the
    # order updates were sent, so once it arrives "second" was passed over, held back.
    server.user_sends(CAT, CAT, "probe")
    await hook.wait_arrivals(3)
    assert sorted(hook.texts, key=str) == ["first", "other chat", "probe"]
    assert server.webhook_pending() == 4

    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    first, second = (a for a in hook.arrivals if a.update["message"]["chat"]["id"] == ANN)
    assert (first.text, second.text) == ("first", "second")
    assert first.answered is not None and second.arrived >= first.answered


async def test_max_connections_caps_the_updates_in_flight(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.gate.clear()
    server.webhook_targets([hook.url])
    await bot.set_webhook(PUBLIC, max_connections=2)
    for user in (ANN, BOB, CAT):
        server.user_sends(user, user, f"from {user}")
    await hook.wait_arrivals(2)
    # No probe can prove a third is held back (the cap holds back a probe as well): a third
    # sent anyway would arrive while the first two wait, which ``max_in_flight`` counts below;
    # a moment's wait gives it the time to.
    await asyncio.sleep(0.1)
    assert len(hook.arrivals) == 2

    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    assert len(hook.arrivals) == 3 and hook.max_in_flight == 2


async def test_setting_the_same_webhook_again_keeps_what_is_in_flight(
    server: FakeBotApi, bot: telegram.Bot, receiver: Callable[..., Awaitable[Receiver]]
) -> None:
    hook = await receiver()
    hook.gate.clear()
    server.webhook_targets([hook.url])
    await bot.set_webhook(PUBLIC, secret_token="one")
    server.user_sends(ANN, ANN, "once")
    await hook.wait_arrivals(1)
    await bot.set_webhook(PUBLIC, secret_token="one")  # a second bot instance starting
    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    assert hook.texts == ["once"]

    # A changed webhook starts over: what was in flight is sent again, with the new secret.
    hook.gate.clear()
    server.user_sends(ANN, ANN, "again")
    await hook.wait_arrivals(2)
    await bot.set_webhook(PUBLIC, secret_token="two")
    await hook.wait_arrivals(3)
    hook.gate.set()
    await server.wait_webhook_idle(timeout=5)
    assert [(a.text, a.secret) for a in hook.arrivals] == [
        ("once", "one"),
        ("again", "one"),
        ("again", "two"),
    ]
