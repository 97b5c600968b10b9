"""Bot API methods about the bot itself: identity, updates, webhook, commands, descriptions."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
from typing import Any
from urllib.parse import urlsplit

from .errors import bad_request, conflict
from .models import JSON
from .params import Params
from .registry import handler
from .state import ALL_UPDATE_TYPES, DEFAULT_UPDATE_TYPES, TelegramState
from .webhook import DEFAULT_MAX_CONNECTIONS, MAX_CONNECTIONS, WebhookConfig

MAX_POLL_TIMEOUT = 50
_COMMAND = re.compile(r"^[a-z0-9_]{1,32}$")
_LANGUAGE = re.compile(r"^([a-z]{2})?$")
_SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]*")
_SCOPES_WITH_CHAT = ("chat", "chat_administrators", "chat_member")


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


def _webhook_config(p: Params) -> WebhookConfig:
    url = p.get_str("url") or ""
    parts = urlsplit(url)
    # Telegram only posts to https:// URLs on ports 443, 80, 88 or 8443. The fake also takes
    # http:// and any port: tests serve their webhooks over plain HTTP on 127.0.0.1.
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise bad_request("invalid webhook URL specified")
    secret = p.get_str("secret_token") or ""
    if len(secret) > 256:
        raise bad_request("secret token is too long")
    if not _SECRET_TOKEN.fullmatch(secret):
        raise bad_request("secret token contains unallowed characters")
    # Telegram clamps max_connections to 1-100 rather than refusing other values.
    given = p.get_int("max_connections")
    connections = DEFAULT_MAX_CONNECTIONS if given is None else given
    connections = min(max(connections, 1), MAX_CONNECTIONS)
    # `certificate` (a self-signed public key) is ignored: the fake does not speak TLS.
    return WebhookConfig(url, secret, connections, p.get_str("ip_address") or "")


@handler("setWebhook")
async def set_webhook(world: TelegramState, p: Params) -> bool:
    """Deliver updates by POSTing them to `url`; an empty url removes the webhook.

    Unlike Telegram, the fake does not try to connect when the webhook is set (a refused
    connection would fail setWebhook there): tests may register a URL before the bot
    instances behind it listen. Nor does it limit setWebhook to one call per second.
    """
    if not p.get_str("url"):
        await _remove_webhook(world, p)
        return True
    config = _webhook_config(p)
    _set_allowed_updates(world, p)
    drop = p.get_bool("drop_pending_updates")
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


def scope_key(world: TelegramState, scope: Any) -> str:
    """Canonical key of a BotCommandScope: "default", "chat:-100", "chat_member:-100:42"..."""
    if scope is None:
        return "default"
    if isinstance(scope, str):
        scope = json.loads(scope) if scope.startswith("{") else {"type": scope}
    if not isinstance(scope, dict) or not isinstance(scope.get("type"), str):
        raise bad_request("can't parse BotCommandScope JSON object")
    kind = scope["type"]
    if kind in _SCOPES_WITH_CHAT:
        chat = world.resolve_chat(scope.get("chat_id", 0))
        if kind == "chat_member":
            return f"{kind}:{chat.id}:{int(scope.get('user_id', 0))}"
        return f"{kind}:{chat.id}"
    if kind not in ("default", "all_private_chats", "all_group_chats", "all_chat_administrators"):
        raise bad_request("wrong scope type specified")
    return str(kind)


def _language(p: Params) -> str:
    language = p.get_str("language_code") or ""
    if not _LANGUAGE.match(language):
        raise bad_request("invalid language code specified")
    return language


@handler("setMyCommands")
async def set_my_commands(world: TelegramState, p: Params) -> bool:
    commands = p.get_json("commands")
    if not isinstance(commands, list) or len(commands) > 100:
        raise bad_request("commands must be an Array of at most 100 BotCommand")
    clean: list[JSON] = []
    for command in commands:
        if not isinstance(command, dict) or not _COMMAND.match(str(command.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        description = command.get("description")
        if not isinstance(description, str) or not 1 <= len(description) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        clean.append({"command": command["command"], "description": description})
    key = (scope_key(world, p.get_json("scope")), _language(p))
    if clean:
        world.bot_commands[key] = clean
    else:
        world.bot_commands.pop(key, None)
    world.changed("commands")
    return True


@handler("getMyCommands")
async def get_my_commands(world: TelegramState, p: Params) -> list[JSON]:
    key = (scope_key(world, p.get_json("scope")), _language(p))
    return list(world.bot_commands.get(key, []))


@handler("deleteMyCommands")
async def delete_my_commands(world: TelegramState, p: Params) -> bool:
    world.bot_commands.pop((scope_key(world, p.get_json("scope")), _language(p)), None)
    world.changed("commands")
    return True


def _register_text(setter: str, getter: str, field: str, limit: int) -> None:
    async def set_text(world: TelegramState, p: Params) -> bool:
        value = p.get_str(field) or ""
        if len(value) > limit:
            raise bad_request(f"{field} is too long")
        key = (field, _language(p))
        if value:
            world.bot_texts[key] = value
        else:
            world.bot_texts.pop(key, None)
        world.changed("bot_text")
        return True

    async def get_text(world: TelegramState, p: Params) -> JSON:
        language = _language(p)
        value = world.bot_texts.get((field, language), world.bot_texts.get((field, ""), ""))
        if field == "name" and not value:
            value = world.bot.first_name
        return {field: value}

    handler(setter)(set_text)
    handler(getter)(get_text)


_register_text("setMyDescription", "getMyDescription", "description", 512)
_register_text("setMyShortDescription", "getMyShortDescription", "short_description", 120)
_register_text("setMyName", "getMyName", "name", 64)
