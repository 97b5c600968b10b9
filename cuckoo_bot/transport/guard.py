"""The bot's HTTP server held against slow and malformed clients.

aiohttp closes a connection that sends nothing, but one that sends part of its headers and then
waits is kept for ever, and each refused or malformed request is logged with a traceback. So:

- **Bounded connections.** At most ``cap`` connections at once (well below the process's file
  limit, so Telegram's and the database's connections always find a descriptor). At the cap, a
  new connection takes the place of the oldest one that has no request in hand (a slow client's,
  most likely: a real client sends its request at once), so a flood of slow clients cannot keep
  a health check or Telegram out; with every connection busy, the new one is reset. A
  connection must have sent a whole request's headers within ``header_timeout`` of connecting,
  or within ``idle_timeout`` of its last answer; otherwise it is closed. A request being
  handled is never cut.
- **Quiet under abuse.** Malformed requests, connections closed for slowness or for the cap, and
  the event loop's "out of file descriptors" on accept are counted in ``/metrics``
  (``cuckoo_http_refused_total{reason}``) and logged at most once per ``QUIET_EVERY`` seconds,
  in one line.

aiohttp has no header timeout nor connection cap of its own (its keep-alive timer stops at the
first byte of a request), hence this guard; it only uses aiohttp's public ``Server.connections``
and the request's ``protocol``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler

from cuckoo_bot.transport.metrics import Metrics

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 5.0  # seconds from connecting to a request's whole headers
IDLE_TIMEOUT = 15.0  # seconds a kept-alive connection may wait for its next request
QUIET_EVERY = 10.0  # abuse is told in one log line per this many seconds at most
ACCEPT_ERROR = "socket.accept() out of system resource"


def connection_cap() -> int:
    """A quarter of the process's file limit, at most 1024 (the live table's pages each hold
    one open): the rest stays for Telegram, the database and the log."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1024
    return max(16, min(1024, soft // 4))


class _Reset(asyncio.Protocol):
    """A connection over the cap: reset at once, so its descriptor is free again."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, asyncio.Transport):
            transport.abort()
        else:
            transport.close()


class Guard:
    """Accepts connections for one aiohttp server, closes the slow ones, counts abuse."""

    def __init__(
        self,
        metrics: Metrics,
        *,
        cap: int | None = None,
        header_timeout: float = HEADER_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.metrics = metrics
        self.cap = cap or connection_cap()
        self.header_timeout = header_timeout
        self.idle_timeout = idle_timeout
        self._server: web.Server | None = None
        self._deadline: dict[RequestHandler, float] = {}  # a request must start by then
        self._busy: set[RequestHandler] = set()
        self._accepting = 0  # accepted in this turn of the loop, not connected yet
        self._untold: Counter[str] = Counter()
        self._told_at = -math.inf
        self._reaper: asyncio.Task[None] | None = None
        self._filter = _CountMalformed(self)
        self._previous_handler: Any = None

    # -- wiring ------------------------------------------------------------------------------------

    async def serve(self, runner: web.AppRunner, host: str, port: int) -> asyncio.Server:
        """Listen on ``host``:``port`` for ``runner``'s application, guarded."""
        self._server = runner.server
        loop = asyncio.get_running_loop()
        listener = await loop.create_server(self._accept, host, port, reuse_address=True)
        self._reaper = loop.create_task(self._reap())
        logging.getLogger("aiohttp.server").addFilter(self._filter)
        self._previous_handler = loop.get_exception_handler()
        loop.set_exception_handler(self._loop_error)
        return listener

    async def close(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
            self._reaper = None
        logging.getLogger("aiohttp.server").removeFilter(self._filter)
        asyncio.get_running_loop().set_exception_handler(self._previous_handler)
        self._tell(force=True)

    @web.middleware
    async def track(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """A request's headers are in: its connection is busy until the answer is sent."""
        protocol = request.protocol
        self._busy.add(protocol)
        try:
            return await handler(request)
        finally:
            self._busy.discard(protocol)
            self._deadline[protocol] = asyncio.get_running_loop().time() + self.idle_timeout

    # -- connections -------------------------------------------------------------------------------

    def _accept(self) -> asyncio.Protocol:
        assert self._server is not None
        loop = asyncio.get_running_loop()
        if len(self._server.connections) + self._accepting >= self.cap:
            self.note("full")
            if not self._evict_one():
                return _Reset()
        self._accepting += 1
        loop.call_soon(self._accepted)
        handler = self._server()
        self._deadline[handler] = loop.time() + self.header_timeout
        return handler

    def _evict_one(self) -> bool:
        """Close the connected connection that has waited longest without a request."""
        assert self._server is not None
        idle = [
            (self._deadline.get(h, math.inf), id(h), h)
            for h in self._server.connections
            if h not in self._busy
        ]
        if not idle:
            return False
        _, _, oldest = min(idle)
        oldest.force_close()
        self._deadline.pop(oldest, None)
        return True

    def _accepted(self) -> None:
        self._accepting -= 1

    async def _reap(self) -> None:
        loop = asyncio.get_running_loop()
        every = max(0.05, min(self.header_timeout, self.idle_timeout) / 5)
        while True:
            await asyncio.sleep(every)
            self.sweep(loop.time())
            self._tell()

    def sweep(self, now: float) -> int:
        """Close the connections past their deadline; how many."""
        assert self._server is not None
        live = set(self._server.connections)
        for gone in [h for h in self._deadline if h not in live and h.transport is not None]:
            del self._deadline[gone]
        slow = 0
        for handler in live:
            deadline = self._deadline.setdefault(handler, now + self.header_timeout)
            if handler not in self._busy and now > deadline:
                handler.force_close()
                del self._deadline[handler]
                slow += 1
        if slow:
            self.note("slow", slow)
        return slow

    # -- counting and telling ----------------------------------------------------------------------

    def note(self, reason: str, count: int = 1) -> None:
        self.metrics.http_refused(reason, count)
        self._untold[reason] += count

    def _tell(self, force: bool = False) -> None:
        now = asyncio.get_running_loop().time()
        if not self._untold or (not force and now - self._told_at < QUIET_EVERY):
            return
        said = ", ".join(f"{n} {reason}" for reason, n in sorted(self._untold.items()))
        log.warning(
            "HTTP server turned away: %s (slow: no request in time; full: over %s"
            " connections; malformed: not HTTP; accept: out of file descriptors)",
            said,
            self.cap,
        )
        self._untold.clear()
        self._told_at = now

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == ACCEPT_ERROR:
            self.note("accept")  # asyncio retries the accept by itself a second later
            return
        if self._previous_handler is not None:
            self._previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)


class _CountMalformed(logging.Filter):
    """aiohttp logs each malformed request with a traceback; it is counted instead."""

    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):  # not HTTP, too long, bad length...
            self.guard.note("malformed")
            return False
        return True  # a fault of the bot's own is still logged in full
