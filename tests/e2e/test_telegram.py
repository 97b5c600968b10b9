"""Telegram's realities, each against the real bot process: flood control, migration to a
supergroup, removal from the group, forum topics, blocked users, settings and language."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

import pytest
from sqlalchemy.engine import URL

from cuckoo_bot.transport.flood import POSTS
from fakebotapi import FakeBotApi
from fakebotapi.models import CallRecord
from tests.support.driver import GROUP_PATIENCE, TableDriver, play_out

from .conftest import (
    GROUP,
    BotProcess,
    audit_finished_games,
    live_move_keys,
    reading,
    settle,
)
from .test_games import ANN, BEN, CAT, NAMES, open_lobby, seat_people, start

pytestmark = pytest.mark.slow

BASIC_GROUP = -5001
SUPERGROUP = -1005001


def posts_to(fake: FakeBotApi, chat_id: int) -> list[CallRecord]:
    """The calls that put something in the chat or changed it: what its flood control counts (a
    read, such as an admin check's getChatMember, is no message)."""
    return [
        c
        for c in fake.calls()
        if str(c.params.get("chat_id")) == str(chat_id) and c.method.startswith(POSTS)
    ]


async def test_flood_control_is_waited_out_in_its_own_chat_and_nothing_is_lost(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    # Telegram holds the group back for as long as it says: 5 to 40 s in practice.
    retry_after = random.Random(26).randint(5, 40)
    fake.flood(chat_id=GROUP, retry_after=retry_after, count=1)
    lobby = table.lobby()
    assert lobby is not None
    answer = await table.press(ANN, lobby, lobby.button_data("Start"))
    assert answer["text"] == "Game on!"  # the tap is answered at once
    # The game goes on in the private chats while the group waits...
    prompt = await table.next_prompt(wait=10)
    assert prompt is not None
    held = [
        c for c in fake.calls() if c.status == 429 and c.parameters == {"retry_after": retry_after}
    ]
    assert len(held) == 1 and "started" not in (table.lobby_text() or "")
    # ...and the group is shown the game once Telegram takes calls again, not a moment before.
    await fake.wait_for_message(GROUP, contains="Round 1", after=lobby.message_id, timeout=60)
    assert "started" in (table.lobby_text() or "")
    assert fake.flood_violations() == []
    first = held[0]
    early = [c for c in posts_to(fake, GROUP) if first.time < c.time < first.time + retry_after]
    assert early == [], [(c.method, c.status, c.time - first.time) for c in early]


async def test_a_hold_outlives_the_process_that_was_told_it(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver, database_url: URL
) -> None:
    """Telegram held the group back for 30 s; the bot is killed at once: its next life reads
    the hold from the store and does not call the group before it ends either."""
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    fake.flood_chat(GROUP, 30)
    lobby = table.lobby()
    assert lobby is not None
    answer = await table.press(ANN, lobby, lobby.button_data("Start"))
    assert answer["text"] == "Game on!"
    assert await table.next_prompt(wait=10) is not None  # the game goes on privately
    refused = next(c for c in fake.calls() if c.status == 429)
    for _ in range(50):  # the hold reaches the store a moment after the 429
        async with reading(database_url) as uow:
            if GROUP in await uow.chats.held(datetime.now(UTC)):
                break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the hold never reached the store")
    bot.kill()
    await bot.start()
    await fake.wait_for_message(GROUP, contains="Round 1", after=lobby.message_id, timeout=60)
    assert fake.flood_violations() == []  # neither life called the group early
    assert all(c.time >= refused.time + 29 for c in posts_to(fake, GROUP) if c.time > refused.time)


async def test_a_prompt_whose_answer_was_lost_is_never_left_twice_with_its_keys(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver, database_url: URL
) -> None:
    """Telegram took the message, the connection dropped before its answer: the bot cannot
    know, sends it again, and the copy it never learnt of must not keep live keys."""
    players = (ANN, BEN, CAT)
    seat_people(fake)
    await open_lobby(fake, table, players)
    await start(table, ANN)
    first = await table.next_prompt()
    assert first is not None
    waiting = [p for p in players if p != first.actor]  # dealt already: next comes a prompt
    await settle(fake)  # each lane has shown its deal (they run apart: one may be later)
    before = {p: len(fake.dm(p)) for p in waiting}
    for player in waiting:
        fake.drop_answers("sendMessage", chat_id=player, count=1)
    await table.press(first.actor, first.message, first.data("k") or "")
    # The next player's prompt is shown, its answer lost; a moment later the bot shows it again.
    asked = await fake.wait_for(
        lambda: next((p for p in waiting if len(fake.dm(p)) == before[p] + 2), None), 15
    )
    await settle(fake)
    live = [k[:2] for k in live_move_keys(fake, players)]
    newest = max(m.message_id for m in fake.dm(asked))
    assert live == [(asked, newest)], fake.transcript(asked)  # the copy alone has keys
    await play_out(table, list(players), table_size=3)
    assert sum(1 for c in fake.calls("sendMessage") if c.status == 0) == len(waiting)
    assert table.game_over()
    assert not live_move_keys(fake, (GROUP, *players))
    assert len(await audit_finished_games(database_url, [GROUP])) == 1


async def test_a_group_upgraded_to_a_supergroup_mid_game_keeps_its_game_and_league(
    fake: FakeBotApi, bot: BotProcess
) -> None:
    for user, name in NAMES.items():
        fake.add_user(user, name, language_code="en", started=True)
    fake.add_group(
        BASIC_GROUP, "Old table", type="group", members=list(NAMES), admins=[ANN], creator=ANN
    )
    old, new = TableDriver(fake, BASIC_GROUP), TableDriver(fake, SUPERGROUP)
    await open_lobby(fake, old, (ANN, BEN, CAT))
    await start(old, ANN)
    prompt = await old.next_prompt()
    assert prompt is not None
    fake.migrate_group(BASIC_GROUP, SUPERGROUP)
    # The round's table is posted again in the supergroup; the turn asked privately stands.
    await fake.wait_for(new.table, 15)
    assert "Round 1" in (new.table().text or "")  # type: ignore[union-attr]
    same = new.prompt()
    assert same is not None and same.data("k") == prompt.data("k") and same.actor == prompt.actor
    await play_out(new, [ANN, BEN, CAT], table_size=3)
    assert new.game_over()
    await new.say(ANN, "/leaderboard")
    board = await fake.wait_for_message(SUPERGROUP, contains="League table", timeout=GROUP_PATIENCE)
    assert all(NAMES[u] in (board.text or "") for u in (ANN, BEN, CAT))


async def test_removing_the_bot_cancels_the_game_cleanly(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await start(table, ANN)
    await table.next_prompt()
    fake.kick_bot(GROUP, by_user=ANN)
    await settle(fake)
    refused = [c for c in fake.calls() if c.status == 403]
    assert not refused  # nothing was posted to a group the bot is no longer in
    fake.add_bot_to_group(GROUP, by_user=ANN)
    seen = max(m.message_id for m in fake.messages(GROUP))
    await table.say(ANN, "/newgame")
    # A new lobby, not "there is already a game": the old game no longer holds the chat.
    await fake.wait_for_message(GROUP, contains="a new game", after=seen, timeout=GROUP_PATIENCE)


async def test_a_game_opened_in_a_forum_topic_stays_in_that_topic(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake, is_forum=True)
    topic = fake.create_topic(GROUP, "Cards", by_user=ANN)
    for user in (ANN, BEN, CAT):
        await table.say(user, "/start", chat_id=user)
    fake.user_sends(ANN, GROUP, "/newgame", message_thread_id=topic)
    lobby = await fake.wait_for(table.lobby)
    assert lobby.message_thread_id == topic
    for user in (ANN, BEN, CAT):
        await table.press(user, lobby, lobby.button_data("Join"))
    await start(table, ANN)
    prompt = await table.next_prompt()
    assert prompt is not None and prompt.message.chat_id == prompt.actor  # asked privately
    board = table.table()
    assert board is not None and board.message_thread_id == topic


async def test_a_player_who_blocks_the_bot_mid_game_plays_on_in_the_group(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await start(table, ANN)
    first = await table.next_prompt()
    assert first is not None and first.message.chat_id == first.actor
    fake.block_bot(CAT)
    await play_out(table, [ANN, BEN, CAT], table_size=3)
    assert table.game_over()
    assert any(c.status == 403 for c in fake.calls())  # Cat's private chat refused
    # Cat's turns were asked in the group, with a mention and the keys; none is left live.
    asked = [
        m
        for m in fake.messages(GROUP)
        if m.from_bot and any(e.get("type") == "text_mention" for e in m.entities)
    ]
    assert asked and all(m.deleted or not m.callback_datas for m in asked)


async def test_admins_change_house_rules_and_language_with_inline_keys(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await table.say(BEN, "/settings")
    refused = await fake.wait_for_message(GROUP, contains="admins", timeout=GROUP_PATIENCE)
    assert "Only group admins" in (refused.text or "")
    await table.say(ANN, "/settings")
    panel = await fake.wait_for_message(GROUP, contains="House rules", timeout=GROUP_PATIENCE)
    answer = await table.press(ANN, panel, panel.button_data("Lives: 3"))
    assert "Saved" in (answer["text"] or "")
    labels = lambda: [b["text"] for row in panel.buttons() for b in row]  # noqa: E731
    await fake.wait_for(lambda: "Lives: 5" in labels())
    await table.say(ANN, "/language es")
    await fake.wait_for_message(GROUP, contains="Español", timeout=GROUP_PATIENCE)
    await table.say(ANN, "/rules")
    rules = await fake.wait_for_message(GROUP, contains="reglas", timeout=GROUP_PATIENCE)
    assert "5 vidas" in (rules.text or "")


async def test_the_token_never_reaches_the_log_even_at_debug(
    fake: FakeBotApi, make_bot: object, table: TableDriver
) -> None:
    from .conftest import TOKEN

    bot = make_bot(CUCKOO_LOG_LEVEL="DEBUG")  # type: ignore[operator]
    await bot.start()
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await start(table, ANN)
    await table.next_prompt()
    await settle(fake)
    await bot.stop()
    log = bot.log()
    assert "DEBUG" in log and len(log) > 10_000  # python-telegram-bot talked a lot
    assert TOKEN not in log and TOKEN.split(":", 1)[1] not in log
