"""The command line: ``cuckoo-bot run | migrate | demo``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from cuckoo_bot.config import Settings, SettingsError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cuckoo-bot", description="The Cuckoo card game bot for Telegram groups."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("run", help="run the bot (long polling)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings()
        if args.command == "run":
            settings.token()
            print("cuckoo-bot: the Telegram transport is not built yet", file=sys.stderr)
            return 1
    except SettingsError as exc:
        print(f"cuckoo-bot: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        first = exc.errors()[0]
        print(f"cuckoo-bot: CUCKOO_{str(first['loc'][0]).upper()}: {first['msg']}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
