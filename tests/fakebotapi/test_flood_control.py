"""Flood control as Telegram publishes it, chats held back, and early retries punished."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from fakebotapi import CONTROL_ACTIONS, FakeBotApi
from tests.fakebotapi.support import (
    ANN,
    CAT,
    GROUP,
    JSON,
    SUPER,
    TOKEN,
    call,
    control,
    populate,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def clock() -> Clock:
    return Clock()


@pytest.fixture
async def limited(clock: Clock) -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(token=TOKEN, rate_limit=True) as server:
        server.world.clock = clock
        populate(server)
        yield server


async def send(server: FakeBotApi, chat_id: int, text: str = "t") -> tuple[int, JSON]:
    return await call(server, "sendMessage", chat_id=chat_id, text=text)


def too_many(retry_after: int) -> JSON:
    return {
        "ok": False,
        "error_code": 429,
        "description": f"Too Many Requests: retry after {retry_after}",
        "parameters": {"retry_after": retry_after},
    }


async def test_a_429_body_is_exactly_telegrams(fake: FakeBotApi) -> None:
    fake.flood(chat_id=ANN, retry_after=3)
    assert await send(fake, ANN) == (429, too_many(3))


async def test_telegram_refuses_the_21st_send_edit_or_delete_in_a_group_within_a_minute(
    limited: FakeBotApi, clock: Clock
) -> None:
    ids = [(await send(limited, GROUP, f"m{i}"))[1]["result"]["message_id"] for i in range(10)]
    for message_id in ids[:5]:
        clock.now += 1
        status, _ = await call(
            limited, "editMessageText", chat_id=GROUP, message_id=message_id, text="edited"
        )
        assert status == 200
    for message_id in ids[5:]:
        assert (await call(limited, "deleteMessage", chat_id=GROUP, message_id=message_id))[
            0
        ] == 200
    clock.now += 10  # 15 s after the first call
    assert await send(limited, GROUP) == (429, too_many(45))
    assert (await send(limited, SUPER))[0] == 200  # another group has its own minute


async def test_telegram_refuses_a_second_message_within_a_second_in_a_private_chat(
    limited: FakeBotApi, clock: Clock
) -> None:
    _, first = await send(limited, ANN)
    assert await send(limited, ANN) == (429, too_many(1))
    assert (await send(limited, CAT))[0] == 200
    clock.now += 0.4
    edit = {"chat_id": ANN, "message_id": first["result"]["message_id"], "text": "edited"}
    assert (await call(limited, "editMessageText", **edit))[0] == 200  # private edits: uncounted
    clock.now += 1
    assert (await send(limited, ANN))[0] == 200


async def test_telegram_refuses_the_31st_message_within_a_second_overall(
    limited: FakeBotApi, clock: Clock
) -> None:
    users = range(2000, 2031)
    for user in users:
        limited.add_user(user, f"U{user}", started=True)
    for user in users[:30]:
        assert (await send(limited, user))[0] == 200
    assert await send(limited, users[30]) == (429, too_many(1))
    clock.now += 1
    assert (await send(limited, users[30]))[0] == 200


async def test_a_held_chat_gets_429_with_the_whole_seconds_left_and_others_go_on(
    fake: FakeBotApi, clock: Clock
) -> None:
    fake.world.clock = clock  # rate_limit is off: the hold works anyway
    _, shown = await send(fake, GROUP)
    fake.flood_chat(GROUP, 10)
    clock.now += 3.5
    assert await send(fake, GROUP) == (429, too_many(7))
    assert (await send(fake, SUPER))[0] == 200 and (await send(fake, ANN))[0] == 200
    clock.now += 7
    assert (await send(fake, GROUP))[0] == 200
    assert fake.flood_violations() == []
    fake.flood_chat(GROUP, 2)
    delete = {"chat_id": GROUP, "message_id": shown["result"]["message_id"]}
    assert await call(fake, "deleteMessage", **delete) == (429, too_many(2))


async def test_a_held_private_chat_refuses_sends_but_not_edits(
    fake: FakeBotApi, clock: Clock
) -> None:
    fake.world.clock = clock
    _, shown = await send(fake, ANN)
    fake.flood_chat(ANN, 5)
    edit = {"chat_id": ANN, "message_id": shown["result"]["message_id"], "text": "edited"}
    assert (await call(fake, "editMessageText", **edit))[0] == 200
    assert await send(fake, ANN) == (429, too_many(5))


async def test_a_call_before_retry_after_has_passed_is_refused_again_and_recorded(
    fake: FakeBotApi, clock: Clock
) -> None:
    fake.world.clock = clock
    fake.flood(chat_id=GROUP, retry_after=5)
    assert await send(fake, GROUP) == (429, too_many(5))
    clock.now += 2
    assert await send(fake, GROUP) == (429, too_many(3))
    clock.now += 2.5
    assert await call(fake, "deleteMessage", chat_id=GROUP, message_id=1) == (429, too_many(1))
    assert (await send(fake, SUPER))[0] == 200  # another chat is not punished
    clock.now += 0.5  # the first retry_after is over; the early calls did not extend it
    assert (await send(fake, GROUP))[0] == 200
    assert fake.flood_violations() == [
        {"chat_id": GROUP, "method": "sendMessage", "early_by": 3.0},
        {"chat_id": GROUP, "method": "deleteMessage", "early_by": 0.5},
    ]


async def test_an_uncounted_call_after_a_429_is_no_violation(
    fake: FakeBotApi, clock: Clock
) -> None:
    fake.world.clock = clock
    _, shown = await send(fake, ANN)
    fake.flood(chat_id=ANN, retry_after=5)
    assert (await send(fake, ANN))[0] == 429
    edit = {"chat_id": ANN, "message_id": shown["result"]["message_id"], "text": "edited"}
    assert (await call(fake, "editMessageText", **edit))[0] == 200  # private edits: uncounted
    assert fake.flood_violations() == []


async def test_answer_callback_query_is_never_flood_controlled(
    limited: FakeBotApi, clock: Clock
) -> None:
    _, shown = await send(limited, ANN)
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    edit = {"chat_id": ANN, "message_id": shown["result"]["message_id"], "reply_markup": markup}
    assert (await call(limited, "editMessageReplyMarkup", **edit))[0] == 200
    limited.flood_chat(ANN, 30)
    assert (await send(limited, ANN))[0] == 429
    limited.flood(retry_after=9)  # the next send or edit to any chat
    for _ in range(40):  # over every per-second limit, in the held chat
        query = limited.press_button(ANN, ANN, shown["result"]["message_id"], "go")
        assert await call(limited, "answerCallbackQuery", callback_query_id=query) == (
            200,
            {"ok": True, "result": True},
        )
    assert limited.flood_violations() == []
    assert await send(limited, CAT) == (429, too_many(9))  # the armed 429 is still there


async def test_flood_controls_over_http(fake: FakeBotApi, clock: Clock) -> None:
    fake.world.clock = clock
    assert {"flood", "flood_chat", "flood_violations"} <= CONTROL_ACTIONS
    status, _ = await control(fake, "flood_chat", chat_id=GROUP, seconds=4)
    assert status == 200
    assert await send(fake, GROUP) == (429, too_many(4))
    assert (await send(fake, GROUP))[0] == 429
    status, body = await control(fake, "flood_violations")
    assert (status, body["result"]) == (
        200,
        [{"chat_id": GROUP, "method": "sendMessage", "early_by": 4.0}],
    )
    assert (await control(fake, "flood_chat", chat_id=GROUP, seconds=0))[0] == 400
