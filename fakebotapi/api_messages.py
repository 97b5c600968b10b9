"""Bot API methods that send, edit and delete messages or answer button presses."""

from __future__ import annotations

import random
from typing import Any

from .api_callbacks import MAX_ANSWER_LENGTH, QUERY_TOO_OLD
from .effects import check_effect
from .errors import bad_request
from .limits import Kind
from .markup import Markup, check_reply_markup
from .models import JSON, Chat, StoredMessage, Version
from .params import Params
from .registry import handler
from .state import TelegramState, now
from .text import Entity

__all__ = ["MAX_ANSWER_LENGTH", "QUERY_TOO_OLD"]  # kept importable from here
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)


def _target(world: TelegramState, p: Params, kind: Kind) -> Chat:
    """The chat a send/edit goes to, after access checks and flood control."""
    chat = world.chat_for_write(p.chat_id())
    world.flood.check(chat.id, p.method, kind=kind, is_group=chat.type != "private")
    return chat


def _markup(
    world: TelegramState, chat: Chat, p: Params, *, inline_only: bool = False
) -> Markup | None:
    """Only inline keyboards are part of a Message; an empty one means none."""
    raw = p.get_json("reply_markup")
    if raw is None:
        return None
    markup = check_reply_markup(
        raw,
        inline_only=inline_only,
        private=chat.type == "private",
        insecure_web_app_origins=world.insecure_web_app_origins,
    )
    inline = markup is not None and not markup.get("keyboard") and markup.get("inline_keyboard")
    return markup if inline else None


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
    effect = check_effect(p.get_str("message_effect_id"), private=chat.type == "private")
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
    chat = _target(world, p, "send")
    text, entities = world.format_text(
        p.get_str("text"), p.get_str("parse_mode"), p.get_json("entities")
    )
    return _post(world, chat, p, text=text, entities=entities, reply_markup=_markup(world, chat, p))


def _editable(world: TelegramState, p: Params) -> StoredMessage:
    if p.has("inline_message_id"):
        raise bad_request("MESSAGE_ID_INVALID")  # inline messages are not modelled
    chat = _target(world, p, "edit")
    message_id = p.get_int("message_id")
    if not message_id:
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
    return _apply_edit(world, msg, text, entities, _edit_markup(world, msg, p))


def _edit_markup(world: TelegramState, msg: StoredMessage, p: Params) -> Markup | None:
    return _markup(world, world.chats[msg.chat_id], p, inline_only=True)


@handler("editMessageCaption")
async def edit_message_caption(world: TelegramState, p: Params) -> JSON:
    msg = _editable(world, p)
    if msg.text_field != "caption":
        raise bad_request("there is no caption in the message to edit")
    text, entities = world.format_text(
        p.get_str("caption"),
        p.get_str("parse_mode"),
        p.get_json("caption_entities"),
        caption=True,
    )
    return _apply_edit(world, msg, text, entities, _edit_markup(world, msg, p))


@handler("editMessageReplyMarkup")
async def edit_message_reply_markup(world: TelegramState, p: Params) -> JSON:
    msg = _editable(world, p)
    return _apply_edit(world, msg, msg.text, msg.entities, _edit_markup(world, msg, p))


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
        chat = _target(world, p, "send")
        if not p.has(kind):
            raise bad_request(f"there is no {kind} in the request")
        fields: dict[str, Any] = {"text_field": "caption"}
        if kind != "sticker":
            caption, entities = world.format_text(
                p.get_str("caption"),
                p.get_str("parse_mode"),
                p.get_json("caption_entities"),
                caption=True,
            )
            fields.update(text=caption or None, entities=entities)
        payload = _media_payload(kind, world.next_update_id * 1000 + chat.next_message_id)
        if kind == "sticker":
            payload.update(is_animated=False, is_video=False)
        markup = _markup(world, chat, p)
        return _post(world, chat, p, extra={kind: payload}, reply_markup=markup, **fields)

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
    chat = _target(world, p, "send")
    emoji = p.get_str("emoji") or "🎲"
    if emoji not in _DICE_FACES:
        raise bad_request("emoji is invalid")
    dice = {"emoji": emoji, "value": random.randint(1, _DICE_FACES[emoji])}
    return _post(world, chat, p, extra={"dice": dice}, reply_markup=_markup(world, chat, p))
