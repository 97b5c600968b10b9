"""``benchmarks/instructions.py`` counts what a real process runs under callgrind, between the
moments it is told, whatever the machine is doing meanwhile."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.instructions import Callgrind, available, summary

pytestmark = pytest.mark.slow

if not available():  # skipped without valgrind, unless CI (which installs it) requires it
    WHY = "counting instructions needs valgrind (apt-get install -y valgrind)"
    if os.environ.get("CUCKOO_TEST_REQUIRE_VALGRIND"):
        pytest.fail(WHY, pytrace=False)
    pytest.skip(WHY, allow_module_level=True)

# A program that waits for a number, runs that many steps of a loop, and says so.
WORKER = """
import sys
for line in sys.stdin:
    total = 0
    for n in range(int(line)):
        total += n * n % 7
    print(total, flush=True)
"""


def test_the_count_is_of_the_work_done_between_zero_and_count(tmp_path: Path) -> None:
    counter = Callgrind(tmp_path)
    worker = subprocess.Popen(
        [*counter.prefix(), sys.executable, "-c", WORKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    asks, says = worker.stdin, worker.stdout
    assert asks is not None and says is not None

    def ran(steps: int) -> int:
        counter.zero(worker.pid)
        asks.write(f"{steps}\n")
        asks.flush()
        says.readline()  # done
        return counter.count(worker.pid)

    try:
        ran(1_000)  # its start-up is left out by the first zero
        small, large, small_again = ran(20_000), ran(200_000), ran(20_000)
    finally:
        asks.close()
        worker.wait(60)
    # Ten times the steps is about ten times the count (the loop dominates), and the same
    # work counts the same both times: no timing, no neighbour enters it.
    assert 8 < large / small < 11
    assert abs(small_again - small) < small * 0.02


def test_a_file_without_counts_is_refused(tmp_path: Path) -> None:
    dump = tmp_path / "callgrind.1.1"
    dump.write_text("events: Ir\nsummary: 2353212950\ntotals: 2404831920\n")
    assert summary(dump) == 2_353_212_950
    dump.write_text("not a callgrind file\n")
    with pytest.raises(ValueError, match="no summary line"):
        summary(dump)
