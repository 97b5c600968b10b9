"""Playing: a player's keep/swap/cut, the turn clock, resigning, peeking at one's own card."""

from __future__ import annotations

from datetime import datetime

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import Notices, advance, step
from cuckoo_bot.app.lobby import fresh, lobby_deadline
from cuckoo_bot.app.model import GameStatus
from cuckoo_bot.app.results import Outcome, Reply, refused
from cuckoo_bot.domain.actions import Cut, Keep, PlayerId, Swap, Timeout, TurnAction
from cuckoo_bot.domain.errors import RuleError
from cuckoo_bot.domain.state import Phase

MOVES: dict[str, type[TurnAction]] = {"keep": Keep, "swap": Swap, "cut": Cut}


async def act(
    deps: Deps, game_id: int, player: PlayerId, move: str, turn: int, update_id: int | None = None
) -> Outcome:
    """A button press: ``move`` is keep, swap or cut, for the prompt numbered ``turn``."""
    now = deps.clock.now()
    kind = MOVES.get(move)
    if kind is None:
        return refused("unknown_button")
    async with deps.uow() as uow:
        if not await fresh(uow, update_id):
            return Outcome()
        game = await uow.games.get(game_id, lock=True)
        if game is None or game.status is not GameStatus.RUNNING or game.state is None:
            await uow.commit()
            return refused("game_not_running")
        notices = Notices(game)
        try:
            step(game, kind(player, turn), now, notices, actor=player)
        except RuleError as error:
            await uow.commit()  # keeps the update id: a redelivery stays a no-op
            params = {"player": game.state.actor} if game.state.actor is not None else {}
            return Outcome(reply=Reply(error.code, params), game_id=game.id)
        await advance(uow, deps, game, notices, now)
        await uow.games.save(game)
        await uow.commit()
        return Outcome(
            reply=Reply(f"done_{move}"), game_id=game.id, changed=True, deadline=game.deadline
        )


async def expire(deps: Deps, game_id: int) -> Outcome:
    """A deadline fired: start or expire a lobby, or time out the current turn. Early or stale
    calls (another instance got there first, the player acted meanwhile) change nothing."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        game = await uow.games.get(game_id, lock=True)
        if game is None or not game.status.open or game.deadline is None or game.deadline > now:
            await uow.commit()
            return Outcome(game_id=game_id, deadline=game.deadline if game else None)
        if game.status is GameStatus.LOBBY:
            outcome = await lobby_deadline(uow, deps, game, now)
            await uow.commit()
            return outcome
        assert game.state is not None
        notices = Notices(game)
        if game.state.phase is Phase.TURNS:
            step(game, Timeout(game.state.turn), now, notices)
        await advance(uow, deps, game, notices, now)
        await uow.games.save(game)
        await uow.commit()
        return Outcome(game_id=game.id, changed=True, deadline=game.deadline)


async def due(deps: Deps) -> list[tuple[int, datetime]]:
    """Open games whose deadline has passed (for the sweeper)."""
    async with deps.uow() as uow:
        return await uow.games.due(deps.clock.now())


async def deadlines(deps: Deps) -> list[tuple[int, datetime]]:
    """Every open game's deadline, to re-arm timers at start-up."""
    async with deps.uow() as uow:
        return await uow.games.with_deadlines()


async def show_card(deps: Deps, game_id: int, player: PlayerId) -> Outcome:
    """The presser's own card, for a private popup. Nobody else's is ever shown."""
    async with deps.uow() as uow:
        game = await uow.games.get(game_id)
    if game is None or game.state is None or game.status is not GameStatus.RUNNING:
        return refused("game_not_running")
    rnd = game.state.round
    if rnd is None or game.state.phase is not Phase.TURNS or player not in rnd.order:
        return refused("no_card")
    lives = game.state.lives(player)
    return Outcome(
        reply=Reply(
            "your_card",
            {"card": rnd.card_of(player).code, "round": rnd.number, "lives": lives},
            alert=True,
        ),
        game_id=game.id,
    )
