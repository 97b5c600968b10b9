"""Answers to commands in a group go before the game's own updates when the budget is short;
an answer lost on the way, or still waiting at shutdown, is kept to be tried again."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, TimedOut

from cuckoo_bot.transport.answers import Answer, AnswerQueue
from cuckoo_bot.transport.pacing import ANSWERS_FIRST, GroupBudget

GROUP = -100


@dataclass
class Sent:
    message_id: int


class FakeBot:
    """Records what was sent; every send succeeds."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Sent:
        self.sent.append((chat_id, text))
        return Sent(len(self.sent))


async def test_an_answer_waiting_for_the_budget_goes_before_the_games_updates() -> None:
    now = [1000.0]
    budget = GroupBudget(2, clock=lambda: now[0])
    bot = FakeBot()
    replies = AnswerQueue(bot, budget, lambda chat, message: None)  # type: ignore[arg-type]
    assert await budget.take(GROUP) and await budget.take(GROUP)  # the game spent the minute
    await replies.say(Answer(GROUP, None, "the help"))
    assert bot.sent == []  # no call left: the answer waits in the group's queue
    now[0] += 61  # a minute later the budget allows calls again...
    assert budget.next_free(GROUP) >= ANSWERS_FIRST  # ...but not to the game's updates
    assert not await budget.take(GROUP)
    for _ in range(50):
        if bot.sent:
            break
        await asyncio.sleep(0.01)
    assert bot.sent == [(GROUP, "the help")]  # the answer took the first call
    assert budget.next_free(GROUP) == 0 and await budget.take(GROUP)  # then the game goes on
    await replies.close()


async def test_a_private_answer_of_many_pages_comes_in_order() -> None:
    budget = GroupBudget(20, clock=lambda: 0.0)
    bot = FakeBot()
    replies = AnswerQueue(bot, budget, lambda chat, message: None)  # type: ignore[arg-type]
    await replies.say_privately(7, ["one", "two", "three"])
    assert bot.sent[0] == (7, "one")  # the first page before the handler goes on
    for _ in range(50):
        if len(bot.sent) == 3:
            break
        await asyncio.sleep(0.01)
    assert bot.sent == [(7, "one"), (7, "two"), (7, "three")]
    await replies.close()


async def test_answers_past_the_queue_join_the_last_one_and_none_is_lost() -> None:
    budget = GroupBudget(1, clock=time.monotonic, period=0.2)  # one call per 0.2 s
    bot = FakeBot()
    replies = AnswerQueue(bot, budget, lambda chat, message: None)  # type: ignore[arg-type]
    assert await budget.take(GROUP)
    for word in ("one", "two", "three", "four", "five", "three"):
        await replies.say(Answer(GROUP, None, word))
    for _ in range(300):  # the three waiting messages carry all five answers
        if len(bot.sent) == 3:
            break
        await asyncio.sleep(0.01)
    assert [text for _, text in bot.sent] == ["one", "two", "three\n\nfour\n\nfive"]
    await replies.close()


class LosingBot(FakeBot):
    """Every send fails: lost on the way (a network fault), or refused by Telegram."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Sent:
        raise self.error


@pytest.mark.parametrize("chat", [GROUP, 7])
async def test_an_answer_lost_on_the_way_is_kept_to_be_tried_again(chat: int) -> None:
    kept: list[tuple[Answer, bool]] = []

    async def keep(answer: Answer, maybe_shown: bool) -> None:
        kept.append((answer, maybe_shown))

    budget = GroupBudget(20, clock=lambda: 0.0)
    lost = LosingBot(TimedOut())
    replies = AnswerQueue(lost, budget, lambda c, m: None, keep=keep)  # type: ignore[arg-type]
    await replies.say(Answer(chat, 5, "the help"))
    assert kept == [(Answer(chat, 5, "the help"), False)]  # no keys: nothing to doubt
    keys = InlineKeyboardMarkup([[InlineKeyboardButton("English", callback_data="1:l:en")]])
    await replies.say(Answer(chat, 5, "the language", keys))
    assert kept[-1] == (Answer(chat, 5, "the language", keys), True)  # shown, maybe, with keys

    refused = LosingBot(BadRequest("Message text is empty"))
    kept.clear()
    replies = AnswerQueue(refused, budget, lambda c, m: None, keep=keep)  # type: ignore[arg-type]
    if chat > 0:
        with pytest.raises(BadRequest):  # the handler's to report
            await replies.say(Answer(chat, None, "x"))
    else:
        await replies.say(Answer(chat, None, "x"))
    assert kept == []  # Telegram would refuse it again


async def test_answers_still_waiting_at_shutdown_are_kept_not_dropped() -> None:
    kept: list[tuple[Answer, bool]] = []

    async def keep(answer: Answer, maybe_shown: bool) -> None:
        kept.append((answer, maybe_shown))

    budget = GroupBudget(1, clock=lambda: 0.0)
    bot = FakeBot()
    replies = AnswerQueue(bot, budget, lambda c, m: None, keep=keep)  # type: ignore[arg-type]
    assert await budget.take(GROUP)  # the minute's call is spent: answers wait
    await replies.say(Answer(GROUP, None, "one"))
    await replies.say(Answer(GROUP, None, "two"))
    await replies.close()
    assert bot.sent == []
    assert kept == [(Answer(GROUP, None, "one"), False), (Answer(GROUP, None, "two"), False)]
