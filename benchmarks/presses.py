"""The instructions a press costs, the same count at every run: one fixed sequence of presses
through the bot's real key handler and courier, in one process, counted by callgrind.

``cpu.py`` plays whole games against the real bot process at Telegram's pace; what a press
costs there moves with the deals (a game's presses vary, and a game's fixed cost is spread
over them) and, in CPU time, with the machine's neighbours. This benchmark takes both out, so
that a change and its parent can be told apart by a fraction of a percent in minutes:

- the bot is assembled in this process (``bootstrap.assemble``, its settings the test suite's:
  no pacing and no timers), on a fresh database, against the fake Bot API, also in this
  process, on uvloop as the bot runs;
- games of six are opened, joined and started, and each press is the update Telegram would
  send for a tap on the prompt in play (``TableDriver``), handled by PTB's ``process_update``,
  then delivered (``courier.drain``): its transaction, its answer, the messages it changes;
- the moves are drawn from a seeded generator and the deals from the bot's own, seeded: every
  run plays the same presses. The clock is a step clock, moved two seconds a press;
- ``--instructions``: the process runs under callgrind (``instructions.py``), which is set to
  zero after ``--warm`` presses and read after ``--presses`` more (``callgrind_control``).

The count is of the whole process: the bot, the fake Bot API answering its calls and the
harness's own read of the game before each press. The fake's and the harness's part is the
same for the same calls, so a change to the bot shows whole in the difference and diluted in
the ratio. Also printed: the statements a press ran, by the way each went (on the driver
directly, ``direct.py``, or through SQLAlchemy's session), and the CPU a press without
callgrind (this process's own time, the fake's included: a rough figure, for profiling).

Run: ``python -m benchmarks.presses [--postgres-url postgresql+asyncpg://...] [--presses 100]
[--warm 20] [--instructions] [--bot-tree DIR]`` (SQLite in a temporary folder unless
``--postgres-url``; under callgrind about a minute and a half on PostgreSQL). ``--bot-tree
DIR`` runs this file on another checkout's bot (a ``git worktree``): the bot, its tests'
driver and its migrations are that tree's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
TOKEN = "778:press-count-token-0123456789"
GROUP = -100779
SEATS = 6


@dataclass
class Result:
    database: str
    presses: int
    cpu_ms: float  # this process's CPU a press (the fake Bot API's included)
    statements: dict[str, float] = field(default_factory=dict)  # by way, a press
    minstr: float = 0.0  # millions of instructions a press (callgrind), 0 if not counted


async def _control(flag: str) -> None:
    """``callgrind_control`` on this very process, waited for while the loop runs."""
    asked = await asyncio.create_subprocess_exec(
        "callgrind_control", flag, str(os.getpid()), stdout=asyncio.subprocess.DEVNULL
    )
    if await asked.wait() != 0:
        raise RuntimeError(f"callgrind_control {flag} failed")


async def play(url: str, presses: int, warm: int, counted: bool) -> Result:
    """``warm`` presses, then ``presses`` measured ones, on the migrated database at ``url``."""
    from sqlalchemy import event

    from cuckoo_bot.app import lobby
    from cuckoo_bot.app.deps import Deps
    from cuckoo_bot.app.model import Chat, GameStatus, Player
    from cuckoo_bot.bootstrap import assemble
    from cuckoo_bot.domain.rules import HouseRules
    from cuckoo_bot.i18n.translator import Translator
    from cuckoo_bot.persistence.engine import make_engine
    from cuckoo_bot.persistence.uow import sql_uow_factory
    from fakebotapi import FakeBotApi
    from tests.databases import StepClock
    from tests.support.driver import TableDriver

    engine = make_engine(url)
    ways: Counter[str] = Counter()
    measuring = [False]

    def heard(conn: Any, cursor: Any, sql: str, params: Any, context: Any, *_: Any) -> None:
        if measuring[0]:
            ways["direct" if context is None else "session"] += 1

    event.listen(engine.sync_engine, "before_cursor_execute", heard)
    moves = random.Random(7)
    done, cpu = 0, 0.0
    try:
        async with FakeBotApi(token=TOKEN) as fake:
            people = [Player(id=i, first_name=f"P{i}", can_dm=True) for i in range(1, SEATS + 1)]
            for person in people:
                fake.add_user(person.id, person.first_name, started=True)
            fake.add_group(GROUP, "Club", type="supergroup", members=[1, 2, 3, 4, 5, 6], admins=[1])
            clock = StepClock()
            uow_factory = sql_uow_factory(engine, clock)
            deps = Deps(uow=uow_factory, rng=random.Random(4), clock=clock, turn_timeout=60)
            app = assemble(
                TOKEN,
                fake.base_url,
                deps,
                Translator(),
                group_rate=1000,
                private_interval=0,
                sole_poller=True,
            )
            await app.initialize()
            courier = app.bot_data.services.courier
            offset = 0
            try:
                while done < warm + presses:
                    chat = Chat(id=GROUP, title="Club", rules=HouseRules())
                    opened = await lobby.open_lobby(deps, chat, people[0], thread_id=None)
                    assert opened.game_id is not None, opened
                    for person in people[1:]:
                        await lobby.join(deps, opened.game_id, person)
                    started = await lobby.start(deps, GROUP, people[0], is_admin=False)
                    assert started.batch is not None, started
                    await courier.deliver(started.batch)
                    clock.advance(seconds=2)
                    driver = TableDriver(fake, GROUP)
                    while done < warm + presses:
                        async with uow_factory(read_only=True) as uow:
                            game = await uow.games.get(opened.game_id)
                        if game is None or game.status is not GameStatus.RUNNING:
                            break
                        assert game.state is not None and game.state.round is not None
                        prompt = driver.prompt()
                        assert prompt is not None, "a running game prompts someone"
                        dealer = game.state.round.actor_is_dealer
                        move = moves.choice(("keep", "cut") if dealer else ("keep", "swap"))
                        data = prompt.data(move[0]) or prompt.data("k")
                        assert data is not None, prompt.keys
                        chat_id, message_id = prompt.message.chat_id, prompt.message.message_id
                        fake.press_button(prompt.actor, chat_id, message_id, data)
                        (update,) = await app.bot.get_updates(offset=offset, timeout=0)
                        offset = update.update_id + 1
                        if done == warm:
                            if counted:
                                await _control("--zero")
                            measuring[0] = True
                        began = time.process_time()
                        await app.process_update(update)
                        await courier.drain()
                        if measuring[0]:
                            cpu += time.process_time() - began
                        done += 1
                        clock.advance(seconds=2)
            finally:
                if counted:
                    await _control("--dump")
                await app.shutdown()
    finally:
        await engine.dispose()
    return Result(
        database=engine.dialect.name,
        presses=presses,
        cpu_ms=round(1000 * cpu / presses, 2),
        statements={way: round(n / presses, 2) for way, n in sorted(ways.items())},
    )


async def _fresh(postgres: str | None, folder: Path) -> tuple[str, str | None]:
    """A new migrated database: its URL, and its name on the PostgreSQL server (to drop)."""
    from cuckoo_bot.persistence import migrate

    if postgres:
        from benchmarks.databases import fresh_postgres

        url = await fresh_postgres(postgres, "cuckoo_presses")
        return url, url.rsplit("/", 1)[1]
    url = f"sqlite+aiosqlite:///{folder / 'presses.db'}"
    await migrate.upgrade(url)
    return url, None


async def _one(postgres: str | None, presses: int, warm: int, counted: bool) -> Result:
    from benchmarks.databases import drop_postgres

    with tempfile.TemporaryDirectory() as folder:
        url, name = await _fresh(postgres, Path(folder))
        try:
            return await play(url, presses, warm, counted)
        finally:
            if postgres and name:
                await drop_postgres(postgres, name)


def run_in_process(postgres: str | None, presses: int, warm: int, counted: bool) -> Result:
    import uvloop

    return uvloop.run(_one(postgres, presses, warm, counted))


def counted_run(
    postgres: str | None, presses: int, warm: int, tree: Path | None, folder: Path
) -> Result:
    """This file run again under callgrind (from ``tree``: that checkout's bot), its counts
    in ``folder``; the result it printed, with the instructions a press."""
    from benchmarks.instructions import Callgrind, summary

    counter = Callgrind(folder)
    where = tree or HERE.parent.parent
    env = {**os.environ, "PYTHONPATH": str(where)}
    command = [*counter.prefix(), sys.executable, str(HERE), "--child"]
    command += ["--presses", str(presses), "--warm", str(warm)]
    command += ["--postgres-url", postgres] if postgres else []
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the counted run failed:\n{done.stderr[-3000:]}")
    result = Result(**json.loads(done.stdout.strip().splitlines()[-1]))
    dumps = sorted(
        folder.glob("callgrind.*.*")
    )  # the dump asked for (the one at exit has no suffix)
    if len(dumps) != 1:
        raise RuntimeError(f"expected one dump of the measured presses, found {dumps}")
    result.minstr = round(summary(dumps[0]) / presses / 1e6, 3)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--warm", type=int, default=20, help="presses played first, not counted")
    parser.add_argument("--instructions", action="store_true", help="count under callgrind")
    parser.add_argument("--bot-tree", type=Path, default=None, help="another checkout's bot")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:  # under callgrind: this file run by ``counted_run``
        result = run_in_process(args.postgres_url, args.presses, args.warm, True)
        print(json.dumps(asdict(result)), flush=True)
        return
    if args.bot_tree and not args.instructions:
        parser.error("--bot-tree runs the other checkout under callgrind: add --instructions")
    if args.instructions:
        from benchmarks.instructions import available

        if not available():
            parser.error("--instructions needs valgrind (apt-get install -y valgrind)")
        with tempfile.TemporaryDirectory() as folder:
            result = counted_run(
                args.postgres_url, args.presses, args.warm, args.bot_tree, Path(folder)
            )
    else:
        result = run_in_process(args.postgres_url, args.presses, args.warm, False)
    ways = ", ".join(f"{way} {n}" for way, n in result.statements.items())
    print(
        f"{result.database}: {result.presses} presses after {args.warm}; statements a press: {ways}"
    )
    if result.minstr:
        print(f"  {result.minstr} million instructions a press (callgrind)")
    else:
        print(f"  {result.cpu_ms} ms of this process's CPU a press (the fake Bot API's included)")


if __name__ == "__main__":
    main()
