"""Nothing stalls in silence: a running game whose turn no message asks for is asked again.

Every turn of a running game is asked by a prompt (the player's private chat) or an ask in the
group (a player the bot cannot write to), written in the same transaction as the move that made
the turn. Should none be on its way or show its keys (given up after its tries, its keys taken
off by mistake, a message lost with an instance), the game waits for a player who has nothing
to press until the clock runs out. The sweeper looks for such games now and then (``stalled``)
and asks the turn again; the transport logs a WARNING naming each game and counts it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import write_notices
from cuckoo_bot.app.model import Game, GameStatus, is_computer
from cuckoo_bot.app.notices import Bulletin
from cuckoo_bot.app.outbox import Batch
from cuckoo_bot.domain.state import Phase

# A turn younger than this is left alone: its prompt may be on its way from another instance.
GRACE = timedelta(seconds=15)
LOOK_EVERY = timedelta(seconds=10)  # how often the sweeper looks


def waits_for_a_prompt(game: Game, now: datetime) -> bool:
    """The game's current turn belongs to a person and has run for ``GRACE`` at least."""
    state = game.state
    if game.status is not GameStatus.RUNNING or state is None or game.deadline is None:
        return False
    actor = state.actor
    if state.phase is not Phase.TURNS or actor is None or is_computer(actor):
        return False
    started = game.deadline - timedelta(seconds=game.turn_timeout)
    return now - started >= GRACE


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
            asked = Bulletin(game.chat_id, game.id, game.thread_id, None)  # no turn before
            batch.extend(await write_notices(uow, game, asked))
            await uow.commit()
        repaired.append(game_id)
    return repaired, batch
