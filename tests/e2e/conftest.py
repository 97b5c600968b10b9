"""End-to-end: the real bot process (``python -m cuckoo_bot run``) against the fake Bot API.

The fake server runs in the test's event loop on 127.0.0.1; the bot is a subprocess pointed at
it with ``CUCKOO_API_BASE_URL``, on a fresh SQLite or PostgreSQL database, and is killed with
SIGKILL when a test wants a crash. Every other stop, teardown's included, is SIGTERM awaited in
the test's loop (the fake must answer the stopping bot); one that needs SIGKILL fails the test.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import resource
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from cuckoo_bot.app.league import season_of
from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.domain.engine import apply, new_game
from cuckoo_bot.domain.events import Revealed, RoundDealt
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.uow import sql_uow_factory
from cuckoo_bot.transport.render import card_label
from fakebotapi import FakeBotApi
from fakebotapi.models import CallRecord
from tests.support.driver import MOVE_KINDS, TableDriver

TOKEN = "424242:E2E-test-token-for-the-fake-bot-api"
BOT_USERNAME = "cuckoo_e2e_bot"
GROUP = -1001000000001
# How long a graceful stop may take, SIGTERM to exit: what the bot promises (README: 10 s).
STOP_WITHIN = 10.0

log = logging.getLogger(__name__)


class BotProcess:
    """The bot as a child process; ``start``/``kill`` as often as a test likes."""

    def __init__(self, fake: FakeBotApi, database_url: URL, log_path: Path, **env: str) -> None:
        self.fake = fake
        self.database_url = database_url
        self.log_path = log_path
        self.extra_env = env
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.open_files: int | None = None  # the process's file limit, as ``prlimit`` sets it

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CUCKOO_")}
        env.update(
            CUCKOO_BOT_TOKEN=TOKEN,
            CUCKOO_API_BASE_URL=self.fake.base_url,
            CUCKOO_DATABASE_URL=self.database_url.render_as_string(hide_password=False),
            CUCKOO_TURN_TIMEOUT="600",
            # Whole games in seconds: no pause at the reveals (a test that looks at it sets it).
            CUCKOO_REVEAL_PAUSE="0",
            CUCKOO_LOG_LEVEL="INFO",
            # Its own HTTP server on a free port of the loopback (several bots run at once).
            CUCKOO_LISTEN="127.0.0.1",
            CUCKOO_PORT="0",
        )
        if not self.fake.world.flood.automatic:  # Telegram's limits off: the bot's budget too
            env["CUCKOO_GROUP_RATE"] = "100000"
        env.update(self.extra_env)
        return env

    async def start(self) -> None:
        before = self.fake.call_count("setMyCommands")
        log = self.log_path.open("ab")
        limit = self.open_files
        self.process = subprocess.Popen(  # noqa: ASYNC220 - returns at once; waits are bounded
            [sys.executable, "-m", "cuckoo_bot", "run"],
            env=self.environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=(
                (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)))
                if limit
                else None
            ),
        )
        self.starts += 1
        # Ready once start-up registered the commands (6 calls); polling starts right after.
        await self.fake.wait_for(lambda: self.fake.call_count("setMyCommands") >= before + 6, 60)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no cleanup, as a crash or ``kill -9``."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None

    async def stop(self, within: float = STOP_WITHIN) -> int | None:
        """SIGTERM, as a deploy stops it, and wait for the graceful stop; its exit code (None if
        it was not running). The wait lets the event loop run: the fake Bot API it serves must
        answer the stopping bot. A bot still running ``within`` seconds after SIGTERM is killed
        (SIGKILL) and the test fails: a stop that needs SIGKILL is a defect, never hidden."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return None
        process.send_signal(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        sent = loop.time()
        killed = False
        while process.poll() is None:
            if not killed and loop.time() - sent > within:
                process.kill()
                killed = True
            await asyncio.sleep(0.05)
        if killed:
            name = self.log_path.name
            log.error("%s: still running %s s after SIGTERM, killed with SIGKILL", name, within)
            raise AssertionError(
                f"{name}: still running {within} s after SIGTERM (killed with SIGKILL);"
                f" the end of its log:\n{self.log()[-3000:]}"
            )
        log.info(
            "%s stopped %.2f s after SIGTERM (exit code %s)",
            self.log_path.name,
            loop.time() - sent,
            process.returncode,
        )
        return process.returncode

    async def terminate(self, within: float = STOP_WITHIN) -> int:
        """``stop`` a bot that must be running; its exit code."""
        assert self.process is not None and self.process.poll() is None, "not running"
        code = await self.stop(within)
        assert code is not None
        return code

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def http_url(self) -> str:
        """Where this run's /healthz and /metrics answer (the port it logged at start)."""
        found = re.findall(r"serving /healthz and /metrics on ([\d.]+):(\d+)", self.log())
        assert found, self.log()[-2000:]
        host, port = found[-1]
        return f"http://{host}:{port}"


# Telegram gives up on a tap left unanswered this long ("query is too old").
TAP_WINDOW = 15.0


def telegram(**options: object) -> FakeBotApi:
    """The fake Bot API as strict as Telegram: its limits on (20 calls a minute in a group,
    one message a second in a private chat, 30 a second overall, each answered 429 with the
    seconds to wait), a tap's answer refused after Telegram's window. A test that needs it
    looser says so (``rate_limit=False``) and why."""
    settings: dict[str, object] = {
        "token": TOKEN,
        "bot_username": BOT_USERNAME,
        "rate_limit": True,
        "callback_query_timeout": TAP_WINDOW,
    }
    settings.update(options)
    return FakeBotApi(**settings)  # type: ignore[arg-type]


@pytest.fixture
async def fake(request: pytest.FixtureRequest) -> AsyncIterator[FakeBotApi]:
    """Telegram as strict as it is, unless the test is marked ``telegram_loose(why)``: then
    without its limits (and the bot without its group budget, ``BotProcess``)."""
    loose = request.node.get_closest_marker("telegram_loose")
    if loose is not None and not (loose.args and str(loose.args[0]).strip()):
        raise ValueError("telegram_loose needs a reason")
    async with telegram(rate_limit=loose is None) as server:
        yield server


async def stop_all(bots: Iterable[BotProcess]) -> None:
    """``stop`` several bots at once (each gets SIGTERM at once; the waits overlap)."""
    stopped = await asyncio.gather(*(bot.stop() for bot in bots), return_exceptions=True)
    for outcome in stopped:
        if isinstance(outcome, BaseException):
            raise outcome


@pytest.fixture
async def make_bot(
    fake: FakeBotApi, database_url: URL, tmp_path: Path
) -> AsyncIterator[Callable[..., BotProcess]]:
    made: list[BotProcess] = []

    def make(**env: str) -> BotProcess:
        bot = BotProcess(fake, database_url, tmp_path / f"bot{len(made)}.log", **env)
        made.append(bot)
        return bot

    try:
        yield make
    finally:
        try:
            await stop_all(made)  # in the test's loop, while the fake Bot API still answers
        finally:
            if os.environ.get("CUCKOO_E2E_SHOW_LOG"):
                for bot in made:
                    print(bot.log())


@pytest.fixture
async def bot(make_bot: Callable[..., BotProcess]) -> BotProcess:
    process = make_bot()
    await process.start()
    return process


@pytest.fixture
def table(fake: FakeBotApi) -> TableDriver:
    return TableDriver(fake, GROUP)


def stall_report(what: str, fake: FakeBotApi, bot: BotProcess, chats: Iterable[int]) -> str:
    """What a stalled game looked like: every chat's transcript and the end of the bot's log."""
    shown = "\n\n".join(f"--- chat {chat}\n{fake.transcript(chat)}" for chat in chats)
    return f"{what}\n{shown}\n--- calls\n{timeline(fake)}\n--- bot log\n{bot.log()[-8000:]}"


def timeline(fake: FakeBotApi, last: int = 80) -> str:
    """The newest Bot API calls, each with how long ago it was made: when a game stalled."""
    now = fake.world.clock()
    lines = []
    for call in fake.calls()[-last:]:
        params = call.params
        where = params.get("chat_id", params.get("callback_query_id", ""))
        what = params.get("message_id", "")
        answer = "ok" if call.ok else f"{call.status} {call.description or ''}"
        said = params.get("text") if call.method == "answerCallbackQuery" else None
        told = f" {said!r}" if said else ""  # what the presser read: a refusal shows here
        lines.append(f"{call.time - now:8.2f}s {call.method} {where} {what} {answer}{told}")
    return "\n".join(lines)


def _answer(call: CallRecord) -> str:
    if not call.ok:
        return f"{call.status} {call.description}"
    sent = call.result.get("message_id") if isinstance(call.result, dict) else None
    return f"ok {sent or ''}"


def keys_report(fake: FakeBotApi, bot: BotProcess, live: list[tuple[int, int, str | None]]) -> str:
    """Messages left with move keys: each one's calls (its send, its edits) and its chat's
    transcript, then the end of the bot's log, so a failure says how the keys were left."""
    parts = []
    for chat, message_id, _ in live:
        calls = [
            f"{c.time:.2f} {c.method} {c.params.get('message_id', '')} {_answer(c)}"
            for c in fake.calls()
            if str(c.params.get("chat_id")) == str(chat)
        ]
        parts.append(f"--- chat {chat}, message {message_id} keeps keys\n" + "\n".join(calls))
        parts.append(fake.transcript(chat))
    return "\n".join(parts) + f"\n--- bot log\n{bot.log()[-12000:]}"


async def settle(fake: FakeBotApi) -> None:
    await fake.wait_idle(quiet=0.3, timeout=15)


@asynccontextmanager
async def reading(database_url: URL) -> AsyncIterator[UnitOfWork]:
    """A read-only look at the bot's store from the test (the bot may be running)."""
    engine = make_engine(database_url)
    try:
        async with sql_uow_factory(engine)(read_only=True) as uow:
            yield uow
    finally:
        await engine.dispose()


async def held_in_store(database_url: URL, chat_id: int, player: int) -> str:
    """The card the store says ``player`` holds in the chat's running game, as players see it."""
    async with reading(database_url) as uow:
        game = await uow.games.open_in_chat(chat_id)
    assert game is not None and game.state is not None and game.state.round is not None
    assert game.state.actor == player, (game.state.turn, game.state.actor, player)
    return card_label(game.state.round.card_of(player).code)


async def points_in_store(database_url: URL, chat_id: int, players: list[int]) -> dict[int, int]:
    """The players' points in the chat's table this month, as the store has them."""
    async with reading(database_url) as uow:
        rows = await uow.standings.get_many(chat_id, season_of(datetime.now(UTC)), players)
    return {player: row.points for player, row in rows.items()}


async def reveals_in_store(database_url: URL, game_id: int) -> list[dict[int, str]]:
    """Each reveal of a game, from its stored log: player -> card as players see it."""
    async with reading(database_url) as uow:
        log = await uow.games.log(game_id)
    return [
        {p: card_label(c.code) for p, c in zip(e.order, e.cards, strict=True)}
        for entry in log
        for e in entry.events
        if isinstance(e, Revealed)
    ]


async def audit_finished_games(database_url: URL, chats: Iterable[int]) -> list[Game]:
    """Every finished game of these chats, checked against its log: the log replays through
    the rules engine event for event to the stored state, and no move was applied twice
    (the turns of the players' moves strictly increase)."""
    async with reading(database_url) as uow:
        games = [g for chat in chats for g in await uow.games.finished_in_chat(chat, limit=50)]
        logs = {game.id: await uow.games.log(game.id) for game in games}
    for game in games:
        assert game.status is GameStatus.FINISHED and game.state is not None
        log = logs[game.id]
        dealt = next(e for entry in log for e in entry.events if isinstance(e, RoundDealt))
        state = new_game(game.seats, game.rules, dealt.dealer)
        moves = []
        for entry in log:
            if entry.action is None:
                continue
            state, events = apply(state, entry.action)
            assert events == entry.events, (game.id, entry)
            turn = getattr(entry.action, "turn", None)
            if entry.actor is not None and turn is not None:
                moves.append(turn)
        assert state == game.state, game.id
        assert moves == sorted(set(moves)), f"a move of game {game.id} was applied twice"
    return games


async def live_key_rows(
    database_url: URL, game_ids: Iterable[int], *, within: float = 0.0
) -> list[tuple[int, int]]:
    """(game, notice) of every outbox row that says its message still shows keys. With
    ``within``, asked again until there are none or that many seconds have passed: the mark of
    an edit is written just after Telegram answers it, so a test that saw the keys go in the
    chat gives the store that moment."""
    games = list(game_ids)
    loop = asyncio.get_running_loop()
    until = loop.time() + within
    while True:
        async with reading(database_url) as uow:
            rows = [
                (game_id, sent.notice.id)
                for game_id in games
                for sent in await uow.messages.sent(game_id)
                if sent.live_keys
            ]
        if not rows or loop.time() >= until:
            return rows
        await asyncio.sleep(0.1)


def live_move_keys(fake: FakeBotApi, chats: Iterable[int]) -> list[tuple[int, int, str | None]]:
    """Messages that still offer a move key (chat, message id, text): none may be left once
    their turns are over."""
    return [
        (chat, m.message_id, m.text)
        for chat in chats
        for m in fake.messages(chat, include_deleted=False)
        if m.from_bot and any(d.split(":")[1] in MOVE_KINDS for d in m.callback_datas)
    ]
