"""What a press costs the bot, all-in: whole games at Telegram's real limits, 1 to 40 at once.

The real bot process (``python -m cuckoo_bot run``, its settings the defaults but the database
and the Bot API's URL) plays against the project's fake Bot API with Telegram's limits on (20
calls a minute in a group, one message a second in a private chat, 30 a second in all, a call
over a limit refused with 429). For each count of tables at once, a fresh bot and a fresh
database: every table opens a lobby, its players join, and the game is played to its end, every
player pressing as soon as their prompt arrives (a person's simple habit: swap or cut a low
card). Measured over the whole run, lobbies and the last summaries included ("all-in"):

- CPU ms per press: the bot process's user + system CPU (the kernel's count, ``/proc``) over
  the run, divided by the moves pressed (Join and Start taps are not counted as presses, their
  cost is);
- the answer's wall latency, p50 and p99: from a press to Telegram's answer to the tap;
- Bot API calls naming a chat (those Telegram refused with 429 included, and apart; the JSON
  line keeps them by chat kind and method too), and SQL statements (the bot's
  ``cuckoo_sql_statements_total``), per press;
- presses a second, and the CPU's share of one core;
- resident memory per running game: the bot's peak ``VmRSS`` while the games ran, less its size
  before the first lobby, divided by the games.

Rows are printed as a Markdown table and added to ``--out`` (JSON lines) under ``--label``, so
that a run before a change and one after stay side by side.

``--think LOW HIGH`` plays at a person's pace instead: each press LOW to HIGH seconds after
its prompt (``--think 3 6 --tables 1 60 --label human``: how many games at a human pace one
token holds, and what a press then costs).

Run: ``python -m benchmarks.cpu [--tables 1 5 10 20 40] [--players 6] [--label now]
[--postgres-url postgresql+asyncpg://postgres@127.0.0.1:5432/test] [--out FILE]``
(SQLite in a temporary folder unless ``--postgres-url``; about 20 minutes with the defaults).
``--warm N``: each bot first plays N rounds of its games, not measured, so that the row is what
a press costs a bot that has been running, not its first games after a start.
``--runs N`` runs each count of tables N times (each a fresh bot, each a row) and prints
their CPU a press pooled: one game's presses vary with its deals, and one run's figure with
the machine's neighbours.
Each row also keeps its machine's reference (``machine.py``): what one small read costs
there back to back and after a second asleep, measured just before the run.
``--profile DIR`` also samples the bot with py-spy (``pip install py-spy``; its own overhead is
in the CPU figures of such a run) and writes a flame graph per run.
``--instructions`` runs the bot under valgrind's callgrind (``instructions.py``) and keeps the
instructions it ran a press (``minstr``, millions), a count the machine's neighbours do not
move; the CPU and latency figures of such a row are the simulation's, many times the bot's.
``--bot-tree DIR`` runs the bot from another checkout (a ``git worktree`` of an older commit,
with the same migrations) under this benchmark: a change and its parent measured by one
harness, alternating (``--bot-tree /tmp/before --label before`` and then without it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.botprocess import BotProcess
from benchmarks.databases import drop_postgres, fresh_postgres
from benchmarks.instructions import Callgrind
from benchmarks.instructions import available as instructions_available
from benchmarks.machine import Reference, describe, measure
from benchmarks.pace import Table, play, seat
from cuckoo_bot.persistence import migrate
from cuckoo_bot.transport.flood import counted
from fakebotapi import FakeBotApi

TOKEN = "717171:CPU-token-for-the-fake-bot-api"
FIRST_GROUP = -1007000000001
RESULTS = Path(__file__).parent / "results" / "cpu.jsonl"
PICTURE = Path(__file__).parent.parent / "docs" / "capacity.png"
PY_SPY = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
TELEGRAM_MESSAGES_PER_SECOND = 30  # what Telegram counts (``flood.counted``), one token
TARGET_CPU_MS = 12  # a press's CPU the project aims at, all-in


@dataclass
class Row:
    label: str
    database: str
    tables: int
    players: int
    presses: int
    seconds: float  # the run's wall time, first /newgame to the last call it caused
    cpu_ms: float  # per press
    cpu_share: float  # of one core, over the run
    answer_p50_ms: float
    answer_p99_ms: float
    calls: float  # naming a chat, per press
    statements: float  # per press
    rss_mb_per_game: float
    presses_per_second: float
    refused: float = 0.0  # calls Telegram refused (429, flood control), per press
    mix: dict[str, float] = field(default_factory=dict)  # calls per press by chat kind and method
    commit: str = ""
    when: str = ""
    think: list[float] = field(default_factory=list)  # seconds a player takes to press (none: 0)
    warm: int = 0  # rounds of games the bot played before the measured one (0: a fresh bot)
    # ``machine.Reference`` measured just before the run, on its database (empty: not measured)
    machine: dict[str, float] = field(default_factory=dict)
    # Millions of instructions the bot ran a press, counted by callgrind (0: not counted; the
    # CPU and latency of a counted row are the simulation's)
    minstr: float = 0.0

    def counted(self) -> float:
        """Per press, the calls Telegram's 30 a second counts (``flood.counted``): messages
        sent anywhere and a group's posts; all calls naming a chat for a row without its mix."""
        if not self.mix:
            return self.calls
        return sum(
            n
            for name, n in self.mix.items()
            if counted(name.split()[1], -1 if name.startswith("group") else 1)
        )


def at(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


async def sample_rss(bot: BotProcess, peak: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(OSError, AssertionError, IndexError):
            peak[0] = max(peak[0], bot.rss_kb())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


class Profiler:
    """py-spy sampling the bot process for the whole run (``--profile``): a flame graph (SVG)
    of where its CPU went, or the raw collapsed stacks (``--profile-format raw``)."""

    def __init__(self, folder: Path | None, name: str, form: str) -> None:
        self.folder, self.name, self.form = folder, name, form
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, pid: int) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        suffix = "svg" if self.form == "flamegraph" else "txt"
        self.process = subprocess.Popen(
            [
                *(PY_SPY, "record", "--pid", str(pid), "--nonblocking", "--gil", "--rate", "200"),
                *("--format", self.form, "-o", str(self.folder / f"{self.name}.{suffix}")),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    async def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGINT)  # py-spy writes its output and ends
        for _ in range(600):
            if self.process.poll() is not None:
                return
            await asyncio.sleep(0.05)
        self.process.kill()


async def play_all(
    fake: FakeBotApi,
    tables: int,
    players: int,
    think: tuple[float, float] | None,
    batch: int,
) -> list[Table]:
    """``tables`` games of ``players`` at once, each in a group of its own, to their ends (the
    ``batch``: the groups and players of each batch are new)."""
    seated: list[Table] = await asyncio.gather(
        *(
            seat(
                fake,
                FIRST_GROUP - g - 10_000 * batch,
                players,
                10_000 * (g + 1) + 10_000_000 * batch,
                wait=30 + tables,
            )
            for g in range(tables)
        )
    )
    deadline = time.monotonic() + 3600
    await asyncio.gather(*(play(t, 10**6, deadline, think) for t in seated))
    for t in seated:
        await fake.wait_for(t.driver.game_over, 300)
    await fake.wait_idle(quiet=1.0, timeout=300)
    return seated


async def one_run(
    label: str,
    database: str,
    url: str,
    tables: int,
    players: int,
    profiler: Profiler,
    think: tuple[float, float] | None = None,
    warm: int = 0,
    *,
    instructions: bool = False,
    tree: Path | None = None,
) -> Row:
    """A fresh bot on the database at ``url``, ``tables`` games of ``players`` to their ends
    (with ``think``, each press that many seconds after its prompt, as ``pace.play`` draws).
    ``warm``: that many rounds of ``tables`` games are played first and not measured, so the
    row is what a press costs a bot that has been running (the first games after a start also
    pay for what the process does once: statements built and compiled, each connection's
    prepared statements, locale data loaded). ``instructions``: the bot runs under callgrind,
    which counts what it runs over the measured games; ``tree``: the bot's code from that
    checkout instead of this one."""
    async with FakeBotApi(token=TOKEN, bot_username="cuckoo_cpu_bot", rate_limit=True) as fake:
        with tempfile.TemporaryDirectory() as folder:
            counter = Callgrind(Path(folder)) if instructions else None
            bot = BotProcess(
                fake,
                TOKEN,
                url,
                Path(folder) / "bot.log",
                prefix=tuple(counter.prefix()) if counter else (),
                patience=1200 if counter else 60,  # callgrind slows the start-up many times
                tree=tree,
            )
            base = await bot.start()
            try:
                with contextlib.suppress(TimeoutError):
                    await fake.wait_idle(quiet=1.0, timeout=30)
                for batch in range(warm):  # played and not measured: the bot warms up
                    await play_all(fake, tables, players, think, batch + 1)
                before = await bot.metrics(base)
                rss = bot.rss_kb()
                peak = [rss]
                stop = asyncio.Event()
                sampler = asyncio.create_task(sample_rss(bot, peak, stop))
                profiler.start(bot.pid)
                if counter is not None:
                    await asyncio.to_thread(counter.zero, bot.pid)
                cpu, began, wall = bot.cpu_seconds(), time.time(), time.monotonic()
                seated = await play_all(fake, tables, players, think, 0)
                stop.set()
                await sampler
                cpu = bot.cpu_seconds() - cpu
                ran = await asyncio.to_thread(counter.count, bot.pid) if counter else 0
                await profiler.stop()
                seconds = time.monotonic() - wall - 1.0  # the quiet second is no one's
                after = await bot.metrics(base)
                complaints = bot.complaints()
            finally:
                await bot.stop()
    presses = sum(t.presses for t in seated)
    answers = sorted(a for t in seated for a in t.answers)
    calls = [
        c
        for c in fake.calls()
        if c.time >= began and c.params.get("chat_id") is not None and c.method != "getUpdates"
    ]
    statements = after["cuckoo_sql_statements_total"] - before["cuckoo_sql_statements_total"]
    if complaints:
        print(f"  ({len(complaints)} warning/error lines in the bot's log, e.g. {complaints[0]!r})")
    return Row(
        label=label,
        database=database,
        tables=tables,
        players=players,
        presses=presses,
        seconds=round(seconds, 1),
        cpu_ms=round(1000 * cpu / presses, 1),
        cpu_share=round(cpu / seconds, 3),
        answer_p50_ms=round(1000 * statistics.median(answers), 1),
        answer_p99_ms=round(1000 * at(answers, 0.99), 1),
        calls=round(len(calls) / presses, 2),
        statements=round(statements / presses, 1),
        rss_mb_per_game=round((peak[0] - rss) / 1024 / tables, 2),
        presses_per_second=round(presses / seconds, 2),
        refused=round(sum(1 for c in calls if c.status == 429) / presses, 3),
        mix={
            f"{kind} {method}": round(n / presses, 3)
            for (kind, method), n in sorted(
                Counter(
                    ("group" if int(c.params["chat_id"]) < 0 else "private", c.method)
                    for c in calls
                ).items()
            )
        },
        commit=commit(tree),
        when=datetime.now(UTC).isoformat(timespec="seconds"),
        think=list(think or ()),
        warm=warm,
        minstr=round(ran / presses / 1e6, 2),
    )


async def run(
    label: str,
    counts: list[int],
    players: int,
    postgres: str | None,
    profile: Path | None = None,
    form: str = "flamegraph",
    out: Path | None = None,
    think: tuple[float, float] | None = None,
    warm: int = 0,
    runs: int = 1,
    *,
    instructions: bool = False,
    tree: Path | None = None,
) -> list[Row]:
    rows = []
    for tables in [n for n in counts for _ in range(runs)]:
        with tempfile.TemporaryDirectory() as folder:
            if postgres:
                url = await fresh_postgres(postgres, "cuckoo_cpu")
            else:
                url = f"sqlite+aiosqlite:///{Path(folder) / 'cpu.db'}"
                await migrate.upgrade(url)
            try:
                database = "postgresql" if postgres else "sqlite"
                profiler = Profiler(profile, f"{label}-{database}-{tables}", form)
                reference = await measure(url)
                row = await one_run(
                    label,
                    *(database, url, tables, players, profiler, think, warm),
                    instructions=instructions,
                    tree=tree,
                )
                row.machine = asdict(reference)
            finally:
                if postgres:
                    await drop_postgres(postgres, url.rsplit("/", 1)[1])
        print(line(row), flush=True)
        print("  calls per press:", ", ".join(f"{k} {v}" for k, v in row.mix.items()), flush=True)
        print(f"  of which Telegram's 30 a second counts: {row.counted():.2f}", flush=True)
        print(f"  {describe(Reference(**row.machine))}", flush=True)
        if row.minstr:
            print(f"  instructions (callgrind): {row.minstr} million a press", flush=True)
        rows.append(row)
        if out is not None:  # each row kept as soon as it is measured
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("a") as kept:
                kept.write(json.dumps(asdict(row)) + "\n")
    return rows


HEAD = (
    "| label | database | tables | presses | CPU ms/press | core share | answer p50 / p99 ms"
    " | calls/press (429) | statements/press | MB/game | presses/s |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def line(row: Row) -> str:
    label = f"{row.label} (warm {row.warm})" if row.warm else row.label
    label += " (callgrind)" if row.minstr else ""
    return (
        f"| {label} | {row.database} | {row.tables} | {row.presses} | {row.cpu_ms}"
        f" | {row.cpu_share:.0%} | {row.answer_p50_ms:.0f} / {row.answer_p99_ms:.0f}"
        f" | {row.calls} ({row.refused}) | {row.statements} | {row.rss_mb_per_game}"
        f" | {row.presses_per_second} |"
    )


def pooled(rows: list[Row]) -> list[str]:
    """For each database and count of tables run more than once: the CPU a press over all
    their presses (each game's presses vary with its deals, so a mean of rows would weigh a
    short game like a long one), with the rows' spread and their machine's reference."""
    groups: dict[tuple[str, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.database, row.tables), []).append(row)
    said = []
    for (database, tables), group in sorted(groups.items()):
        if len(group) < 2:
            continue
        presses = sum(r.presses for r in group)
        cpu = sum(r.cpu_ms * r.presses for r in group) / presses
        spread = f"{min(r.cpu_ms for r in group)}–{max(r.cpu_ms for r in group)}"
        rested = [r.machine["rested_us"] for r in group if r.machine]
        machine = f"; a rested read {statistics.median(rested):.0f} µs" if rested else ""
        far = [r.machine["far_ns"] for r in group if r.machine.get("far_ns")]
        machine += f", a lookup in memory {statistics.median(far):.0f} ns" if far else ""
        if all(r.minstr for r in group):
            ran = sum(r.minstr * r.presses for r in group) / presses
            machine += f"; {ran:.2f} million instructions a press (callgrind)"
        said.append(
            f"pooled, {database}, {tables} table(s), {len(group)} runs: {cpu:.1f} ms a press"
            f" (runs {spread}), {cpu * presses / len(group) / tables:.0f} ms a game{machine}"
        )
    return said


def commit(tree: Path | None = None) -> str:
    """The commit checked out here, or in ``tree``."""
    done = subprocess.run(
        ["git", "-C", str(tree or "."), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


def latest(rows: list[Row], label: str) -> dict[str, list[Row]]:
    """The newest row of ``label`` for each database and count of tables, by database."""
    newest: dict[tuple[str, int], Row] = {}
    for row in rows:
        if row.label == label:
            newest[(row.database, row.tables)] = row
    found: dict[str, list[Row]] = {}
    for (database, _), row in sorted(newest.items()):
        found.setdefault(database, []).append(row)
    return found


def draw(rows: list[Row], labels: list[str], path: Path) -> None:
    """The capacity picture: CPU per press, the answer's p99 and presses a second against the
    tables playing at once, a line per label and database; Telegram's ceiling (its 30 messages
    a second over the calls a press makes that it counts, as the last label's rows count them)
    and what one core could carry (1000 ms over the CPU a press costs) marked on the last; the
    12 ms a press aimed at marked on the first."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (cpu, p99, rate) = pyplot.subplots(1, 3, figsize=(15, 4.2), layout="constrained")
    ceilings = []
    for label in labels:
        for database, series in latest(rows, label).items():
            tables = [r.tables for r in series]
            name = f"{label}, {database}"
            style = "-" if database == "sqlite" else "--"
            cpu.plot(tables, [r.cpu_ms for r in series], style, marker="o", label=name)
            p99.plot(tables, [r.answer_p99_ms for r in series], style, marker="o", label=name)
            rate.plot(tables, [r.presses_per_second for r in series], style, marker="o", label=name)
            if label == labels[-1]:  # the ceiling as the newest rows count their calls
                ceilings += [TELEGRAM_MESSAGES_PER_SECOND / r.counted() for r in series]
            core = [1000 / r.cpu_ms for r in series]
            rate.plot(
                tables, core, ":", color=rate.lines[-1].get_color(), label=f"one core, {name}"
            )
    if ceilings:
        rate.axhline(statistics.median(ceilings), color="crimson", linewidth=2)
        rate.annotate(
            "Telegram's ceiling (30 messages/s)",
            (0.02, statistics.median(ceilings)),
            xycoords=("axes fraction", "data"),
            textcoords="offset points",
            xytext=(0, 4),
            color="crimson",
        )
    cpu.axhline(TARGET_CPU_MS, color="seagreen", linewidth=1.5)
    cpu.annotate(
        f"target {TARGET_CPU_MS} ms",
        (0.02, TARGET_CPU_MS),
        xycoords=("axes fraction", "data"),
        textcoords="offset points",
        xytext=(0, 4),
        color="seagreen",
    )
    cpu.set(title="CPU per press", ylabel="ms (user + system)", ylim=(0, None))
    p99.set(title="Answer to a tap, p99", ylabel="ms", ylim=(0, None))
    rate.set(title="Presses a second", ylabel="presses/s", yscale="log")
    for axes in (cpu, p99, rate):
        axes.set(xlabel="tables of 6 playing at once", xscale="log")
        axes.set_xticks([1, 5, 10, 20, 40], labels=["1", "5", "10", "20", "40"])
        axes.grid(alpha=0.3)
    cpu.legend(fontsize=8)
    rate.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def read(path: Path) -> list[Row]:
    if not path.exists():
        return []
    return [Row(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[1, 5, 10, 20, 40])
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--label", default="now")
    parser.add_argument("--postgres-url", default=None)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--profile", type=Path, default=None, help="py-spy's flame graph of each run, here"
    )
    parser.add_argument("--profile-format", default="flamegraph", choices=["flamegraph", "raw"])
    parser.add_argument(
        "--plot",
        nargs="*",
        metavar="LABEL",
        default=None,
        help="only draw the rows of these labels from --out (into --picture), run nothing",
    )
    parser.add_argument("--picture", type=Path, default=PICTURE)
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        default=None,
        help="each press LOW to HIGH seconds after its prompt, as a person (default: at once)",
    )
    parser.add_argument(
        "--warm",
        type=int,
        default=0,
        metavar="N",
        help="each bot first plays N rounds of its games, not measured (default: a fresh bot)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="each count of tables run N times, each a row, and pooled (default: once)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="the bot under valgrind's callgrind: the instructions it ran a press (slow)",
    )
    parser.add_argument(
        "--bot-tree",
        type=Path,
        default=None,
        metavar="DIR",
        help="the bot's code from this checkout (a git worktree), measured by this benchmark",
    )
    args = parser.parse_args(argv)
    if args.instructions and not instructions_available():
        parser.error("--instructions needs valgrind (apt-get install -y valgrind)")
    if args.instructions and args.profile:  # py-spy would sample valgrind's simulation
        parser.error("--instructions and --profile measure the bot two ways: one at a time")
    if args.plot is not None:
        rows = read(args.out)
        draw(rows, args.plot or sorted({r.label for r in rows}), args.picture)
        for label in args.plot or sorted({r.label for r in rows}):
            for series in latest(rows, label).values():
                for row in series:
                    print(line(row))
        return
    print(HEAD, flush=True)
    rows = asyncio.run(
        run(
            args.label,
            args.tables,
            args.players,
            args.postgres_url,
            args.profile,
            args.profile_format,
            args.out,
            tuple(args.think) if args.think else None,
            args.warm,
            args.runs,
            instructions=args.instructions,
            tree=args.bot_tree,
        )
    )
    for said in pooled(rows):
        print(said)
    print(f"{len(rows)} rows added to {args.out}")


if __name__ == "__main__":
    main()
