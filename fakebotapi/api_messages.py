"""Bot API methods that send, edit and delete messages or answer button presses."""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any
from urllib.parse import urlsplit

from .errors import ApiError, bad_request
from .markup import Markup, check_reply_markup
from .models import JSON, Chat, StoredMessage, Version
from .params import Params
from .registry import handler
from .state import MAX_CAPTION_LENGTH, TelegramState, now
from .text import Entity

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
MAX_ANSWER_LENGTH = 200


def _target(world: TelegramState, p: Params, *, send: bool) -> Chat:
    """The chat a send/edit goes to, after access checks and flood control."""
    chat = world.chat_for_write(p.chat_id())
    world.flood.check(chat.id, is_send=send, is_group=chat.type != "private")
    return chat


def _markup(p: Params, *, inline_only: bool = False) -> Markup | None:
    """Only inline keyboards are part of a Message; an empty one means none."""
    raw = p.get_json("reply_markup")
    if raw is None:
        return None
    markup = check_reply_markup(raw, inline_only=inline_only)
    if "inline_keyboard" not in markup or not any(markup["inline_keyboard"]):
        return None
    return markup


def _thread(world: TelegramState, chat: Chat, p: Params) -> tuple[int | None, bool]:
    thread_id = p.get_int("message_thread_id")
    if thread_id is None:
        return None, False
    if chat.is_forum:
        if thread_id not in chat.topics:
            raise bad_request("message thread not found")
        return thread_id, True
    if world.message(chat, thread_id) is None:
        raise bad_request("message thread not found")
    return thread_id, False


def _reply_to(world: TelegramState, chat: Chat, p: Params) -> int | None:
    params = p.get_json("reply_parameters")
    if isinstance(params, dict):
        target, allow = params.get("message_id"), bool(params.get("allow_sending_without_reply"))
    else:
        target = p.get_int("reply_to_message_id")
        allow = p.get_bool("allow_sending_without_reply")
    if target is None:
        return None
    if world.message(chat, int(target)) is None:
        if allow:
            return None
        raise bad_request("message to be replied not found")
    return int(target)


def _post(world: TelegramState, chat: Chat, p: Params, **fields: Any) -> JSON:
    effect = p.get_str("message_effect_id")
    if effect is not None and chat.type != "private":
        raise bad_request("message effects can be used only in private chats")
    thread_id, is_topic = _thread(world, chat, p)
    reply = _reply_to(world, chat, p)
    msg = world.add_message(
        chat,
        world.bot.id,
        message_thread_id=thread_id,
        is_topic_message=is_topic,
        reply_to_message_id=reply,
        silent=p.get_bool("disable_notification"),
        effect_id=effect,
        **fields,
    )
    return world.message_json(msg)


@handler("sendMessage")
async def send_message(world: TelegramState, p: Params) -> JSON:
    chat = _target(world, p, send=True)
    text, entities = world.format_text(
        p.get_str("text"), p.get_str("parse_mode"), p.get_json("entities")
    )
    return _post(world, chat, p, text=text, entities=entities, reply_markup=_markup(p))


def _editable(world: TelegramState, p: Params) -> StoredMessage:
    if p.has("inline_message_id"):
        raise bad_request("MESSAGE_ID_INVALID")  # inline messages are not modelled
    chat = _target(world, p, send=False)
    message_id = p.get_int("message_id")
    if message_id is None:
        raise bad_request("message identifier is not specified")
    msg = world.message(chat, message_id)
    if msg is None:
        raise bad_request("message to edit not found")
    if not msg.from_bot:
        raise bad_request("message can't be edited")
    return msg


def _apply_edit(
    world: TelegramState,
    msg: StoredMessage,
    text: str | None,
    entities: list[Entity],
    markup: Markup | None,
) -> JSON:
    if (text, entities, markup) == (msg.text, msg.entities, msg.reply_markup):
        raise bad_request(NOT_MODIFIED)
    msg.history.append(Version(msg.text, msg.entities, msg.reply_markup, msg.edit_date or msg.date))
    msg.text, msg.entities, msg.reply_markup = text, entities, markup
    msg.edit_date = now()
    world.changed("edit", msg)
    return world.message_json(msg)


@handler("editMessageText")
async def edit_message_text(world: TelegramState, p: Params) -> JSON:
    msg = _editable(world, p)
    if msg.text_field != "text":
        raise bad_request("there is no text in the message to edit")
    text, entities = world.format_text(
        p.get_str("text"), p.get_str("parse_mode"), p.get_json("entities")
    )
    # Telegram drops the keyboard when an edit does not repeat it
    return _apply_edit(world, msg, text, entities, _markup(p, inline_only=True))


@handler("editMessageCaption")
async def edit_message_caption(world: TelegramState, p: Params) -> JSON:
    msg = _editable(world, p)
    if msg.text_field != "caption":
        raise bad_request("there is no caption in the message to edit")
    text, entities = world.format_text(
        p.get_str("caption"),
        p.get_str("parse_mode"),
        p.get_json("caption_entities"),
        limit=MAX_CAPTION_LENGTH,
        caption=True,
    )
    return _apply_edit(world, msg, text, entities, _markup(p, inline_only=True))


@handler("editMessageReplyMarkup")
async def edit_message_reply_markup(world: TelegramState, p: Params) -> JSON:
    msg = _editable(world, p)
    return _apply_edit(world, msg, msg.text, msg.entities, _markup(p, inline_only=True))


def _delete(world: TelegramState, chat: Chat, message_id: int) -> None:
    msg = world.message(chat, message_id)
    if msg is None:
        raise bad_request("message to delete not found")
    bot_is_admin = chat.bot_status in ("administrator", "creator")
    if chat.type != "private" and not msg.from_bot and not bot_is_admin:
        raise bad_request("message can't be deleted")
    msg.deleted = True
    world.changed("delete", msg)


@handler("deleteMessage")
async def delete_message(world: TelegramState, p: Params) -> bool:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    message_id = p.get_int("message_id", required=True)
    assert message_id is not None
    _delete(world, chat, message_id)
    return True


@handler("deleteMessages")
async def delete_messages(world: TelegramState, p: Params) -> bool:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    ids = p.get_json("message_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
        raise bad_request("message_ids must contain 1-100 identifiers")
    for message_id in ids:
        with contextlib.suppress(ApiError):  # Telegram skips messages it cannot delete here
            _delete(world, chat, int(message_id))
    return True


@handler("answerCallbackQuery")
async def answer_callback_query(world: TelegramState, p: Params) -> bool:
    query_id = p.get_str("callback_query_id", required=True)
    query = world.queries.get(query_id or "")
    expired = (
        query is not None
        and world.callback_query_timeout is not None
        and time.monotonic() - query.created > world.callback_query_timeout
    )
    if query is None or query.answered or expired:
        raise bad_request(QUERY_TOO_OLD)
    text = p.get_str("text")
    if text is not None and len(text) > MAX_ANSWER_LENGTH:
        raise bad_request("MESSAGE_TOO_LONG")
    url = p.get_str("url")
    if url and urlsplit(url if "://" in url else "https://" + url).netloc not in (
        "t.me",
        "telegram.me",
    ):
        raise bad_request("URL_INVALID")  # only game URLs and t.me deep links are allowed
    query.answered = True
    query.text = text or None
    query.show_alert = p.get_bool("show_alert")
    query.url = url or None
    query.cache_time = p.get_int("cache_time")
    world.changed("callback_answer", query)
    return True


def _file(kind: str, message_key: int) -> JSON:
    return {"file_id": f"fake-{kind}-{message_key}", "file_unique_id": f"u{kind}{message_key}"}


def _media_payload(kind: str, key: int) -> Any:
    base = _file(kind, key)
    if kind == "photo":
        return [{**base, "width": 320, "height": 320, "file_size": 1024}]
    if kind in ("video", "animation"):
        return {**base, "width": 320, "height": 240, "duration": 1}
    if kind in ("audio", "voice"):
        return {**base, "duration": 1}
    if kind == "sticker":
        return {**base, "type": "regular", "width": 512, "height": 512}
    return base


def _register_media(method: str, kind: str) -> None:
    async def send_media(world: TelegramState, p: Params) -> JSON:
        chat = _target(world, p, send=True)
        if not p.has(kind):
            raise bad_request(f"there is no {kind} in the request")
        fields: dict[str, Any] = {"text_field": "caption"}
        if kind != "sticker":
            caption, entities = world.format_text(
                p.get_str("caption"),
                p.get_str("parse_mode"),
                p.get_json("caption_entities"),
                limit=MAX_CAPTION_LENGTH,
                caption=True,
            )
            fields.update(text=caption or None, entities=entities)
        payload = _media_payload(kind, world.next_update_id * 1000 + chat.next_message_id)
        if kind == "sticker":
            payload.update(is_animated=False, is_video=False)
        return _post(world, chat, p, extra={kind: payload}, reply_markup=_markup(p), **fields)

    handler(method)(send_media)


for _method, _kind in (
    ("sendPhoto", "photo"),
    ("sendDocument", "document"),
    ("sendAnimation", "animation"),
    ("sendVideo", "video"),
    ("sendAudio", "audio"),
    ("sendVoice", "voice"),
    ("sendSticker", "sticker"),
):
    _register_media(_method, _kind)

_DICE_FACES = {"🎲": 6, "🎯": 6, "🎳": 6, "🏀": 5, "⚽": 5, "🎰": 64}


@handler("sendDice")
async def send_dice(world: TelegramState, p: Params) -> JSON:
    chat = _target(world, p, send=True)
    emoji = p.get_str("emoji") or "🎲"
    if emoji not in _DICE_FACES:
        raise bad_request("emoji is invalid")
    dice = {"emoji": emoji, "value": random.randint(1, _DICE_FACES[emoji])}
    return _post(world, chat, p, extra={"dice": dice}, reply_markup=_markup(p))
