"""Playing: a player's keep/swap/cut, the turn clock, resigning, peeking at one's own card."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cuckoo_bot.app import outbox
from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.flow import advance, apply_action, notices_for, write_notices
from cuckoo_bot.app.lobby import lobby_deadline
from cuckoo_bot.app.model import Asker, Game, GameStatus, Player, is_computer
from cuckoo_bot.app.notices import (
    Bulletin,
    CloseNote,
    CloseReason,
    GameOverView,
    Notice,
    NoticeKind,
    NudgeNote,
    PlayedNote,
    RoundResult,
    recalled,
)
from cuckoo_bot.app.outbox import people
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome, Reply, ReplyCode, refused
from cuckoo_bot.app.shared import answered, first_time
from cuckoo_bot.domain.actions import Move, PlayerId, Timeout
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.decks import weak
from cuckoo_bot.domain.errors import RuleError, StaleTurn
from cuckoo_bot.domain.events import (
    CardCut,
    CutBlocked,
    Event,
    Kept,
    Revealed,
    RoundStopped,
    SwapBlocked,
    SwapPassedOn,
    Swapped,
    SwapStruck,
)
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState, Phase


def _answer(move: Move, events: tuple[Event, ...], held: str | None, rules: HouseRules) -> Reply:
    """What happened, and the card the player holds now: the answer to their press (a toast;
    the prompt they pressed says it too); a King's block with the call its holder made; a
    card that sent the ask on (Coucou's Queen, a Kille Inn or Cavalier) before how it ended;
    the Kille Cuckoo's stop and the Hussar's or the Pig's strike."""
    card: dict[str, Any] = {"card": held} if held else {}
    for event in events:
        if isinstance(event, SwapPassedOn):
            card = {**card, "via": event.neighbour, "queen": event.queen.code}
        if isinstance(event, Kept):
            return Reply(ReplyCode.DONE_KEEP, card)
        if isinstance(event, Swapped):
            code = ReplyCode.DONE_SWAP_VIA if "via" in card else ReplyCode.DONE_SWAP
            return Reply(code, {**card, "player": event.neighbour})
        if isinstance(event, SwapBlocked | SwapStruck | RoundStopped):
            return _refused(event, card, rules)
        if isinstance(event, CardCut):
            return Reply(ReplyCode.DONE_CUT, card)
        if isinstance(event, CutBlocked):
            return Reply(ReplyCode.DONE_CUT_BLOCKED, {**card, "king": event.king.code})
    return Reply(ReplyCode(f"done_{move.value}"), card)


def _refused(
    event: SwapBlocked | SwapStruck | RoundStopped, card: dict[str, Any], rules: HouseRules
) -> Reply:
    """The answer to an ask its neighbour's card refused (after a pass-on: ``via`` in ``card``)."""
    if isinstance(event, SwapBlocked):
        shown, kind = event.king, "blocked"
        if "via" not in card and weak(shown):
            kind = "queen_blocked"  # a card that sends an ask on, with nobody after her
    elif isinstance(event, SwapStruck):
        shown, kind = event.card, "struck"
    else:
        shown, kind = event.cuckoo, "stopped"
    code = ReplyCode(f"done_{kind}" + ("_via" if "via" in card else ""))
    return Reply(code, {**card, "king": shown.code, "player": event.neighbour, "call": rules.name})


def _played(
    answer: Reply,
    round_no: int,
    turn: int,
    revealed: bool,
    last: RoundResult | None,
    pressed: int | None,
) -> PlayedNote:
    """The answer to a press, for the prompt it was pressed on (``pressed``: that message)."""
    params = answer.params
    return PlayedNote(
        round=round_no,
        turn=turn,
        answer=answer.code,
        card=Card.from_code(params["card"]) if "card" in params else None,
        other=params.get("player"),
        king=Card.from_code(params["king"]) if "king" in params else None,
        revealed=revealed,
        last=last,
        via=params.get("via"),
        queen=Card.from_code(params["queen"]) if "queen" in params else None,
        pressed=pressed,
    )


def lapse(game: Game, notices: Bulletin, now: datetime, by: PlayerId | None = None) -> None:
    """The turn in play runs out (``by``: someone skipped it): the player keeps their card,
    and their prompt says so, its keys gone."""
    state = game.state
    assert state is not None and state.round is not None
    rnd, turn, actor = state.round, state.turn, state.round.actor
    told = recalled(state, actor)
    apply_action(game, Timeout(turn), now, notices, actor=by)
    kept = game.state.round.card_of(actor) if game.state and game.state.round else None
    code = ReplyCode.TIMED_OUT if by is None else ReplyCode.SKIPPED_BY
    notices.played(actor, PlayedNote(rnd.number, turn, code, card=kept, other=by, last=told))


def _already(state: GameState, player: PlayerId) -> Reply | None:
    """A second tap on a prompt already played: what the player did this round."""
    rnd = state.round
    act = next((a for a in reversed(rnd.acts) if a.player == player), None) if rnd else None
    if act is None:
        return None
    params: dict[str, Any] = {}
    if act.target is not None:
        params["player"] = act.target
    if act.shown is not None:
        params["king"] = act.shown.code
    return Reply(ReplyCode(f"already_{act.kind.value}"), params)


def _held(state: GameState, events: tuple[Event, ...], player: PlayerId) -> str | None:
    """The player's card right after their move (at the reveal, if the move ended the round)."""
    for event in events:
        if isinstance(event, Revealed) and player in event.order:
            return event.cards[event.order.index(player)].code
    rnd = state.round
    if rnd is not None and player in rnd.order:
        return rnd.card_of(player).code
    return None


async def act(
    deps: Deps,
    game_id: int,
    player: PlayerId,
    move: Move | str,
    turn: int,
    update_id: int | None = None,
    round_no: int | None = None,
    asker: Asker | None = None,
    pressed: int | None = None,
) -> Outcome:
    """A button press: ``move`` is keep, swap or cut, for the prompt numbered ``turn`` (of
    round ``round_no``: a key naming another round than its turn's is not the bot's);
    ``pressed``: the message of the player's private chat the key was on.

    One write transaction: the move, its log, the next prompt and the table's new view; with
    an ``asker``, also what the answer needs (its language, the players it names), so the
    press reads nothing else.
    """
    if move not in set(Move):
        return refused(ReplyCode.UNKNOWN_BUTTON)
    chosen = Move(move)
    async with deps.uow() as uow:
        if not await first_time(uow, update_id):
            return Outcome()
        outcome, game, players = await _act(
            uow, deps, game_id, player, chosen, turn, round_no, pressed
        )
        if asker is not None:
            outcome = await answered(uow, outcome, asker, player, game=game, players=players)
        await uow.commit()  # a refusal too: it keeps the update id, a redelivery is a no-op
    return outcome


async def _act(
    uow: UnitOfWork,
    deps: Deps,
    game_id: int,
    player: PlayerId,
    move: Move,
    turn: int,
    round_no: int | None,
    pressed: int | None = None,
) -> tuple[Outcome, Game | None, dict[PlayerId, Player] | None]:
    """``act`` inside its unit of work: the outcome, the game and the players it read."""
    now = deps.clock.now()
    game = await uow.games.get(game_id, lock=True)
    if game is None or game.status is not GameStatus.RUNNING or game.state is None:
        return refused(ReplyCode.GAME_NOT_RUNNING), game, None
    if player not in game.seats:
        return refused(ReplyCode.NOT_IN_GAME), game, None
    rnd = game.state.round
    if round_no is not None and (rnd is None or rnd.number != round_no):
        return refused(ReplyCode.STALE_TURN), game, None
    notices = notices_for(game)
    told = recalled(game.state, player)
    try:
        events = apply_action(game, move.action(player, turn), now, notices, actor=player)
    except RuleError as error:
        # A stale key of someone done for the round: what they did (the player to act now, a
        # dealer between two cuts, just gets that the key is old).
        late = isinstance(error, StaleTurn) and game.state.actor != player
        done = _already(game.state, player) if late else None
        params = {"player": game.state.actor} if game.state.actor is not None else {}
        reply = done or Reply(ReplyCode(error.code), params)
        return Outcome(reply=reply, game_id=game.id), game, None
    answer = _answer(move, events, held=_held(game.state, events, player), rules=game.rules)
    players = await uow.players.get_many(people(game))
    known = players.get(player)
    if known is None or known.can_dm is not False:  # asked privately: answered there too
        revealed = any(isinstance(e, Revealed) for e in events)
        note = _played(answer, rnd.number if rnd else 0, turn, revealed, told, pressed)
        notices.played(player, note)
    await advance(uow, deps, game, notices, now)
    batch = await write_notices(uow, game, notices, players)
    await uow.games.save(game)
    outcome = Outcome(reply=answer, game_id=game.id, deadline=game.wake, batch=batch)
    return outcome, game, players


async def expire(deps: Deps, game_id: int) -> Outcome:
    """A deadline fired: start or expire a lobby, time out the current turn, or take a finished
    game's "Play again" key off. Early or stale
    calls (another instance got there first, the player acted meanwhile) change nothing."""
    now = deps.clock.now()
    async with deps.uow() as uow:
        game = await uow.games.get(game_id, lock=True)
        if game is not None and game.status is GameStatus.FINISHED and game.deadline is not None:
            outcome = await again_expired(uow, game, now)
            await uow.commit()
            return outcome
        if game is not None and game.warn_at is not None and game.warn_at <= now:
            if game.deadline is not None and game.deadline > now:
                outcome = await _nudge(uow, game, now)
                await uow.commit()
                return outcome
            game.warn_at = None  # woken late (the bot was down): the turn is over, no reminder
        if game is None or not game.status.open or game.deadline is None or game.deadline > now:
            await uow.commit()
            return Outcome(game_id=game_id, deadline=game.wake if game else None)
        if game.status is GameStatus.LOBBY:
            outcome = await lobby_deadline(uow, deps, game, now)
            await uow.commit()
            return outcome
        assert game.state is not None
        notices = notices_for(game)
        if game.state.phase is Phase.TURNS and game.state.round is not None:
            lapse(game, notices, now)
        await advance(uow, deps, game, notices, now)
        batch = await write_notices(uow, game, notices)
        await uow.games.save(game)
        await uow.commit()
        return Outcome(game_id=game.id, deadline=game.wake, batch=batch)


async def _nudge(uow: UnitOfWork, game: Game, now: datetime) -> Outcome:
    """The turn runs out soon: its player, asked privately, gets one reminder there (a player
    asked in the group was mentioned there already)."""
    game.warn_at = None
    await uow.games.save(game)
    state, deadline = game.state, game.deadline
    actor = state.actor if state is not None and game.status is GameStatus.RUNNING else None
    if actor is None or state is None or state.round is None or deadline is None:
        return Outcome(game_id=game.id, deadline=game.wake)
    known = (await uow.players.get_many([actor])).get(actor)
    if known is not None and known.can_dm is False:
        return Outcome(game_id=game.id, deadline=game.wake)
    left = max(0, round((deadline - now).total_seconds()))
    note = NudgeNote(state.round.number, state.turn, deadline=deadline, seconds=left)
    nudge = Notice(NoticeKind.NUDGE, actor, note, game_id=game.id)
    return Outcome(
        game_id=game.id, deadline=game.wake, batch=await outbox.write(uow, game, [nudge])
    )


async def again_expired(uow: UnitOfWork, game: Game, now: datetime) -> Outcome:
    """A finished game's "Play again" key is too old to open a lobby: it comes off the summary.
    Early calls change nothing."""
    assert game.deadline is not None
    if game.deadline > now:
        return Outcome(game_id=game.id, deadline=game.wake)
    game.deadline = None
    await uow.games.save(game)
    gone = [
        Notice(
            NoticeKind.GAME_OVER,
            game.chat_id,
            GameOverView(expired=True),
            game_id=game.id,
            thread_id=game.thread_id,
        )
    ]
    # The key is also under each person's private end of the game.
    gone += [
        Notice(NoticeKind.CLOSE, player, CloseNote(reason=CloseReason.EXPIRED), game_id=game.id)
        for player in game.seats
        if not is_computer(player)
    ]
    return Outcome(game_id=game.id, batch=await outbox.write(uow, game, gone))


async def deadlines(deps: Deps) -> list[tuple[int, datetime]]:
    """Every open game's deadline, to re-arm timers at start-up."""
    async with deps.uow(read_only=True) as uow:
        return await uow.games.with_deadlines()


async def show_card(deps: Deps, game_id: int, player: PlayerId) -> Outcome:
    """The presser's own card, for a private popup. Nobody else's is ever shown."""
    async with deps.uow(read_only=True) as uow:
        game = await uow.games.get(game_id)
    if game is None or game.state is None or game.status is not GameStatus.RUNNING:
        return refused(ReplyCode.GAME_NOT_RUNNING)
    rnd = game.state.round
    if rnd is None or game.state.phase is not Phase.TURNS or player not in rnd.order:
        return refused(ReplyCode.NO_CARD)
    lives = game.state.lives(player)
    return Outcome(
        reply=Reply(
            ReplyCode.YOUR_CARD,
            {"card": rnd.card_of(player).code, "round": rnd.number, "lives": lives},
            alert=True,
        ),
        game_id=game.id,
    )
