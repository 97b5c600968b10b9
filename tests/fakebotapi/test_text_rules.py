"""Message text as Telegram takes it: lengths, emptiness, <tg-time>, mentions, links, effects."""

from __future__ import annotations

from typing import Any

import pytest

from fakebotapi import FakeBotApi
from fakebotapi.effects import KNOWN_EFFECTS
from tests.fakebotapi.support import ANN, GROUP, SUPER, call, refused

ASTRAL = "😀"  # outside the BMP: two UTF-16 code units, one character


async def text_of(fake: FakeBotApi, text: str, **params: Any) -> dict[str, Any]:
    status, body = await call(fake, "sendMessage", chat_id=ANN, text=text, **params)
    assert status == 200, body
    result: dict[str, Any] = body["result"]
    return result


# -- lengths, counted in characters -------------------------------------------------------------


@pytest.mark.parametrize("char", ["x", ASTRAL])
async def test_telegram_refuses_a_text_over_4096_characters_once_parsed(
    fake: FakeBotApi, char: str
) -> None:
    assert (await text_of(fake, char * 4096))["text"] == char * 4096
    await text_of(fake, f"<b>{char * 4096}</b>", parse_mode="HTML")
    assert await refused(fake, "sendMessage", chat_id=ANN, text=char * 4097) == (
        "Bad Request: message is too long"
    )


@pytest.mark.parametrize("char", ["x", ASTRAL])
async def test_telegram_refuses_a_caption_over_1024_characters(fake: FakeBotApi, char: str) -> None:
    photo = {"chat_id": ANN, "photo": "AgAD-file-id"}
    assert (await call(fake, "sendPhoto", **photo, caption=char * 1024))[0] == 200
    assert (await call(fake, "sendPhoto", **photo, caption=""))[0] == 200  # 0 is fine
    assert await refused(fake, "sendPhoto", **photo, caption=char * 1025) == (
        "Bad Request: message caption is too long"
    )


async def test_telegram_refuses_a_source_text_over_32768_bytes(fake: FakeBotApi) -> None:
    assert await refused(fake, "sendMessage", chat_id=ANN, text="<b></b>" * 4682) == (
        "Bad Request: text is too long"
    )


async def test_telegram_refuses_an_empty_text_and_one_empty_once_parsed(fake: FakeBotApi) -> None:
    assert await refused(fake, "sendMessage", chat_id=ANN, text="") == (
        "Bad Request: message text is empty"
    )
    for text, mode in (("   \n", None), ("<b> </b>", "HTML")):
        params = {"parse_mode": mode} if mode else {}
        assert await refused(fake, "sendMessage", chat_id=ANN, text=text, **params) == (
            "Bad Request: text must be non-empty"
        )


@pytest.mark.parametrize(("char", "units"), [("x", 1), (ASTRAL, 2)])
async def test_telegram_refuses_a_popup_over_200_utf16_units(
    fake: FakeBotApi, char: str, units: int
) -> None:
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    shown = await text_of(fake, "Pick", reply_markup=markup)
    query = fake.press_button(ANN, ANN, shown["message_id"], "go")
    over = char * (200 // units + 1)
    assert await refused(fake, "answerCallbackQuery", callback_query_id=query, text=over) == (
        "Bad Request: MESSAGE_TOO_LONG"
    )
    within = char * (200 // units)
    assert (await call(fake, "answerCallbackQuery", callback_query_id=query, text=within))[0] == 200


# -- <tg-time> -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "form",
    ["", "r", "w", "d", "D", "t", "T", "wd", "wD", "wt", "wT", "dt", "dT", "DT", "wDT", "wdt"],
)
async def test_tg_time_takes_the_documented_formats(fake: FakeBotApi, form: str) -> None:
    html = f'<tg-time unix="1647531900" format="{form}">22:45 tomorrow</tg-time>'
    (entity,) = (await text_of(fake, html, parse_mode="HTML"))["entities"]
    assert entity == {
        "type": "date_time",
        "offset": 0,
        "length": 14,
        "unix_time": 1647531900,
        "date_time_format": form,
    }


@pytest.mark.parametrize("form", ["R", "W", "tw", "Dd", "TT", "rw", "dw", "x", "wDTr"])
async def test_telegram_refuses_a_tg_time_format_outside_the_grammar(
    fake: FakeBotApi, form: str
) -> None:
    html = f'<tg-time unix="1647531900" format="{form}">then</tg-time>'
    assert await refused(fake, "sendMessage", chat_id=ANN, text=html, parse_mode="HTML") == (
        "Bad Request: can't parse entities: Invalid date format used"
    )


@pytest.mark.parametrize("unix", ['unix="soon"', "", 'unix="0"'])
async def test_a_tg_time_without_a_unix_time_is_plain_text(fake: FakeBotApi, unix: str) -> None:
    sent = await text_of(fake, f'<tg-time {unix} format="t">then</tg-time>', parse_mode="HTML")
    assert (sent["text"], sent.get("entities")) == ("then", None)


# -- links and mentions ---------------------------------------------------------------------------


async def test_a_mention_of_a_user_telegram_cannot_show_is_plain_text(fake: FakeBotApi) -> None:
    html = '<a href="tg://user?id=1001">Ann</a> and <a href="tg://user?id=5">X</a>'
    sent = await text_of(fake, html, parse_mode="HTML")
    (mention,) = sent["entities"]
    assert sent["text"] == "Ann and X"
    assert (mention["type"], mention["offset"], mention["user"]["id"]) == ("text_mention", 0, ANN)


@pytest.mark.parametrize(
    ("href", "url"),
    [
        ("https://example.org", "https://example.org/"),
        ("example.org/a?b=1", "http://example.org/a?b=1"),
        ("tg://resolve?domain=cuckoo", "tg://resolve?domain=cuckoo"),
        ("localhost", None),
        ("javascript:alert(1)", None),
    ],
)
async def test_links_are_kept_as_telegram_writes_them_or_dropped(
    fake: FakeBotApi, href: str, url: str | None
) -> None:
    sent = await text_of(fake, f'<a href="{href}">here</a>', parse_mode="HTML")
    assert [e["url"] for e in sent.get("entities", [])] == ([url] if url else [])


async def test_telegram_refuses_a_custom_emoji_without_a_numeric_id(fake: FakeBotApi) -> None:
    html = '<tg-emoji emoji-id="thumbs">👍</tg-emoji>'
    assert await refused(fake, "sendMessage", chat_id=ANN, text=html, parse_mode="HTML") == (
        "Bad Request: can't parse entities: Invalid custom emoji identifier specified"
    )


async def test_a_parse_mode_wins_over_entities(fake: FakeBotApi) -> None:
    entities = [{"type": "italic", "offset": 0, "length": 2}]
    sent = await text_of(fake, "<b>hi</b>", parse_mode="HTML", entities=entities)
    assert sent["entities"] == [{"type": "bold", "offset": 0, "length": 2}]


# -- message effects ---------------------------------------------------------------------------


@pytest.mark.parametrize("effect", sorted(KNOWN_EFFECTS))
async def test_the_six_reaction_effects_are_accepted_in_a_private_chat(
    fake: FakeBotApi, effect: str
) -> None:
    assert (await text_of(fake, "yay", message_effect_id=effect))["effect_id"] == effect


async def test_telegram_refuses_an_unknown_effect_id(fake: FakeBotApi) -> None:
    assert await refused(
        fake, "sendMessage", chat_id=ANN, text="yay", message_effect_id="5046509860389126443"
    ) == ("Bad Request: EFFECT_ID_INVALID")
    assert "effect_id" not in await text_of(fake, "yay", message_effect_id="party")  # reads as 0


@pytest.mark.parametrize("chat", [GROUP, SUPER])
async def test_telegram_refuses_a_message_effect_outside_private_chats(
    fake: FakeBotApi, chat: int
) -> None:
    assert await refused(
        fake, "sendMessage", chat_id=chat, text="yay", message_effect_id="5046509860389126442"
    ) == ("Bad Request: can't use message effects in the chat")
