"""Every command and key, in process: the real PTB application with its handlers, over the
in-memory store, against the fake Bot API. A failure here names the handler that broke."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.bootstrap import assemble
from cuckoo_bot.i18n.translator import Translator
from fakebotapi import FakeBotApi, StoredMessage
from fakebotapi.models import CallbackQueryRecord
from tests.hostile import seen
from tests.support.demo import polling
from tests.support.driver import TableDriver
from tests.unit.app.fakes import FakeClock, FakeUnitOfWorkFactory, World

TOKEN = "780:handler-test-token-0123456789abcdef"
GROUP = -100780
ANN, BEN, CAT = 1, 2, 3


@pytest.fixture
async def table() -> AsyncIterator[TableDriver]:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_handlers_bot") as fake:
        deps = Deps(uow=FakeUnitOfWorkFactory(World()), rng=random.Random(2), clock=FakeClock())
        app: Any = assemble(
            TOKEN, fake.base_url, deps, Translator(), group_rate=1000, private_interval=0
        )
        async with polling(app):
            for user, name in ((ANN, "Ann"), (BEN, "Ben"), (CAT, "Cat")):
                fake.add_user(user, name, started=True)
            fake.add_group(GROUP, "Club", type="supergroup", members=[ANN, BEN, CAT], admins=[ANN])
            yield TableDriver(fake, GROUP)


async def said(table: TableDriver, user: int, text: str, chat: int = GROUP) -> StoredMessage:
    """Send ``text`` as ``user``; the bot's next message in that chat."""
    seen = max((m.message_id for m in table.fake.messages(chat)), default=0)
    await table.say(user, text, chat_id=chat)
    return await table.fake.wait_for(
        lambda: next(
            (m for m in table.fake.messages(chat) if m.from_bot and m.message_id > seen), None
        )
    )


async def pressed(table: TableDriver, user: int, message: StoredMessage, label: str) -> str:
    answer = await table.press(user, message, message.button_data(label))
    return str(answer["text"] or "")


@pytest.mark.parametrize(
    ("command", "chat", "words"),
    [
        ("/help", GROUP, "/newgame"),
        ("/help", ANN, "/stats"),
        ("/rules", GROUP, "the rules"),
        ("/rules", ANN, "the rules"),
        ("/leaderboard", GROUP, "League table"),
        ("/history", GROUP, "No game has finished here yet"),
        ("/history x", GROUP, "/history 12"),
        ("/history 9", GROUP, "no finished game 9"),
        ("/stats", ANN, "not finished a game"),
        ("/stats", GROUP, "privately"),
        ("/start", ANN, "Hi Ann"),
        ("/language", ANN, "language"),
        ("/language de", ANN, "English, Spanish and French"),
        ("/leave", GROUP, "not in this game"),
        ("/startgame", GROUP, "no lobby"),
        ("/cancel", GROUP, "no game"),
        ("/join", GROUP, "no lobby"),
        ("/newgame", ANN, "works in a group"),
        ("/skip", GROUP, "not running"),
        ("/kick", GROUP, "not running"),
    ],
)
async def test_every_command_answers(
    table: TableDriver, command: str, chat: int, words: str
) -> None:
    answer = await said(table, ANN, command, chat)
    assert words.lower() in seen(answer.text).lower(), answer.text


async def test_settings_and_language_keys_answer_admins_and_refuse_others(
    table: TableDriver,
) -> None:
    refused = await said(table, BEN, "/settings")
    assert "Only group admins" in (refused.text or "")
    panel = await said(table, ANN, "/settings")
    assert "Saved" in await pressed(table, ANN, panel, "Lives: 3")
    assert "admins" in await pressed(table, BEN, panel, "Lives")
    assert "Español" in await pressed(table, ANN, panel, "Español")
    reply = await said(table, ANN, "/language en")
    assert "English" in (reply.text or "")


async def test_a_group_with_no_language_yet_answers_in_the_askers(table: TableDriver) -> None:
    """Before a lobby or /language gives the group its language, a French admin's /settings
    and a Spanish member's /rules are answered in theirs (what their lobby would set); once a
    lobby did, the group speaks that one to everybody."""
    fake = table.fake
    fake.add_user(4, "Zoé", language_code="fr", started=True)
    fake.add_user(5, "Inés", language_code="es", started=True)
    fake.add_group(-100781, "Club 2", type="supergroup", members=[4, 5], admins=[4])
    panel = await said(table, 4, "/settings", -100781)
    assert "Vies" in (panel.text or "")
    rules = await said(table, 5, "/rules", -100781)
    assert "las reglas" in (rules.text or "")
    await said(table, 4, "/newgame", -100781)  # the group speaks French from now on
    rules = await said(table, 5, "/rules", -100781)
    assert "les règles" in (rules.text or "")


async def test_every_lobby_and_game_key_does_its_job(table: TableDriver) -> None:
    fake = table.fake
    lobby = await said(table, ANN, "/newgame")
    assert "You're in!" in await pressed(table, ANN, lobby, "Join")
    assert "You're in!" in await pressed(table, BEN, lobby, "Join")
    assert "already" in await pressed(table, BEN, lobby, "Join")
    assert "left" in await pressed(table, BEN, lobby, "Leave")
    assert "takes a seat" in await pressed(table, ANN, lobby, "computer")
    assert "creator or a group admin" in await pressed(table, CAT, lobby, "Start")
    assert "need at least 3" in await pressed(table, ANN, lobby, "Start")
    joined = await said(table, CAT, "/join")
    assert "You're in!" in (joined.text or "")
    assert "Game on" in await pressed(table, ANN, lobby, "Start")
    prompt = await table.next_prompt()
    assert prompt is not None and prompt.message.chat_id == prompt.actor
    board = await fake.wait_for(table.table)
    mine = await pressed(table, prompt.actor, board, "My card")
    assert table.card_of(prompt.actor) in mine
    keep = prompt.data("k")
    assert keep is not None
    done = await table.press(prompt.actor, prompt.message, keep)
    assert str(done["text"]).startswith("You kept")
    # The prompt pressed says it at once, its keys gone; a second look shows what was done.
    answered = prompt.message
    await fake.wait_for(lambda: not answered.callback_datas or None)
    assert "✅ You kept" in seen(answered.text)
    assert "reveal" not in (answered.text or "")  # nothing said that will stop being true
    nxt = await table.next_prompt()
    assert nxt is not None and "This round: ✋" in seen(nxt.message.text)
    cancelled = await said(table, ANN, "/cancel")
    assert "Cancelled" in (cancelled.text or "")
    # No live keys are left behind once the courier has delivered.
    await fake.wait_for(lambda: True if table.prompt() is None else None)


async def test_the_cancel_key_then_a_whole_game_with_swaps_and_cuts_then_play_again(
    table: TableDriver,
) -> None:
    fake = table.fake
    lobby = await said(table, ANN, "/newgame")
    assert "creator or a group admin" in await pressed(table, BEN, lobby, "Cancel")
    assert "Cancelled" in await pressed(table, ANN, lobby, "Cancel")
    lobby = await said(table, ANN, "/newgame")
    await pressed(table, ANN, lobby, "Join")
    for _ in range(2):
        await pressed(table, ANN, lobby, "computer")
    assert "Game on" in await pressed(table, ANN, lobby, "Start")
    answers: set[str] = set()
    last: str | None = None
    for _ in range(300):
        prompt = await table.next_prompt(after=last)
        if prompt is None:
            break
        kind = "c" if prompt.data("c") else "s" if prompt.data("s") else "k"
        data = prompt.data(kind) or prompt.data("k")
        assert data is not None
        last = prompt.data("k")
        answer = await table.press(prompt.actor, prompt.message, data)
        answers.add(f"{kind}: {answer['text']}")
    # Ann swapped or was blocked by a King, cut or cut a King: each answered with her card.
    assert any(a.startswith("s: You swapped") or " shows the K" in a for a in answers), answers
    assert any(a.startswith("c: You cut") for a in answers), answers
    end = await fake.wait_for(
        lambda: next(
            (m for m in fake.messages(GROUP) if m.from_bot and "won" in (m.text or "")), None
        )
    )
    assert "you're in" in await pressed(table, BEN, end, "Play again")
    again = await fake.wait_for(table.lobby)
    assert "1. Ben" in seen(again.text) and "🤖" in (again.text or "")


@pytest.mark.parametrize("data", ["1:a:²", "1:a:①", "1:k:1:1:٣", "1:j:" + "9" * 40, "1:m:+1"])
async def test_odd_key_data_is_answered_as_an_old_key_without_an_error(
    table: TableDriver, data: str, caplog: pytest.LogCaptureFixture
) -> None:
    message = await said(table, ANN, "/help")
    query = "4999000000000000001"
    table.fake.world.queries[query] = CallbackQueryRecord(
        query, ANN, GROUP, message.message_id, data, 0.0
    )
    table.fake.world.enqueue(
        "callback_query",
        {
            "id": query,
            "from": table.fake.world.user(ANN).to_api(),
            "message": table.fake.world.message_json(message),
            "chat_instance": "odd",
            "data": data,
        },
    )
    answer = await table.fake.wait_callback_answer(query)
    assert answer["text"] == "This button no longer works."
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("argument", ["²", "①", "٣", "1" * 10, "-1", "+3"])
async def test_history_with_an_odd_number_gets_the_usage_line(
    table: TableDriver, argument: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer = await said(table, ANN, f"/history {argument}")
    assert answer.text == "Use /history for the last games, or /history 12 for game 12."
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_bot_describes_itself_in_each_language_at_start(table: TableDriver) -> None:
    """Someone arriving by a Join link sees what the bot is in the empty chat."""
    texts = table.fake.bot_texts()
    assert "/newgame" in texts["description"] and "/newgame" in texts["short_description"]
    assert "grupo" in texts["description:es"] and "groupe" in texts["description:fr"]
    assert all(len(texts[f"short_description{s}"]) <= 120 for s in ("", ":es", ":fr"))


async def test_stats_in_a_group_offer_a_key_to_the_private_chat(table: TableDriver) -> None:
    answer = await said(table, BEN, "/stats")
    (link,) = [b["url"] for row in answer.buttons() for b in row]
    assert link == "https://t.me/cuckoo_handlers_bot?start=stats"
    shown = await said(table, BEN, "/start stats", chat=BEN)
    assert "not finished a game" in (shown.text or "")
