"""What this machine charges for one small read, busy and rested: a reference kept with every
row of ``cpu.py``, so that rows from different machines (or from one machine whose neighbours
changed) can be told apart.

The read is the bot's smallest unit of work: a session, one ``SELECT``, its close, through
SQLAlchemy's asyncio session and the run's driver, on the run's database. Its CPU is the
process's own count (``time.process_time``, every thread: aiosqlite runs SQLite on one of its
own), taken two ways:

- busy: back to back, as a bot handling many tables runs (the median of ``BUSY`` reads, after
  as many not counted);
- rested: each after the process slept ``REST`` seconds, as a bot at one table runs between two
  bursts of presses (the median of ``RESTED`` reads).

On a shared virtual machine the second costs several times the first: whatever ran on the
core in between took its caches. A one-table row of ``cpu.py`` pays that price on nearly every
press; a row of many tables much less.

The read itself runs from the caches once warm, so the reference also takes what a trip to
memory costs: the CPU of a lookup at a random key of a dict far larger than the caches (``FAR``
int keys, about 150 MB), less the same loop on a dict that fits (``far_ns``). A press walks
far more objects than one read (SQLAlchemy's, the driver's, PTB's, aiohttp's, the game's): a
machine whose reads cost no more than another's, busy or rested, cost the bot up to 1.5 times
as much a press at ten tables (development notes, "What a machine charges").

Run alone: ``python -m benchmarks.machine [--postgres-url URL]`` (SQLite in a temporary folder
otherwise; about ten seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import literal, select
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

BUSY = 40
RESTED = 6
REST = 1.0  # seconds: about the pause between two bursts of presses at one table
FAR = 1 << 21  # keys of the dict looked up at random: far beyond any cache of these machines
NEAR = 1 << 10  # keys of the dict that fits in the fastest cache
LOOKUPS = 200_000


@dataclass(frozen=True)
class Reference:
    busy_us: float  # one read's CPU, back to back (median)
    rested_us: float  # the same read after the process slept ``rest_s`` seconds (median)
    rest_s: float = REST
    far_ns: float = 0.0  # a lookup in memory, less one in the caches (0: not measured)

    @property
    def rest_factor(self) -> float:
        """How many times a rested read costs a busy one."""
        return self.rested_us / self.busy_us if self.busy_us else 0.0


async def measure(
    url: str, busy: int = BUSY, rested: int = RESTED, rest: float = REST
) -> Reference:
    """The reference on the database at ``url`` (it reads no table: any database will do)."""
    engine = create_async_engine(url)
    query = select(literal(1))

    async def one() -> float:
        began = time.process_time()
        async with AsyncSession(engine) as session:
            await session.execute(query)
        return time.process_time() - began

    try:
        for _ in range(busy):  # the code, the pool's connection and the statement made ready
            await one()
        hot = [await one() for _ in range(busy)]
        cold = []
        for _ in range(rested):
            await asyncio.sleep(rest)
            cold.append(await one())
    finally:
        await engine.dispose()
    return Reference(
        busy_us=round(1e6 * statistics.median(hot)),
        rested_us=round(1e6 * statistics.median(cold)),
        rest_s=rest,
        far_ns=round(far(), 1),
    )


def far(keys: int = FAR, lookups: int = LOOKUPS) -> float:
    """Nanoseconds of CPU a lookup at a random key of a dict of ``keys`` costs more than one of
    a dict of ``NEAR`` (the loop's own cost): mostly the misses of its caches and TLB. The best
    of three walks of each, after one not counted."""
    draw = random.Random(0)  # the same keys every run
    big = {n: n for n in range(keys)}
    small = {n: n for n in range(NEAR)}
    at = [draw.randrange(keys) for _ in range(lookups)]
    near = [n % NEAR for n in at]

    def walk(table: dict[int, int], order: list[int]) -> float:
        began = time.process_time()
        total = 0
        for key in order:
            total += table[key]
        return time.process_time() - began

    walks = [(walk(big, at), walk(small, near)) for _ in range(4)][1:]
    far_s = min(w[0] for w in walks) - min(w[1] for w in walks)
    return max(0.0, 1e9 * far_s / lookups)


def describe(reference: Reference) -> str:
    memory = (
        f"; a lookup in memory {reference.far_ns:.0f} ns more than in the caches"
        if reference.far_ns
        else ""
    )
    return (
        f"this machine: one read costs {reference.busy_us:.0f} µs of CPU back to back and"
        f" {reference.rested_us:.0f} µs after {reference.rest_s:g} s asleep"
        f" ({reference.rest_factor:.1f}×){memory}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        url = args.postgres_url or f"sqlite+aiosqlite:///{Path(folder) / 'machine.db'}"
        print(describe(asyncio.run(measure(url))))


if __name__ == "__main__":
    main()
