"""The dependencies every use case gets, built once by the composition root."""

from __future__ import annotations

import random
from dataclasses import dataclass

from cuckoo_bot.app.clock import Clock
from cuckoo_bot.app.ports import UnitOfWorkFactory

TURN_TIMEOUT = 90.0  # seconds a player has for a turn, unless their group sets its own
LOBBY_TIMEOUT = 600.0  # seconds before a lobby starts by itself (enough players) or expires
# The bot's own defaults (the settings'); the use cases' dependencies default to no pause and
# no reminder, which their tests turn on when they are what is tested.
REVEAL_PAUSE = 4.0  # seconds a reveal stands alone before the next deal
TURN_WARNING = 20.0  # seconds before a turn runs out that its player is reminded


@dataclass(frozen=True)
class Deps:
    uow: UnitOfWorkFactory
    rng: random.Random  # secrets.SystemRandom() in production; seeded in tests
    clock: Clock
    turn_timeout: float = TURN_TIMEOUT
    lobby_timeout: float = LOBBY_TIMEOUT
    reveal_pause: float = 0.0  # seconds between a reveal and the next deal
    turn_warning: float = 0.0  # seconds before a turn's end to nudge the player; 0: never
