"""Log lines: text or JSON lines, with the chat and game they are about, and secrets (the bot
token, the webhook secret) blanked out wherever they appear."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.timers import ONE_AT_A_TIME


class Redacting(logging.Formatter):
    """Formats as usual, then blanks out secrets (the bot token, the webhook secret) wherever
    they appear: in a message, its arguments or a traceback, from this bot, python-telegram-bot
    or httpx alike."""

    def __init__(self, fmt: str | None, secrets: Sequence[str]) -> None:
        super().__init__(fmt)
        self.secrets = [secret for secret in secrets if secret]

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "[token]")
        return text

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))


class JsonLines(Redacting):
    """One JSON object per line: time, level, logger, message, the chat and game the line is
    about (when known), and the traceback; secrets redacted like the text format."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__(None, secrets)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(logfields.current())
        for key in ("chat_id", "game_id"):  # given with extra={...} by the call itself
            if isinstance(getattr(record, key, None), int):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return self.redact(json.dumps(entry, ensure_ascii=False))


class OverlapsAreNormal(logging.Filter):
    """APScheduler warns each time a run of a repeating job is skipped because the one before
    is still running. The sweeper and the renewer run one at a time on purpose: when many
    games move, a sweep that waits on a paced group's lane outlasts its 2 s, and the next one
    is not needed then (seen as a warning every 2 s in the live table's flat-out run). Those
    lines are debug lines; every other line of the scheduler, and a skip of any other job,
    stays as it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        job = record.args[0] if isinstance(record.args, tuple) and record.args else None
        if "maximum number of running instances" not in str(record.msg) or (
            getattr(job, "name", None) not in ONE_AT_A_TIME
        ):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)


def configure_logging(level: str, secrets: Sequence[str] = (), fmt: str = "text") -> None:
    logging.basicConfig(level=level, force=True)
    formatter: logging.Formatter = (
        JsonLines(secrets)
        if fmt == "json"
        else Redacting("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
    )
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
    # httpx logs every request URL, and a Bot API URL contains the token; the scheduler logs
    # every run of the sweeper.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    scheduler = logging.getLogger("apscheduler.scheduler")
    if not any(isinstance(f, OverlapsAreNormal) for f in scheduler.filters):
        scheduler.addFilter(OverlapsAreNormal())
