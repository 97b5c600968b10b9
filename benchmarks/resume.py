"""Restarts nobody notices: how long running games wait after the bot process is killed
(SIGKILL), stopped (SIGTERM, a deploy) or, with two instances, loses one of them; and whether
a tap is ever lost in polling mode.

The real bot process (``python -m cuckoo_bot run``) plays against the project's fake Bot API:
four groups of six players, each player tapping the newest prompt they are shown once, a
moment after it appears, game after game. At random moments the process is killed or stopped
and started again at once. For every game running at that moment, the figure is the time from
the new process having finished its start-up (its command menus registered; it takes updates
from then on) to the first message that game's chats get (a send or an edit). With two webhook
instances on one PostgreSQL (``--postgres-url``), one is killed and the figure is the time from
the kill to each game's next message, the other instance taking over. A tap that takes no
effect for 15 s counts as lost (and is tapped again, so the game goes on). Figures are printed;
nothing is asserted.

Run: ``python -m benchmarks.resume [--kills 30] [--stops 10] [--takeovers 6]
[--postgres-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import socket
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.engine import make_url

from benchmarks.botprocess import BotProcess
from benchmarks.databases import drop_postgres, fresh_postgres
from cuckoo_bot.persistence import migrate
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.uow import sql_uow_factory
from fakebotapi import FakeBotApi
from tests.support.driver import TableDriver, choose

TOKEN = "515151:RESUME-token-for-the-fake-bot-api"
LOOSE = {"CUCKOO_GROUP_RATE": "100000"}  # the fake has no limits on: no budget waits here
SECRET = "resume-benchmark_0123456789"
GROUPS = [-1004000000001 - g for g in range(4)]
DELIVERY = ("sendMessage", "editMessageText", "editMessageReplyMarkup")
LOST_AFTER = 15.0


def members(group: int) -> list[int]:
    return [9000 + 10 * GROUPS.index(group) + i for i in range(6)]


class Players:
    """Each group's players tap the newest prompt once, 0-150 ms after it appears; a new game
    follows the last. A prompt still showing its keys ``LOST_AFTER`` seconds after its tap is
    tapped again (counted: a tap lost, or keys left on a message); whether each tapped turn
    took effect is read from the games' logs at the end."""

    def __init__(self, fake: FakeBotApi, rng: random.Random) -> None:
        self.fake, self.rng = fake, rng
        self.again = 0
        self.tapped: set[tuple[int, int]] = set()  # (game, turn)
        self.running = True

    async def play(self, group: int) -> None:
        table = TableDriver(self.fake, group)
        people = members(group)
        while self.running:
            with contextlib.suppress(TimeoutError, AssertionError):
                await table.start_game(people[0], people, wait=20)
            tapped: dict[tuple[int, int], float] = {}
            while self.running and not table.game_over():
                prompt = table.prompt()
                now = time.monotonic()
                if prompt is not None and (
                    prompt.order not in tapped or now - tapped[prompt.order] > LOST_AFTER
                ):
                    if prompt.order in tapped:
                        self.again += 1
                    await asyncio.sleep(self.rng.uniform(0.0, 0.15))
                    dealer = prompt.data("c") is not None
                    kind = choose(table.card_of(prompt.actor), dealer, len(people))
                    data = prompt.data(kind) or prompt.data("k")
                    if data is not None:
                        tapped[prompt.order] = time.monotonic()
                        self.tapped.add(prompt.order)
                        self.fake.press_button(
                            prompt.actor, prompt.message.chat_id, prompt.message.message_id, data
                        )
                await asyncio.sleep(0.01)


def chats_of(group: int) -> set[str]:
    return {str(group), *(str(m) for m in members(group))}


def next_message(fake: FakeBotApi, group: int, after: float) -> float | None:
    chats = chats_of(group)
    times = [
        c.time
        for c in fake.calls()
        if c.method in DELIVERY and c.time >= after and str(c.params.get("chat_id")) in chats
    ]
    return min(times, default=None)


async def waits(fake: FakeBotApi, since: float, limit: float = 40.0) -> list[float]:
    """For each group with a game running: seconds from ``since`` to its next message."""
    running = [g for g in GROUPS if not TableDriver(fake, g).game_over()]
    found: list[float] = []
    for group in running:
        try:
            moment = await fake.wait_for(lambda g=group: next_message(fake, g, since), limit)
        except TimeoutError:
            moment = since + limit
        found.append(moment - since)
    return found


def summary(name: str, figures: Sequence[float]) -> str:
    if not figures:
        return f"{name}: no figures"
    ordered = sorted(figures)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"{name}: {len(figures)} games resumed; median {statistics.median(figures):.2f} s,"
        f" p99 {p99:.2f} s, worst {ordered[-1]:.2f} s"
    )


async def single(rng: random.Random, url: str, folder: Path, kills: int, stops: int) -> None:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_resume_bot") as fake:
        for group in GROUPS:
            for user in members(group):
                fake.add_user(user, f"P{user}", language_code="en", started=True)
            fake.add_group(group, f"Club {group}", type="supergroup", members=members(group))
        bot = BotProcess(fake, TOKEN, url, folder / "bot.log", **LOOSE)
        await bot.start()
        players = Players(fake, rng)
        tasks = [asyncio.create_task(players.play(g)) for g in GROUPS]
        after_kill: list[float] = []
        after_stop: list[float] = []
        plan = [signal.SIGKILL] * kills + [signal.SIGTERM] * stops
        rng.shuffle(plan)
        for how in plan:
            await asyncio.sleep(rng.uniform(0.5, 2.5))
            await bot.kill(how)
            await bot.start()
            ready = bot.ready_at
            found = await waits(fake, ready)
            (after_kill if how == signal.SIGKILL else after_stop).extend(found)
        players.running = False
        for task in tasks:
            task.cancel()
        await bot.kill(signal.SIGTERM)
    print(summary(f"after SIGKILL ({kills} kills)", after_kill))
    print(summary(f"after SIGTERM ({stops} stops)", after_stop))
    lost = await untaken(url, players.tapped)
    print(
        f"polling under {kills + stops} restarts: {len(players.tapped)} turns tapped,"
        f" {len(lost)} never taken {sorted(lost)[:5]}, {players.again} prompts tapped again"
    )


async def untaken(url: str, tapped: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The tapped (game, turn)s with no move at that turn in the game's log."""
    engine = make_engine(url)
    taken: set[tuple[int, int]] = set()
    try:
        async with sql_uow_factory(engine)(read_only=True) as uow:
            for game_id in {game for game, _ in tapped}:
                for entry in await uow.games.log(game_id):
                    turn = getattr(entry.action, "turn", None)
                    if entry.actor is not None and turn is not None:
                        taken.add((game_id, turn))
    finally:
        await engine.dispose()
    return tapped - taken


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def two_instances(
    rng: random.Random, url: str, folder: Path, takeovers: int, verbose: bool = False
) -> None:
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_resume_bot") as fake:
        for group in GROUPS:
            for user in members(group):
                fake.add_user(user, f"P{user}", language_code="en", started=True)
            fake.add_group(group, f"Club {group}", type="supergroup", members=members(group))
        ports = [free_port(), free_port()]
        fake.webhook_targets([f"http://127.0.0.1:{p}/hook" for p in ports])
        bots = [
            BotProcess(
                fake,
                TOKEN,
                url,
                folder / f"bot{n}.log",
                **LOOSE,
                CUCKOO_WEBHOOK_URL="https://bot.example.org/hook",
                CUCKOO_WEBHOOK_SECRET=SECRET,
                CUCKOO_PORT=str(port),
                CUCKOO_INSTANCE=f"host-{n}",
            )
            for n, port in enumerate(ports)
        ]
        for bot in bots:
            await bot.start()
        players = Players(fake, rng)
        tasks = [asyncio.create_task(players.play(g)) for g in GROUPS]
        stalls: list[float] = []
        for _ in range(takeovers):
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            victim = rng.choice(bots)
            killed = time.time()
            await victim.kill()
            found = await waits(fake, killed)
            stalls.extend(found)
            if verbose:
                print(f"  killed {victim.log.stem} at {killed:.2f}: games moved after", found)
            await victim.start()
        players.running = False
        for task in tasks:
            task.cancel()
        for bot in bots:
            await bot.kill(signal.SIGTERM)
    print(summary(f"two instances, one killed ({takeovers} times)", stalls))


async def main(
    kills: int, stops: int, takeovers: int, postgres_url: str | None, logs: str | None
) -> None:
    rng = random.Random(2026_12_01)
    with tempfile.TemporaryDirectory() as folder:
        if logs:
            folder = logs
        url = f"sqlite+aiosqlite:///{Path(folder) / 'resume.db'}"
        await migrate.upgrade(url)
        started = time.monotonic()
        if kills or stops:
            await single(rng, url, Path(folder), kills, stops)
        if postgres_url and takeovers:
            database = await fresh_postgres(postgres_url, "cuckoo_resume")
            try:
                await two_instances(rng, database, Path(folder), takeovers, verbose=bool(logs))
            finally:
                await drop_postgres(postgres_url, make_url(database).database or "")
        print(f"({time.monotonic() - started:.0f} s in all)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--stops", type=int, default=10)
    parser.add_argument("--takeovers", type=int, default=6)
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--logs", default=None, help="keep the bots' logs in this folder")
    args = parser.parse_args()
    asyncio.run(main(args.kills, args.stops, args.takeovers, args.postgres_url, args.logs))
