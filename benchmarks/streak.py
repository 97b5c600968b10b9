"""Run end-to-end tests again and again: how many runs in a row pass?

Delivery across several instances and crashes is only as good as its worst interleaving, and
one green run says little. This runs the given tests (by default the several-instances, the
random-kill and the resume-after-kills tests, on SQLite and PostgreSQL) ``--runs`` times, each
run a fresh pytest process, and prints each run's outcome and duration, then the count: ``N of
M runs passed``. A failing run's output is kept in ``--keep`` (one file per failing run) to
read afterwards.

``--at-once K`` keeps K runs going side by side (each pytest process has its own databases and
ports): the tests mostly wait for Telegram's limits (20 calls a minute in a group), so on a
2-core machine three runs at once take little longer than one, and the machine being busy is
one more source of interleavings. Outcomes are printed as runs finish.

Run: ``python -m benchmarks.streak [--runs 50] [--at-once 1] [--keep /tmp/streak] [test ...]``
(PostgreSQL from ``CUCKOO_TEST_POSTGRES_URL``, as for the tests; about ten minutes a run with
the defaults).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import subprocess
import sys
import time
from pathlib import Path

TESTS = (
    "tests/e2e/test_instances.py",
    "tests/e2e/test_restarts.py",
    "tests/e2e/test_resume.py",
)


def one_run(tests: list[str]) -> tuple[bool, float, str]:
    """One pytest process over ``tests`` (slow ones included): passed, seconds, its output."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-m", "", "-p", "no:cacheprovider", *tests],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0, time.monotonic() - started, done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--keep", type=Path, default=Path("streak-failures"))
    parser.add_argument("--stop", action="store_true", help="stop at the first failing run")
    parser.add_argument("tests", nargs="*", default=list(TESTS))
    parser.add_argument("--at-once", type=int, default=1, help="runs side by side")
    args = parser.parse_args(argv)
    passed = finished = 0
    failed = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.at_once)) as pool:
        pending = {pool.submit(one_run, args.tests): run for run in range(1, args.runs + 1)}
        for done in concurrent.futures.as_completed(pending):
            if done.cancelled():
                continue
            run, finished = pending[done], finished + 1
            ok, seconds, output = done.result()
            summary = output.strip().splitlines()[-1] if output.strip() else "(no output)"
            print(f"run {run}: {'passed' if ok else 'FAILED'} in {seconds:.0f} s: {summary}")
            sys.stdout.flush()
            if ok:
                passed += 1
                continue
            failed = True
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"run-{run}.txt").write_text(output)
            if args.stop:
                for future in pending:
                    future.cancel()
    print(f"{passed} of {finished} runs passed ({' '.join(args.tests)})")
    return 1 if failed or finished == 0 else 0


if __name__ == "__main__":
    raise SystemExit(main())
