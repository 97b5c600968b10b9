"""The fake Bot API, exercised over real HTTP with a real python-telegram-bot `Bot`."""

from __future__ import annotations

import asyncio
import json
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import telegram
from telegram import InlineKeyboardButton as Button
from telegram import InlineKeyboardMarkup as Markup
from telegram.error import BadRequest, ChatMigrated, Conflict, Forbidden, InvalidToken, RetryAfter
from telegram.request import HTTPXRequest

from fakebotapi import FakeBotApi, FakeBotApiThread
from fakebotapi.errors import ApiError
from fakebotapi.html import parse_html

TOKEN = "123456:TEST-token"
ANN, BOB, CAT = 1001, 1002, 1003
GROUP, SUPER = -500, -1000000000500
# Building an httpx client loads CA certificates (~90 ms); share one context to keep tests fast.
_TLS = ssl.create_default_context()

# PTB warns whenever RetryAfter.retry_after is read, including inside its own __init__.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def make_bot(base_url: str, token: str = TOKEN) -> telegram.Bot:
    """A real PTB Bot talking to the fake server."""
    return telegram.Bot(
        token,
        base_url=base_url,
        request=HTTPXRequest(httpx_kwargs={"verify": _TLS}),
        get_updates_request=HTTPXRequest(httpx_kwargs={"verify": _TLS}),
    )


def one_button(data: str, text: str = "Go") -> Markup:
    return Markup([[Button(text, callback_data=data)]])


@pytest.fixture
async def server() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_test_bot") as srv:
        srv.add_user(ANN, "Ann", username="ann_user", started=True)
        srv.add_user(BOB, "Bob", last_name="Builder")  # never pressed Start
        srv.add_user(CAT, "Cat", started=True)
        yield srv


@pytest.fixture
async def bot(server: FakeBotApi) -> AsyncIterator[telegram.Bot]:
    async with make_bot(server.base_url) as client:
        yield client


async def drain(bot: telegram.Bot) -> tuple[telegram.Update, ...]:
    """Fetch pending updates and confirm them, like a poller does."""
    updates = await bot.get_updates(timeout=0)
    if updates:
        await bot.get_updates(offset=updates[-1].update_id + 1, timeout=0)
    return updates


# -- identity, routing ---------------------------------------------------------------------


async def test_get_me_reports_the_configured_bot(server: FakeBotApi, bot: telegram.Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (123456, "cuckoo_test_bot", True)
    assert me.can_read_all_group_messages is False  # privacy mode is Telegram's default
    assert server.base_url == f"http://127.0.0.1:{server.port}/bot"


async def test_wrong_token_is_unauthorized(server: FakeBotApi) -> None:
    with pytest.raises(InvalidToken):
        async with make_bot(server.base_url, "999:WRONG"):
            pass
    assert server.calls("getMe")[-1].status == 401


async def test_unknown_method_404_known_method_true_and_case_insensitive(
    server: FakeBotApi,
) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{server.base_url}{TOKEN}/noSuchMethod") as resp:
            assert resp.status == 404
            assert await resp.json() == {
                "ok": False,
                "error_code": 404,
                "description": "Not Found: method not found",
            }
        async with http.post(f"{server.base_url}{TOKEN}/pinChatMessage", json={}) as resp:
            assert (resp.status, await resp.json()) == (200, {"ok": True, "result": True})
        async with http.get(f"{server.base_url}{TOKEN}/GETME") as resp:
            assert (await resp.json())["result"]["username"] == "cuckoo_test_bot"
    assert server.calls("getme")[-1].method == "getMe"


# -- updates -------------------------------------------------------------------------------


async def test_user_message_arrives_with_bot_command_entity(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    server.user_sends(BOB, BOB, "/start join_-500")
    server.user_sends(ANN, ANN, "hi /help@cuckoo_test_bot")
    first, second = await drain(bot)
    assert first.update_id < second.update_id
    assert first.message.text == "/start join_-500"
    (command,) = first.message.entities
    assert (command.type, command.offset, command.length) == ("bot_command", 0, 6)
    assert first.message.from_user.id == BOB and first.message.chat.type == "private"
    (command,) = second.message.entities
    assert (command.offset, command.length) == (3, 21)
    assert second.message.message_id > first.message.message_id or second.message.chat.id == ANN
    assert server.pending_updates() == []  # confirmed by the offset
    # /start made Bob reachable
    await bot.send_message(BOB, "welcome")


async def test_callback_query_update_carries_the_message_as_shown(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    sent = await bot.send_message(ANN, "Pick", reply_markup=one_button("pick:1"))
    query_id = server.press_button(ANN, ANN, sent.message_id, "pick:1")
    (update,) = await drain(bot)
    query = update.callback_query
    assert (query.id, query.data, query.from_user.id) == (query_id, "pick:1", ANN)
    assert query.message.message_id == sent.message_id and query.message.text == "Pick"
    assert query.chat_instance
    with pytest.raises(ValueError, match=r"no button"):
        server.press_button(ANN, ANN, sent.message_id, "pick:2")


async def test_long_poll_waits_and_returns_as_soon_as_an_update_arrives(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    started = time.monotonic()
    assert await bot.get_updates(timeout=1) == ()
    assert time.monotonic() - started >= 0.9
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.1)
    started = time.monotonic()
    server.user_sends(ANN, ANN, "ping")
    (update,) = await poll
    assert update.message.text == "ping" and time.monotonic() - started < 1


async def test_a_second_poller_terminates_the_first_with_409(
    server: FakeBotApi, bot: telegram.Bot
) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.1)
    async with make_bot(server.base_url) as second_instance:
        assert await second_instance.get_updates(timeout=0) == ()
    with pytest.raises(Conflict, match=r"terminated by other getUpdates"):
        await first


async def test_allowed_updates_filters_new_updates(server: FakeBotApi, bot: telegram.Bot) -> None:
    sent = await bot.send_message(ANN, "Pick", reply_markup=one_button("x"))
    await bot.get_updates(timeout=0, allowed_updates=["message"])
    server.press_button(ANN, ANN, sent.message_id, "x")
    server.user_sends(ANN, ANN, "text")
    (update,) = await drain(bot)
    assert update.message.text == "text"


async def test_privacy_mode_hides_plain_group_text(server: FakeBotApi, bot: telegram.Bot) -> None:
    server.add_group(GROUP, "Friends", members=[ANN, BOB], creator=CAT)
    bot_msg = await bot.send_message(GROUP, "Who plays?")
    server.user_sends(ANN, GROUP, "just chatting")
    server.user_sends(ANN, GROUP, "/join")
    server.user_sends(ANN, GROUP, "/join@other_bot")
    server.user_sends(BOB, GROUP, "me", reply_to_message_id=bot_msg.message_id)
    server.user_sends(BOB, GROUP, "hey @cuckoo_test_bot")
    texts = [u.message.text for u in await drain(bot)]
    assert texts == ["/join", "me", "hey @cuckoo_test_bot"]
    assert len(server.messages(GROUP)) == 6  # the chat itself shows everything


# -- sendMessage formatting and limits -------------------------------------------------------


async def test_html_mention_becomes_text_mention(server: FakeBotApi, bot: telegram.Bot) -> None:
    html = (
        '<b>Round 1</b>: <a href="tg://user?id=1001">Ann</a> &amp; <a href="tg://user?id=5">X</a>'
    )
    msg = await bot.send_message(ANN, html, parse_mode="HTML")
    assert msg.text == "Round 1: Ann & X"
    bold, mention, link = msg.entities
    assert (bold.type, bold.offset, bold.length) == ("bold", 0, 7)
    assert (mention.type, mention.offset, mention.length) == ("text_mention", 9, 3)
    assert mention.user.id == ANN and mention.user.first_name == "Ann"
    assert (link.type, link.url) == ("text_link", "tg://user?id=5")  # unknown user
    stored = server.last_message(ANN)
    assert (
        stored is not None and stored.text == msg.text and stored.entities[1]["user"]["id"] == ANN
    )


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<b>bold", 'can\'t find end tag corresponding to start tag "b"'),
        ("<blink>x</blink>", 'unsupported start tag "blink" at byte offset 0'),
        ("a < b", 'unsupported start tag "" at byte offset 2'),
        ("<b>x</i>", 'unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("x</b>", "unexpected end tag at byte offset 1"),
        ("Tom & Jerry", 'character "&" at byte offset 4'),
        ('<span class="x">s</span>', 'tag "span" must have class "tg-spoiler"'),
    ],
)
async def test_bad_html_is_rejected_like_telegram(bot: telegram.Bot, html: str, error: str) -> None:
    with pytest.raises(BadRequest) as caught:
        await bot.send_message(ANN, html, parse_mode="HTML")
    assert str(caught.value).lower().startswith(f"can't parse entities: {error}".lower())


def test_html_parser_covers_telegram_tags_with_utf16_offsets() -> None:
    source = (
        "😀 <i>it</i> <u>u</u> <s>s</s> <tg-spoiler>sp</tg-spoiler> "
        '<span class="tg-spoiler">sp2</span> <code>c</code> '
        '<pre><code class="language-python">p</code></pre> <blockquote>q</blockquote> '
        '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji> &lt;&gt;&quot;&#65;&#x42;'
    )
    text, entities = parse_html(source, lambda _: None)
    assert text == '😀 it u s sp sp2 c p q 👍 <>"AB'
    kinds = [(e["type"], e["offset"], e["length"]) for e in entities]
    assert kinds == [
        ("italic", 3, 2),
        ("underline", 6, 1),
        ("strikethrough", 8, 1),
        ("spoiler", 10, 2),
        ("spoiler", 13, 3),
        ("code", 17, 1),
        ("pre", 19, 1),
        ("blockquote", 21, 1),
        ("custom_emoji", 23, 2),
    ]
    assert entities[6]["language"] == "python" and "language" not in entities[5]


async def test_text_length_and_emptiness(bot: telegram.Bot) -> None:
    await bot.send_message(ANN, "x" * 4096)
    await bot.send_message(ANN, "<b>" + "y" * 4096 + "</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(ANN, "x" * 4097)
    for empty in ("", "   \n"):
        with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
            await bot.send_message(ANN, empty)


async def test_callback_data_limit_is_64_bytes(server: FakeBotApi, bot: telegram.Bot) -> None:
    await bot.send_message(ANN, "ok", reply_markup=one_button("é" * 32))  # 64 bytes
    for data in ("a" * 65, "é" * 33):
        with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
            await bot.send_message(ANN, "no", reply_markup=one_button(data))
    url_button = Markup([[Button("Open", url="https://t.me/cuckoo_test_bot?start=g1")]])
    msg = await bot.send_message(ANN, "link", reply_markup=url_button)
    assert msg.reply_markup == url_button
    assert server.last_message(ANN).reply_markup == url_button.to_dict()  # type: ignore[union-attr]
    assert [m.text for m in server.dm(ANN)] == ["ok", "link"]


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
    server.flood(chat_id=ANN, retry_after=3, count=2)
    await bot.send_message(CAT, "other chat is fine")
    for _ in range(2):
        with pytest.raises(RetryAfter, match=r"Retry in 3 seconds"):
            await bot.send_message(ANN, "hi")
    assert server.calls("sendMessage")[-1].parameters == {"retry_after": 3}
    await bot.send_message(ANN, "now fine")


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


# -- waiting helpers, control API, standalone use ---------------------------------------------


async def test_wait_for_message_wakes_on_new_message(server: FakeBotApi, bot: telegram.Bot) -> None:
    waiter = asyncio.create_task(server.wait_for_message(ANN, contains="Round 2", timeout=2))
    await bot.send_message(ANN, "Round 1")
    await bot.send_message(ANN, "Round 2 starts")
    assert (await waiter).text == "Round 2 starts"
    with pytest.raises(TimeoutError, match=r"Round 3"):
        await server.wait_for_message(ANN, contains="Round 3", timeout=0.05)


async def test_http_control_api_drives_a_game_step(server: FakeBotApi, bot: telegram.Bot) -> None:
    async def control(action: str, **args: Any) -> tuple[int, Any]:
        async with http.post(f"{server.control_url}/{action}", json=args) as resp:
            body = await resp.json()
            return resp.status, body.get("result", body.get("error"))

    async with aiohttp.ClientSession() as http:
        assert await control("add_user", user_id=2001, first_name="Dan", started=True) == (
            200,
            {"id": 2001, "is_bot": False, "first_name": "Dan", "language_code": "en"},
        )
        status, msg = await control("user_sends", user_id=2001, chat_id=2001, text="/play")
        assert status == 200 and msg["entities"][0]["type"] == "bot_command"
        sent = await bot.send_message(2001, "Deal?", reply_markup=one_button("deal"))
        status, query_id = await control(
            "press_button",
            user_id=2001,
            chat_id=2001,
            message_id=sent.message_id,
            callback_data="deal",
        )
        await drain(bot)
        await bot.answer_callback_query(query_id, text="Dealt")
        assert (await control("callback_answer", query_id=query_id))[1]["text"] == "Dealt"
        async with http.get(f"{server.control_url}/messages?chat_id=2001") as resp:
            texts = [m["text"] for m in (await resp.json())["result"]]
        assert texts == ["/play", "Deal?"]
        assert (await control("call_count", method="answerCallbackQuery"))[1] == 1
        assert (await control("wait_for_message", chat_id=2001, contains="nope", timeout=0.05))[
            0
        ] == 408
        assert (await control("user_sends", user_id=2001))[0] == 400
        assert (await control("no_such_action"))[0] == 404


async def test_json_body_with_object_markup(server: FakeBotApi) -> None:
    payload = {
        "chat_id": ANN,
        "text": "json",
        "reply_markup": {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]},
    }
    url = f"{server.base_url}{TOKEN}/sendMessage"
    bad = {**payload, "reply_markup": {"inline_keyboard": [[{"text": "A"}]]}}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=payload) as resp:
            body = await resp.json()
        assert body["ok"] and body["result"]["reply_markup"] == payload["reply_markup"]
        async with http.post(url, json=bad) as resp:
            assert resp.status == 400
            assert "can't parse inline keyboard button" in (await resp.json())["description"]


def test_threaded_server_for_sync_callers() -> None:
    with FakeBotApiThread(token=TOKEN) as runner:
        runner.call(runner.server.add_user, ANN, "Ann", started=True)
        request = urllib.request.Request(
            f"{runner.server.base_url}{TOKEN}/sendMessage",
            data=json.dumps({"chat_id": ANN, "text": "sync"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert json.load(resp)["result"]["text"] == "sync"
        assert runner.call(runner.server.dm, ANN)[0].text == "sync"


def test_module_runs_standalone() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "fakebotapi", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("base_url http://127.0.0.1:") and line.rstrip().endswith("/bot")
        with urllib.request.urlopen(f"{line.split()[1]}123:ABC/getMe", timeout=5) as resp:
            assert json.load(resp)["result"]["is_bot"] is True
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_api_error_body_shape() -> None:
    error = ApiError(429, "Too Many Requests: retry after 5", {"retry_after": 5})
    assert error.body() == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 5",
        "parameters": {"retry_after": 5},
    }
