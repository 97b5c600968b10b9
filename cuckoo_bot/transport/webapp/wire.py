"""What the live table's API reads from a request and writes back: its errors, its JSON, its
static files, one write to a stream, and a log line told quietly."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from typing import Any, TypeGuard

from aiohttp import web

from cuckoo_bot.app.tuning import BODY_LIMIT, WRITE_TIMEOUT

log = logging.getLogger(__name__)

QUIET_EVERY = 10.0  # seconds between two log lines about failing requests or streams
STATIC = resources.files("cuckoo_bot.transport.webapp") / "static"
# The page runs its own script and Telegram's, talks only to this server, and draws its cards
# inline: nothing else may run or load, whatever a name or an answer holds.
PAGE_POLICY = (
    "default-src 'none'; script-src 'self' https://telegram.org; style-src 'unsafe-inline';"
    " img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"
)
TYPES = {".html": "text/html", ".js": "application/javascript", ".css": "text/css"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Problem(Exception):
    """A request answered with ``status`` and ``{"error": code}``."""

    def __init__(self, status: int, code: str, strings: dict[str, str] | None = None) -> None:
        super().__init__(code)
        self.status = status
        self.code = code
        self.strings = strings  # the page's texts, when the asker's language is known

    def response(self) -> web.Response:
        body: dict[str, object] = {"error": self.code}
        if self.strings is not None:
            body["strings"] = self.strings
        return web.json_response(body, status=self.status)


class Quiet:
    """Logs a failure unless one was told less than ``QUIET_EVERY`` seconds ago (a database
    outage fails every request and ends every stream at once)."""

    def __init__(self) -> None:
        self.told_at = -QUIET_EVERY

    def tell(self, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self.told_at >= QUIET_EVERY:
            log.warning(message, *args)
            self.told_at = now


def static_file(name: str) -> web.StreamResponse:
    suffix = name[name.rfind(".") :] if "." in name else ""
    content_type = TYPES.get(suffix)
    item = STATIC / name
    if content_type is None or "/" in name or not item.is_file():
        return web.json_response({"error": "not_found"}, status=404)
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    if content_type == "text/html":
        headers["Content-Security-Policy"] = PAGE_POLICY
    return web.Response(
        body=item.read_bytes(), content_type=content_type, charset="utf-8", headers=headers
    )


def json_answer(body: Mapping[str, object], status: int = 200) -> web.Response:
    return web.json_response(body, status=status, headers={"Cache-Control": "no-store"})


async def send(response: web.StreamResponse, data: bytes) -> None:
    """One write to a page; a page that stops reading is let go (its connection with it)."""
    async with asyncio.timeout(WRITE_TIMEOUT):
        await response.write(data)


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def game_id_of(value: object) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        value = int(value)
    if isinstance(value, int) and is_int(value) and 0 < value < 2**63:
        return value
    raise Problem(400, "bad_request")


def version_of(value: str | None) -> int:
    if value is None or value == "":
        return -1
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise Problem(400, "bad_request")
    return int(value)


async def read_body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > BODY_LIMIT:
        raise Problem(413, "too_large")
    raw = b""
    try:
        async with asyncio.timeout(5):
            while len(raw) <= BODY_LIMIT and (chunk := await request.content.readany()):
                raw += chunk
        if len(raw) > BODY_LIMIT:
            raise Problem(413, "too_large")
        data = json.loads(raw)
    except (TimeoutError, ValueError, RecursionError):  # JSON's and UTF-8's errors included
        raise Problem(400, "bad_request") from None
    if not isinstance(data, dict):
        raise Problem(400, "bad_request")
    return data
