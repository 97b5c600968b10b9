"""setWebhook refuses what Telegram refuses: an http URL, another port, a bad secret token."""

from __future__ import annotations

import pytest

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import call, refused

PUBLIC = "https://bot.example.org/telegram/update"


@pytest.mark.parametrize(
    "url",
    [
        PUBLIC,
        "https://bot.example.org:443/x",
        "https://bot.example.org:80/x",
        "https://bot.example.org:88/x",
        "https://bot.example.org:8443/x",
        "bot.example.org/x",  # Telegram reads a URL without a scheme as https
    ],
)
async def test_telegram_accepts_an_https_webhook_on_ports_443_80_88_8443(
    fake: FakeBotApi, url: str
) -> None:
    assert await call(fake, "setWebhook", url=url) == (200, {"ok": True, "result": True})
    assert fake.world.webhook is not None and fake.world.webhook.url == url


@pytest.mark.parametrize("url", ["http://bot.example.org/x", "http://127.0.0.1:8080/hook"])
async def test_telegram_refuses_a_webhook_url_that_is_not_https(fake: FakeBotApi, url: str) -> None:
    assert await refused(fake, "setWebhook", url=url) == (
        "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
    )


@pytest.mark.parametrize("port", [8080, 8444, 1, 65535])
async def test_telegram_refuses_a_webhook_on_another_port(fake: FakeBotApi, port: int) -> None:
    assert await refused(fake, "setWebhook", url=f"https://bot.example.org:{port}/x") == (
        "Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
    )


@pytest.mark.parametrize(
    "url", ["ftp://bot.example.org/x", "https:///x", "https://bot.example.org:0x/x", "https://a b/"]
)
async def test_telegram_refuses_a_webhook_url_it_cannot_parse(fake: FakeBotApi, url: str) -> None:
    assert (
        await refused(fake, "setWebhook", url=url) == "Bad Request: invalid webhook URL specified"
    )


@pytest.mark.parametrize("secret", ["a b", "a+b/c=", "секрет", "ok\n", "token:colon"])
async def test_telegram_refuses_a_secret_token_outside_a_z_0_9_underscore_dash(
    fake: FakeBotApi, secret: str
) -> None:
    assert await refused(fake, "setWebhook", url=PUBLIC, secret_token=secret) == (
        "Bad Request: secret token contains unallowed characters"
    )


async def test_telegram_refuses_a_secret_token_over_256_characters(fake: FakeBotApi) -> None:
    assert await refused(fake, "setWebhook", url=PUBLIC, secret_token="a" * 257) == (
        "Bad Request: secret token is too long"
    )
    assert (await call(fake, "setWebhook", url=PUBLIC, secret_token="Az09_-" * 42 + "abcd"))[
        0
    ] == 200


async def test_telegram_clamps_max_connections_to_1_100(fake: FakeBotApi) -> None:
    for given, kept in ((0, 1), (-5, 1), (100, 100), (101, 100), (40, 40)):
        assert (await call(fake, "setWebhook", url=PUBLIC, max_connections=given))[0] == 200
        assert fake.world.webhook is not None and fake.world.webhook.max_connections == kept


async def test_a_refused_set_webhook_leaves_no_webhook(fake: FakeBotApi) -> None:
    """Telegram closes the webhook it had before it checks the new one."""
    assert (await call(fake, "setWebhook", url=PUBLIC))[0] == 200
    fake.user_sends(1001, 1001, "pending")
    await refused(fake, "setWebhook", url="http://bot.example.org/x", drop_pending_updates=True)
    assert fake.world.webhook is None and fake.pending_updates() == []
    status, body = await call(fake, "getUpdates", timeout=0)
    assert (status, body["result"]) == (200, [])


async def test_only_the_url_given_to_set_webhook_is_checked_not_the_targets(
    fake: FakeBotApi,
) -> None:
    fake.webhook_targets(["http://127.0.0.1:9/telegram/update"])  # the proxy's side: plain http
    assert (await call(fake, "setWebhook", url=PUBLIC))[0] == 200
