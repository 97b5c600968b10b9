"""Events: what happened, as ids and data. Wording lives in the transport and i18n layers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.cards import Card


class LifeLossCause(Enum):
    LOWEST = "lowest"  # held the lowest rank at the reveal
    TIMEOUT = "timeout"  # fast-turn variant: let the clock run out


class RemovalReason(Enum):
    IDLE = "idle"  # too many turns in a row timed out
    RESIGNED = "resigned"  # left the game
    REMOVED = "removed"  # taken out by the group's admin or the game's creator


@dataclass(frozen=True, slots=True)
class RoundDealt:
    round: int
    dealer: PlayerId
    order: tuple[PlayerId, ...]  # turn order, dealer last
    cards: tuple[Card, ...]  # aligned with ``order``; private to each owner


@dataclass(frozen=True, slots=True)
class TurnStarted:
    turn: int
    player: PlayerId
    is_dealer: bool
    cuts_made: int = 0


@dataclass(frozen=True, slots=True)
class Kept:
    player: PlayerId
    is_dealer: bool


@dataclass(frozen=True, slots=True)
class TimedOut:
    player: PlayerId
    turn: int
    penalised: bool  # fast turns: costs a life at the reveal


@dataclass(frozen=True, slots=True)
class Swapped:
    player: PlayerId
    neighbour: PlayerId
    player_card: Card  # what the player holds now (the neighbour's old card)
    neighbour_card: Card  # what the neighbour holds now (the player's old card)


@dataclass(frozen=True, slots=True)
class SwapBlocked:
    player: PlayerId
    neighbour: PlayerId
    king: Card  # shown to the table: a King (or, Coucou's Queens, a Queen with nobody after)


@dataclass(frozen=True, slots=True)
class SwapPassedOn:
    """Coucou's Queens: the neighbour asked showed a Queen; the asker asks ``next`` instead
    (the event after this one says how: ``Swapped`` or ``SwapBlocked``)."""

    player: PlayerId
    neighbour: PlayerId
    queen: Card  # shown to the table
    next: PlayerId


@dataclass(frozen=True, slots=True)
class CardCut:
    dealer: PlayerId
    old_card: Card  # goes to the hidden discard
    new_card: Card


@dataclass(frozen=True, slots=True)
class CutBlocked:
    dealer: PlayerId
    king: Card  # set aside, shown


@dataclass(frozen=True, slots=True)
class Revealed:
    round: int
    order: tuple[PlayerId, ...]
    cards: tuple[Card, ...]  # aligned with ``order``
    lowest: tuple[PlayerId, ...]  # every player holding the lowest rank


@dataclass(frozen=True, slots=True)
class LifeLost:
    player: PlayerId
    lives_left: int
    cause: LifeLossCause


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    player: PlayerId
    round: int


@dataclass(frozen=True, slots=True)
class PlayerRemoved:
    player: PlayerId
    reason: RemovalReason


@dataclass(frozen=True, slots=True)
class RoundEnded:
    round: int
    next_dealer: PlayerId


@dataclass(frozen=True, slots=True)
class Misdealt:
    round: int
    next_dealer: PlayerId


@dataclass(frozen=True, slots=True)
class SuddenDeathStarted:
    players: tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class SuddenDeathDrawn:
    players: tuple[PlayerId, ...]
    cards: tuple[Card, ...]  # aligned with ``players``, shown to all
    leaders: tuple[PlayerId, ...]  # holders of the highest rank


@dataclass(frozen=True, slots=True)
class GameWon:
    winners: tuple[PlayerId, ...]
    shared: bool


@dataclass(frozen=True, slots=True)
class GameAbandoned:
    """Everyone left was removed for idling: nobody wins."""


Event = (
    RoundDealt
    | TurnStarted
    | Kept
    | TimedOut
    | Swapped
    | SwapBlocked
    | SwapPassedOn
    | CardCut
    | CutBlocked
    | Revealed
    | LifeLost
    | PlayerEliminated
    | PlayerRemoved
    | RoundEnded
    | Misdealt
    | SuddenDeathStarted
    | SuddenDeathDrawn
    | GameWon
    | GameAbandoned
)
