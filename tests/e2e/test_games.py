"""Whole games against the real bot process, as several Telegram users."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from sqlalchemy.engine import URL

from fakebotapi import FakeBotApi, StoredMessage
from tests.hostile import seen as seen_text
from tests.support.driver import GROUP_PATIENCE, Prompt, TableDriver, play_out, rank_of

from .conftest import (
    BOT_USERNAME,
    GROUP,
    BotProcess,
    audit_finished_games,
    held_in_store,
    live_key_rows,
    points_in_store,
    reveals_in_store,
    settle,
)

pytestmark = pytest.mark.slow

ANN, BEN, CAT, DON = 101, 102, 103, 104
NAMES = {ANN: "Ann", BEN: "Ben", CAT: "Cat", DON: "Don"}


def seat_people(
    fake: FakeBotApi, started: tuple[int, ...] = (ANN, BEN, CAT), **group: object
) -> None:
    for user, name in NAMES.items():
        fake.add_user(user, name, language_code="en", started=user in started)
    fake.add_group(
        GROUP,
        "Cuckoo club",
        type="supergroup",
        members=list(NAMES),
        admins=[ANN],
        creator=ANN,
        **group,
    )


async def open_lobby(fake: FakeBotApi, table: TableDriver, players: tuple[int, ...]) -> None:
    for user in players:
        await table.say(user, "/start", chat_id=user)
    await table.say(players[0], "/newgame")
    lobby = await fake.wait_for(table.lobby, GROUP_PATIENCE)
    for user in players:
        answer = await table.press(user, lobby, lobby.button_data("Join"))
        assert "in" in (answer["text"] or ""), answer


async def start(table: TableDriver, by: int) -> None:
    lobby = table.lobby()
    assert lobby is not None
    answer = await table.press(by, lobby, lobby.button_data("Start"))
    assert answer["text"] == "Game on!", answer
    await table.fake.wait_for_message(
        table.group_id, contains="Round 1", after=lobby.message_id, timeout=GROUP_PATIENCE
    )


async def first_turn(fake: FakeBotApi, table: TableDriver) -> Prompt:
    """Ann, Ben and Cat (who all started the bot) sit down; the first turn's prompt."""
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await start(table, ANN)
    prompt = await table.next_prompt()
    assert prompt is not None
    return prompt


CARD = re.compile(r"(?:10|[2-9AJQKRDV])[♣♦♥♠]")
# A seat's row at the reveal: name, lives (💀 once out), what it did, its card, 💔 for a loss.
ROW = re.compile(
    r"^(?P<name>.+?) (?P<lives>(?:❤️)+|💀) · .* · (?P<card>(10|[2-9AJQKRDV])[♣♦♥♠])(?P<lost> 💔)?$"
)


def check_reveals(fake: FakeBotApi) -> list[dict[str, str]]:
    """Every finished round in the group: the lowest rank loses a life (💔, or 💀 when it was
    the last one), nobody else."""
    rounds = []
    for msg in fake.messages(GROUP):
        text = msg.text or ""
        if "Cards on the table" not in text:
            continue
        for table in text.split("🃏 Round ")[1:]:
            if "Cards on the table" not in table:
                continue
            cards, lost = {}, set()
            for line in table.splitlines():
                match = ROW.match(line.strip())
                if match:
                    cards[match["name"]] = match["card"]
                    if match["lost"] or match["lives"] == "💀":
                        lost.add(match["name"])
            assert cards, text
            low_rank = min(rank_of(c) for c in cards.values())
            assert lost == {n for n, c in cards.items() if rank_of(c) == low_rank}, text
            rounds.append(cards)
        assert not msg.callback_datas  # a revealed round has no keys left
    return rounds


async def test_a_full_game_from_lobby_to_winner_with_a_user_who_never_started_the_bot(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    # Don never pressed Start in the bot's chat: Join answers with the bot's deep link.
    lobby = table.lobby()
    assert lobby is not None
    answer = await table.press(DON, lobby, lobby.button_data("Join"))
    assert answer["url"] and answer["url"].startswith(f"https://t.me/{BOT_USERNAME}?start=join_")
    payload = answer["url"].split("start=")[1]
    await table.say(DON, f"/start {payload}", chat_id=DON)
    await fake.wait_for(
        lambda: "4/10" in (table.lobby().text or "") if table.lobby() else None, GROUP_PATIENCE
    )

    await start(table, ANN)
    # Everyone gets a private card at the deal; the group never shows an unrevealed card.
    for user in (ANN, BEN, CAT, DON):
        await fake.wait_for(lambda u=user: table.card_of(u))
    first = await table.next_prompt()
    assert first is not None and first.message.text
    assert not re.search(
        r"(10|[2-9AJQKRDV])[♣♦♥♠]", first.message.text.split("\n", 2)[2].replace("K", "")
    )

    await play_out(table, [ANN, BEN, CAT, DON], table_size=4)
    await settle(fake)
    over = [m for m in fake.messages(GROUP) if "won" in (m.text or "")]
    assert len(over) == 1, fake.transcript(GROUP)
    assert check_reveals(fake)


@pytest.mark.telegram_loose(
    "reads the group's table right after each move; under the group's budget a move shows up to"
    " 3 s later, coalesced with the next ones (what tests/e2e/test_flood.py checks)"
)
async def test_the_turn_is_asked_privately_with_one_card_and_a_double_tap_acts_once(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    prompt = await first_turn(fake, table)
    # The decision comes in the player's own chat, addressed to them, with the card they hold.
    assert prompt.message.chat_id == prompt.actor
    text = prompt.message.text or ""
    assert len(CARD.findall(text)) == 1 and table.card_of(prompt.actor) is not None
    held = table.card_of(prompt.actor)
    keep = prompt.data("k")
    assert keep is not None
    # A double tap: both taps reach Telegram before the prompt loses its keys.
    answers = await asyncio.gather(
        table.press(prompt.actor, prompt.message, keep),
        table.press(prompt.actor, prompt.message, keep),
    )
    assert sorted(a["text"] for a in answers) == [
        "You already played this turn: you kept your card.",
        f"You kept {held}.",
    ]
    await settle(fake)
    assert not prompt.message.callback_datas  # answered in place
    assert f"✅ You kept {held}." in (prompt.message.text or "")
    group = "\n".join(m.text or "" for m in fake.messages(GROUP, include_deleted=False))
    assert seen_text(group).count(f"{NAMES[prompt.actor]} ❤️❤️❤️ · ✋ kept") == 1
    # The group's table has no move keys: only My card.
    tables = [m for m in fake.messages(GROUP) if m.from_bot and "Round 1" in (m.text or "")]
    assert len(tables) == 1
    assert all(d.split(":")[1] == "m" for d in tables[0].callback_datas)


async def test_a_lapsed_turn_keeps_for_the_player_and_the_group_is_told(
    fake: FakeBotApi, make_bot: object, table: TableDriver
) -> None:
    bot = make_bot(CUCKOO_TURN_TIMEOUT="2")  # type: ignore[operator]
    await bot.start()
    prompt = await first_turn(fake, table)
    await fake.wait_for(
        lambda: any("time ran out" in (m.text or "") for m in fake.messages(GROUP)), 20
    )
    moved = await table.next_prompt(after=prompt.data("k"))
    assert moved is not None and moved.actor != prompt.actor  # the turn passed on


async def test_a_slow_player_is_nudged_and_the_reveal_has_its_moment_before_the_next_deal(
    fake: FakeBotApi, make_bot: object, table: TableDriver
) -> None:
    bot = make_bot(  # type: ignore[operator]
        CUCKOO_TURN_TIMEOUT="8", CUCKOO_TURN_WARNING="4", CUCKOO_REVEAL_PAUSE="2"
    )
    await bot.start()
    prompt = await first_turn(fake, table)
    # The prompt's first line calls to act with the turn's seconds; its question says until
    # when, as a time each reader's app shows in their own zone.
    text = prompt.message.text or ""
    assert text.startswith("👉 Your turn") and text.splitlines()[0].endswith("· 8 s")
    assert "(until " in text
    assert any(e["type"] == "date_time" for e in prompt.message.entities)

    def nudged() -> StoredMessage | None:
        return next(
            (m for m in fake.dm(prompt.actor) if m.from_bot and "left" in (m.text or "")), None
        )

    # Four seconds before the clock runs out, one reminder, a reply to the prompt that rings.
    nudge = await fake.wait_for(nudged, 10)
    assert nudge.reply_to_message_id == prompt.message.message_id and not nudge.silent
    assert "Only 4 s left for your turn" in (nudge.text or "")
    # Nobody else is nudged: the others play at once.
    last = prompt.data("k")
    revealed_at = None
    while revealed_at is None:
        after = await table.next_prompt(after=last)
        assert after is not None
        last = after.data("k")
        assert last is not None
        await table.press(after.actor, after.message, last)
        if after.data("c") is not None:  # the dealer played: the reveal comes
            await fake.wait_for_message(
                GROUP, contains="Cards on the table", timeout=GROUP_PATIENCE
            )
            revealed_at = time.monotonic()
    await fake.wait_for_message(GROUP, contains="Round 2", timeout=GROUP_PATIENCE)
    # The next deal waited for the pause (at least; a busy machine only makes it longer).
    assert time.monotonic() - revealed_at >= 1.0
    reminders = [m for u in NAMES for m in fake.dm(u) if "left for your turn" in (m.text or "")]
    assert reminders == [nudge]


async def test_a_player_who_blocked_the_bot_still_sees_their_card_in_a_private_popup(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    await first_turn(fake, table)
    fake.block_bot(BEN)
    board = table.table()
    assert board is not None
    mine = await table.press(BEN, board, board.button_data("My card"))
    assert mine["show_alert"] is True
    card = table.card_of(BEN)
    assert card is not None and card in mine["text"]
    outsider = await table.press(DON, board, board.button_data("My card"))
    assert not re.search(r"(10|[2-9AJQKRDV])[♣♦♥♠]", outsider["text"] or "")


async def test_names_are_escaped_and_commands_work_with_the_bot_name(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    fake.add_user(201, "<b>&", "O'Neil", language_code="en", started=True)
    seat_people(fake)
    fake.join_group(201, GROUP)
    await table.say(201, "/start", chat_id=201)
    await table.say(201, f"/newgame@{BOT_USERNAME}")
    lobby = await fake.wait_for(table.lobby, GROUP_PATIENCE)
    answer = await table.press(201, lobby, lobby.button_data("Join"))
    assert answer["text"], answer
    await fake.wait_for(
        lambda: "<b>& O'Neil" in (table.lobby().text or "") if table.lobby() else None
    )
    # A group command in a private chat gets an explanation, not silence.
    await table.say(ANN, "/startgame", chat_id=ANN)
    reply = await fake.wait_for_message(ANN, contains="group")
    assert "works in a group" in (reply.text or "")


async def test_leaderboard_after_a_game(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await start(table, ANN)
    await play_out(table, [ANN, BEN, CAT], table_size=3)
    await table.say(BEN, "/leaderboard")
    board = await fake.wait_for_message(GROUP, contains="League table", timeout=GROUP_PATIENCE)
    text = board.text or ""
    for name in ("Ann", "Ben", "Cat"):
        assert name in text
    # A first game: this month's table is the all-time one, shown once.
    assert "This month" in text and "and all time" in text and text.count("Player") == 1


async def test_every_kind_of_action_and_outcome_shows_in_the_group(
    fake: FakeBotApi, make_bot: object, table: TableDriver, database_url: URL
) -> None:
    """Seeded games until the group has seen each kind: keep, swap, a King's block, a cut, a
    cut King, a tie for lowest, an elimination and a winner; every reveal checks out."""
    bot = make_bot(CUCKOO_SEED="7")  # type: ignore[operator]
    await bot.start()
    seat_people(fake, started=(ANN, BEN, CAT, DON))
    for user in (ANN, BEN, CAT, DON):
        await table.say(user, "/start", chat_id=user)
    wanted = {
        "keep": "✋",
        "swap": "🔄 swapped with",
        "block": ": no swap",
        "cut": "✂️ cut from the deck",
        "cut king": ": set aside",
        "out": " out",
        "won": "won the game",
    }
    seen: set[str] = set()
    ties = 0
    for _ in range(8):
        seen_before = max((m.message_id for m in fake.messages(GROUP)), default=0)
        await table.say(ANN, "/newgame")
        # After a game's end the group's budget (20 calls a minute) may hold the lobby back.
        lobby = await fake.wait_for_message(
            GROUP, contains="a new game", after=seen_before, timeout=GROUP_PATIENCE
        )
        for user in (ANN, BEN, CAT, DON):
            await table.press(user, lobby, lobby.button_data("Join"))
        await start(table, ANN)

        async def shows_the_card_held(prompt: Prompt) -> None:
            # At every prompt the player's private chat already shows the card they hold.
            held = await held_in_store(database_url, GROUP, prompt.actor)
            assert table.card_of(prompt.actor) == held, fake.transcript(prompt.actor)
            # (A first line may recall the card held at the last reveal; a swap made with the
            # player names the card it took before the one they hold.)
            now = [line for line in (prompt.message.text or "").splitlines() if line[:2] != "↩️"]
            shown = [m.group(0) for m in CARD.finditer("\n".join(now))]
            took = "swapped with you: you gave" in "\n".join(now)
            assert shown[-1:] == [held] and len(shown) == 1 + took, prompt.message.text

        await play_out(table, [ANN, BEN, CAT, DON], table_size=4, check=shows_the_card_held)
        await settle(fake)
        text = "\n".join(m.text or "" for m in fake.messages(GROUP))
        seen |= {kind for kind, words in wanted.items() if words in text}
        ties = sum(
            1
            for cards in check_reveals(fake)
            if list(map(rank_of, cards.values())).count(min(map(rank_of, cards.values()))) > 1
        )
        if seen == set(wanted) and ties:
            break
    assert seen == set(wanted), set(wanted) - seen
    assert ties > 0


async def test_a_join_link_only_works_for_members_of_the_group(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake, started=(ANN,))
    fake.add_user(301, "Stranger", language_code="en", started=False)
    await table.say(ANN, "/start", chat_id=ANN)
    await table.say(ANN, "/newgame")
    lobby = await fake.wait_for(table.lobby, GROUP_PATIENCE)
    answer = await table.press(BEN, lobby, lobby.button_data("Join"))
    payload = answer["url"].split("start=")[1]
    await table.say(301, f"/start {payload}", chat_id=301)
    refused = await fake.wait_for_message(301, contains="not in")
    assert "group you are not in" in (refused.text or "")
    await table.say(BEN, f"/start {payload}", chat_id=BEN)
    await fake.wait_for(lambda: "Ben" in (table.lobby_text() or ""), GROUP_PATIENCE)
    assert "Stranger" not in (table.lobby_text() or "")


@pytest.mark.telegram_loose(
    "plays three games and a dozen commands in one group within a minute: under the group's"
    " budget the answers wait minutes, which tests/e2e/test_long_answers.py checks"
)
async def test_game_night_summary_play_again_and_history(
    fake: FakeBotApi, make_bot: object, table: TableDriver, database_url: URL
) -> None:
    bot = make_bot(CUCKOO_SEED="11")  # type: ignore[operator]
    await bot.start()
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await start(table, ANN)
    await play_out(table, [ANN, BEN, CAT], table_size=3)
    await settle(fake)
    (end,) = [m for m in fake.messages(GROUP) if m.from_bot and "won" in (m.text or "")]
    text = end.text or ""
    # The summary's rating changes are the stored standings' changes (a first game: from 0).
    points = await points_in_store(database_url, GROUP, [ANN, BEN, CAT])
    # The podium: each person in the order they finished, with the points the game won or
    # cost them and their place in the group's table this month.
    for user in (ANN, BEN, CAT):
        won = points[user]
        shown = re.escape(f"+{won} point" if won >= 0 else f"−{-won} point")
        line = rf"^\S+ {NAMES[user]} · (out in round \d+ · )?{shown}s? · #\d this month$"
        assert re.search(line, seen_text(text), re.M), text
    assert "📋" in text and "How it ended" in text

    # Play again: the tapper is seated, the others are invited; no second lobby is opened.
    again = await table.press(BEN, end, end.button_data("Play again"))
    assert "you're in" in (again["text"] or "")
    lobby = await fake.wait_for(table.lobby, GROUP_PATIENCE)
    assert "1. Ben" in seen_text(lobby.text) and "Ann" in (lobby.text or "")
    assert "2. " not in (lobby.text or "")  # Ann and Cat are invited, not seated
    second = await table.press(CAT, end, end.button_data("Play again"))
    assert second["text"] == "You're in! Your cards will come in our private chat."
    await fake.wait_for(
        lambda: "2. Cat" in seen_text((table.lobby() or lobby).text), GROUP_PATIENCE
    )
    await table.say(ANN, "/newgame")
    await fake.wait_for_message(GROUP, contains="already a game", timeout=GROUP_PATIENCE)

    # /history lists the game; /history N tells it round by round as the log has it.
    game_id = int(end.button_data("Play again").split(":")[2])
    await table.say(ANN, "/history")
    listed = await fake.wait_for_message(
        GROUP, contains="The last games here", timeout=GROUP_PATIENCE
    )
    assert f"#{game_id}" in (listed.text or "")
    seen = max(m.message_id for m in fake.messages(GROUP))
    await table.say(ANN, f"/history {game_id}")
    await fake.wait_for_message(
        GROUP, contains="round by round", after=seen, timeout=GROUP_PATIENCE
    )
    await settle(fake)
    # A short game's story is one message, its rounds folded under the title.
    (told_in_group,) = [m for m in fake.messages(GROUP) if m.from_bot and m.message_id > seen]
    assert [e["type"] for e in told_in_group.entities].count("expandable_blockquote") == 1
    story = seen_text(told_in_group.text)
    reveals = await reveals_in_store(database_url, game_id)
    told = [line for line in story.splitlines() if line.startswith("👀 ")]
    assert len(told) == len(reveals)
    for line, cards in zip(told, reveals, strict=True):
        assert all(f"{NAMES[p]} {c}" in line for p, c in cards.items()), (line, cards)


@pytest.mark.telegram_loose(
    "times the Play again key's expiry to the second against the group's last call; under the"
    " group's budget that call may wait its turn"
)
async def test_the_play_again_key_comes_off_when_it_expires(
    fake: FakeBotApi, make_bot: object, table: TableDriver, database_url: URL
) -> None:
    """With lobbies open for 5 s, the game starts by itself 5 s after /newgame, and 5 s after
    its end the summary's Play again key comes off; the store keeps no row claiming keys."""
    bot = make_bot(CUCKOO_SEED="5", CUCKOO_LOBBY_TIMEOUT="5")  # type: ignore[operator]
    await bot.start()
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await fake.wait_for_message(GROUP, contains="Round 1", timeout=GROUP_PATIENCE)
    await play_out(table, [ANN, BEN, CAT], table_size=3)
    end = await fake.wait_for_message(GROUP, contains="won", timeout=GROUP_PATIENCE)
    assert end.button_data("Play again")
    # Each person got the end privately, a new message with the key (a winner's with 🎉).
    finals = {}
    for user in (ANN, BEN, CAT):
        finals[user] = await fake.wait_for_message(user, contains="the end", timeout=30)
        assert finals[user].button_data("Play again")
    assert sum(1 for m in finals.values() if m.effect_id) >= 1
    await fake.wait_for(lambda: not end.callback_datas, timeout=GROUP_PATIENCE)
    assert "won" in (end.text or "")  # the summary stays as it was, only its key is gone
    await fake.wait_for(
        lambda: not any(m.callback_datas for m in finals.values()), timeout=GROUP_PATIENCE
    )
    (game,) = await audit_finished_games(database_url, [GROUP])
    assert await live_key_rows(database_url, [game.id], within=10) == []
    assert game.deadline is None


async def test_a_quiet_player_is_skipped_then_kicked_and_a_leaving_is_told_once(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake, started=(ANN, BEN, CAT, DON))
    await open_lobby(fake, table, (ANN, BEN, CAT, DON))
    await start(table, ANN)
    prompt = await table.next_prompt()
    assert prompt is not None
    # Only the game's creator (Ann, also the admin) may: Don may not.
    await table.say(DON, "/skip")
    await fake.wait_for_message(GROUP, contains="creator or a group admin")
    quiet = prompt.actor
    await table.say(ANN, "/skip")
    await fake.wait_for_message(GROUP, contains="turn is skipped", timeout=GROUP_PATIENCE)
    # the skipped player reads on their prompt who skipped it, its keys gone
    await fake.wait_for(lambda: "skipped your turn" in (prompt.message.text or "") or None)
    assert not prompt.message.callback_datas
    nxt = await table.next_prompt(after=prompt.data("k"))
    assert nxt is not None and nxt.actor != quiet
    while nxt.actor == ANN:  # /kick takes the player whose turn it is, never the one asking
        await table.press(ANN, nxt.message, nxt.data("k") or "")
        nxt = await table.next_prompt(after=nxt.data("k"))
        assert nxt is not None
    kicked = nxt.actor
    before = max(m.message_id for m in fake.messages(GROUP))
    await table.say(ANN, "/kick")
    await fake.wait_for_message(GROUP, contains="taken out of the game", timeout=GROUP_PATIENCE)
    await fake.wait_for_message(kicked, contains="took you out of the game")
    await fake.wait_idle(quiet=0.5)
    said = [m.text or "" for m in fake.messages(GROUP) if m.from_bot and m.message_id > before]
    assert not any("is out of the game" in text for text in said), said  # told once
    # Leaving: the group's line tells it; no "You left the game." to everyone.
    leaver = next(p for p in (BEN, CAT, DON) if p != kicked)
    before = max(m.message_id for m in fake.messages(GROUP))
    await table.say(leaver, "/leave")
    await fake.wait_for_message(GROUP, contains="left the game", timeout=GROUP_PATIENCE)
    await fake.wait_idle(quiet=0.5)
    said = [m.text or "" for m in fake.messages(GROUP) if m.from_bot and m.message_id > before]
    assert not any("You left" in text for text in said), said
    # One message tells the leaving and the round dealt again (it was two, two rings).
    (left,) = [text for text in said if "left the game" in text]
    assert all("dealt again" not in text for text in said if text != left), said
