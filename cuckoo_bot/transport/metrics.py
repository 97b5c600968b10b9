"""What the bot counts, for /metrics (prometheus-client) and for the demo and benchmarks: every
Bot API call and error by method, every update handled by kind and how long it took, and the
outbox and games as the database tells them when /metrics is read."""

from __future__ import annotations

from collections import Counter
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client import Counter as PromCounter
from telegram import Update
from telegram.request import RequestData

from cuckoo_bot.app.queries import Vitals
from cuckoo_bot.transport.http import AiohttpRequest

# Telegram's own kinds of update, in the order an update is looked at for its kind.
UPDATE_KINDS = tuple(Update.ALL_TYPES)


def update_kind(update: object) -> str:
    """``command`` for a message that starts with /, else the update's field (``message``,
    ``callback_query``, ``my_chat_member``, ...)."""
    if not isinstance(update, Update):
        return "other"
    message = update.message
    if message is not None and (message.text or "").startswith("/"):
        return "command"
    for kind in UPDATE_KINDS:
        if getattr(update, kind, None) is not None:
            return kind
    return "other"


class Metrics:
    """One registry per running bot (tests run several bots in one process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.api_calls: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()  # the HTTP server's, by reason
        self._calls = PromCounter(
            "cuckoo_bot_api_calls",
            "Bot API calls made, by method (getUpdates included).",
            ["method"],
            registry=self.registry,
        )
        self._errors = PromCounter(
            "cuckoo_bot_api_errors",
            "Bot API calls that failed (an error answer or no answer), by method.",
            ["method"],
            registry=self.registry,
        )
        self._updates = PromCounter(
            "cuckoo_updates_handled",
            "Updates from Telegram handled, by kind.",
            ["kind"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "cuckoo_update_handling_seconds",
            "Time from an update's arrival to the end of its handler, by kind.",
            ["kind"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self._backlog = Gauge(
            "cuckoo_outbox_backlog",
            "Notices waiting in the outbox to be shown in Telegram.",
            registry=self.registry,
        )
        self._running = Gauge(
            "cuckoo_games_running", "Games being played now.", registry=self.registry
        )
        self._lobbies = Gauge(
            "cuckoo_games_in_lobby", "Games waiting for players.", registry=self.registry
        )
        self._finished = Gauge(
            "cuckoo_games_finished", "Games played to the end, all time.", registry=self.registry
        )
        self.live_pages = Gauge(
            "cuckoo_live_pages",
            "The live table's pages holding an event stream open on this instance.",
            registry=self.registry,
        )
        self.live_moves = PromCounter(
            "cuckoo_live_moves",
            "Moves and Play again presses made on the live table's page, by what became of"
            " them (taken, refused).",
            ["result"],
            registry=self.registry,
        )

        self._holds = PromCounter(
            "cuckoo_flood_holds",
            "429s from Telegram (flood control), by what they held back: a group, a private"
            " chat, or every send (a 429 to a call naming no chat).",
            ["held"],
            registry=self.registry,
        )
        self.holds: Counter[str] = Counter()

        self._repairs = PromCounter(
            "cuckoo_delivery_repairs",
            "Stalls the sweeper found and repaired, by what: prompt (a running game's turn"
            " that no message asked with its keys, asked again), table (a running game's"
            " newest table that no message showed, shown again).",
            ["what"],
            registry=self.registry,
        )
        self.repairs: Counter[str] = Counter()

        self._statements = PromCounter(
            "cuckoo_sql_statements",
            "SQL statements sent to the database (each press makes 8 to 14).",
            registry=self.registry,
        )
        # The process's own CPU seconds, resident memory and open files (``process_*``).
        ProcessCollector(registry=self.registry)

        self._http = PromCounter(
            "cuckoo_http_refused",
            "Connections and requests the bot's HTTP server turned away, by why: slow (no"
            " request within the time allowed), full (too many connections), malformed (not"
            " HTTP), accept (the process out of file descriptors).",
            ["reason"],
            registry=self.registry,
        )

    def sql_statement(self, *_: object) -> None:
        """One statement sent (a SQLAlchemy ``after_cursor_execute`` listener)."""
        self._statements.inc()

    def http_refused(self, reason: str, count: int = 1) -> None:
        self.refusals[reason] += count
        self._http.labels(reason).inc(count)

    def repaired(self, what: str) -> None:
        self.repairs[what] += 1
        self._repairs.labels(what).inc()

    def flood_hold(self, chat_id: int | None) -> None:
        held = "all" if chat_id is None else "group" if chat_id < 0 else "private"
        self.holds[held] += 1
        self._holds.labels(held).inc()

    def api_call(self, method: str) -> None:
        self.api_calls[method] += 1
        self._calls.labels(method).inc()

    def api_error(self, method: str) -> None:
        self._errors.labels(method).inc()

    def handled(self, kind: str, seconds: float) -> None:
        self._updates.labels(kind).inc()
        self._latency.labels(kind).observe(seconds)

    def total_calls(self, include_polling: bool = False) -> int:
        """Calls made so far; long polling's getUpdates only when asked for."""
        return sum(n for m, n in self.api_calls.items() if include_polling or m != "getUpdates")

    def exposition(self, vitals: Vitals | None) -> bytes:
        """The Prometheus text format, with the database's figures when it answered."""
        if vitals is not None:
            self._backlog.set(vitals.backlog)
            self._running.set(vitals.running)
            self._lobbies.set(vitals.lobbies)
            self._finished.set(vitals.finished)
        return generate_latest(self.registry)


class CountingRequest(AiohttpRequest):
    """The bot's HTTP client (``http.py``), counting each Bot API call (and each failed one)
    by its method."""

    def __init__(self, metrics: Metrics, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.metrics = metrics

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,  # PTB's DefaultValue-or-float; passed through untouched
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        name = url.rsplit("/", 1)[-1]
        self.metrics.api_call(name)
        try:
            code, body = await super().do_request(
                url,
                method,
                request_data,
                read_timeout=read_timeout,
                write_timeout=write_timeout,
                connect_timeout=connect_timeout,
                pool_timeout=pool_timeout,
            )
        except Exception:
            self.metrics.api_error(name)
            raise
        if code >= 400:
            self.metrics.api_error(name)
        return code, body
