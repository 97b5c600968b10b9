"""Rules the fake enforced before RULES.md was written, each refused with Telegram's words."""

from __future__ import annotations

import pytest

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import ANN, BOB, GROUP, SUPER, call, refused

# -- sending and editing ----------------------------------------------------------------------


async def test_telegram_refuses_a_reply_to_a_message_it_cannot_find(fake: FakeBotApi) -> None:
    assert await refused(fake, "sendMessage", chat_id=ANN, text="t", reply_to_message_id=99) == (
        "Bad Request: message to be replied not found"
    )
    missing_ok = {"message_id": 99, "allow_sending_without_reply": True}
    assert (await call(fake, "sendMessage", chat_id=ANN, text="t", reply_parameters=missing_ok))[
        0
    ] == 200


async def test_telegram_refuses_to_edit_what_the_bot_cannot_edit(fake: FakeBotApi) -> None:
    theirs = fake.user_sends(ANN, ANN, "mine").message_id
    assert await refused(fake, "editMessageText", chat_id=ANN, message_id=theirs, text="x") == (
        "Bad Request: message can't be edited"
    )
    assert await refused(fake, "editMessageText", chat_id=ANN, text="x") == (
        "Bad Request: message identifier is not specified"
    )
    _, photo = await call(fake, "sendPhoto", chat_id=ANN, photo="AgAD", caption="c")
    _, text = await call(fake, "sendMessage", chat_id=ANN, text="t")
    photo_id, text_id = photo["result"]["message_id"], text["result"]["message_id"]
    assert await refused(fake, "editMessageText", chat_id=ANN, message_id=photo_id, text="x") == (
        "Bad Request: there is no text in the message to edit"
    )
    assert await refused(
        fake, "editMessageCaption", chat_id=ANN, message_id=text_id, caption="x"
    ) == ("Bad Request: there is no caption in the message to edit")
    assert await refused(fake, "editMessageText", inline_message_id="AAA", text="x") == (
        "Bad Request: MESSAGE_ID_INVALID"
    )


async def test_telegram_refuses_a_media_send_without_the_media(fake: FakeBotApi) -> None:
    assert await refused(fake, "sendPhoto", chat_id=ANN, caption="c") == (
        "Bad Request: there is no photo in the request"
    )
    assert (
        await refused(fake, "sendDice", chat_id=ANN, emoji="🃏") == "Bad Request: emoji is invalid"
    )


@pytest.mark.parametrize("mode", ["Markdown", "MarkdownV2"])
async def test_the_fake_refuses_markdown_which_it_does_not_parse(
    fake: FakeBotApi, mode: str
) -> None:
    assert await refused(fake, "sendMessage", chat_id=ANN, text="*b*", parse_mode=mode) == (
        f"Bad Request: can't parse entities: parse_mode {mode} is not supported by the fake Bot API"
    )


async def test_telegram_refuses_an_unknown_parse_mode(fake: FakeBotApi) -> None:
    assert await refused(fake, "sendMessage", chat_id=ANN, text="t", parse_mode="BBCode") == (
        "Bad Request: unsupported parse_mode"
    )


@pytest.mark.parametrize(
    ("entity", "error"),
    [
        ("bold", "expected an Object"),
        ({"type": "bold", "length": 1}, 'Can\'t find field "offset"'),
        ({"type": "bold", "offset": "x", "length": 1}, 'Field "offset" must be a valid Number'),
        ({"type": "bold", "offset": [], "length": 1}, 'Field "offset" must be a Number'),
        ({"offset": 0, "length": 1}, 'Can\'t find field "type"'),
        ({"type": "", "offset": 0, "length": 1}, "Type is not specified"),
        ({"type": "text_link", "offset": 0, "length": 1}, 'Can\'t find field "url"'),
        ({"type": "text_mention", "offset": 0, "length": 1}, 'Can\'t find field "user"'),
        ({"type": "custom_emoji", "offset": 0, "length": 1}, 'Can\'t find field "custom_emoji_id"'),
    ],
)
async def test_telegram_refuses_a_malformed_message_entity(
    fake: FakeBotApi, entity: object, error: str
) -> None:
    assert await refused(fake, "sendMessage", chat_id=ANN, text="hello", entities=[entity]) == (
        f"Bad Request: can't parse MessageEntity: {error}"
    )


async def test_entities_telegram_does_not_take_from_a_bot_are_skipped(fake: FakeBotApi) -> None:
    entities = [
        {"type": "hashtag", "offset": 0, "length": 2},
        {"type": "bold", "offset": 0, "length": 2},
    ]
    status, body = await call(fake, "sendMessage", chat_id=ANN, text="hi", entities=entities)
    assert (status, body["result"]["entities"]) == (
        200,
        [{"type": "bold", "offset": 0, "length": 2}],
    )
    status, body = await call(fake, "sendMessage", chat_id=ANN, text="hi", entities={"a": 1})
    assert (status, "entities" in body["result"]) == (200, False)  # not an Array: ignored


async def test_telegram_refuses_a_callback_answer_url_other_than_t_me(fake: FakeBotApi) -> None:
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    _, shown = await call(fake, "sendMessage", chat_id=ANN, text="t", reply_markup=markup)
    query = fake.press_button(ANN, ANN, shown["result"]["message_id"], "go")
    assert await refused(
        fake, "answerCallbackQuery", callback_query_id=query, url="https://example.org"
    ) == ("Bad Request: URL_INVALID")
    url = "https://t.me/cuckoo_test_bot?start=x"
    assert (await call(fake, "answerCallbackQuery", callback_query_id=query, url=url))[0] == 200


# -- chats ---------------------------------------------------------------------------------------


async def test_telegram_refuses_chat_queries_that_make_no_sense(fake: FakeBotApi) -> None:
    assert await refused(fake, "getChatMember", chat_id=GROUP, user_id=4242) == (
        "Bad Request: user not found"
    )
    assert await refused(fake, "getChatMember", chat_id=ANN, user_id=BOB) == (
        "Bad Request: user not found"
    )
    assert await refused(fake, "getChatAdministrators", chat_id=ANN) == (
        "Bad Request: there are no administrators in the private chat"
    )
    assert await refused(fake, "leaveChat", chat_id=ANN) == (
        "Bad Request: chat member status can't be changed in private chats"
    )
    assert await refused(fake, "sendChatAction", chat_id=ANN, action="dancing") == (
        "Bad Request: wrong parameter action in request"
    )


async def test_telegram_refuses_a_topic_outside_a_forum_or_without_a_name(
    fake: FakeBotApi,
) -> None:
    assert await refused(fake, "createForumTopic", chat_id=SUPER, name="Games") == (
        "Bad Request: the chat is not a forum"
    )
    fake.add_group(-1009, "Forum", type="supergroup", members=[ANN], is_forum=True)
    assert await refused(fake, "createForumTopic", chat_id=-1009, name="  ") == (
        "Bad Request: name must be non-empty"
    )
    status, body = await call(fake, "createForumTopic", chat_id=-1009, name="n" * 200)
    assert (status, body["result"]["name"]) == (200, "n" * 128)  # cut, as tdlib does


# -- commands and the bot's texts --------------------------------------------------------------


@pytest.mark.parametrize(
    ("commands", "error"),
    [
        ({"command": "play"}, "expected an Array of BotCommand"),
        ([{"command": "Bad-Cmd", "description": "x"}], "BOT_COMMAND_INVALID"),
        ([{"command": "/", "description": "x"}], "command must be non-empty"),
        ([{"command": "c" * 33, "description": "x"}], "command length must not exceed 32"),
        ([{"command": "play", "description": " "}], "command description must be non-empty"),
        (
            [{"command": "play", "description": "d" * 257}],
            "command description length must not exceed 256",
        ),
        ([{"command": f"c{i}", "description": "d"} for i in range(101)], "BOT_COMMANDS_TOO_MUCH"),
    ],
)
async def test_telegram_refuses_bad_bot_commands(
    fake: FakeBotApi, commands: object, error: str
) -> None:
    assert await refused(fake, "setMyCommands", commands=commands) == f"Bad Request: {error}"


async def test_a_command_is_trimmed_and_its_slash_dropped(fake: FakeBotApi) -> None:
    ok = [{"command": " /play ", "description": " Start a game "}]
    assert (await call(fake, "setMyCommands", commands=ok))[0] == 200
    assert fake.commands() == [{"command": "play", "description": "Start a game"}]


@pytest.mark.parametrize(
    ("params", "error"),
    [
        (
            {"scope": {"type": "everyone"}},
            "can't parse BotCommandScope: Unsupported type specified",
        ),
        ({"scope": "[1"}, "can't parse BotCommandScope JSON object"),
        ({"scope": [1]}, "can't parse BotCommandScope: BotCommandScope must be an Object"),
        ({"scope": {}}, "can't parse BotCommandScope: Can't find field \"type\""),
        ({"language_code": "eng"}, "invalid language code specified"),
    ],
)
async def test_telegram_refuses_a_bad_command_scope_or_language(
    fake: FakeBotApi, params: dict[str, object], error: str
) -> None:
    assert await refused(fake, "getMyCommands", **params) == f"Bad Request: {error}"


@pytest.mark.parametrize(
    ("method", "field", "limit"),
    [
        ("setMyDescription", "description", 512),
        ("setMyShortDescription", "short_description", 120),
        ("setMyName", "name", 64),
    ],
)
async def test_the_fake_refuses_bot_texts_over_their_documented_length(
    fake: FakeBotApi, method: str, field: str, limit: int
) -> None:
    assert (await call(fake, method, **{field: "x" * limit}))[0] == 200
    assert await refused(fake, method, **{field: "x" * (limit + 1)}) == (
        f"Bad Request: {field} is too long"
    )
