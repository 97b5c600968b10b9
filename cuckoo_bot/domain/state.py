"""Game state as frozen values. Every change goes through ``engine.apply``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.cards import Card
from cuckoo_bot.domain.rules import HouseRules


class Phase(Enum):
    DEALING = "dealing"  # waiting for a shuffled deck: the first deal or the next round
    TURNS = "turns"  # a round is being played
    SUDDEN_DEATH = "sudden_death"  # waiting for a deck to draw one card for each tied player
    FINISHED = "finished"


class ActKind(Enum):
    """What the table saw a player do this round (no card data except the cards shown)."""

    KEEP = "keep"
    TIMEOUT = "timeout"
    SWAP = "swap"
    BLOCKED = "blocked"
    # Coucou's Queens: the neighbour asked showed a Queen and the ask passed on (the asker's
    # next act this turn says how it ended: a swap with the player after, or a block).
    PASSED = "passed"
    # One-card Kille: the neighbour asked showed the Hussar or the Pig and the asker was
    # struck (a life at the reveal); or showed the Cuckoo and the round stopped there.
    STRUCK = "struck"
    STOPPED = "stopped"
    CUT = "cut"
    CUT_BLOCKED = "cut_blocked"


@dataclass(frozen=True, slots=True)
class Act:
    player: PlayerId
    kind: ActKind
    target: PlayerId | None = None  # the neighbour asked to swap
    shown: Card | None = None  # the card that refused (a King, a Queen, a Kille picture)


def passed_before(acts: Sequence[Act]) -> Act | None:
    """Coucou's Queens: the Queen that sent a player's ask on, when their last act (``acts``:
    theirs this round, in order) followed one."""
    if len(acts) > 1 and acts[-2].kind is ActKind.PASSED:
        return acts[-2]
    return None


@dataclass(frozen=True, slots=True)
class Seat:
    player: PlayerId
    lives: int
    idle_turns: int = 0  # turns in a row that timed out
    eliminated_in_round: int | None = None

    @property
    def active(self) -> bool:
        return self.lives > 0


@dataclass(frozen=True, slots=True)
class Reveal:
    """The last round shown to the table: every card, the lowest, and who let the clock run
    out (fast turns); kept after the next deal so the new round can recall it."""

    round: int
    order: tuple[PlayerId, ...]
    cards: tuple[Card, ...]  # aligned with ``order``
    lowest: tuple[PlayerId, ...]
    penalised: tuple[PlayerId, ...] = ()
    struck: tuple[PlayerId, ...] = ()  # One-card Kille: by the Hussar or the Pig
    spent: tuple[Card, ...] = ()  # One-card Kille: Harlequins swapped, ranking lowest

    def card_of(self, player: PlayerId) -> Card | None:
        return self.cards[self.order.index(player)] if player in self.order else None

    def lost(self, player: PlayerId) -> bool:
        """The player lost a life at this reveal (one at most: lowest, clock or strike)."""
        return player in self.lowest or player in self.penalised or player in self.struck


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    dealer: PlayerId
    order: tuple[PlayerId, ...]  # turn order: left of the dealer first, dealer last
    cards: tuple[Card, ...]  # current card of each player in ``order``
    stock: tuple[Card, ...]  # undealt cards, top first
    discard: tuple[Card, ...] = ()
    set_aside: tuple[Card, ...] = ()
    position: int = 0  # index in ``order`` of the player to act
    cuts_made: int = 0
    penalised: tuple[PlayerId, ...] = ()  # fast turns: timed out this round
    struck: tuple[PlayerId, ...] = ()  # One-card Kille: asked the Hussar or the Pig
    spent: tuple[Card, ...] = ()  # One-card Kille: Harlequins swapped this round (lowest now)
    acts: tuple[Act, ...] = ()
    # The card each player was dealt, so a player can tell what a forced swap took away.
    dealt: tuple[Card, ...] = ()

    @property
    def actor(self) -> PlayerId:
        return self.order[self.position]

    @property
    def actor_is_dealer(self) -> bool:
        return self.position == len(self.order) - 1

    def card_of(self, player: PlayerId) -> Card:
        return self.cards[self.order.index(player)]

    def all_cards(self) -> tuple[Card, ...]:
        return self.cards + self.stock + self.discard + self.set_aside


@dataclass(frozen=True, slots=True)
class GameState:
    rules: HouseRules
    seats: tuple[Seat, ...]  # clockwise: a seat's left neighbour is the next one
    dealer: PlayerId  # dealer of the current round, or of the next deal
    phase: Phase = Phase.DEALING
    # The round being played; after a reveal or a misdeal, the last one until the next deal.
    round: Round | None = None
    rounds_dealt: int = 0
    turn: int = 0  # increases with every prompt; buttons and timeouts name it
    sudden_death: tuple[PlayerId, ...] = ()
    winners: tuple[PlayerId, ...] = ()
    shared_victory: bool = False
    abandoned: bool = False
    last_reveal: Reveal | None = None  # the newest round shown, until the next reveal

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return tuple(seat.player for seat in self.seats)

    @property
    def active_players(self) -> tuple[PlayerId, ...]:
        return tuple(seat.player for seat in self.seats if seat.active)

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def needs_deal(self) -> bool:
        """True when the next step is a shuffle: a deal or a sudden-death draw."""
        return self.phase in (Phase.DEALING, Phase.SUDDEN_DEATH)

    @property
    def actor(self) -> PlayerId | None:
        if self.phase is Phase.TURNS and self.round is not None:
            return self.round.actor
        return None

    def seat(self, player: PlayerId) -> Seat:
        for seat in self.seats:
            if seat.player == player:
                return seat
        raise KeyError(player)

    def lives(self, player: PlayerId) -> int:
        return self.seat(player).lives


def finishing_ranks(state: GameState) -> dict[PlayerId, int]:
    """1 for the winner(s); then by the round a player went out, later is better, ties shared."""

    def out_round(player: PlayerId) -> int:
        if player in state.winners:
            return 10**9
        seat = state.seat(player)
        return seat.eliminated_in_round if seat.eliminated_in_round is not None else 10**9 - 1

    order = sorted(state.players, key=out_round, reverse=True)
    ranks: dict[PlayerId, int] = {}
    for index, player in enumerate(order):
        if index and out_round(player) == out_round(order[index - 1]):
            ranks[player] = ranks[order[index - 1]]
        else:
            ranks[player] = index + 1
    return ranks


def pot_of(state: GameState, carried: int) -> int:
    """Stakes: the pot as it stands, what the group's last pot left (``carried``), one chip a
    seat and one a life lost (leaving loses the lives left, as the league counts them)."""
    return carried + sum(1 + state.rules.lives - seat.lives for seat in state.seats)
