"""Settling a delivery: the transport shows a batch and reports what became of each notice;
this use case records it all in one transaction and says what to deliver next."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from cuckoo_bot.app.chats import follow_migration
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Game
from cuckoo_bot.app.notices import Delivered, Notice, NoticeKind, PromptNote, TurnView
from cuckoo_bot.app.outbox import Batch, write
from cuckoo_bot.app.ports import UnitOfWork


@dataclass
class Report:
    """What a delivery made of a batch."""

    delivered: list[Delivered] = field(default_factory=list)  # each notice's outcome
    unreachable: list[Notice] = field(default_factory=list)  # private notices refused (403)
    migrated: list[tuple[int, int]] = field(default_factory=list)  # (old chat id, new chat id)

    @property
    def moves_on(self) -> bool:
        """Besides the marks, something changes: a player blocked the bot, a group moved."""
        return bool(self.unreachable or self.migrated)


async def settle(deps: Deps, report: Report) -> Batch:
    """Record a delivery: mark every notice; a player who blocked the bot is remembered, and
    a turn that was on its way to them is asked in the group instead (the game must not
    wait); a group that became a supergroup takes its games along, and its open game's lobby
    or table is posted there afresh. What that writes is the next batch to deliver."""
    if not report.moves_on:
        if report.delivered:
            async with deps.uow(autocommit=True) as uow:  # no transaction to begin
                await uow.outbox.mark(report.delivered)
                await uow.commit()
        return Batch([])
    batch = Batch([])
    async with deps.uow() as uow:
        if report.delivered:
            await uow.outbox.mark(report.delivered)
        for old, new in report.migrated:
            moved, _ = await follow_migration(uow, old, new)
            batch.extend(moved)
        batch.extend(await _ask_in_the_group(uow, report.unreachable))
        await uow.commit()
    return batch


async def _ask_in_the_group(uow: UnitOfWork, refused: Iterable[Notice]) -> Batch:
    refused = list(refused)
    for player_id in sorted({n.chat_id for n in refused}):
        await uow.players.set_reachable(player_id, False)
    games: dict[int, Game] = {}
    turns: list[Notice] = []
    for notice in refused:
        note = notice.payload
        if notice.game_id is None or not isinstance(note, PromptNote):
            continue
        game = games.get(notice.game_id) or await uow.games.get(notice.game_id)
        if game is None or game.state is None or game.state.turn != note.turn:
            continue  # the turn is over already: nothing to ask
        games[game.id] = game
        turns.append(
            replace(
                notice,
                kind=NoticeKind.TURN,
                chat_id=game.chat_id,
                payload=TurnView.asking(notice.chat_id, note),
                id=0,
                thread_id=game.thread_id,
                created_at=None,
            )
        )
    batch = Batch([])
    for game in games.values():
        batch.extend(await write(uow, game, [n for n in turns if n.game_id == game.id]))
    return batch
