"""The live table under load: 200 open pages on 20 running games. How long a move takes to reach
every page of its game, what an open page costs the bot in memory, and how many Bot API calls
a press makes when half the players press on the page and half in the chat.

The real bot process (``python -m cuckoo_bot run``, with ``CUCKOO_PUBLIC_URL`` set, so it serves
the live table on its own HTTP server) plays against the project's fake Bot API. Twenty groups
each start a game of ten players (``--seats`` fewer: the other pages are group members watching);
then every player opens the table's event stream (``GET /app/api/events``, Server-Sent Events),
one connection each, all in this process. Then all games move at once, each one move at a time:
a seat of the page half presses on its page (``POST /app/api/move``), one of the other half
presses its private prompt's key in the chat. The figure of a move is, for each page of its
game, the time from sending the press to the page having read the first view with a newer
version (and, apart, to the bot having made that view: the view's ``now``). A game's next move
waits until every page has it and the next prompt has reached the chat: pushes go out faster
than Telegram lets one bot talk (30 calls a second in all), so without that wait the chat would
fall ever further behind. With ``--think`` each player takes that long (+-50 %, at random) to
press once prompted; without it the games move as fast as Telegram's limit allows.

A few moves are then made one at a time (``--alone``), each after the bot has fallen quiet, so
that every Bot API call naming one of the game's chats is that press's (all games at once, a
call is counted for the move its game is at, which is close but not exact). Figures are
printed; nothing is asserted:

- push latency: median, p90, p99 and worst over every (move, page) pair, by where it was pressed;
- memory: the bot's resident set (``VmRSS``) before any page is open and with all of them open;
- Bot API calls per press, page and chat apart: calls naming a chat, ``answerCallbackQuery``
  (a page's press must cause none) and ``getChatMember`` (asked for a watching page's viewer);
- hidden cards: views that showed a page another seat's card before its reveal (must be none);
- CPU of the bot, of this process and of PostgreSQL while all games move.

Run: ``python -m benchmarks.live [--games 20] [--pages 200] [--seats 10] [--moves 400]
[--alone 40] [--think 0] [--postgres-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy.engine import make_url

from benchmarks.botprocess import BotProcess
from benchmarks.databases import drop_postgres, fresh_postgres
from cuckoo_bot.persistence import migrate
from fakebotapi import FakeBotApi
from fakebotapi.models import CallRecord
from tests.support.driver import Prompt, TableDriver, choose
from tests.support.webapp import TablePage, hidden_cards_shown, sign_init_data

TOKEN = "616161:LIVE-token-for-the-fake-bot-api"
PUBLIC = "https://cuckoo.example.org"
FIRST_GROUP = -1005000000001
WAIT = 10.0  # seconds a page may take to get a move before it counts as missed
SLOW = 0.3  # seconds: the p99 for a move to reach every page
PROMPT_WAIT = 60.0  # seconds the next prompt may take to reach the chat
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
KINDS = {"k": "keep", "s": "swap", "c": "cut"}


@dataclass
class Move:
    kind: str  # "page" or "chat"
    sent: float  # time.time() when the press left
    calls: Counter[str] = field(default_factory=Counter)  # Bot API calls naming the game's chats
    answers: int = 0  # answerCallbackQuery for this press
    latencies: list[float] = field(default_factory=list)  # sent -> read, one a page
    made: list[float] = field(default_factory=list)  # sent -> the view's "now" (the bot's part)
    missed: int = 0  # pages that did not get it within WAIT
    ends_round: bool = False  # the press that ended its round (its results go to every seat)


class Page:
    """One open page: its event stream, read in a task; every view it gets is checked."""

    def __init__(self, game: Game, api: TablePage, user: int, seated: bool) -> None:
        self.game, self.api, self.user, self.seated = game, api, user, seated
        self.view: dict[str, Any] | None = None
        self.arrived: dict[int, tuple[float, float]] = {}  # version -> (read, made) at
        self.views = 0
        self.leaks = 0  # views showing another seat's card before the reveal
        self.problems: list[str] = []  # stream ends and refusals
        self.task: asyncio.Task[None] | None = None

    @property
    def version(self) -> int:
        return -1 if self.view is None else int(self.view["version"])

    async def read(self) -> None:
        """Read the stream for ever, coming back (after the last version seen) when it ends."""
        while True:
            try:
                after = None if self.view is None else self.version
                async with self.api.events(self.game.id, after=after) as views:
                    async for view in views:
                        self.receive(view)
                self.problems.append("stream ended")
            except (aiohttp.ClientError, AssertionError, TimeoutError) as problem:
                self.problems.append(f"{type(problem).__name__}: {str(problem)[:200]}")
            await asyncio.sleep(1.0)

    def receive(self, view: dict[str, Any]) -> None:
        now = time.time()
        self.views += 1
        expected = self.user if self.seated else None
        if view.get("viewer") != expected or hidden_cards_shown(view):
            self.leaks += 1
        if view["version"] > self.version:
            made = datetime.fromisoformat(view["now"]).timestamp()
            self.arrived.setdefault(int(view["version"]), (now, made))
            self.view = view
        self.game.wake.set()

    def first_after(self, version: int) -> tuple[float, float] | None:
        """When the first view newer than ``version`` was read, and made by the bot."""
        return min((t for v, t in self.arrived.items() if v > version), default=None)


class Game:
    """One group's game: its players, its pages, and the moves made in it."""

    def __init__(self, fake: FakeBotApi, index: int, seats: int, pages: int) -> None:
        self.fake = fake
        self.group = FIRST_GROUP - index
        self.members = [60000 + 100 * index + i for i in range(max(seats, pages))]
        self.seats = self.members[:seats]
        self.on_page = set(self.seats[0::2])  # half the seats press on the page
        self.table = TableDriver(fake, self.group)
        self.id = 0
        self.pages: list[Page] = []
        self.wake = asyncio.Event()
        self.current: Move | None = None  # the move the game's chats' calls now count for
        self.problems: list[str] = []
        self.rng = random.Random(index)  # how long its players take to press (``--think``)

    def chats(self) -> set[str]:
        return {str(self.group), *(str(m) for m in self.members)}

    async def start(self) -> None:
        for user in self.members:
            self.fake.add_user(user, f"P{user}", language_code="en", started=True)
        self.fake.add_group(
            self.group, f"Club {self.group}", type="supergroup", members=self.members
        )
        await self.table.start_game(self.seats[0], self.seats, wait=60)
        message = self.table.table()
        assert message is not None
        data = next(d for d in message.callback_datas if d.startswith("1:m:"))
        self.id = int(data.split(":")[2])

    def latest(self) -> dict[str, Any]:
        views = [p.view for p in self.pages if p.view is not None]
        return max(views, key=lambda view: int(view["version"]))

    def running(self) -> bool:
        view = self.latest()
        return bool(view["status"] == "running" and view["actor"] is not None)

    async def everyone_after(self, version: int, limit: float) -> None:
        """Until every page has read a view newer than ``version`` (at most ``limit`` s)."""
        deadline = time.monotonic() + limit
        while True:
            self.wake.clear()
            if all(p.version > version for p in self.pages):
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), remaining)

    async def prompt_of(self, actor: int, turn: int) -> Prompt:
        """The actor's private prompt for this turn, once the bot has sent it."""

        def find() -> Prompt | None:
            for message in reversed(self.fake.dm(actor)):
                if message.from_bot and not message.deleted:
                    prompt = Prompt(message, actor)
                    if prompt.keys and prompt.order == (self.id, turn):
                        return prompt
            return None

        return await self.fake.wait_for(find, PROMPT_WAIT)

    async def move(self, answers: dict[str, Move]) -> Move | None:
        """The actor's move, on their page or in the chat; done once every page has it and
        the next prompt is in the chat (None: the page's move was refused)."""
        view = self.latest()
        actor, before = int(view["actor"]), int(view["version"])
        if actor in self.on_page:
            page = next(p for p in self.pages if p.user == actor)
            mine = page.view
            if mine is None or not mine["options"]:
                self.problems.append("the actor's page shows no keys")
                await asyncio.sleep(0.5)
                return None
            move = pick(mine)
            self.current = made = Move("page", time.time())
            async with asyncio.timeout(WAIT):
                status, answer = await page.api.move(mine, move)
            if status != 200:
                self.problems.append(f"page move refused: {status} {answer.get('reply')!r}")
                return None
        else:
            prompt = await self.prompt_of(actor, int(view["turn"]))
            dealer = prompt.data("c") is not None
            kind = choose(self.table.card_of(actor), dealer, len(self.seats))
            data = prompt.data(kind) or prompt.data("k")
            assert data is not None
            self.current = made = Move("chat", time.time())
            # TableDriver.press, keeping the query's id: its answer counts for this press.
            message = prompt.message
            query = self.fake.press_button(actor, message.chat_id, message.message_id, data)
            answers[query] = made
            await self.fake.wait_callback_answer(query, WAIT)
        await self.everyone_after(before, WAIT)
        for page in self.pages:
            arrived = page.first_after(before)
            if arrived is None:
                made.missed += 1
            else:
                made.latencies.append(arrived[0] - made.sent)
                made.made.append(arrived[1] - made.sent)
        made.ends_round = self.latest()["round"] != view["round"]
        if self.running():
            after = self.latest()
            await self.prompt_of(int(after["actor"]), int(after["turn"]))
        return made

    async def play(
        self, budget: list[int], answers: dict[str, Move], moves: list[Move], think: float
    ) -> None:
        """Move until the shared budget is spent (or the game is over), each player taking
        ``think`` seconds to press once prompted."""
        while budget[0] > 0 and self.running():
            budget[0] -= 1
            await asyncio.sleep(think * self.rng.uniform(0.5, 1.5))
            try:
                made = await self.move(answers)
            except TimeoutError:
                self.problems.append("no prompt in the chat within 60 s: game left")
                return
            if made is not None:
                moves.append(made)


def pick(view: dict[str, Any]) -> str:
    """A person's simple habit (``driver.choose``), on the page's own card and keys."""
    options: list[str] = view["options"]
    seat = next(s for s in view["seats"] if s["player"] == view["viewer"])
    card = seat["card"]
    label = None if card is None else card[:-1] + SUITS[card[-1]]
    move = KINDS[choose(label, "cut" in options, len(view["seats"]))]
    return move if move in options else options[0]


class Ledger:
    """Every Bot API call, as the fake records it, counted for the move it belongs to."""

    def __init__(self, games: Sequence[Game]) -> None:
        self.game_of = {chat: game for game in games for chat in game.chats()}
        self.answers: dict[str, Move] = {}  # callback query -> the chat press it answers
        self.stray_answers = 0
        self.members_asked: Counter[str] = Counter()  # getChatMember calls, by phase
        self.phase = "games starting"
        self.counting = False

    def __call__(self, event: str, payload: Any) -> None:
        if event != "call" or not isinstance(payload, CallRecord):
            return
        if payload.method == "getChatMember":
            self.members_asked[self.phase] += 1
        if not self.counting:
            return
        if payload.method == "answerCallbackQuery":
            press = self.answers.get(str(payload.params.get("callback_query_id")))
            if press is None:
                self.stray_answers += 1
            else:
                press.answers += 1
            return
        game = self.game_of.get(str(payload.params.get("chat_id")))
        if game is not None and game.current is not None:
            game.current.calls[payload.method] += 1


def postgres_cpu() -> float:
    """CPU seconds of the PostgreSQL server's processes on this machine (0 if none)."""
    total = 0
    for process in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if (process / "comm").read_text().strip() == "postgres":
                fields = (process / "stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def raise_file_limit(need: int) -> None:
    """The bot takes a quarter of its file limit for connections: let it have ``need``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 4 * need:
        wanted = 4 * need if hard == resource.RLIM_INFINITY else min(hard, 4 * need)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def spread(figures: Sequence[float]) -> str:
    if not figures:
        return "no figures"
    ordered = sorted(figures)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]

    return (
        f"median {1000 * statistics.median(ordered):.0f} ms, p90 {1000 * at(0.9):.0f} ms,"
        f" p99 {1000 * at(0.99):.0f} ms, max {1000 * ordered[-1]:.0f} ms ({len(ordered)} pairs)"
    )


async def settle(fake: FakeBotApi, quiet: float = 0.5) -> None:
    """Until the bot has made no Bot API call for ``quiet`` seconds (at most 60 s)."""
    with contextlib.suppress(TimeoutError):
        await fake.wait_idle(quiet=quiet, timeout=60)


@dataclass
class Figures:
    moves: int  # moves all games at once, in all
    alone_moves: int  # then moves one at a time
    think: float  # seconds a player takes to press, all games at once
    together: list[Move] = field(default_factory=list)  # all games at once
    alone: list[Move] = field(default_factory=list)  # one move at a time, each call counted
    played: float = 0.0  # seconds the moves all at once took
    cpu: float = 0.0  # the bot's CPU seconds meanwhile
    harness_cpu: float = 0.0  # this process's (the pages, the fake Bot API, the players)
    postgres_cpu: float = 0.0  # the PostgreSQL server's, if it runs here
    rss: tuple[int, int, int] = (0, 0, 0)  # KB: no page open, all open, after the moves
    view_bytes: int = 0  # one view's JSON


async def bench(
    url: str,
    folder: Path,
    games: int,
    pages: int,
    seats: int,
    moves: int,
    alone: int,
    think: float,
) -> None:
    per_game = pages // games
    seats = min(seats, per_game)
    raise_file_limit(pages + 256)
    figures = Figures(moves, alone, think)
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_live_bot") as fake:
        tables = [Game(fake, g, seats, per_game) for g in range(games)]
        ledger = Ledger(tables)
        fake.subscribe(ledger)
        bot = BotProcess(
            fake,
            TOKEN,
            url,
            folder / "bot.log",
            CUCKOO_PUBLIC_URL=PUBLIC,
            CUCKOO_GROUP_RATE="100000",  # the fake has no limits on: no budget waits here
            CUCKOO_REVEAL_PAUSE="0",
        )
        opened: list[Page] = []
        try:
            base = await bot.start()
            timeout = aiohttp.ClientTimeout(total=None, sock_connect=10)
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
                try:
                    await measure(fake, bot, base, session, tables, ledger, figures, opened)
                    # A deploy stops the bot with pages open: how long does it take?
                    problems = Counter(x for p in opened for x in p.problems)
                    problems.update(x for t in tables for x in t.problems)
                    began = time.monotonic()
                    code = await bot.stop()
                    stopped = time.monotonic() - began
                finally:
                    for page in opened:
                        if page.task is not None:
                            page.task.cancel()
                    await asyncio.gather(
                        *(p.task for p in opened if p.task), return_exceptions=True
                    )
        finally:
            await bot.stop()
    report(opened, figures, ledger)
    if problems:
        print("problems:", dict(problems.most_common(8)))
    print(
        f"the bot stopped {stopped:.1f} s after SIGTERM, {len(opened)} pages open: exit code {code}"
    )
    complaints = bot.complaints()
    print(f"bot log: {len(complaints)} warning/error lines")
    for line in complaints[:10]:
        print("  ", line[:300])


async def measure(
    fake: FakeBotApi,
    bot: BotProcess,
    base: str,
    session: aiohttp.ClientSession,
    tables: Sequence[Game],
    ledger: Ledger,
    figures: Figures,
    opened: list[Page],
) -> None:
    """Start the games, open the pages (into ``opened``, left open), move."""
    began = time.monotonic()
    await asyncio.gather(*(t.start() for t in tables))
    seats, per_game = len(tables[0].seats), len(tables[0].members)
    print(
        f"{len(tables)} games of {seats} players started in {time.monotonic() - began:.1f} s"
        f" ({per_game - seats} watching per game)"
    )
    # One page opened and closed first: what the first view costs is not a page's.
    ledger.phase = "pages"
    warm = TablePage(session, base, sign_init_data(TOKEN, tables[0].seats[0]))
    async with warm.events(tables[0].id) as views:
        figures.view_bytes = len(json.dumps(await anext(views), ensure_ascii=False))
    await settle(fake)
    await asyncio.sleep(1.0)
    rss_none = bot.rss_kb()

    for table in tables:
        for user in table.members:
            api = TablePage(session, base, sign_init_data(TOKEN, user, f"P{user}"))
            table.pages.append(Page(table, api, user, user in table.seats))
    opened.extend(p for t in tables for p in t.pages)
    began = time.monotonic()
    for page in opened:
        page.task = asyncio.create_task(page.read())
    await asyncio.gather(*(t.everyone_after(-1, 60) for t in tables))
    showing = sum(p.view is not None for p in opened)
    print(
        f"{showing} of {len(opened)} pages open and showing their table in"
        f" {time.monotonic() - began:.1f} s"
    )
    await settle(fake)
    await asyncio.sleep(1.0)
    rss_open = bot.rss_kb()

    ledger.counting = True
    cpu = bot.cpu_seconds(), time.process_time(), postgres_cpu()
    began = time.monotonic()
    budget = [figures.moves]
    await asyncio.gather(
        *(t.play(budget, ledger.answers, figures.together, figures.think) for t in tables)
    )
    figures.played = time.monotonic() - began
    figures.cpu = bot.cpu_seconds() - cpu[0]
    figures.harness_cpu = time.process_time() - cpu[1]
    figures.postgres_cpu = postgres_cpu() - cpu[2]
    await settle(fake)  # the last moves' calls still count for them

    for n in range(figures.alone_moves):
        table = tables[n % len(tables)]
        if not table.running():
            continue
        table.current = None
        await settle(fake, 0.3)
        with contextlib.suppress(TimeoutError):
            made = await table.move(ledger.answers)
            if made is not None:
                await settle(fake, 0.3)
                figures.alone.append(made)
        table.current = None
    ledger.counting = False
    figures.rss = (rss_none, rss_open, bot.rss_kb())


def per_press(moves: Sequence[Move], kind: str | None, ends_round: bool) -> str:
    chosen = [m for m in moves if (kind is None or m.kind == kind) and m.ends_round == ends_round]
    name = "press ending its round" if ends_round else f"{kind} press"
    if not chosen:
        return f"{name}: none"
    calls: Counter[str] = Counter()
    for made in chosen:
        calls.update(made.calls)
    answers = sum(m.answers for m in chosen)
    detail = ", ".join(f"{k} {v / len(chosen):.2f}" for k, v in sorted(calls.items()))
    return (
        f"{name} ({len(chosen)}): {calls.total() / len(chosen):.2f} naming a chat ({detail}),"
        f" answerCallbackQuery {answers / len(chosen):.2f}"
    )


def report(pages: Sequence[Page], figures: Figures, ledger: Ledger) -> None:
    together, alone = figures.together, figures.alone
    if figures.played:
        print(
            f"{len(together)} moves, all games at once, in {figures.played:.1f} s"
            f" ({len(together) / figures.played:.1f} a second; {figures.think:g} s to press)"
        )
    for name, moves in (("all games at once", together), ("one move at a time", alone)):
        print(f"push: press -> read by each page of the game, {name}:")
        for kind in ("page", "chat", None):
            chosen = [m for m in moves if kind is None or m.kind == kind]
            latencies = [x for m in chosen for x in m.latencies]
            missed = sum(m.missed for m in chosen)
            print(f"   {kind or 'any'} presses: {spread(latencies)}; missed {missed}")
        ending = [x for m in moves if m.ends_round for x in m.latencies]
        print(f"   presses ending their round: {spread(ending)}")
        if moves:
            began = min(m.sent for m in moves)
            later = [x for m in moves if m.sent > began + 2.0 for x in m.latencies]
            print(f"   leaving out the first 2 s (every game's first press): {spread(later)}")
        made = [x for m in moves for x in m.made]
        print(f"   of which press -> view made by the bot: {spread(made)}")
    slow = sorted(m.sent for m in together if m.latencies and max(m.latencies) > SLOW)
    if slow:
        bursts = [[slow[0]]]
        for sent in slow[1:]:
            if sent - bursts[-1][-1] > 1.0:
                bursts.append([])
            bursts[-1].append(sent)
        began = min(m.sent for m in together)
        when = ", ".join(f"{b[0] - began:.1f} s ({len(b)})" for b in bursts[:12])
        print(
            f"moves slower than {1000 * SLOW:.0f} ms to some page, all at once: {len(slow)},"
            f" in {len(bursts)} bursts (a second apart); at {when}"
        )
    for name, moves in (("all games at once", together), ("one move at a time", alone)):
        print(f"Bot API calls per press (the presses ending a round apart), {name}:")
        for kind, ends in (("page", False), ("chat", False), (None, True)):
            print("  ", per_press(moves, kind, ends))
        total = sum(m.calls.total() for m in moves) / max(1, len(moves))
        print(f"   all presses ({len(moves)}): {total:.2f} naming a chat")
    print(f"answerCallbackQuery for no press of these: {ledger.stray_answers}")
    print(f"getChatMember calls: {dict(ledger.members_asked) or 0}")
    rss_none, rss_open, rss_after = figures.rss
    print(
        f"bot RSS: {rss_none / 1024:.1f} MB with no page open, {rss_open / 1024:.1f} MB with"
        f" {len(pages)} open ({(rss_open - rss_none) / max(1, len(pages)):.1f} KB a page),"
        f" {rss_after / 1024:.1f} MB after the moves; a view is {figures.view_bytes} bytes"
    )
    if together:
        print(
            f"CPU, all games at once: the bot {1000 * figures.cpu / len(together):.1f} ms a move"
            f" ({figures.cpu / figures.played:.0%} of a core), this process (pages, fake Bot API)"
            f" {figures.harness_cpu / figures.played:.0%}, PostgreSQL"
            f" {figures.postgres_cpu / figures.played:.0%}"
        )
    views = sum(p.views for p in pages)
    leaks = sum(p.leaks for p in pages)
    print(f"views read by the pages: {views}; showing another seat's hidden card: {leaks}")


async def main(
    games: int,
    pages: int,
    seats: int,
    moves: int,
    alone: int,
    think: float,
    postgres_url: str | None,
    logs: str | None,
) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(logs or temporary)
        started = time.monotonic()
        if postgres_url:
            url = await fresh_postgres(postgres_url, "cuckoo_live")
            try:
                await bench(url, folder, games, pages, seats, moves, alone, think)
            finally:
                await drop_postgres(postgres_url, make_url(url).database or "")
        else:
            url = f"sqlite+aiosqlite:///{folder / 'live.db'}"
            await migrate.upgrade(url)
            await bench(url, folder, games, pages, seats, moves, alone, think)
        print(f"({time.monotonic() - started:.0f} s in all)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--pages", type=int, default=200, help="open pages in all")
    parser.add_argument("--seats", type=int, default=10, help="players a game (the rest watch)")
    parser.add_argument("--moves", type=int, default=400, help="moves in all")
    parser.add_argument("--alone", type=int, default=40, help="moves one at a time, after")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds a player takes to press, all at once"
    )
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--logs", default=None, help="keep the bot's log in this folder")
    args = parser.parse_args()
    if args.logs:
        Path(args.logs).mkdir(parents=True, exist_ok=True)
    asyncio.run(
        main(
            args.games,
            args.pages,
            args.seats,
            args.moves,
            args.alone,
            args.think,
            args.postgres_url,
            args.logs,
        )
    )
