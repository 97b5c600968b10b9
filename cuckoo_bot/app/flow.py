"""Moving a game on after a step: deals, computer seats, deadlines, and what players must see."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.league import record_result
from cuckoo_bot.app.model import Game, GameStatus, LogEntry, Notice, NoticeKind
from cuckoo_bot.app.ports import UnitOfWork
from cuckoo_bot.app.results import Outcome, Reply
from cuckoo_bot.domain import codec
from cuckoo_bot.domain.actions import Action, Deal, PlayerId, Resign
from cuckoo_bot.domain.cards import shuffled_deck
from cuckoo_bot.domain.engine import apply, legal_actions
from cuckoo_bot.domain.errors import RuleError
from cuckoo_bot.domain.events import (
    CardCut,
    Event,
    GameAbandoned,
    GameWon,
    LifeLost,
    Misdealt,
    PlayerEliminated,
    PlayerRemoved,
    Revealed,
    RoundDealt,
    SuddenDeathDrawn,
    SuddenDeathStarted,
    Swapped,
)
from cuckoo_bot.domain.state import GameState, Phase
from cuckoo_bot.domain.strategy import computer_action

# Computer seats play instantly; this bounds the loop should a table hold only computers.
_MAX_AUTOMATIC_STEPS = 10_000


def is_computer(player: PlayerId) -> bool:
    return player < 0


class Notices:
    """Collects what players must see, coalesced: one table view per round, one card per player
    per round; each keeps the place of its first mention and the content of its last."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self._items: dict[tuple[Any, ...], Notice] = {}

    def _put(
        self, key: tuple[Any, ...], kind: NoticeKind, chat_id: int, payload: dict[str, Any]
    ) -> None:
        game = self._game
        thread = game.thread_id if chat_id == game.chat_id else None
        notice = Notice(
            kind=kind, chat_id=chat_id, game_id=game.id, payload=payload, thread_id=thread
        )
        if key not in self._items:
            self._items[key] = notice
        elif kind is NoticeKind.TABLE:
            # The lives line shows the round as dealt; the reveal is added to it, not replaced.
            old = self._items[key].payload
            self._items[key].payload = {
                **payload,
                "lives": old["lives"],
                "reveal": old.get("reveal"),
            }
        else:
            self._items[key].payload = payload

    def table(self, state: GameState, closed: bool = False, gathered: bool = False) -> None:
        if state.round is not None:
            view = table_view(state, closed)
            view["gathered"] = gathered
            self._put(("table", state.round.number), NoticeKind.TABLE, self._game.chat_id, view)

    def card(self, player: PlayerId, round_no: int, payload: dict[str, Any]) -> None:
        """Each change of a player's card is its own private message, in order: the card
        dealt, then what a swap or a cut made of it."""
        if not is_computer(player):
            key = ("card", player, round_no, len(self._items))
            self._put(key, NoticeKind.CARD, player, {"round": round_no, **payload})

    def group(self, key: tuple[Any, ...], kind: NoticeKind, payload: dict[str, Any]) -> None:
        self._put(key, kind, self._game.chat_id, payload)

    def reveal(self, state: GameState, round_no: int, event: Event) -> None:
        """The reveal goes into the round's table message: one group message per round."""
        self.table(state)
        payload = self._items[("table", round_no)].payload
        reveal = payload.get("reveal") or {"events": []}
        reveal["events"].append([codec.event_name(event), codec.dump_event(event)])
        reveal["lives"] = {str(seat.player): seat.lives for seat in state.seats}
        payload["reveal"] = reveal

    async def flush(self, uow: UnitOfWork) -> None:
        for notice in self._items.values():
            await uow.outbox.add(notice)
        self._items.clear()


def table_view(state: GameState, closed: bool = False) -> dict[str, Any]:
    """What the group's table message shows for ``state.round``: acts so far, who is to act.

    ``closed``: the game was cancelled, so the round will never be finished.
    """
    rnd = state.round
    assert rnd is not None
    live = state.phase is Phase.TURNS and not closed
    return {
        "round": rnd.number,
        "dealer": rnd.dealer,
        "order": list(rnd.order),
        "acts": [codec.dump(act) for act in rnd.acts],
        "actor": rnd.actor if live else None,
        "turn": state.turn if live else None,
        "options": [type(a).__name__.lower() for a in legal_actions(state)] if live else [],
        "cuts_made": rnd.cuts_made,
        "lives": {str(seat.player): seat.lives for seat in state.seats},
        "final": not live,
        "closed": closed,
    }


def step(
    game: Game, action: Action, now: datetime, notices: Notices, actor: PlayerId | None = None
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
    _note(game.state, events, notices)
    revealed = any(isinstance(e, Revealed) for e in events)
    # A round that ends without a reveal (a misdeal, or the last opponent left) was gathered.
    gathered = before.phase is Phase.TURNS and game.state.phase is not Phase.TURNS and not revealed
    notices.table(game.state, gathered=gathered)
    return events


def _note(state: GameState, events: tuple[Event, ...], notices: Notices) -> None:
    round_no = state.round.number if state.round is not None else 0
    for event in events:
        if isinstance(event, RoundDealt):
            for player, card in zip(event.order, event.cards, strict=True):
                notices.card(player, event.round, {"card": card.code, "why": "dealt"})
        elif isinstance(event, Swapped):
            notices.card(
                event.player,
                round_no,
                {"card": event.player_card.code, "why": "swap_asked", "with": event.neighbour},
            )
            notices.card(
                event.neighbour,
                round_no,
                {"card": event.neighbour_card.code, "why": "swap_forced", "with": event.player},
            )
        elif isinstance(event, CardCut):
            notices.card(event.dealer, round_no, {"card": event.new_card.code, "why": "cut"})
        elif isinstance(event, Revealed | LifeLost) or (
            isinstance(event, PlayerEliminated) and any(isinstance(e, Revealed) for e in events)
        ):
            # A player out for leaving or idling is announced by PlayerRemoved instead.
            notices.reveal(state, round_no, event)
        elif isinstance(event, Misdealt | PlayerRemoved | SuddenDeathStarted | SuddenDeathDrawn):
            key = ("announce", round_no, codec.event_name(event), repr(event))
            notices.group(
                key,
                NoticeKind.ANNOUNCE,
                {"event": [codec.event_name(event), codec.dump_event(event)]},
            )
        elif isinstance(event, GameWon | GameAbandoned):
            notices.group(
                ("over",),
                NoticeKind.GAME_OVER,
                {"event": [codec.event_name(event), codec.dump_event(event)]},
            )


async def advance(uow: UnitOfWork, deps: Deps, game: Game, notices: Notices, now: datetime) -> None:
    """Play on until a human must decide or the game is over; set the deadline; queue notices."""
    for _ in range(_MAX_AUTOMATIC_STEPS):
        state = game.state
        assert state is not None
        if state.finished:
            break
        if state.needs_deal:
            step(game, Deal(shuffled_deck(deps.rng)), now, notices)
            continue
        actor = state.actor
        if actor is not None and is_computer(actor):
            step(game, computer_action(state), now, notices, actor=actor)
            continue
        break
    state = game.state
    assert state is not None
    if state.finished:
        game.status = GameStatus.FINISHED
        game.finished_at = now
        game.deadline = None
        await record_result(uow, game, now)
    else:
        game.deadline = now + timedelta(seconds=game.turn_timeout)
    await notices.flush(uow)


async def resign_in(
    uow: UnitOfWork, deps: Deps, game: Game, player: PlayerId, now: datetime
) -> Outcome:
    """``player`` leaves the running ``game`` (already locked): out at once, the deal is redealt."""
    notices = Notices(game)
    try:
        step(game, Resign(player), now, notices, actor=player)
    except RuleError as error:
        return Outcome(reply=Reply(error.code), game_id=game.id)
    await advance(uow, deps, game, notices, now)
    await uow.games.save(game)
    return Outcome(reply=Reply("resigned"), game_id=game.id, changed=True, deadline=game.deadline)
