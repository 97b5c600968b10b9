"""Delivery stays readable one module at a time: each under 250 lines (its complexity is held
to 12 by ruff's C901, as for the whole bot)."""

from __future__ import annotations

from pathlib import Path

import cuckoo_bot.transport.delivery as delivery

LIMIT = 250


def test_every_delivery_module_is_under_250_lines() -> None:
    folder = Path(delivery.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in sorted(folder.glob("*.py"))}
    assert len(sizes) > 10  # the package as it is: planners, lanes, courier, ...
    assert {name: n for name, n in sizes.items() if n >= LIMIT} == {}
