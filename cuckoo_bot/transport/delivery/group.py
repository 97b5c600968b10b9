"""A group chat: the lobby, one table per round, turns asked in the group for players the bot
cannot write to, and the end. What a batch needs is planned by ``plan_group.py``; this lane
spends the group's budget, renders and calls."""

from __future__ import annotations

import logging

from telegram.error import BadRequest, ChatMigrated, Forbidden

from cuckoo_bot.app.notices import AnswerNote, Notice, NoticeKind
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.lanes import Lane
from cuckoo_bot.transport.delivery.plan_group import plan
from cuckoo_bot.transport.delivery.results import LaneResult
from cuckoo_bot.transport.delivery.steps import (
    Delete,
    Edit,
    Send,
    Show,
    Step,
    TakeKeys,
    Unchanged,
)
from cuckoo_bot.transport.render import Rendered, group_language

log = logging.getLogger(__name__)


class GroupLane(Lane):
    """A group chat: the lobby, one table per round, asks for unreachable players, the end."""

    def language(self, notice: Notice) -> str:
        game = self.known.game(notice)
        return group_language(game.chat if game else None, game)

    async def run(self, notices: list[Notice]) -> LaneResult:
        self.holding = tuple(notices)
        try:
            if not await self.execute(plan(notices, self.view())):
                self.result.waiting = True  # the budget is spent, or the claims ran out
        except Unreachable:
            self.result.waiting = True
        return self.result

    def render(self, notice: Notice, show: Show, folded: tuple[Notice, ...]) -> Rendered:
        game = self.known.game(notice)
        render, lang, players = self.tools.renderer, self.language(notice), self.known.players
        if notice.kind is NoticeKind.TABLE:
            assert game is not None
            return render.table(notice, list(folded), game, players, lang)
        if notice.kind is NoticeKind.LOBBY:
            assert game is not None
            return render.lobby(notice, game, players, lang)
        if isinstance(notice.payload, AnswerNote):
            return render.answer(notice.payload)
        return render.group_notice(notice, game, players, lang)

    async def spend(self) -> bool:
        return await self.tools.budget.take(self.chat_id)

    def waits(self) -> bool:
        return bool(self.tools.budget.calm(self.chat_id))

    def fault(self, step: Step, exc: Exception) -> bool:
        """One step's failure never holds the group's other notices back: an old ask left in
        place, a key left on a group that is gone, a notice Telegram refused (recorded) or
        that failed (tried again later)."""
        if isinstance(step, Delete):
            log.exception("retracting a turn asked in chat %s failed", self.chat_id)
        elif isinstance(step, TakeKeys) and isinstance(exc, Forbidden | ChatMigrated):
            self.result.skip(step.notice, f"keys left: {exc}")  # the group is gone: no key to worry
        elif isinstance(step, Edit | Send | TakeKeys | Unchanged):
            self._show_failed(step.notice, exc)
        else:
            return False
        return True

    def _show_failed(self, notice: Notice, exc: Exception) -> None:
        if isinstance(exc, ChatMigrated):
            self.result.migrated.append((self.chat_id, exc.new_chat_id))
            self.result.skip(notice, f"migrated to {exc.new_chat_id}")
        elif isinstance(exc, Forbidden):
            self.result.refused(notice, f"forbidden: {exc.message}")
        elif isinstance(exc, BadRequest):
            self.result.refused(notice, f"bad request: {exc.message}")
        else:
            self.result.failed(notice, exc, self.tools.deps.clock.now(), self.chat_id)
