"""House rules: the rule card's chosen profile is the default; seed 001's variants are options."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import Enum
from typing import Any

from cuckoo_bot.domain.errors import InvalidSettings

MIN_PLAYERS = 3
DEFAULT_MAX_PLAYERS = 10
MAX_PLAYERS_LIMIT = 20
ALLOWED_LIVES = (3, 5)


class GameName(Enum):
    """What the group calls the game: the same rules under the regional names of the rule
    book. The bot's messages, the live table's title and the call a King's holder makes when
    they block follow it."""

    CUCKOO = "cuckoo"
    CHASE_THE_ACE = "chase_the_ace"
    RANTER_GO_ROUND = "ranter_go_round"


class FinalTie(Enum):
    """What happens when every remaining player is eliminated in the same reveal."""

    SHARED = "shared"  # they share the victory (the chosen profile)
    SUDDEN_DEATH = "sudden_death"  # one card each, highest wins, repeat while tied


@dataclass(frozen=True, slots=True)
class HouseRules:
    """Validated game settings. ``HouseRules()`` is the chosen profile of the rule card."""

    lives: int = 3
    max_players: int = DEFAULT_MAX_PLAYERS
    kings_block: bool = True
    final_tie: FinalTie = FinalTie.SHARED
    double_cut: bool = False
    # The dealer stays (a local rule): the same player deals every round; once out, the deal
    # passes to the next player still in, who then stays the dealer.
    dealer_stays: bool = False
    # Coucou's Queens (the rule book's French Coucou): a Queen also refuses a swap, more
    # weakly than a King: the asker keeps their card and asks the player after her holder
    # instead, once (``engine._swap`` has the whole rule).
    queens_block: bool = False
    # Stakes: the game is played for chips kept in the group's league (one each into the pot,
    # one more for every life lost; the winner takes it). No rule of play changes with it.
    stakes: bool = False
    # One-card Kille: the Swedish Kille deck's 42 cards instead of the 52, with their powers
    # (``decks.KILLE``); the King and Queen settings are the 52 cards' and rest meanwhile.
    kille: bool = False
    # Fast turns: letting the turn clock run out costs one life at that round's reveal.
    fast_turns: bool = False
    # A player who lets this many turns in a row time out is removed at the next deal.
    idle_turn_limit: int = 2
    name: GameName = GameName.CUCKOO  # the game's name (no rule of play changes with it)

    def __post_init__(self) -> None:
        if self.lives not in ALLOWED_LIVES:
            raise InvalidSettings(f"lives must be one of {ALLOWED_LIVES}, not {self.lives}")
        if not MIN_PLAYERS <= self.max_players <= MAX_PLAYERS_LIMIT:
            raise InvalidSettings(
                f"max_players must be within {MIN_PLAYERS}..{MAX_PLAYERS_LIMIT},"
                f" not {self.max_players}"
            )
        if not isinstance(self.final_tie, FinalTie):
            raise InvalidSettings(f"unknown final tie rule: {self.final_tie!r}")
        if not isinstance(self.name, GameName):
            raise InvalidSettings(f"unknown name of the game: {self.name!r}")
        if self.idle_turn_limit < 1:
            raise InvalidSettings("idle_turn_limit must be at least 1")

    @property
    def min_players(self) -> int:
        return MIN_PLAYERS

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["final_tie"] = self.final_tie.value
        data["name"] = self.name.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HouseRules:
        """Build from stored settings; unknown keys are ignored so old rows still load."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        try:
            if "final_tie" in values:
                values["final_tie"] = FinalTie(values["final_tie"])
            if "name" in values:
                values["name"] = GameName(values["name"])
        except ValueError as exc:
            raise InvalidSettings(str(exc)) from exc
        return cls(**values)
