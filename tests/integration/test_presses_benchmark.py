"""``benchmarks/presses.py`` plays the same presses through the bot's real handler and courier
at every run: what it measures is a press's work, not the deals'. Counted under callgrind, a
run and the next give the same count to within a small fraction, and more work counts more."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks import presses
from benchmarks.instructions import available

pytestmark = pytest.mark.slow


def test_the_presses_are_played_and_their_statements_counted() -> None:
    """In this process, SQLite: the presses asked for are played after the warm ones, every
    statement of theirs runs on the driver (none through the session but the game's end)."""
    result = presses.run_in_process(None, presses=12, warm=3, counted=False)
    assert result.database == "sqlite" and result.presses == 12
    assert result.cpu_ms > 0
    assert result.statements["direct"] >= 8  # a press's transaction and its delivery
    assert result.statements.get("session", 0) < 1
    assert result.minstr == 0


def test_counted_twice_the_same_presses_count_the_same(tmp_path: Path) -> None:
    if not available():  # CI installs valgrind and requires this test
        why = "counting instructions needs valgrind (apt-get install -y valgrind)"
        if os.environ.get("CUCKOO_TEST_REQUIRE_VALGRIND"):
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    runs = []
    for n, count in enumerate((6, 6, 18)):
        folder = tmp_path / str(n)
        folder.mkdir()
        runs.append(presses.counted_run(None, count, 3, None, folder))
    first, again, longer = runs
    assert first.minstr > 1  # millions a press: the bot's work, not an empty count
    assert abs(again.minstr - first.minstr) / first.minstr < 0.02
    # Three times the presses: about three times the count (a press's work is most of it).
    total = longer.minstr * longer.presses / (first.minstr * first.presses)
    assert 2.0 < total < 4.0
