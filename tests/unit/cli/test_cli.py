"""The command line as an operator meets it: a missing or malformed setting is one line naming
the variable, with exit status 2, before anything starts; ``healthcheck`` asks the running
bot's /healthz."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from aiohttp import web

from cuckoo_bot.__main__ import DEMO_NEEDS_SOURCE, _demo, main
from tests.support.demo import free_port

TOKEN = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    for name in list(os.environ):
        if name.startswith("CUCKOO_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(str(tmp_path))  # no .env file of the developer's


@pytest.mark.parametrize(
    ("env", "named", "words"),
    [
        ({}, "CUCKOO_BOT_TOKEN", "is not set"),
        ({"CUCKOO_BOT_TOKEN": "nonsense"}, "CUCKOO_BOT_TOKEN", "does not look like"),
        (
            {"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_WEBHOOK_URL": "https://bot.example.org/tg"},
            "CUCKOO_WEBHOOK_SECRET",
            "is not set",
        ),
        (
            {
                "CUCKOO_BOT_TOKEN": TOKEN,
                "CUCKOO_WEBHOOK_URL": "https://bot.example.org/tg",
                "CUCKOO_WEBHOOK_SECRET": "has spaces and ümlauts",
            },
            "CUCKOO_WEBHOOK_SECRET",
            "A-Z, a-z, 0-9, _ and -",
        ),
        ({"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_WEBHOOK_URL": "bot.example.org"}, "WEBHOOK_URL", ""),
        ({"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_PORT": "99999"}, "CUCKOO_PORT", "65535"),
        ({"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_LOG_FORMAT": "xml"}, "CUCKOO_LOG_FORMAT", "json"),
        ({"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_PUBLIC_URL": "bot.example.org"}, "PUBLIC_URL", ""),
        # Telegram opens a Mini App only from HTTPS on a public host name...
        (
            {"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_PUBLIC_URL": "http://cards.example.org"},
            "PUBLIC_URL",
            "HTTPS",
        ),
        (
            {"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_PUBLIC_URL": "https://cards"},
            "PUBLIC_URL",
            "public host name",
        ),
        (
            {"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_PUBLIC_URL": "http://127.0.0.1:8080"},
            "PUBLIC_URL",
            "HTTPS",
        ),
        # ...and posts webhooks only over HTTPS to ports 443, 80, 88 and 8443.
        (
            {
                "CUCKOO_BOT_TOKEN": TOKEN,
                "CUCKOO_WEBHOOK_URL": "http://bot.example.org/tg",
                "CUCKOO_WEBHOOK_SECRET": "s3cret",
            },
            "WEBHOOK_URL",
            "HTTPS",
        ),
        (
            {
                "CUCKOO_BOT_TOKEN": TOKEN,
                "CUCKOO_WEBHOOK_URL": "https://bot.example.org:8080/tg",
                "CUCKOO_WEBHOOK_SECRET": "s3cret",
            },
            "WEBHOOK_URL",
            "443, 80, 88 or 8443, not 8080",
        ),
        ({"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_WEBAPP_NAME": "a b"}, "WEBAPP_NAME", "short name"),
        ({"CUCKOO_BOT_TOKEN": TOKEN, "CUCKOO_INIT_DATA_MAX_AGE": "0"}, "INIT_DATA_MAX_AGE", ""),
    ],
)
def test_a_bad_setting_is_one_line_naming_it_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    named: str,
    words: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["run"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert named in err.upper() and words in err, err
    assert TOKEN not in err


def test_a_database_that_cannot_be_reached_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(
        "CUCKOO_DATABASE_URL", "postgresql+asyncpg://cuckoo:hunter2@127.0.0.1:9/nowhere"
    )
    assert main(["migrate"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("cuckoo-bot: CUCKOO_DATABASE_URL"), err
    assert "hunter2" not in err


async def test_healthcheck_asks_the_bot_on_its_port(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = 200

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response(
            {"status": "ok" if answer == 200 else "unavailable"}, status=answer
        )

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = int(runner.addresses[0][1])
    try:
        monkeypatch.setenv("CUCKOO_PORT", str(port))
        assert await asyncio.to_thread(main, ["healthcheck"]) == 0
        answer = 503
        assert await asyncio.to_thread(main, ["healthcheck"]) == 1
    finally:
        await runner.cleanup()
    assert await asyncio.to_thread(main, ["healthcheck"]) == 1  # nothing listens any more
    assert "unhealthy" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["migrate", "run"])
def test_a_read_only_database_is_one_line_naming_the_file_and_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
) -> None:
    path = tmp_path / "cuckoo.db"
    monkeypatch.setenv("CUCKOO_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("CUCKOO_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    assert main(["migrate"]) == 0  # up to date: migrating again would write nothing
    capsys.readouterr()
    # The same file opened read-only (tests run as any user, root included, so not chmod).
    monkeypatch.setenv("CUCKOO_DATABASE_URL", f"sqlite+aiosqlite:///file:{path}?mode=ro&uri=true")
    assert main([command]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]  # after ``run``'s start-up log
    said = f"cannot use the file {path}: attempt to write a readonly database"
    assert last == f"cuckoo-bot: CUCKOO_DATABASE_URL: {said}"


@pytest.mark.parametrize("port", ["", ":443", ":80", ":88", ":8443"])
def test_a_webhook_on_a_port_telegram_posts_to_is_taken(
    monkeypatch: pytest.MonkeyPatch, port: str
) -> None:
    from cuckoo_bot.config import Settings

    monkeypatch.setenv("CUCKOO_WEBHOOK_URL", f"https://bot.example.org{port}/tg")
    assert Settings().webhook_url == f"https://bot.example.org{port}/tg"


def test_only_the_demo_serves_its_live_table_over_http_on_the_loopback() -> None:
    from pydantic import ValidationError

    from cuckoo_bot.config import Settings
    from tests.support.demo import DemoSettings

    assert DemoSettings(public_url="http://127.0.0.1:8080").public_base() == (
        "http://127.0.0.1:8080"
    )
    for elsewhere in ("http://10.0.0.5:8080", "http://localhost:8080", "http://cards.example.org"):
        with pytest.raises(ValidationError):
            DemoSettings(public_url=elsewhere)
    with pytest.raises(ValidationError):
        Settings(public_url="http://127.0.0.1:8080")


def test_the_http_server_listens_on_the_loopback_when_polling_unless_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cuckoo_bot.config import Settings

    assert Settings().listen_address() == "127.0.0.1"  # polling: nothing outside needs it
    monkeypatch.setenv("CUCKOO_WEBHOOK_URL", "https://bot.example.org/tg")
    assert Settings().listen_address() == "0.0.0.0"  # Telegram must reach the webhook
    monkeypatch.setenv("CUCKOO_LISTEN", "10.0.0.5")
    assert Settings().listen_address() == "10.0.0.5"


def test_the_live_table_is_at_the_public_url_else_the_webhooks_origin_else_nowhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cuckoo_bot.config import Settings

    assert Settings().public_base() is None  # polling, no public URL: no live table
    monkeypatch.setenv("CUCKOO_PUBLIC_URL", "https://cards.example.org/")
    assert Settings().public_base() == "https://cards.example.org"
    assert Settings().listen_address() == "0.0.0.0"  # its players must reach it
    monkeypatch.setenv("CUCKOO_WEBHOOK_URL", "https://bot.example.org:8443/tg/update")
    assert Settings().public_base() == "https://cards.example.org"
    monkeypatch.setenv("CUCKOO_PUBLIC_URL", " ")
    assert Settings().public_base() == "https://bot.example.org:8443"
    assert Settings().init_data_max_age == 3600


@pytest.mark.slow  # a second a private message, as Telegram allows: about 15 s
def test_the_demo_plays_a_whole_game_from_the_source_checkout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--players", "3", "--seed", "7"]) == 0
    shown = capsys.readouterr().out
    assert "=== The group 'Cuckoo night' ===" in shown
    assert "=== Alice's private chat with the bot ===" in shown
    assert "🏆" in shown and "Bot API calls (without polling):" in shown


def test_without_the_source_checkout_the_demo_says_how_to_run_it(tmp_path: Path) -> None:
    assert _demo(tmp_path) is None  # an installed wheel: no fake Bot API beside the package
    assert "from a checkout" in DEMO_NEEDS_SOURCE and "pip install -e ." in DEMO_NEEDS_SOURCE


@pytest.mark.slow
async def test_the_web_demo_prints_a_signed_link_per_player_that_opens_their_table() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cuckoo_bot",
        "demo",
        "--web",
        "--players",
        "3",
        "--seed",
        "3",
        "--port",
        str(port),
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    links: dict[str, str] = {}
    try:
        async with asyncio.timeout(60):
            while (line := (await process.stdout.readline()).decode()) and "Ctrl-C" not in line:
                if found := re.match(r"\s+(\w+)(?: \(watching\))?: (http\S+)", line):
                    links[found.group(1)] = found.group(2)
        assert set(links) == {"Alice", "Bob", "Carol", "Wendy"}
        async with aiohttp.ClientSession() as session:
            for name, link in links.items():
                url = urlsplit(link)
                assert url.netloc == f"127.0.0.1:{port}" and url.path == "/app"
                init_data = parse_qs(url.fragment)["tgWebAppData"][0]
                async with session.get(
                    f"http://127.0.0.1:{port}/app/api/table",
                    params={"game": parse_qs(url.query)["game"][0]},
                    headers={"Authorization": f"tma {init_data}"},
                ) as response:
                    assert response.status == 200, name
                    view = await response.json()
                assert (view["viewer"] is None) == (name == "Wendy")
                assert view["status"] == "running"
            async with session.get(link.split("#")[0]) as page:
                assert page.status == 200 and "text/html" in page.headers["Content-Type"]
    finally:
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 20) == 0


def test_the_web_demo_on_a_port_in_use_says_so_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["demo", "--web", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"port {port} is in use" in err and "Traceback" not in err


async def test_the_solo_web_demo_seats_one_person_against_computers_with_one_link() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "cuckoo_bot", "demo", "--web", "--solo", "--players", "4", "--seed", "5"),
        *("--port", str(port)),
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    links: list[str] = []
    try:
        async with asyncio.timeout(60):
            while (line := (await process.stdout.readline()).decode()) and "Ctrl-C" not in line:
                links += re.findall(r"http\S+", line)
        assert len(links) == 1  # one window for one person
        url = urlsplit(links[0])
        init_data = parse_qs(url.fragment)["tgWebAppData"][0]
        async with (
            aiohttp.ClientSession() as session,
            session.get(
                f"http://127.0.0.1:{port}/app/api/table",
                params={"game": parse_qs(url.query)["game"][0]},
                headers={"Authorization": f"tma {init_data}"},
            ) as response,
        ):
            assert response.status == 200
            view = await response.json()
        players = [seat["player"] for seat in view["seats"]]
        assert len(players) == 4 and view["viewer"] in players
        assert sum(p < 0 for p in players) == 3  # the other three are computer seats
        # the computers have played up to the person: it is their turn, or the round is on
        assert view["status"] == "running"
    finally:
        process.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(process.wait(), 20) == 0
