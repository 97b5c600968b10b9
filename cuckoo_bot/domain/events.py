"""Events: what happened, as ids and data. Wording lives in the transport and i18n layers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from cuckoo_bot.domain.actions import PlayerId
from cuckoo_bot.domain.cards import Card


class LifeLossCause(Enum):
    LOWEST = "lowest"  # held the lowest rank at the reveal
    TIMEOUT = "timeout"  # fast-turn variant: let the clock run out
    STRUCK = "struck"  # One-card Kille: asked the Hussar's or the Pig's holder for a swap


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
    """The neighbour asked showed a card that sends the ask on (Coucou's Queen, the Kille Inn
    or Cavalier); the asker asks ``next`` instead (the events after this one say how that
    ended)."""

    player: PlayerId
    neighbour: PlayerId
    queen: Card  # shown to the table (the field's name is the first such card's)
    next: PlayerId


@dataclass(frozen=True, slots=True)
class SwapStruck:
    """One-card Kille: the neighbour asked showed the Hussar or the Pig; no swap, and the asker
    loses a life at this round's reveal (one in all, even if also the lowest)."""

    player: PlayerId
    neighbour: PlayerId
    card: Card  # shown to the table


@dataclass(frozen=True, slots=True)
class RoundStopped:
    """One-card Kille: the neighbour asked showed the Cuckoo ("Cuckoo stands!"); no swap, and
    nobody else plays this round: the reveal follows at once."""

    player: PlayerId
    neighbour: PlayerId
    cuckoo: Card  # shown to the table


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
    | SwapStruck
    | RoundStopped
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
