"""The page is type-checked against its contract: TypeScript's checker runs over the page's
JavaScript as written (``tsc --checkJs``, pinned by package-lock.json: ``npm ci``), and a page
that reads a field the contract does not have fails the check."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STATIC = ROOT / "cuckoo_bot" / "transport" / "webapp" / "static"
TSC = ROOT / "node_modules" / ".bin" / "tsc"


def _tsc() -> Path:
    if TSC.exists():
        return TSC
    if os.environ.get("CUCKOO_TEST_REQUIRE_TSC") == "1":
        pytest.fail("TypeScript is not installed: run `npm ci` in the project folder")
    pytest.skip("TypeScript is not installed (`npm ci` in the project folder installs it)")


def check(folder: Path) -> subprocess.CompletedProcess[str]:
    config = ROOT / "tsconfig.json"
    return subprocess.run(
        [str(_tsc()), "-p", str(config)]
        if folder == STATIC
        else [
            str(_tsc()),
            "--noEmit",
            "--allowJs",
            "--checkJs",
            "--target",
            "es2022",
            "--module",
            "es2022",
            "--lib",
            "es2022,dom",
            "--skipLibCheck",
            str(folder / "table.js"),
            str(folder / "contract.js"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_the_page_type_checks_against_its_contract() -> None:
    done = check(STATIC)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_page_reading_a_field_the_contract_lacks_fails_the_check(tmp_path: Path) -> None:
    for name in ("table.js", "contract.js"):
        shutil.copy(STATIC / name, tmp_path / name)
    page = tmp_path / "table.js"
    text = page.read_text()
    assert "view.turn_seconds" in text
    page.write_text(text.replace("view.turn_seconds", "view.turn_length", 1))
    done = check(tmp_path)
    assert done.returncode != 0 and "turn_length" in done.stdout, done.stdout
