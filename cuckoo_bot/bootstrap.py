"""The one composition root: settings -> engine, migrations, unit of work, translator, bot."""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine
from telegram import Update
from telegram.ext import Application

from cuckoo_bot.app.clock import Clock, SystemClock
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.config import Settings
from cuckoo_bot.i18n.translator import Translator
from cuckoo_bot.persistence import migrate
from cuckoo_bot.persistence.engine import make_engine
from cuckoo_bot.persistence.uow import sql_uow_factory
from cuckoo_bot.transport.bot import build_application
from cuckoo_bot.transport.metrics import Metrics

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    engine: AsyncEngine
    deps: Deps
    application: Application[Any, Any, Any, Any, Any, Any]
    metrics: Metrics


def build(
    settings: Settings,
    *,
    token: str | None = None,
    rng: random.Random | None = None,
    clock: Clock | None = None,
) -> Runtime:
    """Everything the bot needs, wired once. Nothing connects until the bot starts."""
    engine = make_engine(settings.database_url)
    clock = clock or SystemClock()
    deps = Deps(
        uow=sql_uow_factory(engine),
        # A CSPRNG deals the cards in production; a seed only for replayable tests and demos.
        rng=rng
        or (random.Random(settings.seed) if settings.seed is not None else secrets.SystemRandom()),
        clock=clock,
        turn_timeout=settings.turn_timeout,
        lobby_timeout=settings.lobby_timeout,
    )
    metrics = Metrics()
    application = build_application(
        token or settings.token(),
        settings.api_base_url,
        deps,
        Translator(),
        metrics,
        group_rate=settings.group_rate,
        private_interval=settings.private_interval,
    )
    application.post_shutdown = _dispose(engine)
    return Runtime(
        settings=settings, engine=engine, deps=deps, application=application, metrics=metrics
    )


def _dispose(engine: AsyncEngine) -> Callable[[Any], Coroutine[Any, Any, None]]:
    async def dispose(application: Any) -> None:
        # Let messages already on their way finish, then close the database connections.
        await application.bot_data["services"].courier.drain()
        await engine.dispose()

    return dispose


def run_polling(settings: Settings) -> None:
    """Apply pending migrations, then poll Telegram until SIGINT/SIGTERM."""
    asyncio.run(migrate.upgrade(settings.database_url))
    runtime = build(settings)
    log.info(
        "cuckoo-bot is polling; database %s",
        make_url(settings.database_url).render_as_string(hide_password=True),
    )
    runtime.application.run_polling(allowed_updates=Update.ALL_TYPES)


class Redacting(logging.Formatter):
    """Formats as usual, then blanks out secrets (the bot token) wherever they appear: in a
    message, its arguments or a traceback, from this bot, python-telegram-bot or httpx alike."""

    def __init__(self, fmt: str, secrets: Sequence[str]) -> None:
        super().__init__(fmt)
        self.secrets = [secret for secret in secrets if secret]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, "[token]")
        return text


def configure_logging(level: str, secrets: Sequence[str] = ()) -> None:
    logging.basicConfig(level=level, force=True)
    formatter = Redacting("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
    # httpx logs every request URL, and a Bot API URL contains the token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
