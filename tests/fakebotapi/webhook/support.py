"""Webhook endpoints the tests run themselves, standing for bot instances behind a TLS proxy."""

from __future__ import annotations

import asyncio
import socket
from collections import deque
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from fakebotapi import FakeBotApi

ANN, BOB, CAT = 1001, 1002, 1003
GROUP = -500
# What Telegram is given (an https URL on an allowed port); deliveries go to the test's local
# receivers through webhook_targets, as through a TLS proxy in front of the bot.
PUBLIC = "https://bot.example.org/telegram/update"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

JSON = dict[str, Any]


@dataclass
class Arrival:
    """One POST a receiver got, and when it answered."""

    update: JSON
    secret: str | None
    content_type: str
    arrived: float
    answered: float | None = None

    @property
    def update_id(self) -> int:
        return int(self.update["update_id"])

    @property
    def text(self) -> str | None:
        message = self.update.get("message")
        return message.get("text") if message else None


class Receiver:
    """A bot instance's webhook endpoint: keeps what arrives and answers as the test says."""

    def __init__(self) -> None:
        self.arrivals: list[Arrival] = []
        self.status = 200  # the answer once `answers` is used up
        self.answers: deque[int] = deque()
        self.gate = asyncio.Event()  # clear() holds every answer until set()
        self.gate.set()
        self.stall = 0  # the next `stall` requests get no answer at all
        self.in_flight = 0
        self.max_in_flight = 0
        self.url = ""
        self._arrived = asyncio.Event()
        self._stopping = asyncio.Event()
        self._runner: web.AppRunner | None = None

    async def start(self, port: int = 0) -> Receiver:
        app = web.Application()
        app.router.add_post("/hook", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}/hook"
        return self

    async def stop(self) -> None:
        self._stopping.set()
        self.gate.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        loop = asyncio.get_running_loop()
        arrival = Arrival(
            await request.json(),
            request.headers.get(SECRET_HEADER),
            request.content_type,
            loop.time(),
        )
        self.arrivals.append(arrival)
        self._arrived.set()
        self._arrived = asyncio.Event()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.stall:
                self.stall -= 1
                await self._stopping.wait()
            await self.gate.wait()
        finally:
            self.in_flight -= 1
        arrival.answered = loop.time()
        return web.Response(status=self.answers.popleft() if self.answers else self.status)

    async def wait_arrivals(self, count: int, timeout: float = 5.0) -> list[Arrival]:  # noqa: ASYNC109
        async with asyncio.timeout(timeout):
            while len(self.arrivals) < count:
                await self._arrived.wait()
        return self.arrivals

    @property
    def update_ids(self) -> list[int]:
        return [a.update_id for a in self.arrivals]

    @property
    def texts(self) -> list[str | None]:
        return [a.text for a in self.arrivals]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def closed_port_url(port: int | None = None) -> str:
    """A URL nothing listens on (yet): connections to it are refused."""
    return f"http://127.0.0.1:{port or free_port()}/hook"


def populate(server: FakeBotApi) -> None:
    server.add_user(ANN, "Ann", started=True)
    server.add_user(BOB, "Bob", started=True)
    server.add_user(CAT, "Cat", started=True)
    server.add_group(GROUP, "Table", members=[ANN, BOB, CAT])
