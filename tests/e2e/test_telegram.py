"""Telegram's realities, each against the real bot process: flood control, migration to a
supergroup, removal from the group, forum topics, blocked users, settings and language."""

from __future__ import annotations

import pytest

from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver, play_out

from .conftest import GROUP, BotProcess, settle
from .test_games import ANN, BEN, CAT, NAMES, open_lobby, seat_people, start

pytestmark = pytest.mark.slow

BASIC_GROUP = -5001
SUPERGROUP = -1005001


async def test_flood_control_is_waited_out_and_nothing_is_lost(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    fake.flood(chat_id=GROUP, retry_after=1, count=2)  # the next two group sends/edits: 429
    await start(table, ANN)
    prompt = await table.next_prompt(wait=20)
    assert prompt is not None
    refused = [c for c in fake.calls() if c.status == 429]
    assert len(refused) == 2
    assert "started" in (table.lobby_text() or "")


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
    board = await fake.wait_for_message(SUPERGROUP, contains="League table")
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
    await fake.wait_for_message(GROUP, contains="a new game", after=seen)


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
    refused = await fake.wait_for_message(GROUP, contains="admins")
    assert "Only group admins" in (refused.text or "")
    await table.say(ANN, "/settings")
    panel = await fake.wait_for_message(GROUP, contains="House rules")
    answer = await table.press(ANN, panel, panel.button_data("Lives: 3"))
    assert "Saved" in (answer["text"] or "")
    labels = lambda: [b["text"] for row in panel.buttons() for b in row]  # noqa: E731
    await fake.wait_for(lambda: "Lives: 5" in labels())
    await table.say(ANN, "/language es")
    await fake.wait_for_message(GROUP, contains="Español")
    await table.say(ANN, "/rules")
    rules = await fake.wait_for_message(GROUP, contains="reglas")
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
