"""Operating the real bot process: /healthz and /metrics on its own port, JSON logs without the
token, and SIGTERM ending the process in time even when Telegram has gone away."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
import time
from collections.abc import Callable

import aiohttp
import pytest

from fakebotapi import FakeBotApi
from tests.e2e.conftest import GROUP, TOKEN, BotProcess
from tests.e2e.test_games import ANN, BEN, CAT, open_lobby, seat_people
from tests.support.driver import TableDriver

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
    # What one instance costs, from the process itself: CPU, memory, and the statements sent
    # (a lobby of three has made dozens; each later update adds to them).
    assert figures["process_cpu_seconds_total"] > 0
    assert figures["process_resident_memory_bytes"] > 10_000_000
    statements = figures["cuckoo_sql_statements_total"]
    assert statements >= 10
    await table.say(ANN, "/help")
    await fake.wait_for_message(GROUP, contains="/newgame")
    later = samples((await get(f"{bot.http_url()}/metrics"))[1])
    assert later["cuckoo_sql_statements_total"] > statements

    await bot.stop()
    lines = [line for line in bot.log().splitlines() if line.strip()]
    assert lines
    for line in lines:
        entry = json.loads(line)  # every line is one JSON object
        assert {"time", "level", "logger", "message"} <= set(entry)
    assert TOKEN not in bot.log() and TOKEN.split(":")[1] not in bot.log()


SECRET = "operations-secret_0123456789"


def webhook_env(port: int) -> dict[str, str]:
    return {
        "CUCKOO_WEBHOOK_URL": "https://bot.example.org/tg/updates",
        "CUCKOO_WEBHOOK_SECRET": SECRET,
        "CUCKOO_PORT": str(port),
    }


async def test_webhook_mode_serves_updates_health_and_turns_away_a_wrong_secret(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    port = free_port()
    fake.webhook_targets([f"http://127.0.0.1:{port}/tg/updates"])
    bot = make_bot(**webhook_env(port))
    await bot.start()
    await fake.wait_for(lambda: fake.call_count("setWebhook") >= 1, 30)
    info = fake.calls("setWebhook")[-1].params
    assert info["url"] == "https://bot.example.org/tg/updates" and info["secret_token"] == SECRET
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))  # through the webhook, not polling
    assert fake.call_count("getUpdates") == 0
    # Everything the lobby's making said is said (each /start's answer too, which may come
    # last on a busy machine) before the calls are counted.
    await fake.wait_for(
        lambda: all(any(m.from_bot for m in fake.dm(user)) for user in (ANN, BEN, CAT)), 15
    )
    await fake.wait_idle(quiet=0.5, timeout=15)
    calls = fake.call_count()

    # A /cancel from the lobby's creator, as Telegram would send it (a command is a command by
    # its entity): handled, it would close the lobby.
    forged = {
        "update_id": 999_999,
        "message": {
            "message_id": 1,
            "date": int(time.time()),
            "text": "/cancel",
            "entities": [{"type": "bot_command", "offset": 0, "length": len("/cancel")}],
            "chat": {"id": GROUP, "type": "supergroup", "title": "x"},
            "from": {"id": ANN, "is_bot": False, "first_name": "Ann"},
        },
    }
    url = f"http://127.0.0.1:{port}/tg/updates"
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "wrong"}):
            async with http.post(url, json=forged, headers=headers) as answer:
                assert answer.status == 403
    # The probe: Ann taps Join again, through the same endpoint, in the same chat, after the
    # forged /cancel. Her answer reads the lobby under its lock, so it comes after whatever
    # the /cancel would have done to it; it is the only call the bot makes.
    lobby = table.lobby()
    assert lobby is not None
    answer = await table.press(ANN, lobby, lobby.button_data("Join"))
    assert answer["text"] == "You're already in.", answer  # the lobby is still open
    # What the /cancel could have caused: a call in the group, or an answer. (A private
    # chat's greeting sent again, its first answer lost on a loaded machine, is not its.)
    said = [
        (c.method, c.params.get("text"))
        for c in fake.calls()[calls:]
        if c.method == "answerCallbackQuery" or str(c.params.get("chat_id")) == str(GROUP)
    ]
    assert said == [("answerCallbackQuery", "You're already in.")], said  # nothing else
    lobby = table.lobby()
    assert lobby is not None and lobby.button_data("Join")  # the forged /cancel did nothing

    status, text = await get(f"http://127.0.0.1:{port}/healthz")
    assert status == 200 and json.loads(text)["status"] == "ok"
    figures = samples((await get(f"http://127.0.0.1:{port}/metrics"))[1])
    assert figures['cuckoo_updates_handled_total{kind="callback_query"}'] >= 3
    assert "cuckoo_games_in_lobby" in figures


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_sigterm_ends_the_bot_within_10_s_when_telegram_is_unreachable(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver, mode: str
) -> None:
    env: dict[str, str] = {}
    if mode == "webhook":
        port = free_port()
        fake.webhook_targets([f"http://127.0.0.1:{port}/tg/updates"])
        env = webhook_env(port)
    bot = make_bot(**env)
    await bot.start()
    seat_people(fake)
    await open_lobby(fake, table, (ANN, BEN, CAT))
    await fake.stop()  # Telegram is gone: polls and sends fail from now on
    await asyncio.sleep(1.5)  # a clock, not a check: the bot meets the failures before SIGTERM
    process = bot.process
    assert process is not None and process.poll() is None
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    while process.poll() is None and time.monotonic() - started < 15:  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    took = time.monotonic() - started
    assert process.poll() is not None, "the bot was still running 15 s after SIGTERM"
    print(f"SIGTERM to exit: {took:.2f} s ({mode})")
    assert took < 10, took
    assert process.returncode == 0, bot.log()[-3000:]
    assert "is not initialized" not in bot.log(), bot.log()[-3000:]
    assert "stopped" in bot.log()
    bot.process = None


async def run_to_its_end(env: dict[str, str]) -> tuple[int | None, str, list[str]]:
    """``cuckoo-bot run`` that is expected to stop by itself: its exit code, all it printed,
    and the lines it said as ``cuckoo-bot: ...`` on stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cuckoo_bot",
        "run",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    said = [line for line in err.decode().splitlines() if line.startswith("cuckoo-bot:")]
    return process.returncode, out.decode() + err.decode(), said


async def test_a_token_telegram_rejects_is_one_line_exit_2_and_never_shown(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess]
) -> None:
    secret_part = "Rejected-token-secret-part-0123456789"
    bot = make_bot(CUCKOO_BOT_TOKEN=f"999999:{secret_part}")
    code, text, said = await run_to_its_end(bot.environment())
    assert code == 2, text
    assert said == [
        "cuckoo-bot: CUCKOO_BOT_TOKEN was rejected by Telegram: check it with @BotFather"
        " (https://t.me/BotFather, /mybots → API Token)"
    ], text
    assert "Traceback" not in text and secret_part not in text, text


async def test_slow_clients_cannot_exhaust_the_bot_under_a_1024_file_limit(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess], table: TableDriver
) -> None:
    bot = make_bot()
    bot.open_files = 1024  # the common default limit
    await bot.start()
    host, port = bot.http_url().removeprefix("http://").split(":")
    seat_people(fake)
    slow: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    for _ in range(1100):  # more than the process may open: they never finish their headers
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: bot\r\nX-Slow: ")
            slow.append((reader, writer))
        except OSError:
            pass
    began = time.monotonic()
    async with aiohttp.ClientSession() as http:
        # Health answers throughout, within a second, and the game is played meanwhile.
        await open_lobby(fake, table, (ANN, BEN, CAT))
        while time.monotonic() - began < 12:
            started = time.monotonic()
            async with http.get(
                f"{bot.http_url()}/healthz", timeout=aiohttp.ClientTimeout(total=1)
            ) as answer:
                assert answer.status == 200
            assert time.monotonic() - started < 1
            await asyncio.sleep(0.5)
    # None of the slow connections is still open (the server closed them all).
    still_open = 0
    for reader, writer in slow:
        try:
            async with asyncio.timeout(0.05):
                while await reader.read(1024):
                    pass
        except TimeoutError:
            still_open += 1
        except ConnectionError:
            pass
        writer.close()
    assert still_open == 0
    log = bot.log()
    assert "out of system resource" not in log and "Traceback" not in log
    assert len(log.splitlines()) < 100, log[-3000:]
    assert "HTTP server turned away" in log


async def test_telegram_unreachable_at_start_is_one_line_and_exit_2_after_the_patience(
    fake: FakeBotApi, make_bot: Callable[..., BotProcess]
) -> None:
    env = make_bot().environment()
    env["CUCKOO_API_BASE_URL"] = f"http://127.0.0.1:{free_port()}/bot"  # nothing listens there
    env["CUCKOO_START_TIMEOUT"] = "3"
    code, text, said = await run_to_its_end(env)
    assert code == 2, text
    assert len(said) == 1 and "Telegram did not answer at start" in said[0], text
    assert "Traceback" not in text and TOKEN.split(":")[1] not in text, text
