"""`python -m fakebotapi --port 8081`: run the fake Bot API standalone."""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from .server import FakeBotApi


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Fake Telegram Bot API server for testing.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081, help="0 picks a free port")
    parser.add_argument("--token", default="123:ABC")
    parser.add_argument("--bot-username", default="cuckoo_test_bot")
    parser.add_argument("--no-privacy", action="store_true", help="bot sees all group messages")
    parser.add_argument("--rate-limit", action="store_true", help="enforce Telegram's limits")
    parser.add_argument(
        "--webhook-timeout", type=float, default=10.0, help="seconds a webhook has to answer"
    )
    parser.add_argument(
        "--webhook-retry-delay",
        type=float,
        default=0.2,
        help="seconds before an update the webhook did not take is sent again",
    )
    parser.add_argument(
        "--insecure-web-app-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web_app buttons open this plain-http origin (e.g. http://127.0.0.1:8080)",
    )
    return parser.parse_args()


async def _serve(args: argparse.Namespace) -> None:
    server = FakeBotApi(
        args.token,
        args.bot_username,
        host=args.host,
        port=args.port,
        privacy_mode=not args.no_privacy,
        rate_limit=args.rate_limit,
        webhook_timeout=args.webhook_timeout,
        webhook_retry_delay=args.webhook_retry_delay,
        insecure_web_app_origins=args.insecure_web_app_origin,
    )
    async with server:
        print(f"base_url {server.base_url}", flush=True)
        print(f"token    {server.token}", flush=True)
        print(f"control  {server.control_url}", flush=True)
        await asyncio.Event().wait()


def main() -> None:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(_parse()))


if __name__ == "__main__":
    main()
