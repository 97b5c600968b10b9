"""The log says what an operator should look at: the sweeper and the renewer skipping a run
while the one before is still running is how they are meant to work, not a warning."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]

from cuckoo_bot.transport.logformat import configure_logging

SKIPPED = "maximum number of running instances"  # APScheduler's line for a skipped run


@pytest.fixture(autouse=True)
def root_logger_as_it_was() -> Iterator[None]:
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


async def overlapping(*names: str, seconds: float) -> None:
    """Jobs of these names every 50 ms, each run lasting 0.5 s, for ``seconds``: the
    scheduler skips their runs while one is under way."""
    scheduler = AsyncIOScheduler()

    async def slow() -> None:
        await asyncio.sleep(0.5)

    for name in names:
        scheduler.add_job(slow, "interval", seconds=0.05, name=name)
    scheduler.start()
    try:
        await asyncio.sleep(seconds)
    finally:
        scheduler.shutdown(wait=False)


async def test_a_skipped_sweep_is_no_warning_but_any_other_jobs_skip_still_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("INFO")
    await overlapping("sweeper", "renewer", "nightly", seconds=0.4)
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if SKIPPED in line]
    assert skipped, err  # the scheduler did skip runs: the case is real
    assert all("WARNING" in line and '"nightly ' in line for line in skipped), skipped


async def test_at_debug_level_the_skipped_sweeps_are_told(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("DEBUG")
    await overlapping("sweeper", seconds=0.3)
    skipped = [line for line in capsys.readouterr().err.splitlines() if SKIPPED in line]
    assert skipped and all("DEBUG" in line and '"sweeper ' in line for line in skipped)
