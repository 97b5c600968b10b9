"""The fake Bot API, exercised over real HTTP with a real python-telegram-bot `Bot`:
identity, routing, updates, formatting."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest
import telegram
from telegram import InlineKeyboardButton as Button
from telegram import InlineKeyboardMarkup as Markup
from telegram.error import BadRequest, Conflict, InvalidToken

from fakebotapi import FakeBotApi
from fakebotapi.html import parse_html
from tests.fakebotapi.support import (
    ANN,
    BOB,
    CAT,
    GROUP,
    TOKEN,
    drain,
    make_bot,
    one_button,
)

# PTB warns whenever RetryAfter.retry_after is read, including inside its own __init__.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


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
    bold, mention = msg.entities  # a user Telegram cannot show is mentioned as plain text
    assert (bold.type, bold.offset, bold.length) == ("bold", 0, 7)
    assert (mention.type, mention.offset, mention.length) == ("text_mention", 9, 3)
    assert mention.user.id == ANN and mention.user.first_name == "Ann"
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
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(ANN, "")
    with pytest.raises(BadRequest, match=r"(?i)text must be non-empty"):
        await bot.send_message(ANN, "   \n")


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
