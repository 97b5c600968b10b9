"""The one composition root: settings -> engine, migrations, unit of work, translator, bot."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from signal import SIGINT, SIGTERM
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine
from telegram.ext import Application

from cuckoo_bot.app import queries
from cuckoo_bot.app.clock import Clock, SystemClock
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.config import Settings
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.persistence import migrate
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.ledger import SqlCallLedger
from cuckoo_bot.persistence.listen import GameListener
from cuckoo_bot.persistence.uow import sql_uow_factory
from cuckoo_bot.transport import logfields
from cuckoo_bot.transport.bot import build_application
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.serving import Serving
from cuckoo_bot.transport.web import Webhook, WebServer
from cuckoo_bot.transport.webapp.auth import InitDataCheck
from cuckoo_bot.transport.webapp.hub import Hub
from cuckoo_bot.transport.webapp.server import TableApi
from cuckoo_bot.transport.webapp.view import Snapshot, snapshot

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    engine: AsyncEngine
    deps: Deps
    application: Application[Any, Any, Any, Any, Any, Any]
    metrics: Metrics
    serving: Serving


def build(
    settings: Settings,
    *,
    token: str | None = None,
    rng: random.Random | None = None,
    clock: Clock | None = None,
    poll_timeout: int = 30,
    serve_http: bool = True,
) -> Runtime:
    """Everything the bot needs, wired once. Nothing connects until the bot starts."""
    engine = make_engine(settings.database_url)
    clock = clock or SystemClock()
    public = settings.public_base() if serve_http else None
    # The live table's watchers hear of each committed change of a game (``webapp/hub.py``).
    hub: Hub[Snapshot | None] = Hub(lambda game_id: snapshot(deps, game_id))
    deps = Deps(
        uow=sql_uow_factory(
            engine, instance=settings.instance, changed=hub.changed if public else None
        ),
        # A CSPRNG deals the cards in production; a seed only for replayable tests and demos.
        rng=rng
        or (random.Random(settings.seed) if settings.seed is not None else secrets.SystemRandom()),
        clock=clock,
        turn_timeout=settings.turn_timeout,
        lobby_timeout=settings.lobby_timeout,
        reveal_pause=settings.reveal_pause,
        turn_warning=settings.turn_warning,
    )
    metrics = Metrics()
    hook = settings.webhook()
    bot_token = token or settings.token()
    application = build_application(
        bot_token,
        settings.api_base_url,
        deps,
        Translator(),
        metrics,
        group_rate=settings.group_rate,
        private_interval=settings.private_interval,
        sole_poller=hook is None,
        # Several instances share one PostgreSQL, and with it Telegram's limits; one instance
        # on SQLite keeps them in memory.
        ledger=SqlCallLedger(engine) if engine.dialect.name == "postgresql" else None,
        instance=settings.instance,
        page=f"{public}/app" if public else None,
        app_name=settings.webapp_name,
    )
    application.post_shutdown = _dispose(engine)
    webhook = Webhook(*hook) if hook is not None else None
    web = (
        WebServer(
            application,
            metrics,
            vitals=lambda: queries.vitals(deps),
            health=lambda: queries.backlog(deps),
            listen=settings.listen_address(),
            port=settings.port,
            webhook=webhook,
            metrics_token=settings.metrics_secret(),
            live=_table_api(settings, bot_token, engine, application, hub, metrics)
            if public
            else None,
        )
        if serve_http
        else None
    )
    serving = Serving(
        application,
        web,
        webhook,
        poll_timeout=poll_timeout,
        drain=application.bot_data.services.drain,
        patience=settings.start_timeout,
    )
    return Runtime(
        settings=settings,
        engine=engine,
        deps=deps,
        application=application,
        metrics=metrics,
        serving=serving,
    )


def _table_api(
    settings: Settings,
    token: str,
    engine: AsyncEngine,
    application: Application[Any, Any, Any, Any, Any, Any],
    hub: Hub[Snapshot | None],
    metrics: Metrics,
) -> TableApi:
    """The live table's API. Several instances on PostgreSQL hear each other's changes through
    LISTEN; on SQLite (one process) the units of work tell the hub directly."""
    listener = None
    if engine.dialect.name == "postgresql":
        listener = GameListener(settings.database_url, hub.changed)
        hub.hearing = listener.listening.is_set  # a read is kept only while changes are heard
    check = InitDataCheck(token, timedelta(seconds=settings.init_data_max_age))
    services = application.bot_data.services
    return TableApi(services, application.bot, check, hub, listener, metrics)


def _dispose(engine: AsyncEngine) -> Callable[[Any], Coroutine[Any, Any, None]]:
    async def dispose(application: Any) -> None:
        await engine.dispose()  # the database's connections, last

    return dispose


def run(settings: Settings) -> None:
    """Apply pending migrations, then serve (webhook or polling) until SIGINT/SIGTERM."""
    asyncio.run(_serve(settings))


async def _serve(settings: Settings) -> None:
    await migrate.upgrade(settings.database_url)
    runtime = build(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal in (SIGINT, SIGTERM):
        loop.add_signal_handler(signal, stop.set)
    shown = make_url(settings.database_url).render_as_string(hide_password=True)
    try:
        if await runtime.serving.start(stop):
            mode = "serving the webhook" if runtime.serving.webhook else "polling"
            log.info("cuckoo-bot is %s; database %s", mode, shown)
            await stop.wait()
        log.info("stopping")
    finally:
        await runtime.serving.stop()
    log.info("stopped")


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
