"""Restarts nobody notices: the real bot process, polling, with players tapping as soon as they
are prompted, killed (SIGKILL) or stopped (SIGTERM) at random moments and started again.

- Every game goes on at once after a restart: nothing waits for the lease of the process that
  died (a new life of the same instance takes its claims back; a stopping one hands them back).
- No tap is lost: polling confirms an update to Telegram only once it has been handled, so a
  tap fetched by a process killed before it was handled is fetched again by the next one. The
  players here tap each prompt exactly once and never again: a lost tap stalls the game.
- No move is applied twice: every game's log replays to its stored state.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

import pytest
from sqlalchemy.engine import URL

from cuckoo_bot.app.tuning import LEASE
from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver, choose

from .conftest import (
    GROUP,
    BotProcess,
    audit_finished_games,
    keys_report,
    live_move_keys,
    reading,
    stall_report,
)
from .test_games import ANN, BEN, CAT, DON, open_lobby, seat_people, start

pytestmark = pytest.mark.slow

PLAYERS = (ANN, BEN, CAT, DON)
DELIVERY = {"sendMessage", "editMessageText", "editMessageReplyMarkup"}


class Players:
    """Everyone taps the newest prompt they are shown, once, a moment after it appears."""

    def __init__(self, fake: FakeBotApi, table: TableDriver, rng: random.Random) -> None:
        self.fake = fake
        self.table = table
        self.rng = rng
        self.tapped: dict[tuple[int, int], float] = {}  # (game, turn) -> when
        # A game stalls from the last tap, or from the bot's latest start: a life killed
        # before it could show the next prompt lost nothing, and a game that never asks
        # anyone stalls from its first start.
        self.since = time.monotonic()

    async def play(self, until: Callable[[], bool] = lambda: False) -> None:
        """Tap until ``until`` says so (or the task is cancelled)."""
        while not until():
            prompt = self.table.prompt()
            if prompt is not None and prompt.order not in self.tapped:
                await asyncio.sleep(self.rng.uniform(0.0, 0.15))
                kind = choose(self.table.card_of(prompt.actor), prompt.data("c") is not None, 4)
                data = prompt.data(kind) or prompt.data("k")
                assert data is not None
                self.tapped[prompt.order] = time.monotonic()
                self.fake.press_button(
                    prompt.actor, prompt.message.chat_id, prompt.message.message_id, data
                )
            await asyncio.sleep(0.01)

    def stalled_for(self) -> float:
        """Seconds since the last tap or the bot's latest start, whichever came later."""
        return time.monotonic() - max([*self.tapped.values(), self.since])


def ready_at(fake: FakeBotApi) -> float:
    """When the newest bot process finished its start-up (the last command menu registered)."""
    return max(c.time for c in fake.calls("setMyCommands"))


def first_delivery_after(fake: FakeBotApi, moment: float) -> float | None:
    times = [c.time for c in fake.calls() if c.method in DELIVERY and c.time >= moment]
    return min(times, default=None)


async def game_over(table: TableDriver, database_url: URL) -> bool:
    """The group shows the end of its latest game, and the store has no game open there. A
    game's end can be shown again after a newer game started (a process killed between
    Telegram's answer and the mark: the copy it showed is unaccounted for, and the next one
    shows the end again and takes that copy's keys off); players who took that for the end of
    the game in play would stop tapping."""
    if not table.game_over():
        return False
    async with reading(database_url) as uow:
        return await uow.games.open_in_chat(GROUP) is None


async def new_game(fake: FakeBotApi, table: TableDriver) -> None:
    await open_lobby(fake, table, PLAYERS)
    await start(table, ANN)


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM"])
async def test_a_restarted_bot_goes_on_with_the_game_at_once(
    fake: FakeBotApi,
    make_bot: Callable[..., BotProcess],
    table: TableDriver,
    database_url: URL,
    signal_name: str,
) -> None:
    rng = random.Random(15)
    bot = make_bot()
    await bot.start()
    seat_people(fake, started=PLAYERS)
    await new_game(fake, table)
    players = Players(fake, table, rng)
    playing = asyncio.create_task(players.play(table.game_over))
    resumed: list[float] = []
    try:
        for _ in range(3):
            await asyncio.sleep(rng.uniform(0.2, 0.8))
            if table.game_over():
                break
            if signal_name == "SIGKILL":
                bot.kill()
            else:
                assert await bot.terminate() == 0, bot.log()[-3000:]
                assert "took too long" not in bot.log(), bot.log()[-3000:]
            await bot.start()
            ready = ready_at(fake)
            moment = await fake.wait_for(lambda at=ready: first_delivery_after(fake, at), 30)
            resumed.append(moment - ready)
        await fake.wait_for(table.game_over, 60)
    finally:
        playing.cancel()
    print(f"{signal_name}: next message {', '.join(f'{s:.2f}' for s in resumed)} s after ready")
    assert resumed
    # The claims of the process before are not waited out: the game moves well within a lease.
    assert max(resumed) < LEASE.total_seconds(), resumed
    assert await audit_finished_games(database_url, [GROUP])
    await fake.wait_idle(quiet=0.5, timeout=30)
    assert not live_move_keys(fake, (GROUP, *PLAYERS))  # a prompt shown before a crash too


@pytest.mark.telegram_loose(
    "kills the bot every 0.35 s on average and calls 20 s without a tap a lost one; under the"
    " group's budget a round's table and the game's end wait their turn for up to a minute,"
    " which is no lost tap (tests/e2e/test_flood.py and the hold-restart test have the limits)"
)
async def test_polling_loses_no_tap_when_the_bot_is_killed_at_random_moments(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver, database_url: URL
) -> None:
    rng = random.Random(20261201)
    bot = make_bot()
    await bot.start()
    seat_people(fake, started=PLAYERS)
    kills = games = 0
    while kills < 20:
        await new_game(fake, table)
        games += 1
        players = Players(fake, table, rng)
        playing = asyncio.create_task(players.play())  # until the game is over (cancelled)
        try:
            while not await game_over(table, database_url):
                # Kill at any moment: a tap in flight, being handled, or its answer on its way.
                if kills < 20:
                    await asyncio.sleep(rng.uniform(0.0, 0.7))
                    if await game_over(table, database_url):
                        break
                    bot.kill()
                    kills += 1
                    await asyncio.sleep(rng.choice([0.0, 0.3]))  # taps arrive while it is down
                    await bot.start()
                    players.since = time.monotonic()
                else:
                    await asyncio.sleep(0.1)
                # The players tapped each prompt once: a lost tap would leave the game waiting.
                assert players.stalled_for() < 20, stall_report(
                    "a tap was lost (or no prompt came)", fake, bot, (GROUP, *PLAYERS)
                )
        finally:
            playing.cancel()
    await fake.wait_idle(quiet=0.5, timeout=30)
    assert not fake.pending_updates()  # everything fetched was confirmed in the end
    finished = await audit_finished_games(database_url, [GROUP])
    assert len(finished) == games
    live = live_move_keys(fake, (GROUP, *PLAYERS))
    assert not live, keys_report(fake, bot, live)
