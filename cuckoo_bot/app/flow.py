"""Moving a game on after a step: deals, computer seats, deadlines, and what players must see."""

from __future__ import annotations

from datetime import datetime, timedelta

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.league import record_result
from cuckoo_bot.app.model import Game, GameStatus, LogEntry, Player, is_computer
from cuckoo_bot.app.notices import Bulletin
from cuckoo_bot.app.outbox import Batch, people
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode
from cuckoo_bot.domain.actions import Action, Deal, PlayerId, Resign
from cuckoo_bot.domain.decks import deck_for
from cuckoo_bot.domain.engine import apply
from cuckoo_bot.domain.errors import RuleError
from cuckoo_bot.domain.events import Event, Revealed
from cuckoo_bot.domain.state import Phase
from cuckoo_bot.domain.strategy import computer_action

# Computer seats play instantly; this bounds the loop should a table hold only computers.
_MAX_AUTOMATIC_STEPS = 10_000


def notices_for(game: Game) -> Bulletin:
    return Bulletin(game.chat_id, game.id, game.thread_id, game.state, game.carried)


def apply_action(
    game: Game, action: Action, now: datetime, notices: Bulletin, actor: PlayerId | None = None
) -> tuple[Event, ...]:
    """Apply one action to the game's state, log it and note what players must see.

    Rule errors propagate unchanged, before anything is changed.
    """
    assert game.state is not None
    before = game.state
    game.state, events = apply(before, action)
    game.new_log.append(LogEntry(action=action, events=events, at=now, actor=actor))
    if before.phase is Phase.TURNS:
        notices.table(before)  # keep the table's place ahead of this step's reveal
    notices.note(game.state, events)
    revealed = any(isinstance(e, Revealed) for e in events)
    # A round that ends without a reveal (a misdeal, or the last opponent left) was gathered.
    gathered = before.phase is Phase.TURNS and game.state.phase is not Phase.TURNS and not revealed
    notices.table(game.state, gathered=gathered)
    return events


def revealed(game: Game) -> bool:
    """This move revealed a round (read from the events it logged)."""
    return any(isinstance(e, Revealed) for entry in game.new_log for e in entry.events)


async def advance(
    uow: UnitOfWork, deps: Deps, game: Game, notices: Bulletin, now: datetime
) -> None:
    """Play on until a human must decide or the game is over; set the deadline. After a
    reveal the next deal waits ``deps.reveal_pause`` (the reveal has its moment): the deadline
    then wakes the game to deal, and the next turn's clock starts after the pause."""
    paused = False
    for _ in range(_MAX_AUTOMATIC_STEPS):
        state = game.state
        assert state is not None
        if state.finished:
            break
        if state.needs_deal and revealed(game) and deps.reveal_pause > 0:
            paused = True
            break
        if state.needs_deal:
            apply_action(game, Deal(deck_for(state.rules).shuffled(deps.rng)), now, notices)
            continue
        actor = state.actor
        if actor is not None and is_computer(actor):
            apply_action(game, computer_action(state), now, notices, actor=actor)
            continue
        break
    state = game.state
    assert state is not None
    game.warn_at = None
    if state.finished:
        game.status = GameStatus.FINISHED
        game.finished_at = now
        # The summary's "Play again" key works for as long as a lobby stays open; then it
        # comes off (an abandoned game has no key).
        game.deadline = now + timedelta(seconds=deps.lobby_timeout) if state.winners else None
        changes, stakes = await record_result(uow, game, now)
        notices.summary(state, changes, stakes)
    elif paused:
        game.deadline = now + timedelta(seconds=deps.reveal_pause)
    else:
        game.deadline = now + timedelta(seconds=game.turn_timeout)
        warning = deps.turn_warning
        actor = state.actor
        # One nudge before the clock runs out, for a person, on a turn long enough for it.
        if warning > 0 and 2 * warning <= game.turn_timeout and actor and not is_computer(actor):
            game.warn_at = game.deadline - timedelta(seconds=warning)


async def write_notices(
    uow: UnitOfWork,
    game: Game,
    notices: Bulletin,
    players: dict[PlayerId, Player] | None = None,
    *,
    moved: bool = False,
) -> Batch:
    """The move is done: ask whoever must act next, write the notices, hand them over.
    ``moved``: the game's group has a new id (its messages are gone)."""
    if players is None:
        players = await uow.players.get_many(people(game))
    if game.state is not None and game.status is GameStatus.RUNNING:
        can_write = {p: q.can_dm is not False for p, q in players.items()}
        notices.prompt(game.state, can_write, moved=moved)
        if game.state.phase is Phase.TURNS:
            notices.stamp(game.deadline)
    return await outbox.write(uow, game, notices.collected(), players)


async def resign_in(
    uow: UnitOfWork,
    deps: Deps,
    game: Game,
    player: PlayerId,
    now: datetime,
    by: PlayerId | None = None,
) -> Outcome:
    """``player`` leaves the running ``game`` (already locked), or ``by`` takes them out: out
    at once, the deal is redealt."""
    notices = notices_for(game)
    try:
        apply_action(game, Resign(player, by=by), now, notices, actor=by or player)
    except RuleError as error:
        return Outcome(reply=Reply(ReplyCode(error.code)), game_id=game.id)
    await advance(uow, deps, game, notices, now)
    batch = await write_notices(uow, game, notices)
    await uow.games.save(game)
    # Taken out by someone else: the group's announcement is the answer (no second line).
    reply = Reply(ReplyCode.RESIGNED) if by is None else None
    return Outcome(reply=reply, game_id=game.id, deadline=game.wake, batch=batch)
