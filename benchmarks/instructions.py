"""The instructions a process runs between two moments, counted by valgrind's callgrind: a
measure of the bot's work that no machine's neighbours change.

CPU time on these shared machines moves by half within an hour for the same code (development
notes, "What a machine charges"), so a change worth a tenth cannot be seen in it without many
runs. Callgrind runs the program on a simulated CPU and counts each instruction it executes:
the same code, inputs and timers give nearly the same count, however busy the machine. Between
machines the count holds only as far as they run the same libraries the same way (the C
library picks its string functions by the CPU). It runs the bot about 20 times slower, so
only a few tables at once keep their pace.

The count is of instructions, not of time: a cache miss costs one instruction like any other
(callgrind's cache simulation is off), so it measures what the code asks of a machine, not what
a machine charges for it. What it counts is the whole process: the interpreter, the C
extensions (SQLite, uvloop, asyncpg, the JSON encoder), the C library.

valgrind ships with Debian (``apt-get install -y valgrind``); ``callgrind_control`` comes with
it and talks to a running program: ``-z`` sets its counts to zero, ``-d`` writes them to a new
file (``callgrind.<pid>.<n>``), whose ``summary:`` line is the total.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

SUMMARY = re.compile(r"^summary:\s+(\d+)", re.MULTILINE)


def available() -> bool:
    return shutil.which("valgrind") is not None and shutil.which("callgrind_control") is not None


def summary(dump: Path) -> int:
    """The instructions a callgrind file counts (its ``summary:`` line, the first event, Ir)."""
    found = SUMMARY.search(dump.read_text(errors="replace"))
    if found is None:
        raise ValueError(f"{dump} is not a callgrind file: it has no summary line")
    return int(found[1])


class Callgrind:
    """Runs one program under callgrind, its files in ``folder``; counts from ``zero`` to
    ``count``, as often as asked."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def prefix(self) -> list[str]:
        """The command to put before the program's own."""
        out = self.folder / "callgrind.%p"  # valgrind puts the process id in
        return ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}"]

    def zero(self, pid: int) -> None:
        subprocess.run(["callgrind_control", "--zero", str(pid)], check=True, capture_output=True)

    def count(self, pid: int) -> int:
        """Instructions since the last ``zero`` (or the start): the counts written to a new
        file, which is read and left in the folder."""
        before = set(self.folder.glob(f"callgrind.{pid}.*"))
        subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True)
        for _ in range(300):  # callgrind_control answers once the file is written; in case not
            new = set(self.folder.glob(f"callgrind.{pid}.*")) - before
            if new:
                (dump,) = new
                return summary(dump)
            time.sleep(0.1)
        raise RuntimeError(f"callgrind wrote no counts for process {pid} in 30 s")
