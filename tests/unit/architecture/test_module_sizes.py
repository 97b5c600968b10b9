"""Delivery and the live table stay readable one module at a time: each delivery module under
250 lines, each of the live table's under 300 (their complexity is held to 12 by ruff's C901,
as for the whole bot)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import cuckoo_bot.transport.delivery as delivery
import cuckoo_bot.transport.webapp as webapp


@pytest.mark.parametrize(("package", "limit", "least"), [(delivery, 250, 10), (webapp, 300, 7)])
def test_every_module_of_the_package_is_under_its_limit(
    package: ModuleType, limit: int, least: int
) -> None:
    assert package.__file__ is not None
    folder = Path(package.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in sorted(folder.glob("*.py"))}
    assert len(sizes) > least  # the package as it is, split by job
    assert {name: n for name, n in sizes.items() if n >= limit} == {}
