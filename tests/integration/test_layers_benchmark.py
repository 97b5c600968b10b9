"""``benchmarks/layers.py`` runs the same statement through every layer, on both databases,
and the statement it times does its work at each of them (no figure is judged here: speed is
measured in ``benchmarks/``, never asserted)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from benchmarks import layers
from cuckoo_bot.persistence.models import OutboxRow

COUNT = 12


async def test_every_layer_is_measured_and_marks_the_rows_it_names(engine: AsyncEngine) -> None:
    figures = await layers.measure(engine, COUNT, rounds=1)
    # The bot's own path runs on the driver directly, on both databases.
    direct = ["the bot's direct path (Store.write, direct.py)"]
    assert [name.split(":")[1].strip() for name in figures] == [
        "AsyncSession.execute",
        "AsyncConnection.execute",
        "AsyncConnection.exec_driver_sql",
        "the driver alone",
        *direct,
        "the bot's",
        "the driver alone",
    ]
    assert all(micros > 0 for micros in figures.values())
    async with engine.connect() as connection:
        attempts = await connection.scalar(select(func.sum(OutboxRow.attempts)))
        marked = await connection.scalar(select(func.count()).where(OutboxRow.sent_at.is_not(None)))
    # Each layer added one try to each of the COUNT rows, and marked them sent.
    layers_run = 4 + len(direct)
    assert (attempts, marked) == (layers_run * COUNT, COUNT)
