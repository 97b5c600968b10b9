"""Bot API methods about the bot itself: identity, updates, the webhook."""

from __future__ import annotations

import asyncio
import ipaddress
import re
from urllib.parse import urlsplit

from .errors import (
    SECRET_CHARACTERS,
    SECRET_TOO_LONG,
    WEBHOOK_NEEDS_HTTPS,
    WEBHOOK_PORT,
    WEBHOOK_URL_INVALID,
    ApiError,
    bad_request,
    conflict,
)
from .models import JSON
from .params import Params
from .registry import handler
from .state import ALL_UPDATE_TYPES, DEFAULT_UPDATE_TYPES, TelegramState
from .urls import UrlError, parse_url
from .webhook_config import DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS, WebhookConfig

MAX_POLL_TIMEOUT = 50
_SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]*")


@handler("getMe")
async def get_me(world: TelegramState, p: Params) -> JSON:
    return {
        **world.bot.to_api(),
        "can_join_groups": True,
        "can_read_all_group_messages": not world.privacy_mode,
        "supports_inline_queries": False,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


def _set_allowed_updates(world: TelegramState, p: Params) -> None:
    """getUpdates and setWebhook both change which update types the bot receives."""
    allowed = p.get_json("allowed_updates")
    if isinstance(allowed, list):
        wanted = frozenset(str(kind) for kind in allowed) & ALL_UPDATE_TYPES
        world.allowed_updates = wanted or DEFAULT_UPDATE_TYPES


@handler("getUpdates")
async def get_updates(world: TelegramState, p: Params) -> list[JSON]:
    if world.webhook is not None:
        raise conflict(
            "can't use getUpdates method while webhook is active; "
            "use deleteWebhook to delete the webhook first"
        )
    offset = p.get_int("offset")
    limit = min(max(p.get_int("limit") or 100, 1), 100)
    timeout = min(max(p.get_int("timeout") or 0, 0), MAX_POLL_TIMEOUT)
    _set_allowed_updates(world, p)
    if offset is not None:
        world.confirm(offset)
    # A newer getUpdates ends an older one still waiting, as Telegram does with two pollers.
    world.poll_generation += 1
    generation = world.poll_generation
    world.changed("poll")
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        if world.poll_generation != generation:
            raise conflict(
                "terminated by other getUpdates request; "
                "make sure that only one bot instance is running"
            )
        if world.webhook is not None:
            raise conflict("terminated by setWebhook request")
        remaining = deadline - asyncio.get_running_loop().time()
        if world.updates or world.closing or remaining <= 0:
            return [update for _, _, update in world.updates[:limit]]
        await world.wait_changed(remaining)


WEBHOOK_PORTS = (443, 80, 88, 8443)


def _webhook_config(p: Params) -> WebhookConfig:
    """What setWebhook asks for, checked as Telegram checks it (telegram-bot-api Client.cpp
    `do_set_webhook`, then WebhookActor.cpp `start_up`, which Telegram's servers run)."""
    url = p.get_str("url") or ""
    try:
        parsed = parse_url(url, default_protocol="https")  # "example.org/hook" is https
    except UrlError:
        raise bad_request(WEBHOOK_URL_INVALID) from None
    secret = p.get_str("secret_token") or ""
    if len(secret) > 256:
        raise bad_request(SECRET_TOO_LONG)
    if not _SECRET_TOKEN.fullmatch(secret):
        raise bad_request(SECRET_CHARACTERS)
    if parsed.protocol != "https":
        raise bad_request(WEBHOOK_NEEDS_HTTPS)
    if parsed.port not in WEBHOOK_PORTS:
        raise bad_request(WEBHOOK_PORT)
    # Telegram clamps max_connections to 1-100 rather than refusing other values.
    given = p.get_int("max_connections")
    connections = DEFAULT_MAX_CONNECTIONS if given is None else given
    connections = min(max(connections, 1), MAX_CONNECTIONS)
    # `certificate` (a self-signed public key) is ignored: the fake does not speak TLS.
    return WebhookConfig(url, secret, connections, p.get_str("ip_address") or "")


@handler("setWebhook")
async def set_webhook(world: TelegramState, p: Params) -> bool:
    """Deliver updates by POSTing them to `url`; an empty url removes the webhook.

    Only the URL given here is checked: tests deliver through `webhook_targets` (a TLS proxy in
    front of the bot at local http URLs). Unlike Telegram, the fake does not try to connect when
    the webhook is set (a refused connection would fail setWebhook there): tests may register a
    URL before the bot instances behind it listen. Nor does it limit setWebhook to one call per
    second.
    """
    if not p.get_str("url"):
        await _remove_webhook(world, p)
        return True
    drop = p.get_bool("drop_pending_updates")
    try:
        config = _webhook_config(p)
    except ApiError:
        # Telegram closes the webhook it had before it checks the new one, and drops the
        # pending updates first if asked: a refused setWebhook leaves no webhook.
        if drop:
            world.updates.clear()
        if world.webhook is not None:
            await world.delivery.remove()
            world.changed("webhook")
        raise
    _set_allowed_updates(world, p)
    if drop:
        world.updates.clear()
    # Setting the same webhook again (every bot instance does on start) keeps deliveries in
    # flight and the last error, as Telegram does.
    if config != world.webhook or drop or not world.delivery.running:
        await world.delivery.start(config)
    world.changed("webhook")
    return True


@handler("deleteWebhook")
async def delete_webhook(world: TelegramState, p: Params) -> bool:
    await _remove_webhook(world, p)
    return True


async def _remove_webhook(world: TelegramState, p: Params) -> None:
    """Back to getUpdates; updates not yet delivered stay pending unless dropped."""
    await world.delivery.remove()
    if p.get_bool("drop_pending_updates"):
        world.updates.clear()
    world.changed("webhook")


@handler("getWebhookInfo")
async def get_webhook_info(world: TelegramState, p: Params) -> JSON:
    config, delivery = world.webhook, world.delivery
    info: JSON = {
        "url": config.url if config else "",
        "has_custom_certificate": False,
        "pending_update_count": len(world.updates),
    }
    if delivery.last_error_date:
        info["last_error_date"] = delivery.last_error_date
        info["last_error_message"] = delivery.last_error_message
    if config is not None:
        info["max_connections"] = config.max_connections
        info["ip_address"] = config.ip_address or _ip_address(config.url)
    if world.allowed_updates != DEFAULT_UPDATE_TYPES:
        info["allowed_updates"] = sorted(world.allowed_updates)
    return info


def _ip_address(url: str) -> str:
    """The address a webhook host resolves to, as far as the fake knows without DNS."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return "127.0.0.1"
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return "<unknown>"


@handler("logOut")
async def log_out(world: TelegramState, p: Params) -> bool:
    return True


@handler("close")
async def close(world: TelegramState, p: Params) -> bool:
    return True
