"""A group chat: the lobby, one table per round (coalesced, folded when rounds outrun the
budget), turns asked in the group for players the bot cannot write to, and the end."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
)

from cuckoo_bot.app.model import Game, GameStatus
from cuckoo_bot.app.notices import (
    GameOverView,
    Notice,
    NoticeKind,
    SentMessage,
    TableView,
    TurnView,
)
from cuckoo_bot.transport.delivery.calls import Unreachable
from cuckoo_bot.transport.delivery.lanes import Lane, LaneResult
from cuckoo_bot.transport.render import group_language

log = logging.getLogger(__name__)

MAX_FOLDED = 3  # finished rounds shown under one table message (Telegram's 4,096 characters)


@dataclass
class Planned:
    """One group call (or none, for a notice already shown as it is)."""

    notice: Notice
    folded: list[Notice] = field(default_factory=list)  # finished rounds shown with this table


class GroupLane(Lane):
    """A group chat: the lobby, one table per round, asks for unreachable players, the end."""

    def language(self, notice: Notice) -> str:
        game = self.known.game(notice)
        return group_language(game.chat if game else None, game)

    async def run(self, notices: list[Notice]) -> LaneResult:
        steps = self.plan(notices)
        try:
            try:
                await self.retract_old_turns(notices)
            except Unreachable:
                raise
            except Exception:  # an old ask left in place is no reason to hold the table back
                log.exception("retracting turns asked in chat %s failed", self.chat_id)
            for step in steps:
                try:
                    shown = await self.perform(step)
                except Unreachable as exc:
                    if exc.maybe_sent:  # shown, maybe: its keys come off once it is known
                        await self.tools.doubt(self.chat_id, step.notice.id)
                    raise
                except Exception as exc:
                    self.failed(step.notice, exc)
                    continue
                if shown is None:
                    self.result.deferred = True  # a move mid-round: shown with the next ones
                elif not shown:
                    self.result.waiting = True  # the budget is spent: the rest waits
                    return self.result
        except Unreachable:
            self.result.waiting = True
        return self.result

    def plan(self, notices: list[Notice]) -> list[Planned]:
        """Coalesce: the newest view of each lobby and round table; stale asks dropped; rounds
        that ended before their table was posted folded into the next table."""
        newest: dict[tuple[Any, ...], Notice] = {}
        for notice in notices:
            key = self._key(notice)
            if key is not None:
                newest[key] = notice
        steps: list[Planned] = []
        for notice in notices:
            key = self._key(notice)
            if key is not None and newest[key] is not notice:
                self.skip(notice, "superseded")
                continue
            game = self.known.game(notice)
            if notice.kind is NoticeKind.TURN and not self._current(notice, game):
                self.skip(notice, "turn over")
                continue
            if notice.kind is NoticeKind.TABLE and self._outdated(notice):
                self.skip(notice, "superseded")
                continue
            steps.append(Planned(notice))
        # A finished round that never had its table posted is shown under the table of an
        # earlier finished round (a message never edited again), a few rounds per message.
        carriers: dict[int | None, Planned] = {}
        kept: list[Planned] = []
        for step in steps:
            view = step.notice.payload
            if not isinstance(view, TableView):
                kept.append(step)
                continue
            game_id = step.notice.game_id
            carrier = carriers.get(game_id)
            if (
                view.final
                and carrier is not None
                and len(carrier.folded) < MAX_FOLDED
                and self._table_message(step.notice) is None
            ):
                carrier.folded.append(step.notice)
                continue
            kept.append(step)
            if view.final:
                carriers[game_id] = step
            else:
                carriers.pop(game_id, None)
        return kept

    @staticmethod
    def _key(notice: Notice) -> tuple[Any, ...] | None:
        if notice.kind in (NoticeKind.LOBBY, NoticeKind.TURN):
            return (notice.kind, notice.game_id)
        if notice.kind is NoticeKind.TABLE:
            return (notice.kind, notice.game_id, notice.round)
        return None

    @staticmethod
    def _current(notice: Notice, game: Game | None) -> bool:
        view = notice.payload
        return (
            isinstance(view, TurnView)
            and game is not None
            and game.status is GameStatus.RUNNING
            and game.state is not None
            and game.state.turn == view.turn
        )

    def _outdated(self, notice: Notice) -> bool:
        """A table view older than one already shown (read back after a restart): a newer view
        of the same round, or the middle of a round whose next round is shown. The final view
        of a round is never dropped for a later round's: its reveal must be seen. A view that
        asks a turn the game has left behind (it moved on, or ended) is outdated too, however
        the chat's messages read: a newer notice shows the table as it is (one held by an
        instance that died is shown after the newer ones, and must not ask again)."""
        view = notice.payload
        assert isinstance(view, TableView)
        game = self.known.game(notice)
        if not view.final and game is not None and view.turn is not None:
            if game.status is not GameStatus.RUNNING:
                return True
            if game.state is not None and game.state.turn > view.turn:
                return True
        shown = self.known.newest_table.get((self.chat_id, notice.game_id or 0))
        if shown is None or shown.notice.id < notice.id:
            return False
        return shown.notice.round == notice.round or not view.final

    def _table_message(self, notice: Notice) -> SentMessage | None:
        shown = self.known.newest_table.get((self.chat_id, notice.game_id or 0))
        return shown if shown is not None and shown.notice.round == notice.round else None

    async def spend(self) -> bool:
        return await self.tools.budget.take(self.chat_id)

    async def retract_old_turns(self, notices: list[Notice]) -> None:
        """A turn asked in the group is deleted once it is over."""
        for game_id in {n.game_id for n in notices if n.game_id is not None}:
            game = self.known.games.get(game_id)
            for old in list(self.known.live.get((self.chat_id, game_id), [])):
                if old.notice.kind is NoticeKind.TURN and not self._current(old.notice, game):
                    if not await self.tools.budget.take(self.chat_id):
                        return
                    await self.tools.calls.remove(self.chat_id, old.message_id)
                    self.result.delivered.append(self.tools.keys_gone(old))
                    gone = SentMessage(old.notice, old.message_id, False, 0)
                    self.known.remember(gone)
                    self.result.shown.append(gone)

    async def expire_keys(self, notice: Notice) -> bool:
        """The game's "Play again" key is too old: it comes off the summary (one call)."""
        shown = self.known.live_of(notice, NoticeKind.GAME_OVER)
        if not shown:
            self.skip(notice, "no key left to take off")
            return True
        if not await self.tools.budget.take(self.chat_id):
            return False
        try:
            for old in shown:
                await self.tools.calls.remove_keys(self.chat_id, old.message_id)
                self.done(notice, old.message_id, None)
        except (Forbidden, ChatMigrated) as exc:  # the group is gone: no key to worry about
            self.skip(notice, f"keys left: {exc}")
        return True

    async def perform(self, step: Planned) -> bool | None:
        """Show one step; False when the group's budget allows no call now, None when the step
        can wait (it is shown, coalesced, by a later run)."""
        notice = step.notice
        if isinstance(notice.payload, GameOverView) and notice.payload.expired:
            return await self.expire_keys(notice)
        game = self.known.game(notice)
        render = self.tools.renderer
        lang = self.language(notice)
        players = self.known.players
        if notice.kind is NoticeKind.TABLE:
            assert game is not None
            rendered = render.table(notice, step.folded, game, players, lang)
            target = self._table_message(notice)
            if target is not None and target.notice.payload == notice.payload:
                self.done(notice, target.message_id, rendered.keyboard)  # shown as it is
                for inner in step.folded:
                    self.skip(inner, "folded")
                return True
            assert isinstance(notice.payload, TableView)
            if (
                target is not None
                and not notice.payload.final
                and self.tools.budget.calm(self.chat_id)
            ):
                return None
        elif notice.kind is NoticeKind.LOBBY:
            assert game is not None
            rendered = render.lobby(notice, game, players, lang)
            lobby = self.known.newest_lobby.get((self.chat_id, notice.game_id or 0))
            target = lobby if lobby is not None and lobby.notice.chat_id == self.chat_id else None
        else:
            rendered = render.group_notice(notice, game, players, lang)
            target = None
        if not await self.tools.budget.take(self.chat_id):
            return False
        try:
            if target is not None and await self.tools.calls.edit(
                self.chat_id, target.message_id, rendered
            ):
                self.done(notice, target.message_id, rendered.keyboard)
            else:
                message = await self.tools.calls.send(notice, rendered)
                self.done(notice, message.message_id, rendered.keyboard)
                # A copy whose send's answer was lost loses its keys. Unlike a private chat,
                # a leftover of another process is not cleared after on a guess: each edit
                # spends the group's budget, and people's messages stand among the guesses.
                if self.tools.doubted(self.chat_id):
                    await self._clear_orphans(notice.id, below=message.message_id)
            for inner in step.folded:
                self.skip(inner, "folded")
        except ChatMigrated as exc:
            self.result.migrated.append((self.chat_id, exc.new_chat_id))
            self.skip(notice, f"migrated to {exc.new_chat_id}")
        except Forbidden as exc:
            self.refused(notice, f"forbidden: {exc.message}")
        except BadRequest as exc:
            self.refused(notice, f"bad request: {exc.message}")
        return True
