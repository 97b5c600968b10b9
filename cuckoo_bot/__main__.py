"""The command line: ``cuckoo-bot run | migrate | demo``."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from pydantic import ValidationError

from cuckoo_bot.app.model import DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES
from cuckoo_bot.config import Settings, SettingsError
from cuckoo_bot.persistence.migrate import DatabaseUnusable


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cuckoo-bot", description="The Cuckoo card game bot for Telegram groups."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "run", help="run the bot (long polling, or a webhook when CUCKOO_WEBHOOK_URL is set)"
    )
    commands.add_parser(
        "healthcheck",
        help="ask the running bot's /healthz on CUCKOO_PORT (exit 0: healthy), for containers",
    )
    commands.add_parser("migrate", help="apply pending database migrations and exit")
    demo = commands.add_parser(
        "demo", help="play a game with computer seats against a fake Telegram (source checkout)"
    )
    demo.add_argument(
        "--players", type=int, default=4, help="players at the table, 3..20 (default 4)"
    )
    demo.add_argument(
        "--lang",
        default=DEFAULT_LANGUAGE,
        choices=SUPPORTED_LANGUAGES,
        help=f"language (default {DEFAULT_LANGUAGE})",
    )
    demo.add_argument("--seed", type=int, default=None, help="seed the shuffle to replay a demo")
    demo.add_argument(
        "--web",
        action="store_true",
        help="play on the live table in a browser: prints a link per player, runs until Ctrl-C",
    )
    demo.add_argument(
        "--port", type=int, default=8080, help="the live table's port on 127.0.0.1 (--web)"
    )
    demo.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a house rule set with /settings before the game (kille=1, queens_block=1,"
        " name=chase_the_ace ...); repeat for more",
    )
    demo.add_argument(
        "--solo",
        action="store_true",
        help="with --web: you alone against computer seats, in one window (one link)",
    )
    return parser


DEMO_NEEDS_SOURCE = (
    "cuckoo-bot: the demo plays against the fake Telegram (fakebotapi/) and the table driver\n"
    "(tests/support/) kept beside the bot's code in its source checkout, not in this install.\n"
    "Run it from a checkout: python3 -m venv .venv && .venv/bin/pip install -e . &&\n"
    ".venv/bin/cuckoo-bot demo"
)


def _demo(checkout: Path) -> ModuleType | None:
    """The demo, from the source checkout this package was installed from (editable), or None.

    The fake Bot API and the driver that plays as people are test doubles: they stay out of the
    wheel and the image, so an installed bot finds them only beside its own source."""
    if not ((checkout / "fakebotapi").is_dir() and (checkout / "tests" / "support").is_dir()):
        return None
    if str(checkout) not in sys.path:
        sys.path.insert(0, str(checkout))
    return importlib.import_module("tests.support.demo")


def _run(settings: Settings, args: argparse.Namespace, secrets: list[str]) -> int:
    from cuckoo_bot.bootstrap import run
    from cuckoo_bot.transport.logformat import configure_logging

    token = settings.token()  # fail fast, with a clear line, before anything else
    hook = settings.webhook()  # webhook mode needs its secret: said before starting
    secrets += [token, token.split(":", 1)[1], *(hook[2:] if hook else ())]
    secrets += [settings.metrics_secret() or ""]
    configure_logging(settings.log_level, secrets=secrets, fmt=settings.log_format)
    try:
        run(settings)
    except (SettingsError, DatabaseUnusable):
        raise
    except Exception:
        # Through the log, whose formatter blanks the token out of the traceback too.
        logging.getLogger("cuckoo_bot").exception("cuckoo-bot stopped on an error")
        return 1
    # Stopped cleanly: its notices handed back, its connections closed, its loop torn down.
    # The interpreter's own finalization after that has hung past 10 s in C destructors (no
    # Python frame left, as the stack dumped by ``bootstrap._serve`` showed; 3 times in 11
    # streak runs on a machine loaded to 5-10), and a supervisor then kills the process.
    # Nothing is left that finalization would save: the process ends here, its output flushed.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _migrate(settings: Settings, args: argparse.Namespace, secrets: list[str]) -> int:
    from cuckoo_bot.persistence import migrate

    asyncio.run(migrate.upgrade(settings.database_url))
    print(f"cuckoo-bot: the database is up to date ({_safe_url(settings.database_url)})")
    return 0


def _play_demo(settings: Settings, args: argparse.Namespace, secrets: list[str]) -> int:
    if not 3 <= args.players <= 20:
        print("cuckoo-bot: --players must be within 3..20", file=sys.stderr)
        return 2
    rules = list(args.rule)
    unknown = _unknown_rule(rules)
    if unknown:
        print(f"cuckoo-bot: --rule {unknown}", file=sys.stderr)
        return 2
    demo = _demo(Path(__file__).resolve().parent.parent)
    if demo is None:
        print(DEMO_NEEDS_SOURCE, file=sys.stderr)
        return 2
    if args.web:
        solo = bool(args.solo)
        web = demo.run_web_demo(
            args.players, args.lang, args.seed, args.port, solo=solo, rules=rules
        )
        return int(asyncio.run(web))
    return int(asyncio.run(demo.run_demo(args.players, args.lang, args.seed, rules)))


def _unknown_rule(rules: list[str]) -> str | None:
    """What is wrong with the first of the demo's ``--rule`` values, or None: each is a
    setting of /settings and one of its values (``kille=1``), as its key sets it."""
    from cuckoo_bot.app.settings import BY_NAME, encode

    for rule in rules:
        name, _, value = rule.partition("=")
        setting = BY_NAME.get(name)
        if setting is None:
            return f"{rule}: no such setting (one of {', '.join(BY_NAME)})"
        values = [encode(v) for v in setting.choices]
        if value not in values:
            return f"{rule}: {name} takes {', '.join(values)}"
    return None


COMMANDS: dict[str, Callable[[Settings, argparse.Namespace, list[str]], int]] = {
    "run": _run,
    "healthcheck": lambda settings, args, secrets: _healthcheck(settings.port),
    "migrate": _migrate,
    "demo": _play_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    secrets: list[str] = []  # blanked out of whatever is printed
    try:
        return COMMANDS[args.command](Settings(), args, secrets)
    except SettingsError as exc:
        said = str(exc)
        for secret in filter(None, secrets):
            said = said.replace(secret, "[token]")
        print(f"cuckoo-bot: {said}", file=sys.stderr)
        return 2
    except DatabaseUnusable as exc:
        print(f"cuckoo-bot: CUCKOO_DATABASE_URL: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        first = exc.errors()[0]
        print(f"cuckoo-bot: CUCKOO_{str(first['loc'][0]).upper()}: {first['msg']}", file=sys.stderr)
        return 2


def _healthcheck(port: int) -> int:
    """0 when the bot on this host answers /healthz with 200 (its database answers)."""
    import urllib.error
    import urllib.request

    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            healthy = answer.status == 200
    except (urllib.error.URLError, OSError) as exc:
        print(f"cuckoo-bot: unhealthy: {url}: {exc}", file=sys.stderr)
        return 1
    print(f"cuckoo-bot: {'healthy' if healthy else 'unhealthy'} ({url})")
    return 0 if healthy else 1


def _safe_url(url: str) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


if __name__ == "__main__":
    sys.exit(main())
