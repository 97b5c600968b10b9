"""The deployment files: the compose file, the image, and the wheel the image installs."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import yaml
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from cuckoo_bot.config import Settings

ROOT = Path(__file__).resolve().parents[2]
PREFIX = str(Settings.model_config.get("env_prefix", "")).upper()
PORT = Settings.model_fields["port"].default
POSTGRES_DATA = "/var/lib/postgresql/data"  # where the official postgres image keeps its data
# Source folder -> where it lands in the wheel (pyproject.toml's package-dir).
SHIPPED = {"cuckoo_bot": "cuckoo_bot", "migrations": "cuckoo_bot/migrations"}
SHIPPED_SUFFIXES = {".py", ".typed", ".pot", ".po", ".mako"}
INTERPOLATION = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}")


# --- docker-compose.yml and .env.example ---------------------------------------------------


def _compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _service(name: str) -> dict[str, Any]:
    service = _compose()["services"][name]
    assert isinstance(service, dict)
    return service


def _environment(service: Mapping[str, Any]) -> dict[str, str]:
    """A service's ``environment``, in list form (``NAME=value``) or mapping form."""
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        pairs = (str(item).partition("=") for item in environment)
        return {name: value for name, _, value in pairs}
    return {str(k): "" if v is None else str(v) for k, v in environment.items()}


def _interpolated(value: str, with_value: str = "secret") -> str:
    """``value`` as Compose would fill it, every ``${...}`` given ``with_value``."""
    return INTERPOLATION.sub(with_value, value)


def _example() -> dict[str, str]:
    """The variables ``.env.example`` sets or shows commented out, with their values."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    found = re.findall(r"^#?[ \t]*([A-Z][A-Z0-9_]*)=(.*)$", text, flags=re.MULTILINE)
    return {name: value.strip() for name, value in found}


def _settings_named(names: Iterable[str]) -> list[str]:
    return sorted(name for name in names if name.upper().startswith(PREFIX))


def _healthcheck(service: Mapping[str, Any]) -> str:
    test = service["healthcheck"]["test"]
    return " ".join(test) if isinstance(test, list) else str(test)


def test_the_compose_file_has_the_database_and_the_bot() -> None:
    compose = _compose()
    assert set(compose["services"]) == {"db", "bot"}
    db = _service("db")
    assert str(db["image"]).startswith("postgres:16")
    assert {"POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD"} <= set(_environment(db))
    assert _service("bot")["build"] in (".", {"context": "."})


def test_the_database_keeps_its_data_in_a_named_volume() -> None:
    declared = set(_compose().get("volumes") or {})
    mounts = []
    for volume in _service("db")["volumes"]:
        if isinstance(volume, dict):
            mounts.append((volume.get("source"), volume.get("target")))
        else:
            source, _, target = str(volume).partition(":")
            mounts.append((source, target.split(":")[0]))
    assert any(source in declared and target == POSTGRES_DATA for source, target in mounts), (
        declared,
        mounts,
    )


def test_both_services_have_health_checks() -> None:
    assert "pg_isready" in _healthcheck(_service("db"))
    assert "cuckoo-bot healthcheck" in _healthcheck(_service("bot"))


def test_the_bot_waits_for_a_healthy_database_restarts_and_reads_its_env_file() -> None:
    bot = _service("bot")
    assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    assert bot["restart"] == "unless-stopped"
    env_files = bot["env_file"] if isinstance(bot["env_file"], list) else [bot["env_file"]]
    paths = [item["path"] if isinstance(item, dict) else item for item in env_files]
    assert ".env" in paths


def test_the_bot_uses_the_compose_database_and_publishes_its_port() -> None:
    db, bot = _environment(_service("db")), _environment(_service("bot"))
    url = make_url(_interpolated(bot["CUCKOO_DATABASE_URL"]))
    assert url.drivername == "postgresql+asyncpg"
    assert (url.host, url.port) == ("db", 5432)
    assert (url.username, url.database) == (db["POSTGRES_USER"], db["POSTGRES_DB"])
    # The same password variable on both sides.
    assert INTERPOLATION.findall(bot["CUCKOO_DATABASE_URL"]) == INTERPOLATION.findall(
        db["POSTGRES_PASSWORD"]
    )
    port = int(bot.get("CUCKOO_PORT", PORT))
    published = [str(entry).rsplit(":", 1)[-1] for entry in _service("bot")["ports"]]
    assert published == [str(port)]


def test_every_setting_the_deployment_files_name_is_a_setting_of_the_bot() -> None:
    """A renamed or misspelt setting would be silently ignored by the bot (extra="ignore")."""
    names = {
        "docker-compose.yml": _settings_named(
            name for service in _compose()["services"].values() for name in _environment(service)
        ),
        ".env.example": _settings_named(_example()),
    }
    for source, found in names.items():
        assert found, f"{source} names no {PREFIX}* variable"
        unknown = [n for n in found if n[len(PREFIX) :].lower() not in Settings.model_fields]
        assert not unknown, f"{source}: not settings of the bot: {unknown}"
    assert f"{PREFIX}BOT_TOKEN" in names[".env.example"]


def test_the_values_in_the_deployment_files_are_accepted_by_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in list(os.environ):
        if name.upper().startswith(PREFIX):
            monkeypatch.delenv(name)
    values = {**_example(), **_environment(_service("bot"))}
    for name in _settings_named(values):
        monkeypatch.setenv(name, _interpolated(values[name]))
    settings = Settings(_env_file=None)  # raises if a value is not what the setting takes
    assert settings.database_url.startswith("postgresql+asyncpg://")


def test_every_variable_the_compose_file_fills_in_is_in_the_env_example() -> None:
    wanted = set(INTERPOLATION.findall((ROOT / "docker-compose.yml").read_text(encoding="utf-8")))
    assert wanted <= set(_example()), wanted - set(_example())


# --- Dockerfile and .dockerignore ----------------------------------------------------------


def _stages(text: str | None = None) -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages (or ``text``'s), each a list of (INSTRUCTION, arguments), lines
    joined."""
    if text is None:
        text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    stages: list[list[tuple[str, str]]] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        keyword, _, arguments = (pending + stripped).partition(" ")
        pending = ""
        if keyword.upper() == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword.upper(), " ".join(arguments.split())))
    return stages


def _arguments(stage: list[tuple[str, str]], keyword: str) -> list[str]:
    return [arguments for name, arguments in stage if name == keyword]


def _copied() -> list[str]:
    """What the stages copy from the build context (not from another stage)."""
    sources: list[str] = []
    for stage in _stages():
        for arguments in _arguments(stage, "COPY"):
            words = [word for word in arguments.split() if not word.startswith("--")]
            if "--from=" not in arguments:
                sources.extend(word.removeprefix("./").rstrip("/") for word in words[:-1])
    return sources


def test_the_image_builds_the_wheel_in_one_stage_and_installs_it_in_another() -> None:
    stages = _stages()
    assert len(stages) >= 2
    assert all(stage[0][1].startswith("python:3.11-slim") for stage in stages)
    builds = " ".join(run for stage in stages[:-1] for run in _arguments(stage, "RUN"))
    assert "pip wheel" in builds or "build --wheel" in builds
    final = stages[-1]
    assert any(arguments.startswith("--from=") for arguments in _arguments(final, "COPY"))
    assert any("pip install" in run and ".whl" in run for run in _arguments(final, "RUN"))


def test_the_image_runs_the_bot_as_a_user_other_than_root() -> None:
    users = _arguments(_stages()[-1], "USER")
    assert users, "the final stage sets no USER: the bot would run as root"
    assert users[-1].split(":")[0] not in ("root", "0")


def test_the_image_checks_its_health_and_starts_the_bot() -> None:
    final = _stages()[-1]
    (healthcheck,) = _arguments(final, "HEALTHCHECK")
    assert json.loads(healthcheck[healthcheck.index("CMD") + 3 :]) == ["cuckoo-bot", "healthcheck"]
    assert [json.loads(entry) for entry in _arguments(final, "ENTRYPOINT")] == [["cuckoo-bot"]]
    assert [json.loads(entry) for entry in _arguments(final, "CMD")] == [["run"]]
    assert _arguments(final, "EXPOSE") == [str(PORT)]
    assert any("PYTHONUNBUFFERED=1" in env.split() for env in _arguments(final, "ENV"))


def test_the_build_context_holds_what_the_image_copies() -> None:
    """.dockerignore lets in only what it names; a COPY of anything else would fail."""
    let_in = {
        line[1:].strip().removeprefix("./").rstrip("/")
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.startswith("!")
    }
    copied = _copied()
    assert {"pyproject.toml", "cuckoo_bot", "migrations"} <= set(copied)
    for source in copied:
        assert (ROOT / source).exists(), source
        assert source in let_in, f"{source} is copied but .dockerignore keeps it out"


# --- the wheel ------------------------------------------------------------------------------


def _run(command: list[str], cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"
    return result


def _clean_environment() -> dict[str, str]:
    """The environment without anything that would make the source tree or settings leak in."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.upper().startswith(PREFIX)
        and name not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    }


def _source_files(root: Path) -> set[str]:
    """The files under ``root`` that the wheel must hold, named as in the wheel."""
    names: set[str] = set()
    for folder, shipped_as in SHIPPED.items():
        for path in (root / folder).rglob("*"):
            if path.suffix in SHIPPED_SUFFIXES and "__pycache__" not in path.parts:
                names.add(f"{shipped_as}/{path.relative_to(root / folder).as_posix()}")
    return names


@pytest.mark.slow
def test_the_wheel_migrates_a_database_without_the_source_tree(tmp_path: Path) -> None:
    # Built from what the Dockerfile copies, as `docker build` would build it.
    source = tmp_path / "src"
    for name in _copied():
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    env = _clean_environment()
    dist = tmp_path / "dist"
    build = [sys.executable, "-m", "build", "--wheel", "--quiet", "--outdir", str(dist)]
    _run([*build, str(source)], cwd=tmp_path, env=env)
    (wheel,) = dist.glob("cuckoo_bot-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    assert "cuckoo_bot/migrations/versions/0001_initial_schema.py" in shipped
    assert _source_files(source) - shipped == set()  # e.g. a package missing in pyproject.toml

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path, env=env)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    _run([*pip, str(wheel)], cwd=tmp_path, env=env)

    elsewhere = tmp_path / "elsewhere"  # an empty folder: the source tree is not importable
    elsewhere.mkdir()
    database = tmp_path / "fresh.db"
    env["CUCKOO_DATABASE_URL"] = f"sqlite+aiosqlite:///{database}"
    result = _run([str(venv / "bin" / "cuckoo-bot"), "migrate"], cwd=elsewhere, env=env)
    assert "the database is up to date" in result.stdout
    # The fake Bot API is a test double: not in the wheel; the demo says where it runs.
    assert not any(name.startswith("fakebotapi/") for name in shipped)
    demo = subprocess.run(
        [str(venv / "bin" / "cuckoo-bot"), "demo"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert demo.returncode == 2 and b"from a checkout" in demo.stderr, demo.stderr

    where = _run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "from cuckoo_bot.persistence.migrate import script_location; print(script_location())",
        ],
        cwd=elsewhere,
        env=env,
    )
    assert Path(where.stdout.strip()).is_relative_to(venv)
    with closing(sqlite3.connect(database)) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        (version,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert {"games", "game_players", "rounds", "outbox", "alembic_version"} <= tables
    assert version == ScriptDirectory(str(ROOT / "migrations")).get_current_head()
