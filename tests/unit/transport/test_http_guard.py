"""The bot's HTTP server against slow and malformed clients, in process: connections that never
finish their headers are closed, connections over the cap are reset at once, malformed requests
are counted instead of logged one traceback each, a flood of health checks asks the database
once a second, and /metrics can be closed with a token."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator

import aiohttp
import pytest

from cuckoo_bot.app.queries import Vitals
from cuckoo_bot.transport.guard import Guard
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.web import WebServer

HALF_REQUEST = b"GET /healthz HTTP/1.1\r\nHost: bot\r\nX-Slow: "


class Served:
    def __init__(self, server: WebServer, metrics: Metrics, asked: list[int]) -> None:
        self.server, self.metrics, self.asked = server, metrics, asked
        self.url = f"http://127.0.0.1:{server.port}"


async def serve(guard: Guard | None = None, **kwargs: object) -> tuple[WebServer, list[int]]:
    asked: list[int] = []

    async def vitals() -> Vitals:
        asked.append(1)
        await asyncio.sleep(0.01)  # a database round trip
        return Vitals(backlog=0, lobbies=0, running=0, finished=0)

    metrics = guard.metrics if guard else Metrics()
    server = WebServer(None, metrics, vitals, "127.0.0.1", 0, guard=guard, **kwargs)  # type: ignore[arg-type]
    await server.start()
    return server, asked


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    metrics = Metrics()
    server, asked = await serve(Guard(metrics, cap=40, header_timeout=0.4, idle_timeout=0.6))
    try:
        yield Served(server, metrics, asked)
    finally:
        await server.stop()


async def healthz(url: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(f"{url}/healthz") as answer:
        return answer.status


async def closed_by_server(reader: asyncio.StreamReader, within: float) -> bool:
    try:
        async with asyncio.timeout(within):
            while await reader.read(1024):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return True


async def test_connections_that_never_finish_their_headers_are_closed(served: Served) -> None:
    slow = [await asyncio.open_connection("127.0.0.1", served.server.port) for _ in range(30)]
    for _, writer in slow:
        writer.write(HALF_REQUEST)
        await writer.drain()
    # Meanwhile the server answers others at once.
    assert await healthz(served.url) == 200
    closed = await asyncio.gather(*(closed_by_server(r, 3.0) for r, _ in slow))
    assert all(closed)
    assert served.metrics.refusals["slow"] >= 30
    for _, writer in slow:
        writer.close()


async def test_a_kept_alive_connection_that_starts_a_request_and_stalls_is_closed(
    served: Served,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n")
    await writer.drain()
    assert (await reader.readline()).startswith(b"HTTP/1.1 200")
    writer.write(HALF_REQUEST)  # the next request never ends
    await writer.drain()
    assert await closed_by_server(reader, 3.0)
    writer.close()


async def test_at_the_cap_a_new_connection_takes_the_place_of_the_oldest_idle_one() -> None:
    metrics = Metrics()
    server, _ = await serve(Guard(metrics, cap=8, header_timeout=30, idle_timeout=30))
    try:
        idle = []
        for _ in range(20):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(HALF_REQUEST)
            idle.append((reader, writer))
            await asyncio.sleep(0.01)
        # A health check still gets in, at once, though 20 slow clients came first.
        assert await healthz(f"http://127.0.0.1:{server.port}") == 200
        still_open = [not await closed_by_server(r, 0.3) for r, _ in idle]
        assert sum(still_open) <= 8 and still_open[-5:] == [True] * 5, still_open
        assert metrics.refusals["full"] >= 12
        for _, writer in idle:
            writer.close()
    finally:
        await server.stop()


MALFORMED = [
    b"GET /healthz HTTP/1.1\r\nHost: bot\r\nX-Bad: a\x00b\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: bot\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
    b"POST /healthz HTTP/1.1\r\nHost: bot\r\nContent-Length: nope\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http at all\r\n\r\n",
]


async def test_malformed_requests_are_counted_not_logged_one_by_one(served: Served) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    previous = root.level
    root.setLevel(logging.DEBUG)
    try:
        for _ in range(50):
            for raw in MALFORMED:
                reader, writer = await asyncio.open_connection("127.0.0.1", served.server.port)
                writer.write(raw)
                await writer.drain()
                await closed_by_server(reader, 2.0)
                writer.close()
        served.server.guard._tell(force=True)
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)
    logged = stream.getvalue()
    assert "Traceback" not in logged
    assert len(logged.encode()) < 2_000, logged[:2000]
    assert served.metrics.refusals["malformed"] >= 150  # a TLS hello is debug-only in aiohttp
    assert "malformed" in logged


async def test_a_flood_of_health_checks_asks_the_database_about_once_a_second(
    served: Served,
) -> None:
    loop = asyncio.get_running_loop()
    began = loop.time()
    connector = aiohttp.TCPConnector(limit=30)  # under the test server's cap of 40
    async with aiohttp.ClientSession(connector=connector) as http:

        async def check() -> int:
            async with http.get(f"{served.url}/healthz") as answer:
                return answer.status

        answers = await asyncio.gather(*(check() for _ in range(600)))
    took = loop.time() - began
    assert answers == [200] * 600
    assert len(served.asked) <= int(took) + 1, (len(served.asked), took)


async def test_metrics_can_be_closed_with_a_bearer_token() -> None:
    server, _ = await serve(metrics_token="m3trics-t0ken")
    url = f"http://127.0.0.1:{server.port}/metrics"
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(url) as answer:
                assert answer.status == 401
            async with http.get(url, headers={"Authorization": "Bearer wrong"}) as answer:
                assert answer.status == 401
            headers = {"Authorization": "Bearer m3trics-t0ken"}
            async with http.get(url, headers=headers) as answer:
                assert answer.status == 200 and "cuckoo_http_refused" in await answer.text()
            async with http.get(f"http://127.0.0.1:{server.port}/healthz") as answer:
                assert answer.status == 200  # health stays open
    finally:
        await server.stop()
