"""Bot API methods that read or change chats and memberships."""

from __future__ import annotations

from .errors import bad_request
from .models import JSON, MEMBER_STATUSES
from .params import Params
from .registry import handler
from .state import TelegramState, now

CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
MAX_TOPIC_NAME = 128
_NO_GIFTS = dict.fromkeys(
    ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription"), False
) | {"gifts_from_channels": False}


@handler("getChat")
async def get_chat(world: TelegramState, p: Params) -> JSON:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    info = world.chat_json(chat)
    info.pop("all_members_are_administrators", None)
    # Fields ChatFullInfo requires since Bot API 7.3 / 9.0
    info.update(accent_color_id=0, max_reaction_count=11, accepted_gift_types=_NO_GIFTS)
    return info


@handler("getChatMember")
async def get_chat_member(world: TelegramState, p: Params) -> JSON:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    user_id = p.get_int("user_id", required=True)
    assert user_id is not None
    if world.user_json(user_id) is None:
        raise bad_request("user not found")
    if chat.type == "private" and user_id not in (chat.id, world.bot.id):
        raise bad_request("user not found")
    return world.member_json(chat, user_id)


@handler("getChatAdministrators")
async def get_chat_administrators(world: TelegramState, p: Params) -> list[JSON]:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    if chat.type == "private":
        raise bad_request("there are no administrators in the private chat")
    admins = [uid for uid, status in chat.members.items() if status in ("creator", "administrator")]
    if chat.bot_status == "administrator":
        admins.append(world.bot.id)
    return [world.member_json(chat, uid) for uid in admins]


@handler("getChatMemberCount")
async def get_chat_member_count(world: TelegramState, p: Params) -> int:
    chat = world.resolve_chat(p.chat_id())
    world.check_membership(chat)
    if chat.type == "private":
        return 2
    humans = sum(1 for status in chat.members.values() if status in MEMBER_STATUSES)
    return humans + (1 if chat.bot_is_member else 0)


@handler("leaveChat")
async def leave_chat(world: TelegramState, p: Params) -> bool:
    chat = world.resolve_chat(p.chat_id())
    if chat.type == "private":
        raise bad_request("chat member status can't be changed in private chats")
    world.check_membership(chat)
    old = world.member_json(chat, world.bot.id)
    chat.bot_status = "left"
    chat.bot_was_kicked = False
    update = {
        "chat": world.chat_json(chat),
        "from": world.bot.to_api(),
        "date": now(),
        "old_chat_member": old,
        "new_chat_member": world.member_json(chat, world.bot.id),
    }
    world.enqueue("my_chat_member", update)
    return True


@handler("sendChatAction")
async def send_chat_action(world: TelegramState, p: Params) -> bool:
    chat = world.chat_for_write(p.chat_id())
    action = p.get_str("action", required=True)
    if action not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    thread_id = p.get_int("message_thread_id")
    if thread_id is not None and chat.is_forum and thread_id not in chat.topics:
        raise bad_request("message thread not found")
    return True


@handler("createForumTopic")
async def create_forum_topic(world: TelegramState, p: Params) -> JSON:
    chat = world.chat_for_write(p.chat_id())
    if not chat.is_forum:
        raise bad_request("the chat is not a forum")
    # tdlib ForumTopicManager.cpp: the name is cleaned and cut to 128 characters; empty is refused.
    name = (p.get_str("name") or "").strip()[:MAX_TOPIC_NAME]
    if not name:
        raise bad_request("name must be non-empty")
    color = p.get_int("icon_color") or 0x6FB9F0
    topic = {"name": name, "icon_color": color}
    msg = world.add_message(chat, world.bot.id, extra={"forum_topic_created": topic})
    msg.message_thread_id, msg.is_topic_message = msg.message_id, True
    chat.topics[msg.message_id] = name
    return {"message_thread_id": msg.message_id, **topic}
