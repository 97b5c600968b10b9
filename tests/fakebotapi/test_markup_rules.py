"""Inline keyboards as Telegram takes them: web_app buttons, URLs, the kind of each button."""

from __future__ import annotations

from typing import Any

import pytest

from fakebotapi import FakeBotApi
from tests.fakebotapi.support import ANN, GROUP, SUPER, TOKEN, call, populate, refused

JSON = dict[str, Any]


def keyboard(*buttons: JSON) -> JSON:
    return {"inline_keyboard": [list(buttons)]}


def web_app(url: Any) -> JSON:
    return {"text": "Open", "web_app": {"url": url}}


async def send(server: FakeBotApi, chat_id: int, markup: Any) -> tuple[int, JSON]:
    return await call(server, "sendMessage", chat_id=chat_id, text="t", reply_markup=markup)


async def send_refused(server: FakeBotApi, chat_id: int, markup: Any) -> str:
    return await refused(server, "sendMessage", chat_id=chat_id, text="t", reply_markup=markup)


# -- web_app buttons ---------------------------------------------------------------------------


async def test_web_app_button_accepted_with_an_https_url_in_a_private_chat(
    fake: FakeBotApi,
) -> None:
    status, body = await send(fake, ANN, keyboard(web_app("https://cards.example.org/app?g=1")))
    assert status == 200
    assert body["result"]["reply_markup"] == keyboard(web_app("https://cards.example.org/app?g=1"))


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://cards.example.org/app", "Only HTTPS links are allowed"),
        ("cards.example.org/app", "Only HTTPS links are allowed"),  # no scheme reads as http
        ("tg://resolve?domain=cuckoo", "Only HTTPS links are allowed"),
        ("https://localhost/app", "Wrong HTTP URL"),  # a host without a dot
        ("ftp://cards.example.org/app", "Unsupported URL protocol"),
        ("https://cards.example.org:99999/app", "Wrong port number specified in the URL"),
    ],
)
async def test_telegram_refuses_a_web_app_url_that_is_not_https_with_a_dotted_host(
    fake: FakeBotApi, url: str, reason: str
) -> None:
    assert await send_refused(fake, ANN, keyboard(web_app(url))) == (
        f"Bad Request: inline keyboard button Web App URL '{url}' is invalid: {reason}"
    )


async def test_telegram_refuses_a_web_app_button_linking_to_a_user(fake: FakeBotApi) -> None:
    assert await send_refused(fake, ANN, keyboard(web_app("tg://user?id=1001"))) == (
        "Bad Request: link to a user can't be used in Web App URL buttons"
    )


@pytest.mark.parametrize("chat", [GROUP, SUPER])
async def test_telegram_refuses_web_app_buttons_outside_private_chats(
    fake: FakeBotApi, chat: int
) -> None:
    markup = keyboard(web_app("https://cards.example.org/app"))
    assert await send_refused(fake, chat, markup) == "Bad Request: BUTTON_TYPE_INVALID"
    status, sent = await send(fake, chat, keyboard({"text": "Go", "callback_data": "go"}))
    assert status == 200
    assert await refused(
        fake,
        "editMessageReplyMarkup",
        chat_id=chat,
        message_id=sent["result"]["message_id"],
        reply_markup=markup,
    ) == ("Bad Request: BUTTON_TYPE_INVALID")


@pytest.mark.parametrize(
    ("button", "error"),
    [
        (
            {"text": "Open", "web_app": "https://cards.example.org"},
            'Field "web_app" must be of type Object',
        ),
        ({"text": "Open", "web_app": {}}, 'Can\'t find field "url"'),
        (web_app(True), 'Field "url" must be of type String'),
        (web_app({"href": "x"}), 'Field "url" must be of type String'),
    ],
)
async def test_telegram_refuses_a_web_app_info_that_is_not_an_object_with_a_string_url(
    fake: FakeBotApi, button: JSON, error: str
) -> None:
    assert await send_refused(fake, ANN, keyboard(button)) == (
        f"Bad Request: can't parse inline keyboard button: {error}"
    )


async def test_insecure_web_app_origins_let_only_those_http_pages_through() -> None:
    async with FakeBotApi(token=TOKEN, insecure_web_app_origins=("http://127.0.0.1:8080/",)) as srv:
        populate(srv)
        status, _ = await send(srv, ANN, keyboard(web_app("http://127.0.0.1:8080/app?game=7")))
        assert status == 200
        other = "http://127.0.0.1:9090/app"
        assert (await send_refused(srv, ANN, keyboard(web_app(other)))).endswith(
            "is invalid: Only HTTPS links are allowed"
        )
        allowed = keyboard(web_app("http://127.0.0.1:8080/app"))
        assert await send_refused(srv, GROUP, allowed) == "Bad Request: BUTTON_TYPE_INVALID"
    assert srv.world.insecure_web_app_origins == frozenset({"http://127.0.0.1:8080"})


# -- other buttons -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://localhost/x", "Wrong HTTP URL"),
        ("ftp://example.org/x", "Unsupported URL protocol"),
        ("https:///x", "URL host is empty"),
        ("https://exa mple.org/x", "Disallowed character in URL host"),
    ],
)
async def test_telegram_refuses_a_url_button_it_cannot_open(
    fake: FakeBotApi, url: str, reason: str
) -> None:
    assert await send_refused(fake, ANN, keyboard({"text": "Go", "url": url})) == (
        f"Bad Request: inline keyboard button URL '{url}' is invalid: {reason}"
    )


@pytest.mark.parametrize(
    "url",
    ["https://t.me/cuckoo_test_bot?start=g1", "t.me/cuckoo", "tg://user?id=1002", "http://a.b"],
)
async def test_url_buttons_telegram_accepts(fake: FakeBotApi, url: str) -> None:
    assert (await send(fake, GROUP, keyboard({"text": "Go", "url": url})))[0] == 200


async def test_a_button_is_of_the_first_kind_it_names_in_telegrams_order(fake: FakeBotApi) -> None:
    both = {"text": "Go", "callback_data": "x" * 65, "url": "https://t.me/cuckoo"}
    assert (await send(fake, ANN, keyboard(both)))[0] == 200  # the url wins; data not checked
    empty_data = {"text": "Go", "callback_data": ""}  # an empty field is no field
    assert await send_refused(fake, ANN, keyboard(empty_data)) == (
        "Bad Request: can't parse inline keyboard button: "
        "Text buttons are unallowed in the inline keyboard"
    )


@pytest.mark.parametrize(
    ("markup", "error"),
    [
        (
            keyboard({"callback_data": "a"}),
            "can't parse inline keyboard button: Can't find field \"text\"",
        ),
        (
            keyboard({"text": ["A"], "callback_data": "a"}),
            'can\'t parse inline keyboard button: Field "text" must be of type String',
        ),
        (
            keyboard({"text": "", "callback_data": "a"}),
            "inline keyboard button text must be non-empty",
        ),
        (
            keyboard("A"),
            "can't parse inline keyboard button: InlineKeyboardButton must be an Object",
        ),
        (
            {"inline_keyboard": [{"text": "A"}]},
            'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays',
        ),
        ({"inline_keyboard": "A"}, 'field "inline_keyboard" must be of type Array'),
        ([], "object expected as reply markup"),
    ],
)
async def test_telegram_refuses_a_malformed_inline_keyboard(
    fake: FakeBotApi, markup: Any, error: str
) -> None:
    assert await send_refused(fake, ANN, markup) == f"Bad Request: {error}"


async def test_telegram_refuses_more_than_100_buttons(fake: FakeBotApi) -> None:
    row = [{"text": str(i), "callback_data": str(i)} for i in range(101)]
    markup = {"inline_keyboard": [row]}
    assert await send_refused(fake, ANN, markup) == "Bad Request: reply markup is too long"
    markup["inline_keyboard"] = [row[:100]]
    assert (await send(fake, ANN, markup))[0] == 200


async def test_an_edit_takes_only_an_inline_keyboard(fake: FakeBotApi) -> None:
    _, sent = await send(fake, ANN, keyboard({"text": "Go", "callback_data": "go"}))
    message_id = sent["result"]["message_id"]
    for markup in ({"keyboard": [["A"]]}, {"remove_keyboard": True}):
        assert await refused(
            fake, "editMessageReplyMarkup", chat_id=ANN, message_id=message_id, reply_markup=markup
        ) == ("Bad Request: inline keyboard expected")
