"""Bot API methods about the bot's commands, name and descriptions."""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import bad_request
from .models import JSON
from .params import Params
from .registry import handler
from .state import TelegramState

_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_LANGUAGE = re.compile(r"([a-z]{2})?")
_SCOPES_WITH_CHAT = ("chat", "chat_administrators", "chat_member")
_SCOPES = ("default", "all_private_chats", "all_group_chats", "all_chat_administrators")
MAX_COMMANDS = 100


def _scope(p: Params) -> Any:
    """The scope parameter (telegram-bot-api Client.cpp `get_bot_command_scope`)."""
    raw = p.raw.get("scope")
    if raw in (None, ""):
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise bad_request("can't parse BotCommandScope JSON object") from None
    if not isinstance(raw, dict):
        raise bad_request("can't parse BotCommandScope: BotCommandScope must be an Object")
    return raw


def scope_key(world: TelegramState, scope: Any) -> str:
    """Canonical key of a BotCommandScope: "default", "chat:-100", "chat_member:-100:42"..."""
    if scope is None:
        return "default"
    if isinstance(scope, str):
        scope = json.loads(scope) if scope.startswith("{") else {"type": scope}
    if not isinstance(scope, dict):
        raise bad_request("can't parse BotCommandScope: BotCommandScope must be an Object")
    kind = scope.get("type")
    if not isinstance(kind, str):
        raise bad_request("can't parse BotCommandScope: Can't find field \"type\"")
    if kind in _SCOPES_WITH_CHAT:
        chat = world.resolve_chat(scope.get("chat_id", 0))
        if kind == "chat_member":
            return f"{kind}:{chat.id}:{int(scope.get('user_id', 0))}"
        return f"{kind}:{chat.id}"
    if kind not in _SCOPES:
        raise bad_request("can't parse BotCommandScope: Unsupported type specified")
    return str(kind)


def _language(p: Params) -> str:
    language = p.get_str("language_code") or ""
    if not _LANGUAGE.fullmatch(language):
        raise bad_request("invalid language code specified")
    return language


@handler("setMyCommands")
async def set_my_commands(world: TelegramState, p: Params) -> bool:
    commands = p.get_json("commands")
    if not isinstance(commands, list):
        raise bad_request("expected an Array of BotCommand")
    key = (scope_key(world, _scope(p)), _language(p))
    clean = [_command(command) for command in commands]
    if len(clean) > MAX_COMMANDS:
        raise bad_request("BOT_COMMANDS_TOO_MUCH")
    if clean:
        world.bot_commands[key] = clean
    else:
        world.bot_commands.pop(key, None)
    world.changed("commands")
    return True


def _command(command: Any) -> JSON:
    """tdlib BotCommand.cpp `set_commands`, then Telegram's servers (BOT_COMMAND_INVALID)."""
    if not isinstance(command, dict):
        raise bad_request("can't parse BotCommand: expected an Object")
    name = str(command.get("command", "")).strip().removeprefix("/")
    description = str(command.get("description", "")).strip()
    if not name:
        raise bad_request("command must be non-empty")
    if len(name) > 32:
        raise bad_request("command length must not exceed 32")
    if not description:
        raise bad_request("command description must be non-empty")
    if len(description) > 256:
        raise bad_request("command description length must not exceed 256")
    if not _COMMAND.fullmatch(name):
        raise bad_request("BOT_COMMAND_INVALID")
    return {"command": name, "description": description}


@handler("getMyCommands")
async def get_my_commands(world: TelegramState, p: Params) -> list[JSON]:
    key = (scope_key(world, _scope(p)), _language(p))
    return list(world.bot_commands.get(key, []))


@handler("deleteMyCommands")
async def delete_my_commands(world: TelegramState, p: Params) -> bool:
    world.bot_commands.pop((scope_key(world, _scope(p)), _language(p)), None)
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
