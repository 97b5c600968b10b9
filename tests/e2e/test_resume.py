"""A restart never loses a game: SIGKILL the bot at random points, restart it, finish, audit."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable

import pytest
from sqlalchemy import select
from sqlalchemy.engine import URL

from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.domain.actions import Deal
from cuckoo_bot.domain.cards import FULL_DECK, Card
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.events import LifeLost, Revealed, RoundDealt
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.models import RoundRow
from cuckoo_bot.persistence.uow import sql_uow_factory
from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver, choose

from .conftest import GROUP, BotProcess, keys_report, live_move_keys, stall_report
from .test_games import ANN, BEN, CAT, DON, open_lobby, seat_people, start

pytestmark = pytest.mark.slow


async def test_killed_at_random_points_the_game_resumes_and_matches_its_log(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver, database_url: URL
) -> None:
    rng = random.Random(20261129)
    bot = make_bot()
    await bot.start()
    seat_people(fake, started=(ANN, BEN, CAT, DON))
    await open_lobby(fake, table, (ANN, BEN, CAT, DON))
    await start(table, ANN)

    kills = 0
    last: str | None = None
    for _ in range(500):
        try:
            prompt = await table.next_prompt(after=last)
        except TimeoutError:
            raise AssertionError(
                stall_report("the game stalled", fake, bot, (GROUP, ANN, BEN, CAT, DON))
            ) from None
        if prompt is None:
            break
        kind = choose(table.card_of(prompt.actor), prompt.data("c") is not None, 4)
        data = prompt.data(kind) or prompt.data("k")
        assert data is not None
        if kills < 8 and rng.random() < 0.35:
            # Tap and crash at once: before, during or after the bot handles the tap.
            fake.press_button(prompt.actor, prompt.message.chat_id, prompt.message.message_id, data)
            await asyncio.sleep(rng.choice([0.0, 0.01, 0.05, 0.2]))
            bot.kill()
            kills += 1
            await bot.start()
            # A tap fetched but not handled before the crash is gone: the player taps again.
            try:
                await table.next_prompt(after=prompt.data("k"), wait=3)
            except TimeoutError:
                continue  # same prompt still live: the loop taps again
        else:
            await table.press(prompt.actor, prompt.message, data)
        last = prompt.data("k")
    assert kills >= 3
    await fake.wait_for(table.game_over, 20)

    engine = make_engine(database_url)
    try:
        async with sql_uow_factory(engine)() as uow:
            game = await uow.games.open_in_chat(GROUP)
            assert game is None  # finished
            games = await uow.games.finished_in_chat(GROUP)
            assert len(games) == 1
            game = games[0]
            log = await uow.games.log(game.id)
        async with engine.connect() as connection:
            rounds = (
                await connection.execute(
                    select(RoundRow).where(RoundRow.game_id == game.id).order_by(RoundRow.number)
                )
            ).all()
    finally:
        await engine.dispose()

    assert game.status is GameStatus.FINISHED and game.state is not None
    # The log replays to the stored state: same lives, same winner.
    first = next(e for entry in log for e in entry.events if isinstance(e, RoundDealt))
    state = new_game(game.seats, game.rules, first_dealer=first.dealer)
    losses: Counter[int] = Counter()
    revealed: list[int] = []
    for entry in log:
        if entry.action is None:
            continue
        state, events = apply(state, entry.action)
        assert events == entry.events
        losses.update(e.player for e in events if isinstance(e, LifeLost))
        revealed += [e.round for e in events if isinstance(e, Revealed)]
        if isinstance(entry.action, Deal):
            deck = entry.action.deck
            assert len(deck) == 52 and set(deck) == set(FULL_DECK)  # the 52 cards, each once
    assert state == game.state and state.winners == game.state.winners
    # No round skipped or played twice, no life lost twice.
    assert [row.number for row in rounds] == list(range(1, len(rounds) + 1))
    assert revealed == sorted(set(revealed))
    for row in rounds:
        assert len(row.deck) == 52 and {Card.from_code(c) for c in row.deck} == set(FULL_DECK)
    for seat in game.state.seats:
        assert losses[seat.player] == game.rules.lives - seat.lives
    # Everyone saw the end in the group.
    assert sum("won" in (m.text or "") for m in fake.messages(GROUP)) >= 1
    # And no message anywhere still offers a move of the finished game: at once, or once the
    # next sweeps (every 2 s) have tidied a chat left in doubt by a crash.
    chats = (GROUP, ANN, BEN, CAT, DON)
    try:
        await fake.wait_for(lambda: not live_move_keys(fake, chats), 15)
    except TimeoutError:
        raise AssertionError(keys_report(fake, bot, live_move_keys(fake, chats))) from None
