"""Start-up asks Telegram until it answers, but only a network fault or a 429 is worth asking
again: an error Telegram answered (a 400 to a webhook it will not post to) stops the start at
once, in Telegram's own words, on one line."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from cuckoo_bot.config import SettingsError, TelegramRefused
from cuckoo_bot.transport.serving import until_answered

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


class Telegram:
    """Answers each call with the next of ``answers`` (an error to raise, or None: fine)."""

    def __init__(self, *answers: Exception | None) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        answer = self.answers.pop(0)
        if answer is not None:
            raise answer


@pytest.mark.parametrize(
    ("refusal", "said"),
    [
        (
            BadRequest("Bad Request: bad webhook: An HTTPS URL must be provided for webhook"),
            # (PTB drops "Bad Request: " and lowers the rest but its first letter)
            "Telegram refused registering the webhook: Bad webhook: an https url must be"
            " provided for webhook",
        ),
        (
            Forbidden("Forbidden: bot was kicked\nfrom the group"),
            "Telegram refused registering the webhook: Forbidden: bot was kicked from the group",
        ),
    ],
)
async def test_an_answered_refusal_stops_the_start_at_once_in_telegrams_words(
    refusal: Exception, said: str
) -> None:
    telegram = Telegram(refusal, None)
    with pytest.raises(TelegramRefused) as stopped:
        await until_answered(telegram, asyncio.Event(), "registering the webhook")
    assert isinstance(stopped.value, SettingsError)  # the CLI prints it in one line, exit 2
    assert str(stopped.value) == said
    assert telegram.calls == 1  # never asked again


async def test_network_faults_and_429s_are_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_wait(awaitable: Coroutine[Any, Any, Any], timeout: float) -> None:  # noqa: ASYNC109
        awaitable.close()
        raise TimeoutError  # the pause between two tries, skipped

    monkeypatch.setattr(asyncio, "wait_for", no_wait)
    telegram = Telegram(NetworkError("connection refused"), TimedOut(), RetryAfter(3), None)
    assert await until_answered(telegram, asyncio.Event(), "start-up")
    assert telegram.calls == 4
