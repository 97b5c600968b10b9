"""Flood control chat by chat (``transport/flood.py``), through PTB's real bot against the fake
Bot API over HTTP: a 429 holds its own chat and nothing else, a held chat is never called
before its ``retry_after`` ends, the hold reaches the store, a 429 naming no chat slows the
sends but never a tap's answer, and answers to commands wait for their chat's hold without a
handler waiting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import RetryAfter
from telegram.ext import ExtBot

from cuckoo_bot.transport.answers import Answer, AnswerQueue
from cuckoo_bot.transport.flood import (
    ChatLimiter,
    Floods,
    OverallWindow,
    counted,
    retry_seconds,
)
from cuckoo_bot.transport.metrics import CountingRequest, Metrics
from cuckoo_bot.transport.pacing import BUSY, GroupBudget
from cuckoo_bot.transport.requests import AnswersApart
from fakebotapi import FakeBotApi

# PTB warns whenever RetryAfter.retry_after is read, including inside its own __init__.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

TOKEN = "4242:flood-test-token-0123456789abcdef"
HELD, OTHER = -1001, -1002
ANN = 11


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


class World:
    def __init__(
        self, fake: FakeBotApi, bot: ExtBot[Any], floods: Floods, clock: Clock, metrics: Metrics
    ) -> None:
        self.fake, self.bot, self.floods, self.clock = fake, bot, floods, clock
        self.metrics = metrics
        self.stored: list[tuple[int, datetime]] = []

    def calls_naming(self, chat_id: int) -> int:
        return sum(1 for c in self.fake.calls() if str(c.params.get("chat_id")) == str(chat_id))


@pytest.fixture
async def world() -> AsyncIterator[World]:
    clock = Clock()
    async with FakeBotApi(token=TOKEN) as fake:
        fake.world.clock = lambda: clock.now().timestamp()  # Telegram's time is the test's
        fake.add_user(ANN, "Ann", started=True)
        for chat in (HELD, OTHER):
            fake.add_group(chat, f"Group {chat}", type="supergroup", members=[ANN])
        metrics = Metrics()
        floods = Floods(clock.now, counted=metrics.flood_hold)
        bot: ExtBot[Any] = ExtBot(
            TOKEN,
            base_url=fake.base_url,
            request=AnswersApart(CountingRequest(metrics), CountingRequest(metrics)),
            rate_limiter=ChatLimiter(floods),
        )
        async with bot:
            found = World(fake, bot, floods, clock, metrics)

            async def store(chat_id: int, until: datetime) -> None:
                found.stored.append((chat_id, until))

            floods.persist = store
            yield found


async def test_a_429_holds_its_own_chat_until_retry_after_and_nothing_else(world: World) -> None:
    bot, fake = world.bot, world.fake
    fake.flood(chat_id=HELD, retry_after=30)
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(HELD, "the table")
    assert retry_seconds(refused.value) == 30
    assert world.calls_naming(HELD) == 1
    # The chat is held: its sends, edits and deletes fail at once, and Telegram hears none.
    for attempt in (
        bot.send_message(HELD, "the table again"),
        bot.edit_message_text("edited", chat_id=HELD, message_id=1),
        bot.delete_message(HELD, 1),
    ):
        with pytest.raises(RetryAfter) as held:
            await attempt
        assert 29 <= retry_seconds(held.value) <= 30
    assert world.calls_naming(HELD) == 1
    # Every other chat goes on as if nothing happened, and so do reads naming the held chat.
    key = InlineKeyboardMarkup([[InlineKeyboardButton("Tap", callback_data="tap")]])
    shown = await bot.send_message(OTHER, "a key", reply_markup=key)
    query = fake.press_button(ANN, OTHER, shown.message_id, "tap")
    assert await bot.answer_callback_query(query, text="done")
    assert fake.callback_answer(query)["text"] == "done"
    assert (await bot.get_chat_member(HELD, ANN)).status == "member"
    await asyncio.sleep(0)  # the hold's write to the store runs in the background
    assert world.stored == [(HELD, world.clock.now() + timedelta(seconds=30))]
    world.clock.advance(26)
    with pytest.raises(RetryAfter):
        await bot.send_message(HELD, "too early")
    # The last moments of a hold (``SHORT_HOLD``) a call waits out itself, and goes right after.
    world.clock.advance(3)
    send = asyncio.create_task(bot.send_message(HELD, "now"))
    await asyncio.sleep(0.2)
    assert not send.done() and world.calls_naming(HELD) == 2
    world.clock.advance(1)
    assert (await asyncio.wait_for(send, 5)).text == "now"
    assert world.calls_naming(HELD) == 3  # the 429, getChatMember, and the send after it
    assert world.metrics.holds == {"group": 1}


async def test_a_hold_another_instance_stored_is_honoured(world: World) -> None:
    world.floods.learn({HELD: world.clock.now() + timedelta(seconds=12)})
    with pytest.raises(RetryAfter):
        await world.bot.send_message(HELD, "the table")
    assert world.calls_naming(HELD) == 0
    assert await world.bot.send_message(OTHER, "fine")
    # A shorter hold learnt later never cuts a longer one; a hold over is forgotten.
    world.floods.learn({HELD: world.clock.now() + timedelta(seconds=2)})
    assert world.floods.left(HELD) == 12
    world.clock.advance(12)
    world.floods.learn({})
    assert world.floods.held() == {}


async def test_a_429_naming_no_chat_slows_sends_but_never_a_taps_answer(world: World) -> None:
    limiter = world.bot.rate_limiter
    assert isinstance(limiter, ChatLimiter)
    key = InlineKeyboardMarkup([[InlineKeyboardButton("Tap", callback_data="tap")]])
    shown = await world.bot.send_message(OTHER, "a key", reply_markup=key)

    async def refused(*_: Any, **__: Any) -> bool:
        raise RetryAfter(20)

    with pytest.raises(RetryAfter):  # the bot's overall rate: the call named no chat
        await limiter.process_request(refused, (), {}, "answerCallbackQuery", {}, None)
    assert world.floods.overall_left() == 20
    send = asyncio.create_task(world.bot.send_message(OTHER, "waits"))
    query = world.fake.press_button(ANN, OTHER, shown.message_id, "tap")
    assert await asyncio.wait_for(world.bot.answer_callback_query(query), 2)  # at once
    assert not send.done() and world.calls_naming(OTHER) == 1  # the send waits its turn
    world.clock.advance(20)
    assert (await asyncio.wait_for(send, 5)).text == "waits"
    assert world.stored == []  # no chat was held


async def test_answers_to_a_held_chat_wait_for_the_hold_not_in_the_handler(world: World) -> None:
    floods = world.floods
    budget = GroupBudget(20, clock=lambda: world.clock.now().timestamp(), floods=floods)
    replies = AnswerQueue(world.bot, budget, lambda chat, message: None, floods=floods)
    floods.hold(HELD, 30)
    floods.hold(ANN, 0.3)
    await asyncio.wait_for(replies.say(Answer(HELD, None, "the help")), 1)  # returns at once
    await asyncio.wait_for(replies.say(Answer(ANN, None, "your stats")), 1)
    assert world.calls_naming(HELD) == 0 and world.calls_naming(ANN) == 0
    # The private answer goes once its hold is over (real seconds: the queue sleeps them).
    world.clock.advance(0.3)
    await world.fake.wait_for_message(ANN, "your stats", timeout=5)
    # The group's answer waits in the group's queue until the hold ends, then goes first.
    assert budget.next_free(HELD, answer=True) >= 29
    world.clock.advance(30)
    await world.fake.wait_for_message(HELD, "the help", timeout=5)
    await replies.close()


async def test_a_moments_429_is_waited_out_by_that_call_alone(world: World) -> None:
    """A 429 of a second or two (the overall rate, a private chat's pace) is waited out by the
    call it answered, as PTB would, but by no other call: a handler's greeting still goes."""
    world.fake.flood(chat_id=ANN, retry_after=1)
    send = asyncio.create_task(world.bot.send_message(ANN, "hello"))
    await asyncio.sleep(0.2)
    assert not send.done() and world.calls_naming(ANN) == 1  # refused once, waiting
    assert (await world.bot.send_message(OTHER, "meanwhile")).text == "meanwhile"
    world.clock.advance(1)
    assert (await asyncio.wait_for(send, 5)).text == "hello"
    assert world.calls_naming(ANN) == 2
    assert world.fake.flood_violations() == []


# Gaps between calls in 1/1024 s, with a period of 1.125 s: every sum is exact, so a test and
# the window cannot disagree on a float's last bit about whether a call is a period old.
GAPS = st.lists(st.integers(0, 512).map(lambda n: n / 1024), min_size=1, max_size=90)


@given(GAPS, st.integers(1, 30))
async def test_the_overall_window_never_lets_more_than_its_rate_through_in_a_period(
    gaps: list[float], rate: int
) -> None:
    # Calls arriving with random gaps (bursts included): the ones let through never number
    # more than ``rate`` in any period, and a call waits only while the window is full.
    now = [0.0]

    async def sleep(seconds: float) -> None:
        assert seconds > 0
        now[0] += seconds

    period = 1.125
    window = OverallWindow(rate, period=period, clock=lambda: now[0], sleep=sleep)
    through = []
    for gap in gaps:
        now[0] += gap
        arrived = now[0]
        async with window:
            through.append(now[0])
        full = sum(1 for t in through[:-1] if t > arrived - period) >= rate
        assert (now[0] > arrived) == full
    for index, moment in enumerate(through):
        assert sum(1 for t in through[index:] if t < moment + period) <= rate


@given(st.integers(1, 30), st.integers(1, 200))
async def test_each_call_is_given_its_moment_when_it_comes_first_come_first_served(
    rate: int, calls: int
) -> None:
    # Calls all arriving at once: each is given, as it comes, the first moment at least a
    # period after the call ``rate`` places before it; none is passed by a later one.
    period = 1.125
    given_at: list[float] = []

    async def sleep(seconds: float) -> None:
        given_at.append(seconds)  # the clock stands still: only the moment given matters

    window = OverallWindow(rate, period=period, clock=lambda: 0.0, sleep=sleep)
    for _ in range(calls):
        waits = len(given_at)
        async with window:
            pass
        if len(given_at) == waits:
            given_at.append(0.0)
    assert given_at == [(index // rate) * period for index in range(calls)]


@given(GAPS, st.integers(1, 30))
async def test_the_backlog_is_the_wait_the_next_call_would_be_given(
    gaps: list[float], rate: int
) -> None:
    # Before each call, the window's backlog is exactly how long that call then waits.
    now = [0.0]
    waited: list[float] = []

    async def sleep(seconds: float) -> None:
        waited.append(seconds)  # the clock stands still while a call waits: a backlog builds

    window = OverallWindow(rate, period=1.125, clock=lambda: now[0], sleep=sleep)
    for gap in gaps:
        now[0] += gap
        expected = window.backlog()
        before = len(waited)
        async with window:
            pass
        assert (waited[-1] if len(waited) > before else 0.0) == expected


async def test_a_groups_table_is_spread_wider_only_while_the_token_is_at_its_overall_limit() -> (
    None
):
    # Updates that can wait come every period / rate seconds (3 s at 20 a minute); while a
    # counted call would wait longer than BUSY for its place, three times that.
    now = [100.0]
    backlog = [0.0]
    budget = GroupBudget(20, clock=lambda: now[0], busy=lambda: backlog[0])
    assert await budget.take(HELD)
    assert budget.calm(HELD) == 3.0
    backlog[0] = BUSY  # a moment's queue, not the ceiling
    assert budget.calm(HELD) == 3.0
    backlog[0] = BUSY + 0.1
    assert budget.calm(HELD) == 9.0
    now[0] += 3.0
    assert budget.calm(HELD) == 6.0
    now[0] += 6.0
    assert budget.calm(HELD) == 0.0  # spread, never held back for good
    assert GroupBudget(20, clock=lambda: now[0]).calm(HELD) == 0.0  # no call yet


async def test_the_limiters_backlog_follows_its_current_share() -> None:
    # The group budget asks the limiter, whose window is replaced as instances come and go.
    limiter = ChatLimiter(Floods(Clock().now), overall=2)
    async with limiter.window:
        pass
    async with limiter.window:
        pass
    assert limiter.backlog() > 1.0  # the third call would wait about a period
    limiter.share(2)  # a fresh window for this instance's share
    assert limiter.backlog() == 0.0


async def test_calls_waiting_together_leave_the_window_in_the_order_they_came() -> None:
    # Forty calls at once through four places a period: each four leave together (in any
    # order among themselves), and no call leaves before one that came four places earlier.
    window = OverallWindow(4, period=0.02)
    order: list[int] = []

    async def call(index: int) -> None:
        async with window:
            order.append(index)

    await asyncio.gather(*(call(index) for index in range(40)))
    batches = [index // 4 for index in order]
    assert sorted(order) == list(range(40)) and batches == sorted(batches)


async def test_the_overall_window_counts_what_telegram_counts(world: World) -> None:
    # Messages sent anywhere and a group's edits take a place in the 30 a second; a private
    # chat's edits and reads do not (the fake counts the same, so the bot spends the whole
    # ceiling on what Telegram limits).
    bot, fake = world.bot, world.fake
    limiter = bot.rate_limiter
    assert isinstance(limiter, ChatLimiter)
    window = limiter.window
    before = window.placed
    sent = await bot.send_message(ANN, "your card")
    table = await bot.send_message(HELD, "the table")
    assert window.placed == before + 2
    await bot.edit_message_text("your card, kept", chat_id=ANN, message_id=sent.message_id)
    await bot.get_chat_member(HELD, ANN)
    assert window.placed == before + 2
    await bot.edit_message_text("the table, moved on", chat_id=HELD, message_id=table.message_id)
    await bot.delete_message(HELD, table.message_id)
    assert window.placed == before + 4
    assert not fake.flood_violations()


@pytest.mark.parametrize(
    ("endpoint", "chat", "is_counted"),
    [
        ("sendMessage", ANN, True),
        ("sendMessage", HELD, True),
        ("copyMessage", ANN, True),
        ("editMessageText", ANN, False),
        ("editMessageReplyMarkup", ANN, False),
        ("deleteMessage", ANN, False),
        ("editMessageText", HELD, True),
        ("deleteMessage", HELD, True),
        ("getChatMember", HELD, False),
        ("getChat", ANN, False),
    ],
)
def test_which_calls_telegrams_overall_limit_counts(
    endpoint: str, chat: int, is_counted: bool
) -> None:
    assert counted(endpoint, chat) is is_counted
