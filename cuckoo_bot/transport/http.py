"""PTB's requests on aiohttp's HTTP client instead of its default, HTTPX.

Measured in one run of a throwaway script (2,000 keep-alive POSTs of a prompt-sized
``sendMessage`` to a local aiohttp server, each client twice): PTB's ``HTTPXRequest`` spent
about 600 µs of CPU a call, an aiohttp session about 200 µs. (``benchmarks/cpu.py`` measured
this change only together with others; README, "Capacity".) aiohttp is already the bot's web
server, so this adds no dependency. PTB ships only the HTTPX client; ``BaseRequest`` is its
documented way to plug in another, and this is that plug: one aiohttp session per request
object, PTB's timeouts mapped to aiohttp's, and failures raised as the errors PTB's own client
raises (``TimedOut`` for any timeout, ``NetworkError`` for a connection that failed or closed
without an answer), which the rest of the bot (flood control, the courier's lost answers)
reads.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

JSON = {"Content-Type": "application/json"}

# PTB's HTTPXRequest defaults, in seconds (its pool timeout is the wait for a free connection).
READ = 5.0
WRITE = 5.0
CONNECT = 5.0
POOL = 1.0


def _given(value: Any, default: float | None) -> float | None:
    """A timeout PTB passed, or this client's own when it passed its DEFAULT_NONE."""
    return default if isinstance(value, type(BaseRequest.DEFAULT_NONE)) else value


class AiohttpRequest(BaseRequest):
    """``BaseRequest`` on one ``aiohttp.ClientSession`` of at most ``connection_pool_size``
    connections (kept alive between calls, as PTB's client keeps them)."""

    def __init__(
        self,
        connection_pool_size: int = 1,
        read_timeout: float | None = READ,
        write_timeout: float | None = WRITE,
        connect_timeout: float | None = CONNECT,
        pool_timeout: float | None = POOL,
    ) -> None:
        self.pool_size = connection_pool_size
        self._read = read_timeout
        self._write = write_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self.pool_size, limit_per_host=0)
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": self.USER_AGENT}
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

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
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = _given(read_timeout, self._read)
        write = _given(write_timeout, self._write)
        connect = _given(connect_timeout, self._connect)
        pool = _given(pool_timeout, self._pool)
        # aiohttp has no write timeout of its own: a request's body is a few kB, so the write
        # and the wait for its answer share one budget; ``connect`` counts the wait for a
        # free connection too, as PTB's pool timeout does.
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=None if connect is None or pool is None else connect + pool,
            sock_connect=connect,
            sock_read=None if read is None else read + (write or 0.0),
        )
        try:
            async with session.request(
                method, url, data=self._body(request_data), headers=JSON, timeout=timeout
            ) as response:
                return response.status, await response.read()
        except TimeoutError as err:  # aiohttp's timeouts all derive from it
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err

    @staticmethod
    def _body(request_data: RequestData | None) -> bytes | None:
        """The call's parameters as one JSON object (the Bot API's "application/json" way of
        passing them): the same values PTB's client form-encodes, made by the C JSON encoder
        where form-encoding quotes each value byte by byte in Python. The bot uploads no file
        (its cards are text), so a call that would is refused before it is sent."""
        if request_data is None:
            return None
        if request_data.contains_files:
            raise NetworkError("this bot's HTTP client sends no files")
        return request_data.json_payload
