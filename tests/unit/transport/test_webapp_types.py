"""The page is type-checked against its contract: TypeScript's checker runs over the page's
JavaScript as written (``tsc --checkJs``, pinned by package-lock.json: ``npm ci``), and a page
that reads a field the contract does not have fails the check."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
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
    """TypeScript's checker over the page's modules in ``folder``, as ``tsconfig.json`` says
    (its settings written beside nothing of the project's)."""
    config = json.loads((ROOT / "tsconfig.json").read_text())
    config["include"] = [str(folder / "*.js")]
    with tempfile.TemporaryDirectory() as scratch:
        settings = Path(scratch) / "tsconfig.json"
        settings.write_text(json.dumps(config))
        return subprocess.run(
            [str(_tsc()), "-p", str(settings)],
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
    for module in STATIC.glob("*.js"):
        shutil.copy(module, tmp_path / module.name)
    (reader,) = [p for p in tmp_path.glob("*.js") if "view.turn_seconds" in p.read_text()]
    reader.write_text(reader.read_text().replace("view.turn_seconds", "view.turn_length", 1))
    done = check(tmp_path)
    assert done.returncode != 0 and "turn_length" in done.stdout, done.stdout
