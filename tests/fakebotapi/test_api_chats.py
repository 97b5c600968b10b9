"""The fake Bot API through a real python-telegram-bot `Bot`: access errors, flood control,
edits, deletes, callback answers, topics, chats, commands, media."""

from __future__ import annotations

import asyncio
import time

import pytest
import telegram
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import (
    ANN,
    BOB,
    CAT,
    GROUP,
    SUPER,
    TOKEN,
    drain,
    make_bot,
    one_button,
)

# PTB warns whenever RetryAfter.retry_after is read, including inside its own __init__.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


# -- access errors -----------------------------------------------------------------------------


async def test_private_chat_errors_never_started_blocked_unknown(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    with pytest.raises(
        Forbidden, match=r"^Forbidden: bot can't initiate conversation with a user$"
    ):
        await bot.send_message(BOB, "hello")
    server.block_bot(ANN)
    with pytest.raises(Forbidden, match=r"^Forbidden: bot was blocked by the user$"):
        await bot.send_message(ANN, "hello")
    (update,) = await drain(bot)
    assert update.my_chat_member.new_chat_member.status == "kicked"
    with pytest.raises(BadRequest, match=r"^Chat not found$"):
        await bot.send_message(424242, "hello")
    server.user_sends(ANN, ANN, "/start")  # "Restart" unblocks
    await bot.send_message(ANN, "back")


async def test_kicked_from_group_and_supergroup(server: FakeBotApi, bot: telegram.Bot) -> None:
    server.add_group(GROUP, "Basic", members=[ANN], creator=CAT)
    server.add_group(SUPER, "Super", type="supergroup", members=[ANN], creator=CAT)
    server.kick_bot(GROUP, by_user=CAT)
    server.kick_bot(SUPER, by_user=CAT)
    with pytest.raises(Forbidden, match=r"bot was kicked from the group chat$"):
        await bot.send_message(GROUP, "hi")
    with pytest.raises(Forbidden, match=r"bot was kicked from the supergroup chat$"):
        await bot.send_message(SUPER, "hi")
    left, kicked = (u.my_chat_member for u in await drain(bot))
    assert (left.chat.id, left.new_chat_member.status, left.from_user.id) == (GROUP, "left", CAT)
    assert (kicked.old_chat_member.status, kicked.new_chat_member.status) == ("member", "kicked")
    server.add_bot_to_group(GROUP, by_user=CAT)
    member, service = await drain(bot)
    assert member.my_chat_member.new_chat_member.status == "member"
    assert service.message.new_chat_members[0].id == 123456
    await bot.send_message(GROUP, "back")


async def test_migrated_group_raises_chat_migrated(server: FakeBotApi, bot: telegram.Bot) -> None:
    server.add_group(GROUP, "Basic", members=[ANN], creator=CAT)
    server.migrate_group(GROUP, SUPER)
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(GROUP, "hi")
    assert caught.value.new_chat_id == SUPER
    assert server.calls("sendMessage")[-1].parameters == {"migrate_to_chat_id": SUPER}
    old, new = (u.message for u in await drain(bot))
    assert (old.chat.id, old.migrate_to_chat_id) == (GROUP, SUPER)
    assert (new.chat.id, new.chat.type, new.migrate_from_chat_id) == (SUPER, "supergroup", GROUP)
    assert (await bot.send_message(SUPER, "hi")).chat.id == SUPER


async def test_flood_control_armed_by_test(server: FakeBotApi, bot: telegram.Bot) -> None:
    now = [time.time()]
    server.world.clock = lambda: now[0]
    server.flood(chat_id=ANN, retry_after=3, count=2)
    await bot.send_message(CAT, "other chat is fine")
    for _ in range(2):
        with pytest.raises(RetryAfter, match=r"Retry in 3 seconds"):
            await bot.send_message(ANN, "hi")
        now[0] += 3  # the bot waits as told (an earlier call would be a violation)
    assert server.calls("sendMessage")[-1].parameters == {"retry_after": 3}
    await bot.send_message(ANN, "now fine")
    assert server.flood_violations() == []


async def test_automatic_limit_of_20_messages_per_minute_per_group() -> None:
    async with FakeBotApi(token=TOKEN, rate_limit=True) as srv:
        srv.add_user(ANN, "Ann")
        srv.add_group(GROUP, "Busy", members=[ANN])
        async with make_bot(srv.base_url) as client:
            for i in range(20):
                await client.send_message(GROUP, f"m{i}")
            with pytest.raises(RetryAfter):
                await client.send_message(GROUP, "one too many")
            srv.add_group(GROUP - 1, "Quiet", members=[ANN])
            await client.send_message(GROUP - 1, "other group is fine")


# -- edits, deletes, callback answers ------------------------------------------------------


async def test_edits_keep_history_and_reject_no_op(server: FakeBotApi, bot: telegram.Bot) -> None:
    msg = await bot.send_message(
        ANN, "<b>Round</b> 1", parse_mode="HTML", reply_markup=one_button("a")
    )
    with pytest.raises(BadRequest, match=r"(?i)^message is not modified: specified new message"):
        await bot.edit_message_text(
            "<b>Round</b> 1", ANN, msg.message_id, parse_mode="HTML", reply_markup=one_button("a")
        )
    edited = await bot.edit_message_text("Round 2", ANN, msg.message_id)
    assert isinstance(edited, telegram.Message) and edited.reply_markup is None  # dropped
    await bot.edit_message_reply_markup(ANN, msg.message_id, reply_markup=one_button("b"))
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_reply_markup(ANN, msg.message_id, reply_markup=one_button("b"))
    stored = server.last_message(ANN)
    assert stored is not None and stored.edit_count == 2
    assert [v.text for v in stored.history] == ["Round 1", "Round 2"]
    assert stored.callback_datas == ["b"] and stored.button_data("Go") == "b"
    with pytest.raises(BadRequest, match=r"(?i)^message to edit not found$"):
        await bot.edit_message_text("x", ANN, 9999)


async def test_delete_rules(server: FakeBotApi, bot: telegram.Bot) -> None:
    server.add_group(GROUP, "G", members=[ANN])
    user_msg = server.user_sends(ANN, GROUP, "/join")
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
        await bot.delete_message(GROUP, user_msg.message_id)
    mine = await bot.send_message(GROUP, "temp")
    assert await bot.delete_message(GROUP, mine.message_id) is True
    assert server.messages(GROUP)[-1].deleted
    assert server.last_message(GROUP) is user_msg
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(GROUP, mine.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
        await bot.edit_message_text("x", GROUP, mine.message_id)


async def test_answer_callback_query_recorded_once(server: FakeBotApi, bot: telegram.Bot) -> None:
    msg = await bot.send_message(ANN, "Pick", reply_markup=one_button("p"))
    query_id = server.press_button(ANN, ANN, msg.message_id, "p")
    waiter = asyncio.create_task(server.wait_callback_answer(query_id, timeout=2))
    with pytest.raises(BadRequest, match=r"(?i)message_too_long"):
        await bot.answer_callback_query(query_id, text="x" * 201)
    assert await bot.answer_callback_query(query_id, text="Not your turn", show_alert=True)
    answer = await waiter
    assert answer == {
        "query_id": query_id,
        "answered": True,
        "text": "Not your turn",
        "show_alert": True,
        "url": None,
    }
    with pytest.raises(BadRequest, match=r"(?i)^query is too old and response timeout expired"):
        await bot.answer_callback_query(query_id)
    with pytest.raises(BadRequest, match=r"(?i)query id is invalid"):
        await bot.answer_callback_query("12345")
    second = server.press_button(ANN, ANN, msg.message_id, "p")
    assert (await server.wait_callback_answer(second, timeout=0.05))["answered"] is False


# -- forum topics, chats, commands, calls --------------------------------------------------------


async def test_forum_thread_id_is_preserved(server: FakeBotApi, bot: telegram.Bot) -> None:
    server.add_group(SUPER, "Forum", type="supergroup", members=[ANN], creator=CAT, is_forum=True)
    thread = server.create_topic(SUPER, "Cuckoo")
    server.user_sends(ANN, SUPER, "/newgame", message_thread_id=thread)
    created, command = (u.message for u in await drain(bot))
    assert created.forum_topic_created.name == "Cuckoo"
    assert (command.message_thread_id, command.is_topic_message) == (thread, True)
    sent = await bot.send_message(SUPER, "Game on", message_thread_id=thread)
    assert (sent.message_thread_id, sent.is_topic_message) == (thread, True)
    assert server.last_message(SUPER).message_thread_id == thread  # type: ignore[union-attr]
    with pytest.raises(BadRequest, match=r"(?i)message thread not found"):
        await bot.send_message(SUPER, "lost", message_thread_id=thread + 100)


async def test_chat_queries_parse_in_ptb(server: FakeBotApi, bot: telegram.Bot) -> None:
    server.add_group(SUPER, "Club", type="supergroup", members=[BOB], admins=[ANN], creator=CAT)
    chat = await bot.get_chat(SUPER)
    assert (chat.id, chat.type, chat.title) == (SUPER, "supergroup", "Club")
    assert (await bot.get_chat_member(SUPER, ANN)).status == "administrator"
    assert (await bot.get_chat_member(SUPER, 123456)).status == "member"
    admins = await bot.get_chat_administrators(SUPER)
    assert sorted(a.user.id for a in admins) == [ANN, CAT]
    assert await bot.get_chat_member_count(SUPER) == 4
    assert await bot.send_chat_action(SUPER, "typing")
    with pytest.raises(BadRequest):
        await bot.send_chat_action(SUPER, "dancing")
    assert await bot.leave_chat(SUPER)
    with pytest.raises(Forbidden, match=r"bot is not a member of the supergroup chat"):
        await bot.send_message(SUPER, "hi")


async def test_commands_stored_per_scope_and_language(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    await bot.set_my_commands([("play", "Start a game")])
    await bot.set_my_commands(
        [("spiel", "Spiel starten")],
        scope=telegram.BotCommandScopeAllGroupChats(),
        language_code="de",
    )
    assert server.commands() == [{"command": "play", "description": "Start a game"}]
    assert server.commands("all_group_chats", "de")[0]["command"] == "spiel"
    got = await bot.get_my_commands(
        scope=telegram.BotCommandScopeAllGroupChats(), language_code="de"
    )
    assert [c.command for c in got] == ["spiel"]
    assert await bot.get_my_commands(language_code="de") == ()
    await bot.delete_my_commands()
    assert server.commands() == []
    with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
        await bot.set_my_commands([("Bad-Cmd", "nope")])
    await bot.set_my_description("A party game", language_code="en")
    assert server.bot_texts() == {"description:en": "A party game"}


async def test_calls_are_recorded_and_counted(server: FakeBotApi, bot: telegram.Bot) -> None:
    before = server.call_count()
    await bot.get_updates(timeout=0)
    for text in ("a", "b", "c"):
        await bot.send_message(ANN, text)
    with pytest.raises(Forbidden):
        await bot.send_message(BOB, "d")
    assert server.call_count() - before == 4  # getUpdates is not counted by default
    assert server.call_count("sendMessage") == 4
    assert server.call_count(include_polling=True) - before == 5
    last = server.calls("sendMessage")[-1]
    assert (last.status, last.params["chat_id"], last.params["text"]) == (403, BOB, "d")
    assert server.calls("sendMessage")[0].result["text"] == "a"


async def test_media_send_with_caption(server: FakeBotApi, bot: telegram.Bot) -> None:
    msg = await bot.send_photo(ANN, b"\x89PNG fake", caption="<b>Table</b>", parse_mode="HTML")
    assert msg.photo and msg.caption == "Table" and msg.caption_entities[0].type == "bold"
    assert server.calls("sendPhoto")[-1].params["photo"]["content_type"]
