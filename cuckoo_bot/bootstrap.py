"""The one composition root: settings -> engine, migrations, unit of work, translator, the
application and everything it runs (``assemble``), the web server, serving."""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import random
import secrets
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from signal import SIGINT, SIGTERM
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine
from telegram.constants import FloodLimit
from telegram.ext import Application

from cuckoo_bot.app import chats, queries
from cuckoo_bot.app.clock import Clock, SystemClock
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.ports import CallLedger
from cuckoo_bot.app.tuning import RENEW_EVERY, SWEEP_EVERY
from cuckoo_bot.config import Settings
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.persistence import migrate
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.ledger import SqlCallLedger
from cuckoo_bot.persistence.listen import GameListener
from cuckoo_bot.persistence.uow import sql_uow_factory
from cuckoo_bot.transport import handlers
from cuckoo_bot.transport.answers import AnswerQueue, keeper
from cuckoo_bot.transport.bot import build_application, register_commands
from cuckoo_bot.transport.context import CuckooApp
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.flood import ChatLimiter, Floods
from cuckoo_bot.transport.logformat import configure_logging
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.pacing import (
    GROUP_PERIOD,
    SHARED_GROUP_PERIOD,
    GroupBudget,
    PrivatePacer,
)
from cuckoo_bot.transport.render import Renderer
from cuckoo_bot.transport.services import Services
from cuckoo_bot.transport.serving import Serving
from cuckoo_bot.transport.timers import Timers
from cuckoo_bot.transport.upkeep import Upkeep
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
    translator = Translator()
    hub: Hub[Snapshot | None] = Hub(lambda game_id: snapshot(deps, game_id, translator))
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
    event.listen(engine.sync_engine, "after_cursor_execute", metrics.sql_statement)
    hook = settings.webhook()
    bot_token = token or settings.token()
    application = assemble(
        bot_token,
        settings.api_base_url,
        deps,
        translator,
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


def assemble(
    token: str,
    api_base_url: str,
    deps: Deps,
    translator: Translator,
    metrics: Metrics | None = None,
    *,
    group_rate: int = FloodLimit.MESSAGES_PER_MINUTE_PER_GROUP,
    private_interval: float = 1 / FloodLimit.MESSAGES_PER_SECOND_PER_CHAT,
    sole_poller: bool = False,
    ledger: CallLedger | None = None,
    instance: str = "local",
    page: str | None = None,
    app_name: str | None = None,
) -> CuckooApp:
    """The bot's application with everything it runs: Telegram's limits (``flood.py``,
    ``pacing.py``), the renderer, the courier, the answers, the timers and the instance's own
    work (``upkeep.py``), the handlers, and the start-up. ``sole_poller``: this process polls
    (it takes over every unfinished delivery at start); ``ledger``: several instances share
    Telegram's limits through the database, ``instance`` naming this one; ``page``: the live
    table's public URL (None: no live table), ``app_name`` its short name at @BotFather."""
    metrics = metrics or Metrics()

    async def hold(chat_id: int, until: datetime) -> None:
        await chats.hold(deps, chat_id, until)

    floods = Floods(deps.clock.now, hold, metrics.flood_hold)
    limiter = ChatLimiter(floods)
    application = build_application(token, api_base_url, metrics, limiter)
    renderer = Renderer(translator, lobby_minutes=max(1, round(deps.lobby_timeout / 60)))
    budget = GroupBudget(
        group_rate,
        clock=lambda: deps.clock.now().timestamp(),
        period=GROUP_PERIOD if ledger is None else SHARED_GROUP_PERIOD,
        ledger=ledger,
        floods=floods,
        busy=limiter.backlog,
    )
    pacer = PrivatePacer(private_interval)
    courier = Courier(deps, application.bot, renderer, budget, pacer, floods, alone=sole_poller)
    replies = AnswerQueue(
        application.bot, budget, courier.saw, pacer, floods, keeper(deps, courier.post)
    )
    timers = Timers(
        application.job_queue,
        sweep_every=SWEEP_EVERY.total_seconds(),
        renew_every=RENEW_EVERY.total_seconds(),
    )
    services = Services(deps, renderer, courier, replies, timers)
    upkeep = Upkeep(
        services,
        floods,
        budget,
        limiter,
        metrics,
        sole_poller=sole_poller,
        ledger=ledger,
        instance=instance,
        page=page,
        app_name=app_name,
    )
    application.bot_data.services = services
    handlers.install(application)

    async def post_init(application: CuckooApp) -> None:
        await register_commands(application, renderer.tr)
        await upkeep.start(application.bot.username or "")  # learnt by getMe

    application.post_init = post_init
    return application


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
    """Apply pending migrations, then serve (webhook or polling) until SIGINT/SIGTERM, on
    uvloop's event loop (asyncio's own on Windows, where uvloop is not built)."""
    if sys.platform == "win32":
        asyncio.run(_serve(settings))
    else:
        import uvloop

        uvloop.run(_serve(settings))


async def _serve(settings: Settings) -> None:
    await migrate.upgrade(settings.database_url)
    runtime = build(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal in (SIGINT, SIGTERM):
        loop.add_signal_handler(signal, stop.set)
    printable = make_url(settings.database_url).render_as_string(hide_password=True)
    try:
        if await runtime.serving.start(stop):
            mode = "serving the webhook" if runtime.serving.webhook else "polling"
            log.info("cuckoo-bot is %s; database %s", mode, printable)
            await stop.wait()
        log.info("stopping")
    finally:
        await runtime.serving.stop()
    log.info("stopped")
    # What is left is the event loop's own teardown (its last tasks cancelled, its executor
    # joined). Should that hang, every thread's stack goes to stderr after 5 s: where it hangs.
    faulthandler.dump_traceback_later(5, exit=False)


__all__ = ["Runtime", "assemble", "build", "configure_logging", "run"]
