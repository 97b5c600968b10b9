"""Building the PTB Application: rate limiter, request counting, handlers, timers, start-up."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    LinkPreviewOptions,
)
from telegram.constants import ParseMode
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder, Defaults

from cuckoo_bot.app import dispatch as outbox
from cuckoo_bot.app import play
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.i18n.translator import LANGUAGES, Translator
from cuckoo_bot.transport import handlers
from cuckoo_bot.transport.admission import FairUpdates
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.metrics import CountingRequest, Metrics
from cuckoo_bot.transport.pacing import GroupBudget, PrivatePacer
from cuckoo_bot.transport.render import Renderer
from cuckoo_bot.transport.replies import Replies
from cuckoo_bot.transport.timers import Timers

log = logging.getLogger(__name__)

PRUNE_EVERY = timedelta(minutes=10)  # how often an instance deletes old sent notices


def build_application(
    token: str,
    api_base_url: str,
    deps: Deps,
    translator: Translator,
    metrics: Metrics | None = None,
    group_rate: int = 20,
    private_interval: float = 1.0,
) -> Application[Any, Any, Any, Any, Any, Any]:
    metrics = metrics or Metrics()
    application = (
        ApplicationBuilder()
        .token(token)
        .base_url(api_base_url)
        .request(CountingRequest(metrics, connection_pool_size=16))
        .get_updates_request(CountingRequest(metrics, read_timeout=40))
        # The overall limit (30 a second) and waiting out a 429 stay with PTB; a group's
        # budget is the courier's, which coalesces instead of queueing (``pacing.py``).
        .rate_limiter(AIORateLimiter(group_max_rate=0, max_retries=3))
        .defaults(
            Defaults(
                parse_mode=ParseMode.HTML, link_preview_options=LinkPreviewOptions(is_disabled=True)
            )
        )
        .post_init(_post_init)
        # Updates are handled side by side (each press is its own transaction on a locked game
        # row), a few per chat at most, so no chat's flood or rate limit holds back the others.
        .concurrent_updates(FairUpdates(metrics, 32))
        .build()
    )
    renderer = Renderer(translator, lobby_minutes=max(1, round(deps.lobby_timeout / 60)))
    budget = GroupBudget(group_rate, clock=lambda: deps.clock.now().timestamp())
    courier = Courier(deps, application.bot, renderer, budget, PrivatePacer(private_interval))

    async def expire(game_id: int) -> None:
        outcome = await play.expire(deps, game_id)
        if outcome.deadline is not None:
            services.timers.arm(game_id, outcome.deadline)
        if outcome.dispatch:
            await courier.deliver(outcome.dispatch)

    last_prune = deps.clock.now() - PRUNE_EVERY  # the first sweep prunes

    async def sweep() -> None:
        nonlocal last_prune
        # Any instance fires an expired clock; the game's row lock and deadline make it once.
        for game_id, _ in await play.due(deps):
            await expire(game_id)
        await courier.renew()
        await courier.sweep()
        budget.forget_idle()
        if deps.clock.now() - last_prune >= PRUNE_EVERY:
            last_prune = deps.clock.now()
            gone = await outbox.prune(deps)
            if gone:
                log.info("pruned %s old sent notices", gone)

    services = handlers.Services(
        deps=deps,
        renderer=renderer,
        courier=courier,
        replies=Replies(application.bot, budget, courier.saw),
        timers=Timers(application.job_queue, expire, sweep),
    )
    application.bot_data["services"] = services
    handlers.install(application)
    return application


async def _post_init(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """At start: learn our username, register commands, re-arm every deadline, send leftovers."""
    services: handlers.Services = application.bot_data["services"]
    services.bot_username = application.bot.username or ""  # learnt by initialize (getMe)
    await _register_commands(application, services.renderer.tr)
    for game_id, deadline in await play.deadlines(services.deps):
        services.timers.arm(game_id, deadline)
    services.timers.start()
    services.courier.schedule(None)  # leftovers go out in the background, polling starts now


async def _register_commands(
    application: Application[Any, Any, Any, Any, Any, Any], tr: Translator
) -> None:
    for language in LANGUAGES:
        code = None if language == "en" else language
        for scope, menu in (
            (BotCommandScopeAllGroupChats(), handlers.GROUP),
            (BotCommandScopeAllPrivateChats(), handlers.PRIVATE),
        ):
            commands = [
                BotCommand(c.name, tr.t(language, c.description_key))
                for c in handlers.COMMANDS
                if menu in c.menus
            ]
            await application.bot.set_my_commands(commands, scope=scope, language_code=code)
