"""Run end-to-end tests again and again: how many runs in a row pass?

Delivery across several instances and crashes is only as good as its worst interleaving, and
one green run says little. This runs the given tests (by default the several-instances, the
random-kill and the resume-after-kills tests, on SQLite and PostgreSQL) ``--runs`` times, each
run a fresh pytest process, and prints each run's outcome and duration, then the count: ``N of
M runs passed``. A failing run's output is kept in ``--keep`` (one file per failing run) to
read afterwards.

Run: ``python -m benchmarks.streak [--runs 50] [--keep /tmp/streak] [test ...]`` (PostgreSQL
from ``CUCKOO_TEST_POSTGRES_URL``, as for the tests; about twelve minutes a run with the
defaults).
"""

from __future__ import annotations

import argparse
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
    args = parser.parse_args(argv)
    passed = 0
    for run in range(1, args.runs + 1):
        ok, seconds, output = one_run(args.tests)
        summary = output.strip().splitlines()[-1] if output.strip() else "(no output)"
        print(f"run {run}: {'passed' if ok else 'FAILED'} in {seconds:.0f} s: {summary}")
        if ok:
            passed += 1
        else:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"run-{run}.txt").write_text(output)
            if args.stop:
                break
        sys.stdout.flush()
    print(f"{passed} of {run} runs passed ({' '.join(args.tests)})")
    return 0 if passed == run else 1


if __name__ == "__main__":
    raise SystemExit(main())
