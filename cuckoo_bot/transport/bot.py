"""Building the PTB Application: rate limiter, request counting, handlers, timers, start-up."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    LinkPreviewOptions,
)
from telegram.constants import FloodLimit, ParseMode
from telegram.ext import Application, ApplicationBuilder, Defaults

from cuckoo_bot.app import chats, outbox, play, repair
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import DEFAULT_LANGUAGE
from cuckoo_bot.app.ports import CallLedger
from cuckoo_bot.i18n.translator import LANGUAGES, Translator
from cuckoo_bot.transport import handlers
from cuckoo_bot.transport.admission import FairUpdates
from cuckoo_bot.transport.answers import AnswerQueue, keeper
from cuckoo_bot.transport.context import CONTEXT_TYPES, CuckooApp
from cuckoo_bot.transport.delivery import Courier
from cuckoo_bot.transport.flood import ChatLimiter, Floods
from cuckoo_bot.transport.metrics import CountingRequest, Metrics
from cuckoo_bot.transport.pacing import (
    GROUP_PERIOD,
    SHARED_GROUP_PERIOD,
    GroupBudget,
    PrivatePacer,
)
from cuckoo_bot.transport.render import Renderer, TableLinks
from cuckoo_bot.transport.requests import AnswersApart
from cuckoo_bot.transport.services import Services
from cuckoo_bot.transport.timers import Timers

log = logging.getLogger(__name__)

OUTBOX_PRUNE_INTERVAL = timedelta(minutes=10)  # how often an instance deletes old sent notices
ALIVE_WITHIN = 3 * outbox.RENEW_EVERY  # an instance not heard of for longer is gone


def build_application(
    token: str,
    api_base_url: str,
    deps: Deps,
    translator: Translator,
    metrics: Metrics | None = None,
    group_rate: int = FloodLimit.MESSAGES_PER_MINUTE_PER_GROUP,
    private_interval: float = 1 / FloodLimit.MESSAGES_PER_SECOND_PER_CHAT,
    sole_poller: bool = False,
    ledger: CallLedger | None = None,
    instance: str = "local",
    page: str | None = None,
    app_name: str | None = None,
) -> CuckooApp:
    """The bot's PTB application. ``sole_poller``: this process polls, and only one process
    can poll a token, so at start it takes over every unfinished delivery, whoever held it.
    ``ledger``: several instances share Telegram's limits through the database (PostgreSQL);
    ``instance`` is this one's name there. ``page``: the live table's public URL (None: no
    live table), ``app_name`` its short name at @BotFather (for the group's direct link)."""
    metrics = metrics or Metrics()

    async def hold(chat_id: int, until: datetime) -> None:
        await chats.hold(deps, chat_id, until)

    floods = Floods(deps.clock.now, hold, metrics.flood_hold)
    limiter = ChatLimiter(floods)
    application = (
        ApplicationBuilder()
        .token(token)
        .base_url(api_base_url)
        # Answers to taps have connections of their own: never queued behind the sends.
        .request(
            AnswersApart(
                CountingRequest(metrics, connection_pool_size=16),
                CountingRequest(metrics, connection_pool_size=4),
            )
        )
        .get_updates_request(CountingRequest(metrics, read_timeout=40))
        # The overall limit (30 a second) and a 429's wait, chat by chat (``flood.py``); a
        # group's budget is the courier's, which coalesces instead of queueing (``pacing.py``).
        .rate_limiter(limiter)
        .defaults(
            Defaults(
                parse_mode=ParseMode.HTML, link_preview_options=LinkPreviewOptions(is_disabled=True)
            )
        )
        # Updates are handled side by side (each press is its own transaction on a locked game
        # row), a few per chat at most, so no chat's flood or rate limit holds back the others.
        .concurrent_updates(FairUpdates(metrics, 32))
        .context_types(CONTEXT_TYPES)
        .build()
    )
    renderer = Renderer(translator, lobby_minutes=max(1, round(deps.lobby_timeout / 60)))
    budget = GroupBudget(
        group_rate,
        clock=lambda: deps.clock.now().timestamp(),
        period=GROUP_PERIOD if ledger is None else SHARED_GROUP_PERIOD,
        ledger=ledger,
        floods=floods,
    )
    courier = Courier(
        deps,
        application.bot,
        renderer,
        budget,
        PrivatePacer(private_interval),
        floods,
        alone=sole_poller,
    )

    async def expire(game_id: int) -> None:
        outcome = await play.expire(deps, game_id)
        if outcome.deadline is not None:
            services.timers.arm(game_id, outcome.deadline)
        if outcome.batch:
            await courier.deliver(outcome.batch)

    last_prune = deps.clock.now() - OUTBOX_PRUNE_INTERVAL  # the first sweep prunes
    last_look = deps.clock.now()

    async def look_for_stalls() -> None:
        """A running game whose turn nothing asks for is asked again, and a round whose table
        no message shows is shown again, loudly."""
        nonlocal last_look
        if deps.clock.now() - last_look < repair.LOOK_EVERY:
            return
        last_look = deps.clock.now()
        repaired, batch = await repair.stalled(deps)
        for game_id in repaired:
            log.warning("game %s: no message asked its turn with keys; asked again", game_id)
            metrics.repaired("prompt")
        tables, shown = await repair.untold(deps)
        for table in tables:
            log.warning(
                "game %s: no message showed the table of round %s; shown again",
                table.game_id,
                table.round,
            )
            metrics.repaired("table")
        batch.extend(shown)
        if batch:
            await courier.deliver(batch)

    async def sweep() -> None:
        nonlocal last_prune
        # Any instance fires an expired clock; the game's row lock and deadline make it once.
        for game_id, _ in await play.due(deps):
            await expire(game_id)
        floods.learn(await chats.held(deps))  # what every instance was told by Telegram
        await courier.sweep()
        await look_for_stalls()
        budget.forget_idle()
        if deps.clock.now() - last_prune >= OUTBOX_PRUNE_INTERVAL:
            last_prune = deps.clock.now()
            gone = await outbox.prune(deps)
            if gone:
                log.info("pruned %s old sent notices", gone)

    async def renew() -> None:
        await courier.renew()
        if ledger is not None:  # alive, and this instance's share of the overall rate
            limiter.share(await ledger.alive(instance, deps.clock.now(), ALIVE_WITHIN))

    services = Services(
        deps=deps,
        renderer=renderer,
        courier=courier,
        replies=AnswerQueue(
            application.bot, budget, courier.saw, courier.pacer, floods, keeper(deps, courier.post)
        ),
        timers=Timers(
            application.job_queue,
            expire,
            sweep,
            renew,
            sweep_every=outbox.SWEEP_EVERY.total_seconds(),
            renew_every=outbox.RENEW_EVERY.total_seconds(),
        ),
    )
    application.bot_data.services = services
    handlers.install(application)

    async def post_init(application: CuckooApp) -> None:
        """At start: learn our username, register commands, re-arm every deadline, take back
        the deliveries a previous life of this instance left, and send them."""
        services.bot_username = application.bot.username or ""  # learnt by getMe
        if page is not None:
            services.renderer.links = TableLinks(page, services.bot_username, app_name)
        await _register_commands(application, services.renderer.tr)
        floods.learn(await chats.held(deps))
        for game_id, deadline in await play.deadlines(services.deps):
            services.timers.arm(game_id, deadline)
        services.timers.start()
        taken = await outbox.take_back(deps, everyone=sole_poller)
        if taken:
            log.info("took back %s undelivered notice(s) left by an earlier run", taken)
        services.courier.schedule(None)  # in the background: updates are taken from now on

    application.post_init = post_init
    return application


async def _register_commands(
    application: Application[Any, Any, Any, Any, Any, Any], tr: Translator
) -> None:
    """The bot's description (what someone arriving by a link sees in the empty chat), its
    short description (its profile) and its command menus, in each language: 12 calls at
    start, none naming a chat. The commands go last: once they are set, the bot is ready."""
    bot = application.bot
    for language in LANGUAGES:
        code = None if language == DEFAULT_LANGUAGE else language
        await bot.set_my_description(tr.t(language, "bot_description"), language_code=code)
        await bot.set_my_short_description(
            tr.t(language, "bot_short_description"), language_code=code
        )
    for language in LANGUAGES:
        code = None if language == DEFAULT_LANGUAGE else language
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
