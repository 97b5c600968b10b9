"""Lost answers, and messages too old to delete."""

from __future__ import annotations

import httpx
import pytest
import telegram
from telegram.error import NetworkError

from fakebotapi import CONTROL_ACTIONS, FakeBotApi
from tests.fakebotapi.support import ANN, BOB, CAT, GROUP, SUPER, call, refused

HOUR = 3600

# -- lost answers ------------------------------------------------------------------------------


async def test_a_lost_answer_is_carried_out_but_the_client_sees_a_network_error(
    fake: FakeBotApi,
) -> None:
    fake.drop_answers("sendmessage", chat_id=CAT)  # any case, like method names
    url = f"{fake.base_url}{fake.token}/sendMessage"
    async with httpx.AsyncClient() as http:
        answered = await http.post(url, json={"chat_id": ANN, "text": "another chat"})
        assert answered.status_code == 200
        refused_call = await http.post(url, json={"chat_id": BOB, "text": "not started"})
        assert refused_call.status_code == 403  # answered: a failed call is no lost answer
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await http.post(url, json={"chat_id": CAT, "text": "lost"})
        again = await http.post(url, json={"chat_id": CAT, "text": "answered"})
        assert again.status_code == 200
    assert [m.text for m in fake.dm(CAT)] == ["lost", "answered"]  # the lost one was sent
    assert [c.status for c in fake.calls("sendMessage")] == [200, 403, 0, 200]  # 0: no answer
    assert fake.calls("sendMessage")[2].result["text"] == "lost"


async def test_python_telegram_bot_sees_a_lost_answer_as_a_network_error(
    fake: FakeBotApi, client: telegram.Bot
) -> None:
    fake.drop_answers("deleteMessage", count=2)
    shown = [await client.send_message(ANN, f"m{i}") for i in range(3)]
    for msg in shown[:2]:
        with pytest.raises(NetworkError):
            await client.delete_message(ANN, msg.message_id)
    assert await client.delete_message(ANN, shown[2].message_id)
    assert all(m.deleted for m in fake.dm(ANN))


async def test_drop_answers_refuses_an_unknown_method_or_count(fake: FakeBotApi) -> None:
    assert {"drop_answers", "age_message"} <= CONTROL_ACTIONS
    with pytest.raises(ValueError, match="no Bot API method"):
        fake.drop_answers("sendTelegram")
    with pytest.raises(ValueError, match="count"):
        fake.drop_answers("sendMessage", count=0)


# -- the 48-hour window of deleteMessage ------------------------------------------------------


async def sent(fake: FakeBotApi, chat_id: int, age_hours: float = 0) -> int:
    status, body = await call(fake, "sendMessage", chat_id=chat_id, text="t")
    assert status == 200
    message_id: int = body["result"]["message_id"]
    if age_hours:
        fake.age_message(chat_id, message_id, age_hours * HOUR)
    return message_id


@pytest.mark.parametrize(
    ("chat", "error"),
    [
        (ANN, "message can't be deleted for everyone"),
        (GROUP, "message can't be deleted for everyone"),
        (SUPER, "message can't be deleted"),
    ],
)
async def test_telegram_refuses_to_delete_a_message_sent_48_hours_ago_or_more(
    fake: FakeBotApi, chat: int, error: str
) -> None:
    old = await sent(fake, chat, age_hours=49)
    assert await refused(fake, "deleteMessage", chat_id=chat, message_id=old) == (
        f"Bad Request: {error}"
    )
    recent = await sent(fake, chat, age_hours=47)
    assert await call(fake, "deleteMessage", chat_id=chat, message_id=recent) == (
        200,
        {"ok": True, "result": True},
    )
    assert [m.deleted for m in fake.messages(chat) if m.from_bot] == [False, True]


@pytest.mark.parametrize(
    ("chat", "error"),
    [(GROUP, "message can't be deleted for everyone"), (SUPER, "message can't be deleted")],
)
async def test_telegram_refuses_to_delete_another_users_message_unless_the_bot_is_admin(
    fake: FakeBotApi, chat: int, error: str
) -> None:
    theirs = fake.user_sends(ANN, chat, "/join").message_id
    assert await refused(fake, "deleteMessage", chat_id=chat, message_id=theirs) == (
        f"Bad Request: {error}"
    )
    fake.world.chats[chat].bot_status = "administrator"
    assert (await call(fake, "deleteMessage", chat_id=chat, message_id=theirs))[0] == 200


async def test_a_user_message_in_a_private_chat_can_be_deleted(fake: FakeBotApi) -> None:
    theirs = fake.user_sends(ANN, ANN, "hello").message_id
    assert (await call(fake, "deleteMessage", chat_id=ANN, message_id=theirs))[0] == 200


async def test_telegram_refuses_delete_message_without_a_message(fake: FakeBotApi) -> None:
    assert await refused(fake, "deleteMessage", chat_id=ANN, message_id=999) == (
        "Bad Request: message to delete not found"
    )
    assert await refused(fake, "deleteMessage", chat_id=ANN) == (
        "Bad Request: message identifier is not specified"
    )


async def test_delete_messages_skips_missing_ones_but_refuses_all_if_one_is_too_old(
    fake: FakeBotApi,
) -> None:
    first, old, last = await sent(fake, GROUP), await sent(fake, GROUP, 49), await sent(fake, GROUP)
    assert await refused(fake, "deleteMessages", chat_id=GROUP, message_ids=[first, old, last]) == (
        "Bad Request: message can't be deleted for everyone"
    )
    assert not any(m.deleted for m in fake.messages(GROUP))
    status, _ = await call(fake, "deleteMessages", chat_id=GROUP, message_ids=[first, 999, last])
    assert status == 200
    assert [m.message_id for m in fake.messages(GROUP) if m.deleted] == [first, last]


@pytest.mark.parametrize(
    ("ids", "error"),
    [
        ([], "message identifiers are not specified"),
        (list(range(1, 102)), "too many message identifiers specified"),
        ([True], "message identifier must be a Number"),
        (["x"], "can't parse message identifier as a Number"),
        ({"id": 1}, "expected an Array of message identifiers"),
    ],
)
async def test_telegram_refuses_delete_messages_without_1_to_100_ids(
    fake: FakeBotApi, ids: object, error: str
) -> None:
    assert await refused(fake, "deleteMessages", chat_id=ANN, message_ids=ids) == (
        f"Bad Request: {error}"
    )


async def test_age_message_needs_a_message(fake: FakeBotApi) -> None:
    with pytest.raises(ValueError, match="no message 5"):
        fake.age_message(ANN, 5, HOUR)
