"""Operating the real bot process: /healthz and /metrics on its own port, JSON logs without the
token, and SIGTERM ending the process in time even when Telegram has gone away."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Callable

import aiohttp
import pytest

from cuckoo_bot.demo import TableDriver
from cuckoo_bot.fakeapi import FakeBotApi
from tests.e2e.conftest import GROUP, TOKEN, BotProcess
from tests.e2e.test_games import ANN, BEN, CAT, open_lobby, seat_people

pytestmark = pytest.mark.slow


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        return answer.status, await answer.text()


def samples(text: str) -> dict[str, float]:
    return {
        name: float(value)
        for name, value in (
            line.rsplit(" ", 1) for line in text.splitlines() if line and line[0] != "#"
        )
    }


async def test_health_metrics_and_json_logs(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    bot = make_bot(CUCKOO_LOG_FORMAT="json")
    await bot.start()
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))

    status, text = await get(f"{bot.http_url()}/healthz")
    assert status == 200 and json.loads(text)["status"] == "ok"
    status, text = await get(f"{bot.http_url()}/metrics")
    assert status == 200
    figures = samples(text)
    assert figures['cuckoo_updates_handled_total{kind="command"}'] >= 4  # 3 x /start, /newgame
    assert figures['cuckoo_updates_handled_total{kind="callback_query"}'] >= 3  # the Joins
    assert figures['cuckoo_update_handling_seconds_count{kind="callback_query"}'] >= 3
    assert figures['cuckoo_bot_api_calls_total{method="sendMessage"}'] >= 1
    assert figures["cuckoo_games_in_lobby"] == 1
    assert figures["cuckoo_games_running"] == 0
    assert "cuckoo_outbox_backlog" in figures

    bot.stop()
    lines = [line for line in bot.log().splitlines() if line.strip()]
    assert lines
    for line in lines:
        entry = json.loads(line)  # every line is one JSON object
        assert {"time", "level", "logger", "message"} <= set(entry)
    assert TOKEN not in bot.log() and TOKEN.split(":")[1] not in bot.log()


async def test_sigterm_ends_the_bot_within_10_s_when_telegram_is_unreachable(
    fake: FakeBotApi, bot: BotProcess, table: TableDriver
) -> None:
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await fake.stop()  # Telegram is gone: polls and sends fail from now on
    await asyncio.sleep(1.5)
    process = bot.process
    assert process is not None and process.poll() is None
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    while process.poll() is None and time.monotonic() - started < 15:
        await asyncio.sleep(0.05)
    took = time.monotonic() - started
    assert process.poll() is not None, "the bot was still running 15 s after SIGTERM"
    assert took < 10, took
    assert process.returncode == 0, bot.log()[-3000:]
    assert "is not initialized" not in bot.log(), bot.log()[-3000:]
    assert "stopped" in bot.log()
    bot.process = None
