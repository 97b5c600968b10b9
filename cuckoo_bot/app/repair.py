"""Nothing stalls in silence: a running game whose turn no message asks for is asked again,
and a round whose table never reached the group is shown again.

Every turn of a running game is asked by a prompt (the player's private chat) or an ask in the
group (a player the bot cannot write to), written in the same transaction as the move that made
the turn. Should none be on its way or show its keys (given up after its tries, its keys taken
off by mistake, a message lost with an instance), the game waits for a player who has nothing
to press until the clock runs out. Likewise every move writes the group's table: should the
newest be passed over by delivery while no message shows it, the group may never see how a
round ended. The sweeper looks for both now and then (``stalled``, ``untold``) and repairs
them; the transport logs a WARNING naming each game and counts it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import write_notices
from cuckoo_bot.app.model import Game, GameStatus, is_computer
from cuckoo_bot.app.notices import Bulletin, Notice, NoticeKind, TableView
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.app.tuning import REPAIR_GRACE
from cuckoo_bot.domain.state import Phase

# A turn younger than this is left alone: its prompt may be on its way from another instance.


def waits_for_a_prompt(game: Game, now: datetime) -> bool:
    """The game's current turn belongs to a person and has run for ``REPAIR_GRACE`` at least."""
    state = game.state
    if game.status is not GameStatus.RUNNING or state is None or game.deadline is None:
        return False
    actor = state.actor
    if state.phase is not Phase.TURNS or actor is None or is_computer(actor):
        return False
    started = game.deadline - timedelta(seconds=game.turn_timeout)
    return now - started >= REPAIR_GRACE


async def stalled(deps: Deps) -> tuple[list[int], Batch]:
    """The running games whose turn nothing asks for, asked again: their ids, and the batch
    to deliver. Each game is checked again under its row lock (a press may have just asked)."""
    now = deps.clock.now()
    async with deps.uow(read_only=True) as uow:
        suspects = await uow.outbox.unprompted()
    repaired: list[int] = []
    batch = Batch([])
    for game_id in suspects:
        async with deps.uow() as uow:
            game = await uow.games.get(game_id, lock=True)
            if game is None or not waits_for_a_prompt(game, now):
                continue
            if not await uow.outbox.unprompted(game_id):
                continue  # asked meanwhile
            # (no turn before)
            asked = Bulletin(game.chat_id, game.id, game.thread_id, None, game.carried)
            batch.extend(await write_notices(uow, game, asked))
            await uow.commit()
        repaired.append(game_id)
    return repaired, batch


def still_the_table(game: Game, notice: Notice) -> bool:
    """The table ``notice`` shows is the game's as it is: a round's end, or the turn in play
    (a view of a turn the game has left would be passed over again)."""
    view = notice.payload
    if game.status is not GameStatus.RUNNING or not isinstance(view, TableView):
        return False
    return view.final or (game.state is not None and game.state.turn == view.turn)


async def untold(deps: Deps) -> tuple[list[Notice], Batch]:
    """The running games whose newest table no message shows, shown again: the tables (one a
    game), and the batch to deliver (a copy of each). A table Telegram refused is not: it
    would refuse it again (``OutboxRepository.untold``). Each game is checked again under its
    row lock (a move may have just written a newer table)."""
    before = deps.clock.now() - REPAIR_GRACE
    async with deps.uow(read_only=True) as uow:
        suspects = await uow.outbox.untold(before)
    repaired: list[Notice] = []
    batch = Batch([])
    for notice in suspects:
        assert notice.game_id is not None
        async with deps.uow() as uow:
            game = await uow.games.get(notice.game_id, lock=True)
            if game is None or not still_the_table(game, notice):
                continue
            if not await uow.outbox.untold(before, game.id):
                continue  # shown, or a newer table written, meanwhile
            copy = Notice(NoticeKind.TABLE, notice.chat_id, notice.payload, game.id)
            copy.thread_id = notice.thread_id
            batch.extend(await outbox.write(uow, game, [copy]))
            await uow.commit()
        repaired.append(notice)
    return repaired, batch
