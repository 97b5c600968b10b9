"""What an instance does on its own clock, besides handling updates: at start, take back what
a previous life left and re-arm every deadline; then fire the turns that ran out, sweep the
outbox, renew its claims, look for games that stalled, and prune old notices.

The timers (``timers.py``) say when; this says what. Built once by the composition root.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from cuckoo_bot.app import chats, outbox, play, repair, sweep
from cuckoo_bot.app.ports import CallLedger
from cuckoo_bot.app.tuning import ALIVE_WITHIN, PRUNE_EVERY, REPAIR_EVERY
from cuckoo_bot.transport.flood import ChatLimiter, Floods
from cuckoo_bot.transport.metrics import Metrics
from cuckoo_bot.transport.pacing import GroupBudget
from cuckoo_bot.transport.render import TableLinks
from cuckoo_bot.transport.services import Services

log = logging.getLogger(__name__)


class Upkeep:
    """The instance's own work. ``sole_poller``: this process polls, and only one process can
    poll a token, so at start it takes over every unfinished delivery, whoever held it.
    ``ledger``: several instances share Telegram's limits through the database (PostgreSQL);
    ``instance`` is this one's name there. ``page``: the live table's public URL (None: no
    live table), ``app_name`` its short name at @BotFather (for the group's direct link)."""

    def __init__(
        self,
        services: Services,
        floods: Floods,
        budget: GroupBudget,
        limiter: ChatLimiter,
        metrics: Metrics,
        *,
        sole_poller: bool,
        ledger: CallLedger | None,
        instance: str,
        page: str | None = None,
        app_name: str | None = None,
    ) -> None:
        self.services = services
        self.deps = services.deps
        self.courier = services.courier
        self.floods = floods
        self.budget = budget
        self.limiter = limiter
        self.metrics = metrics
        self.sole_poller = sole_poller
        self.ledger = ledger
        self.instance = instance
        self.page = page
        self.app_name = app_name
        now = self.deps.clock.now()
        self.last_prune = now - PRUNE_EVERY  # the first sweep prunes
        self.last_look = now

    async def start(self, username: str) -> None:
        """At start (once the bot knows its username): the live table's links, what Telegram
        holds back, the timers, every deadline re-armed, the deliveries a previous life of
        this instance left taken back and sent in the background."""
        services, deps = self.services, self.deps
        services.bot_username = username
        if self.page is not None:
            services.renderer.links = TableLinks(self.page, username, self.app_name)
        self.floods.learn(await chats.held(deps))
        services.timers.start(self)
        for game_id, deadline in await play.deadlines(deps):
            services.timers.arm(game_id, deadline)
        taken = await outbox.take_back(deps, everyone=self.sole_poller)
        if taken:
            log.info("took back %s undelivered notice(s) left by an earlier run", taken)
        self.courier.schedule(None)  # updates are taken from now on

    async def expire(self, game_id: int) -> None:
        """A game's deadline: its turn (or lobby) runs out, once, whichever instance fires."""
        outcome = await play.expire(self.deps, game_id)
        await self.services.after(replace(outcome, game_id=game_id), wait=True)

    async def sweep(self) -> None:
        """Every few seconds: overdue deadlines, what Telegram holds back (as any instance was
        told), the outbox, stalls, idle budgets, and now and then old notices."""
        deps = self.deps
        found = await sweep.look(deps)
        # Any instance fires an expired clock; the game's row lock and deadline make it once.
        for game_id, _ in found.due:
            await self.expire(game_id)
        if found.due:  # what the turns that ran out wrote and showed is read afresh
            found = await sweep.look(deps)
        self.floods.learn(found.held)
        await self.courier.sweep(look=found)
        await self.look_for_stalls()
        self.budget.forget_idle()
        if deps.clock.now() - self.last_prune >= PRUNE_EVERY:
            self.last_prune = deps.clock.now()
            gone = await outbox.prune(deps)
            if gone:
                log.info("pruned %s old sent notices", gone)

    async def renew(self) -> None:
        """Keep this instance's claims; say it is alive, and learn its share of the rate."""
        await self.courier.renew()
        if self.ledger is not None:
            alive = await self.ledger.alive(self.instance, self.deps.clock.now(), ALIVE_WITHIN)
            self.limiter.share(alive)

    async def look_for_stalls(self) -> None:
        """A running game whose turn nothing asks for is asked again, and a round whose table
        no message shows is shown again, loudly."""
        deps = self.deps
        if deps.clock.now() - self.last_look < REPAIR_EVERY:
            return
        self.last_look = deps.clock.now()
        repaired, batch = await repair.stalled(deps)
        for game_id in repaired:
            log.warning("game %s: no message asked its turn with keys; asked again", game_id)
            self.metrics.repaired("prompt")
        tables, again = await repair.untold(deps)
        for table in tables:
            log.warning(
                "game %s: no message showed the table of round %s; shown again",
                table.game_id,
                table.round,
            )
            self.metrics.repaired("table")
        batch.extend(again)
        if batch:
            await self.courier.deliver(batch)
