"""deleteMessage and deleteMessages, with Telegram's 48-hour window.

Bot API deleteMessage: "A message can only be deleted if it was sent less than 48 hours ago."
tdlib (MessagesManager.cpp) refuses for a bot:
- in a supergroup (`can_delete_channel_message`): a message 48 hours old or older, or another
  user's message when the bot is no admin: "Message can't be deleted";
- in a private chat or basic group (`can_revoke_message`): a message older than 48 hours, or (in
  a basic group) another user's message when the bot is no admin: "Message can't be deleted for
  everyone".
deleteMessages skips messages it cannot find, but one it finds and may not delete fails the whole
call with that message's error, and nothing is deleted (telegram-bot-api Client.cpp
`process_delete_messages_query` checks the ids, then tdlib `delete_messages` checks them all first).
"""

from __future__ import annotations

from .errors import CANT_DELETE, CANT_DELETE_FOR_EVERYONE, bad_request
from .models import Chat, StoredMessage
from .params import Params
from .registry import handler
from .state import TelegramState

DELETE_WINDOW = 2 * 86400  # seconds
MAX_DELETE_IDS = 100


def _refusal(world: TelegramState, chat: Chat, msg: StoredMessage) -> str | None:
    """Why the bot may not delete this message for everyone, or None."""
    age = int(world.clock()) - msg.date
    admin = chat.bot_status in ("administrator", "creator")
    if chat.type == "supergroup":
        if age >= DELETE_WINDOW or (not msg.from_bot and not admin):
            return CANT_DELETE
        return None
    if chat.type == "group" and not msg.from_bot and not admin:
        return CANT_DELETE_FOR_EVERYONE
    return CANT_DELETE_FOR_EVERYONE if age > DELETE_WINDOW else None


def _chat(world: TelegramState, p: Params) -> Chat:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    world.flood.check(chat.id, p.method, kind="delete", is_group=chat.type != "private")
    return chat


def _delete(world: TelegramState, messages: list[StoredMessage]) -> None:
    for msg in messages:
        msg.deleted = True
        world.changed("delete", msg)


@handler("deleteMessage")
async def delete_message(world: TelegramState, p: Params) -> bool:
    message_id = p.get_int("message_id")
    if not message_id:
        raise bad_request("message identifier is not specified")
    chat = _chat(world, p)
    msg = world.message(chat, message_id)
    if msg is None:
        raise bad_request("message to delete not found")
    refusal = _refusal(world, chat, msg)
    if refusal:
        raise bad_request(refusal)
    _delete(world, [msg])
    return True


def _message_ids(p: Params) -> list[int]:
    """telegram-bot-api Client.cpp `get_message_ids`, with its error texts."""
    ids = p.get_json("message_ids") if p.has("message_ids") else []
    if not isinstance(ids, list):
        raise bad_request("expected an Array of message identifiers")
    if len(ids) > MAX_DELETE_IDS:
        raise bad_request("too many message identifiers specified")
    out = []
    for value in ids:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise bad_request("message identifier must be a Number")
        try:
            out.append(int(str(value)))
        except ValueError:
            raise bad_request("can't parse message identifier as a Number") from None
    if not out:
        raise bad_request("message identifiers are not specified")
    return out


@handler("deleteMessages")
async def delete_messages(world: TelegramState, p: Params) -> bool:
    ids = _message_ids(p)
    chat = _chat(world, p)
    found = [m for m in (world.message(chat, i) for i in ids) if m is not None]
    for msg in found:
        refusal = _refusal(world, chat, msg)
        if refusal:
            raise bad_request(refusal)
    _delete(world, found)
    return True
