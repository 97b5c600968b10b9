"""The browser the page's tests drive: Debian's Chromium, through Playwright (which cannot
download a browser build here). Without it those tests are skipped with the reason, unless
``CUCKOO_TEST_REQUIRE_BROWSER`` is set (CI), where a missing browser fails them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox"]  # tests run as root in containers


def require_chromium() -> Path:
    """Chromium's path; skips (or, in CI, fails) the calling test module without it."""
    if CHROMIUM.exists():
        return CHROMIUM
    why = "the live table's browser tests need Debian's chromium (apt-get install -y chromium)"
    if os.environ.get("CUCKOO_TEST_REQUIRE_BROWSER"):
        pytest.fail(why, pytrace=False)
    pytest.skip(why, allow_module_level=True)
