"""A player gone quiet: the game's creator or a group admin skips their turn (``/skip``: it
counts as run out, their idle count too) or takes them out of the game (``/kick``). Answered
in the group; the player learns it in private, on their prompt or in their end of the game."""

from __future__ import annotations

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import advance, notices_for, resign_in, write_notices
from cuckoo_bot.app.lobby import answer
from cuckoo_bot.app.model import Game, GameStatus, Player
from cuckoo_bot.app.play import lapse
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.app.shared import first_time, may_manage
from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.state import Phase


async def _managed(uow: UnitOfWork, chat_id: int, user: Player, is_admin: bool) -> Game | Outcome:
    """The chat's running game, locked, if ``user`` may manage it; else the answer why not."""
    game = await uow.games.open_in_chat(chat_id, lock=True)
    if game is None or game.status is not GameStatus.RUNNING or game.state is None:
        return await answer(uow, ReplyCode.GAME_NOT_RUNNING, game)
    if not may_manage(game, user, is_admin):
        return await answer(uow, ReplyCode.CREATOR_OR_ADMIN_ONLY, game)
    return game


def _actor(game: Game) -> PlayerId | None:
    """Whose turn the game waits for (None: no turn, a sudden-death draw say)."""
    state = game.state
    if state is None or state.phase is not Phase.TURNS or state.round is None:
        return None
    return state.round.actor


async def skip(
    deps: Deps, chat_id: int, user: Player, is_admin: bool, update_id: int | None = None
) -> Outcome:
    """``/skip``: the turn in play ends as if its time had run out."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        game = await _managed(uow, chat_id, user, is_admin)
        if isinstance(game, Outcome):
            return game
        actor = _actor(game)
        if actor is None:
            return await answer(uow, ReplyCode.NO_TURN, game)
        notices = notices_for(game)
        lapse(game, notices, now, by=user.id)
        await advance(uow, deps, game, notices, now)
        batch = await write_notices(uow, game, notices)
        await uow.games.save(game)
        await uow.commit()
        reply = Reply(ReplyCode.SKIPPED, {"player": actor})
        return Outcome(reply=reply, game_id=game.id, deadline=game.wake, batch=batch)


async def kick(
    deps: Deps,
    chat_id: int,
    user: Player,
    is_admin: bool,
    target: PlayerId | None = None,
    update_id: int | None = None,
) -> Outcome:
    """``/kick``: ``target`` (None: the player whose turn it is) is out of the game at once, as
    if they had left; the deal is gathered and dealt again. Never the one who asks (``/leave``
    is theirs)."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        game = await _managed(uow, chat_id, user, is_admin)
        if isinstance(game, Outcome):
            return game
        assert game.state is not None
        player = target if target is not None else _actor(game)
        if player is None or player == user.id or player not in game.state.active_players:
            return await answer(uow, ReplyCode.KICK_WHOM, game)
        outcome = await resign_in(uow, deps, game, player, now, by=user.id)
        await uow.commit()
        return outcome
