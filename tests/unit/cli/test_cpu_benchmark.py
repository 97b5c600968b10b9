"""``benchmarks/cpu.py`` keeps its rows by label and draws the capacity picture from the newest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from benchmarks import botprocess, cpu, machine

ROW = cpu.Row(
    label="before",
    database="sqlite",
    tables=1,
    players=6,
    presses=60,
    seconds=60.0,
    cpu_ms=38.0,
    cpu_share=0.04,
    answer_p50_ms=16.0,
    answer_p99_ms=54.0,
    calls=3.5,
    statements=22.0,
    rss_mb_per_game=12.0,
    presses_per_second=1.0,
)


def test_the_newest_row_of_a_label_stands_for_each_database_and_size() -> None:
    rows = [
        ROW,
        replace(ROW, tables=5, cpu_ms=35.0),
        replace(ROW, cpu_ms=30.0),  # the same run again, later
        replace(ROW, database="postgresql", cpu_ms=50.0),
        replace(ROW, label="after", cpu_ms=10.0),
    ]
    found = cpu.latest(rows, "before")
    assert {d: [(r.tables, r.cpu_ms) for r in s] for d, s in found.items()} == {
        "postgresql": [(1, 50.0)],
        "sqlite": [(1, 30.0), (5, 35.0)],
    }


def test_the_picture_is_drawn_from_the_kept_rows_and_nothing_is_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "cpu.jsonl"
    rows = [ROW, replace(ROW, tables=5, presses_per_second=5.0), replace(ROW, label="after")]
    kept.write_text("".join(json.dumps(asdict(r)) + "\n" for r in rows))
    picture = tmp_path / "capacity.png"
    cpu.main(["--out", str(kept), "--plot", "before", "--picture", str(picture)])
    assert picture.read_bytes().startswith(b"\x89PNG")
    printed = capsys.readouterr().out
    assert printed.count("| before | sqlite |") == 2 and "| after |" not in printed


def test_the_ceiling_counts_only_the_calls_telegram_counts() -> None:
    # A press's private edits and a group's reads take no place in Telegram's 30 a second;
    # a row measured before the mix was kept falls back on every call naming a chat.
    mix = {
        "group editMessageText": 0.2,
        "group getChatMember": 0.015,
        "group sendMessage": 0.15,
        "private editMessageText": 1.77,
        "private sendMessage": 1.26,
    }
    assert replace(ROW, mix=mix).counted() == pytest.approx(0.2 + 0.15 + 1.26)
    assert ROW.counted() == ROW.calls


def test_a_row_kept_before_warm_runs_reads_as_a_fresh_bot(tmp_path: Path) -> None:
    kept = tmp_path / "cpu.jsonl"
    old = {k: v for k, v in asdict(ROW).items() if k != "warm"}
    kept.write_text(json.dumps(old) + "\n" + json.dumps(asdict(replace(ROW, warm=1))) + "\n")
    fresh, warmed = cpu.read(kept)
    assert (fresh.warm, warmed.warm) == (0, 1)
    assert "| before | sqlite |" in cpu.line(fresh)
    assert "| before (warm 1) | sqlite |" in cpu.line(warmed)


def test_a_row_keeps_its_machine_and_one_kept_before_reads_as_unmeasured(tmp_path: Path) -> None:
    kept = tmp_path / "cpu.jsonl"
    old = {k: v for k, v in asdict(ROW).items() if k != "machine"}
    measured = replace(ROW, machine={"busy_us": 500.0, "rested_us": 3000.0})
    kept.write_text(json.dumps(old) + "\n" + json.dumps(asdict(measured)) + "\n")
    before, now = cpu.read(kept)
    assert before.machine == {}
    assert machine.Reference(**now.machine).rest_factor == pytest.approx(6.0)


async def test_the_machine_reference_reads_on_the_run_database(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'machine.db'}"
    reference = await machine.measure(url, busy=3, rested=2, rest=0.01)
    assert reference.busy_us > 0 and reference.rested_us > 0 and reference.far_ns > 0
    said = machine.describe(reference)
    assert f"{reference.busy_us:.0f} µs of CPU back to back" in said
    assert f"{reference.rested_us:.0f} µs after 0.01 s asleep" in said
    assert f"a lookup in memory {reference.far_ns:.0f} ns more than in the caches" in said


def test_a_reference_kept_before_the_memory_lookup_says_nothing_of_it() -> None:
    said = machine.describe(machine.Reference(busy_us=500.0, rested_us=3000.0))
    assert said.endswith("after 1 s asleep (6.0×)")


def test_a_lookup_in_memory_costs_more_than_one_in_the_caches() -> None:
    # 2^21 keys are about 150 MB with their objects: no cache of these machines holds them,
    # and each lookup misses at least once. 2^10 of them fit in the fastest cache.
    assert machine.far(keys=1 << 21, lookups=50_000) > 10


def test_runs_of_one_size_pool_their_presses_and_a_single_run_is_not_pooled() -> None:
    rows = [
        replace(ROW, presses=60, cpu_ms=10.0, machine={"busy_us": 500.0, "rested_us": 3000.0}),
        replace(
            ROW,
            presses=40,
            cpu_ms=20.0,
            machine={"busy_us": 600.0, "rested_us": 4000.0, "far_ns": 420.0},
        ),
        replace(ROW, tables=10, presses=700, cpu_ms=7.0),
    ]
    (said,) = cpu.pooled(rows)
    # (60 x 10 + 40 x 20) / 100: a long game weighs more than a short one.
    assert said.startswith("pooled, sqlite, 1 table(s), 2 runs: 14.0 ms a press (runs 10.0–20.0)")
    assert "700 ms a game" in said and "a rested read 3500 µs" in said
    # Only the run that measured it says what a lookup in memory costs.
    assert said.endswith(", a lookup in memory 420 ns")


def test_a_counted_row_says_so_and_one_kept_before_counted_nothing(tmp_path: Path) -> None:
    kept = tmp_path / "cpu.jsonl"
    old = {k: v for k, v in asdict(ROW).items() if k != "minstr"}
    kept.write_text(json.dumps(old) + "\n" + json.dumps(asdict(replace(ROW, minstr=36.2))) + "\n")
    before, counted = cpu.read(kept)
    assert before.minstr == 0.0
    assert "| before | sqlite |" in cpu.line(before)
    # Its CPU is the simulation's: the line must not pass for the bot's own.
    assert "| before (callgrind) | sqlite |" in cpu.line(counted)


def test_runs_pool_their_instructions_only_when_every_run_counted_them() -> None:
    counted = [
        replace(ROW, presses=60, minstr=30.0),
        replace(ROW, presses=40, minstr=40.0),
    ]
    (said,) = cpu.pooled(counted)
    assert said.endswith("; 34.00 million instructions a press (callgrind)")  # by presses
    (said,) = cpu.pooled([*counted, replace(ROW, presses=50)])
    assert "instructions" not in said


def test_instructions_are_not_counted_under_a_profiler(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cpu.main(["--instructions", "--profile", "/tmp/nowhere", "--tables", "1"])
    assert "one at a time" in capsys.readouterr().err


def test_a_bot_run_from_another_tree_runs_that_trees_code(tmp_path: Path) -> None:
    # The benchmark runs from this checkout, whose bot is installed (editable) and sits in
    # the working folder: neither may shadow the tree's.
    package = tmp_path / "cuckoo_bot"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("print('the tree\\'s bot')\n")
    folder, env = botprocess.run_from(tmp_path)
    ran = subprocess.run(
        [sys.executable, "-m", "cuckoo_bot"],
        cwd=folder,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert ran.stdout == "the tree's bot\n"
    assert botprocess.run_from(None) == (None, {})
