"""One group held back by Telegram's flood control while others play: the scenario that the
end-to-end test (``tests/e2e/test_flood.py``) and the benchmark (``benchmarks/held.py``) share.

Every table is a group of people who tap their prompt as soon as it comes (the habit of
``driver.choose``). Once every game is under way, Telegram holds one group back: every call
naming it gets 429 for ``hold`` seconds (``FakeBotApi.flood_chat``). The other groups play on;
the held group's game goes on in its private chats. What is measured, per table: how long each
tap waited for its answer, how long each press waited for the next prompt (the pace), and when
the game ended for its players; the held group's table catches up afterwards.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field

from fakebotapi import FakeBotApi
from tests.support.driver import GROUP_PATIENCE, TableDriver, choose

# Telegram gives up on a tap left unanswered this long ("query is too old").
TAP_WINDOW = 15.0


@dataclass
class Table:
    """A group and its people, and what playing there was like."""

    driver: TableDriver
    players: list[int]
    answers: list[float] = field(default_factory=list)  # seconds from a tap to its answer
    unanswered: int = 0  # taps Telegram's window closed on
    waits: list[tuple[float, float]] = field(default_factory=list)  # (pressed at, wait)
    last_press: float | None = None  # when the last prompt of the game was pressed
    ended_at: float | None = None  # when the players had their last prompt answered

    @property
    def group(self) -> int:
        return self.driver.group_id


def seat(fake: FakeBotApi, group: int, first_user: int, size: int) -> Table:
    """A supergroup of ``size`` people who have all started the bot."""
    players = list(range(first_user, first_user + size))
    for user in players:
        fake.add_user(user, f"P{user}", language_code="en", started=True)
    fake.add_group(group, f"Table {group}", type="supergroup", members=players, admins=players)
    return Table(TableDriver(fake, group), players)


async def play(table: Table, wait: float = GROUP_PATIENCE) -> None:
    """Tap every prompt of the table's game as soon as it shows, until the game is over."""
    driver, last = table.driver, None
    pressed = None
    while True:
        prompt = await driver.next_prompt(after=last, wait=wait)
        now = time.monotonic()
        if pressed is not None:
            table.waits.append((pressed, now - pressed))
        if prompt is None:
            table.ended_at = now
            return
        dealer = prompt.data("c") is not None
        kind = choose(driver.card_of(prompt.actor), dealer, len(table.players))
        data = prompt.data(kind) or prompt.data("k")
        assert data is not None
        last = prompt.data("k")
        pressed = table.last_press = time.monotonic()
        answer = await driver.press(prompt.actor, prompt.message, data, wait=TAP_WINDOW)
        if answer["answered"]:
            table.answers.append(time.monotonic() - pressed)
        else:
            table.unanswered += 1


@dataclass
class Held:
    """The whole evening: the tables, which one was held, and from when until when."""

    tables: list[Table]
    held: Table
    began: float
    ended: float

    def others(self) -> list[Table]:
        return [t for t in self.tables if t is not self.held]


async def evening(
    fake: FakeBotApi, tables: list[Table], held: Table, hold: float, warm_up: float = 3.0
) -> Held:
    """Every table starts its game; after ``warm_up`` seconds of play the ``held`` group is
    held back for ``hold`` seconds; everyone plays to the end."""
    for table in tables:
        await table.driver.start_game(table.players[0], table.players, wait=30)
    # The held game's end is told in its group once the hold is over: its players wait that long.
    games = [asyncio.create_task(play(table, wait=hold + GROUP_PATIENCE)) for table in tables]
    await asyncio.sleep(warm_up)  # a clock: the games are under way
    if hold > 0:
        fake.flood_chat(held.group, hold)
    began = time.monotonic()
    await asyncio.gather(*games)
    return Held(tables, held, began, began + hold)


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (``share`` in 0..1) of a non-empty list."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def pace(waits: list[tuple[float, float]], start: float, end: float) -> float | None:
    """The median wait from a press to the next prompt, for presses between two moments."""
    inside = [w for at, w in waits if start <= at <= end]
    return statistics.median(inside) if inside else None
