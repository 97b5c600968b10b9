"""The bot's HTTP client for Bot API calls, with answers to taps kept apart.

Telegram gives up on a tap that is not answered within about 15 s. PTB sends every call but
``getUpdates`` through one client and its pool of connections, so a burst of sends (a busy
game night, Telegram slow to answer) could hold every connection while an answer waits for
one. PTB has no per-method client, so this small ``BaseRequest`` routes ``answerCallbackQuery``
to a client of its own and everything else to the main one.
"""

from __future__ import annotations

from typing import Any

from telegram.request import BaseRequest, RequestData

ANSWERS = "answerCallbackQuery"


class AnswersApart(BaseRequest):
    """``answerCallbackQuery`` on ``answers``' connections, every other call on ``calls``'."""

    def __init__(self, calls: BaseRequest, answers: BaseRequest) -> None:
        self.calls = calls
        self.answers = answers

    @property
    def read_timeout(self) -> float | None:
        return self.calls.read_timeout

    async def initialize(self) -> None:
        await self.calls.initialize()
        await self.answers.initialize()

    async def shutdown(self) -> None:
        await self.calls.shutdown()
        await self.answers.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,  # PTB's DefaultValue-or-float
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        client = self.answers if url.rsplit("/", 1)[-1] == ANSWERS else self.calls
        return await client.do_request(
            url,
            method,
            request_data,
            read_timeout=read_timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
            pool_timeout=pool_timeout,
        )
