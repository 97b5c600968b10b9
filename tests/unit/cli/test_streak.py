"""``benchmarks/streak.py`` counts the runs in a row that pass and keeps a failing run's output."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import streak

PASSING = "tests/unit/domain/test_rule_card.py::test_faq_the_ace_is_low_and_the_king_high"


def test_the_runs_that_pass_are_counted_and_a_failing_ones_output_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert streak.main(["--runs", "2", "--keep", str(tmp_path), PASSING]) == 0
    assert "2 of 2 runs passed" in capsys.readouterr().out
    missing = "tests/unit/domain/test_rule_card.py::test_there_is_no_such_test"
    assert streak.main(["--runs", "1", "--keep", str(tmp_path), missing]) == 1
    assert "0 of 1 runs passed" in capsys.readouterr().out
    assert "no_such_test" in (tmp_path / "run-1.txt").read_text()
