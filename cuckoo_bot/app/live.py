"""The table as one viewer may see it: the read model of the live table (issue 18's Mini App).

Built from the stored game alone, for a seated player or a spectator: the seats in their
order with lives, the dealer, what each did this round (and with whom), whose turn it is and
until when, and the cards this viewer may see. A card is face up for a viewer only when it is
their own, when a King was shown to the table to block a swap, or once the round is revealed;
every other card stays face down. Nothing else of the game's state leaves this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import DEFAULT_LANGUAGE, Game, GameStatus, Player
from cuckoo_bot.domain.actions import Move, PlayerId
from cuckoo_bot.domain.decks import weak
from cuckoo_bot.domain.engine import legal_actions
from cuckoo_bot.domain.state import (
    ActKind,
    GameState,
    Phase,
    Reveal,
    finishing_ranks,
    passed_before,
)


@dataclass(frozen=True)
class LiveSeat:
    player: PlayerId
    lives: int
    out: bool
    dealer: bool
    acted: ActKind | None = None  # what the seat did this round, once it did
    target: PlayerId | None = None  # the neighbour a swap went to (or a King blocked)
    shown: str | None = None  # a King (or a Queen) shown to the table when it blocked a swap
    by_queen: bool = False  # a Queen blocked the swap (Coucou's Queens), not a King
    # Coucou's Queens: the neighbour whose Queen sent this seat's ask on, and the Queen.
    via: PlayerId | None = None
    via_shown: str | None = None
    card: str | None = None  # face up for this viewer (None: face down, or no card)
    spent: bool = False  # ``card`` is a Kille Harlequin swapped this round: it ranks lowest
    lost: bool = False  # lost a life at the reveal on the table
    place: int | None = None  # once the game is over: 1 for the winner(s), then by going out


@dataclass(frozen=True)
class LiveTable:
    game_id: int
    version: int  # the stored game's version: a page asks for what is newer
    status: GameStatus
    round: int
    turn: int
    actor: PlayerId | None  # whose turn it is
    deadline: datetime | None  # when that turn runs out
    revealed: bool  # the round's cards are on the table
    seats: tuple[LiveSeat, ...]
    viewer: PlayerId | None
    options: tuple[Move, ...] = ()  # the viewer's keys, on their turn
    winners: tuple[PlayerId, ...] = ()


def live_table(game: Game, viewer: PlayerId | None) -> LiveTable:
    """``game`` as ``viewer`` may see it (``None`` or someone not seated: a spectator)."""
    state = game.state
    if state is None:
        seats = tuple(LiveSeat(p, 0, False, False) for p in game.seats)
        return LiveTable(game.id, game.version, game.status, 0, 0, None, None, False, seats, viewer)
    reveal = _reveal_on_table(state)
    actor = state.actor if game.status is GameStatus.RUNNING else None
    places = finishing_ranks(state) if game.status is GameStatus.FINISHED else {}
    options: tuple[Move, ...] = ()
    if actor is not None and actor == viewer:
        options = tuple(Move.of(a) for a in legal_actions(state))
    return LiveTable(
        game_id=game.id,
        version=game.version,
        status=game.status,
        round=state.round.number if state.round is not None else 0,
        turn=state.turn,
        actor=actor,
        deadline=game.deadline if actor is not None else None,
        revealed=reveal is not None,
        seats=tuple(
            _seat(state, player, viewer, reveal, places.get(player)) for player in state.players
        ),
        viewer=viewer,
        options=options,
        winners=state.winners,
    )


def _reveal_on_table(state: GameState) -> Reveal | None:
    """The reveal of the round on the table, from the reveal until the next deal."""
    rnd, reveal = state.round, state.last_reveal
    if state.phase is Phase.TURNS or rnd is None or reveal is None:
        return None
    return reveal if reveal.round == rnd.number else None


def _seat(
    state: GameState,
    player: PlayerId,
    viewer: PlayerId | None,
    reveal: Reveal | None,
    place: int | None,
) -> LiveSeat:
    seat = state.seat(player)
    rnd = state.round
    act = passed = None
    if rnd is not None:
        acts = [a for a in rnd.acts if a.player == player]
        act = acts[-1] if acts else None
        passed = passed_before(acts)
    card = None
    spent = False
    if reveal is not None:
        shown = reveal.card_of(player)
        card = shown.code if shown is not None else None
        spent = shown is not None and shown in reveal.spent
    elif rnd is not None and player == viewer and player in rnd.order and seat.active:
        held = rnd.card_of(player)
        card, spent = held.code, held in rnd.spent  # they gave it or took it: they know
    return LiveSeat(
        player=player,
        lives=seat.lives,
        out=not seat.active,
        dealer=player == (rnd.dealer if rnd is not None else state.dealer),
        acted=act.kind if act is not None else None,
        target=act.target if act is not None else None,
        shown=act.shown.code if act is not None and act.shown is not None else None,
        by_queen=act is not None
        and act.kind is ActKind.BLOCKED
        and act.shown is not None
        and weak(act.shown),
        via=passed.target if passed is not None else None,
        via_shown=passed.shown.code if passed is not None and passed.shown is not None else None,
        card=card,
        spent=spent,
        lost=reveal is not None and reveal.lost(player),
        place=place,
    )


@dataclass(frozen=True)
class Seen:
    """A stored game as the live table reads it: one read, shared by all its viewers."""

    game: Game
    players: dict[PlayerId, Player]  # everyone seated, for their names
    language: str  # the group's

    @property
    def chat_id(self) -> int:
        return self.game.chat_id

    @property
    def max_lives(self) -> int:
        return self.game.rules.lives


async def seen(deps: Deps, game_id: int) -> Seen | None:
    """The game ``game_id`` and its players' names, in one read-only transaction."""
    async with deps.uow(read_only=True) as uow:
        game = await uow.games.get(game_id)
        if game is None:
            return None
        players = await uow.players.get_many(game.seats)
    chat = game.chat
    language = (chat.language if chat is not None else None) or game.language or DEFAULT_LANGUAGE
    return Seen(game, players, language)
