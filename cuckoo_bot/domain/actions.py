"""What can happen to a game: player choices, the clock, the dealer's shuffle, a player leaving."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cuckoo_bot.domain.cards import Card

PlayerId = int


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal a round (or a sudden-death draw) from this shuffled 52-card deck, top card first."""

    deck: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep one's card (for the dealer: stand, no cut). ``turn`` pins the press to a prompt."""

    player: PlayerId
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class Swap:
    """Ask the next player in turn order to swap cards (non-dealers only)."""

    player: PlayerId
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class Cut:
    """Dealer only: replace one's card with the top card of the undealt stock."""

    player: PlayerId
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class Timeout:
    """The turn clock of prompt ``turn`` ran out. A stale timeout is a no-op."""

    turn: int


@dataclass(frozen=True, slots=True)
class Resign:
    """A player leaves the running game: out at once, the current deal is gathered and redealt.
    ``by``: someone else took them out (the group's admin or the game's creator, of a player
    gone quiet)."""

    player: PlayerId
    by: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class Misdeal:
    """Gather the current deal and redeal it with no lives lost (rule 10)."""


Action = Deal | Keep | Swap | Cut | Timeout | Resign | Misdeal
TurnAction = Keep | Swap | Cut


class Move(StrEnum):
    """A turn's decision, by the one name the keys, the answers, the prompts and the computer
    seats use (the table's record of what was done is ``state.ActKind``)."""

    KEEP = "keep"
    SWAP = "swap"
    CUT = "cut"

    def action(self, player: PlayerId, turn: int) -> TurnAction:
        return _ACTIONS[self](player, turn)

    @classmethod
    def of(cls, action: TurnAction) -> Move:
        return next(move for move, kind in _ACTIONS.items() if isinstance(action, kind))


_ACTIONS: dict[Move, type[TurnAction]] = {Move.KEEP: Keep, Move.SWAP: Swap, Move.CUT: Cut}
