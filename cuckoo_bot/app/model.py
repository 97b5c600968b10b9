"""What the use cases load, change and save: chats, players, games, the log and the league.

Outbox notices are in ``notices``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from cuckoo_bot.domain.actions import Action, PlayerId
from cuckoo_bot.domain.events import Event
from cuckoo_bot.domain.rules import HouseRules
from cuckoo_bot.domain.state import GameState

# The one list of the languages the bot speaks, each with its name in itself: menus, catalogs
# (``i18n/locales/<code>``), settings, the CLI, the page. A language is added here first.
LANGUAGE_NAMES = {"en": "English", "es": "Español", "fr": "Français"}
SUPPORTED_LANGUAGES = tuple(LANGUAGE_NAMES)
DEFAULT_LANGUAGE = "en"


def supported_language(code: str | None) -> str | None:
    """``es-MX`` -> ``es``; ``None`` when Telegram's code is not one the bot speaks."""
    if not code:
        return None
    base = code.split("-")[0].split("_")[0].lower()
    return base if base in SUPPORTED_LANGUAGES else None


class GameStatus(Enum):
    LOBBY = "lobby"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def open(self) -> bool:
        return self in (GameStatus.LOBBY, GameStatus.RUNNING)


def whole_number(text: str, digits: int) -> int | None:
    """A number written with 1 to ``digits`` ASCII digits, or None. ``str.isdigit`` also
    accepts ², ① or ٣ (which ``int`` refuses or reads as another number): what a user or a key
    sends is held to 0-9 only."""
    if 0 < len(text) <= digits and text.isascii() and text.isdigit():
        return int(text)
    return None


def is_computer(player: PlayerId) -> bool:
    """Computer seats have negative ids; Telegram users never do."""
    return player < 0


def group_language(chat: Chat | None, asker_language: str | None = None) -> str:
    """A group speaks one language: its own, set by the first lobby (its founder's) or
    /language. Until then it answers a command or a key in the language of whoever sent it
    (when the bot speaks it: the one their lobby would set), else in English."""
    own = chat.language if chat is not None else None
    return own or supported_language(asker_language) or DEFAULT_LANGUAGE


def private_language(player: Player | None, telegram_language: str | None) -> str:
    """A private chat speaks the player's chosen language, else their Telegram one."""
    chosen = player.language if player is not None else None
    return chosen or supported_language(telegram_language) or DEFAULT_LANGUAGE


@dataclass(frozen=True)
class Asker:
    """Who pressed a key, and in which chat: the use case finds the answer's language (and the
    players it names) in its own transaction, so the press needs no other read."""

    chat_id: int  # a group, or the player's private chat
    telegram_language: str | None = None


@dataclass
class Chat:
    """A group the bot plays in, with its house rules."""

    id: int
    title: str = ""
    language: str | None = None
    rules: HouseRules = field(default_factory=HouseRules)
    turn_timeout: float | None = None  # None: the operator's default
    migrated_from: int | None = None
    active: bool = True  # False once the bot was removed
    # Stakes: chips left in the group's pot for its next game (a shared win's remainder, a
    # computer seat's winnings). Written only by a game's end (``ChatRepository.put_pot``).
    pot: int = 0


@dataclass
class Player:
    """A Telegram user (positive id) or a computer seat (negative id)."""

    id: PlayerId
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language: str | None = None
    can_dm: bool | None = None  # None: not known yet
    is_computer: bool = False

    @property
    def display_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


@dataclass(frozen=True)
class LogEntry:
    """One step of a game: the action taken (None for lobby steps) and what it caused."""

    action: Action | None
    events: tuple[Event, ...]
    at: datetime
    actor: PlayerId | None = None


@dataclass
class Game:
    """A lobby or a game in a chat. ``state`` is the rules engine's state once started."""

    chat_id: int
    creator_id: PlayerId
    rules: HouseRules
    turn_timeout: float
    created_at: datetime
    id: int = 0  # set by the store on add
    thread_id: int | None = None
    status: GameStatus = GameStatus.LOBBY
    seats: list[PlayerId] = field(default_factory=list)  # lobby order, then the seating
    state: GameState | None = None
    deadline: datetime | None = None  # lobby expiry, or the current turn's clock
    warn_at: datetime | None = None  # when the player to act is nudged (before ``deadline``)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    cancel_reason: str | None = None
    language: str = DEFAULT_LANGUAGE
    # Players of the previous game, invited by "Play again" to take a seat (not seated for them).
    offered: list[PlayerId] = field(default_factory=list)
    version: int = 0
    new_log: list[LogEntry] = field(default_factory=list)  # appended by the store on save
    # The chat's row, loaded with the game (its title and language, for the messages).
    chat: Chat | None = field(default=None, compare=False)
    # What the store read: where the log goes on, and the seats as stored (written only
    # when they change). Set by the store, never by the use cases.
    stored_log_seq: int = field(default=0, compare=False)
    stored_round: int | None = field(default=None, compare=False)
    stored_seats: tuple[tuple[PlayerId, int | None, int | None], ...] = field(
        default=(), compare=False
    )

    @property
    def wake(self) -> datetime | None:
        """When a timer must next look at the game: a nudge, or the deadline."""
        times = [t for t in (self.warn_at, self.deadline) if t is not None]
        return min(times) if times else None

    @property
    def carried(self) -> int:
        """Stakes: what the group's last pot left, carried into this game's pot (until its end
        settles it)."""
        return self.chat.pot if self.chat is not None else 0


@dataclass
class Standing:
    """A player's line in one league table (a chat or global, a season or all time)."""

    player_id: PlayerId
    scope: int  # chat id, or GLOBAL_SCOPE
    season: str  # "YYYY-MM" or ALL_TIME
    games: int = 0
    wins: int = 0
    shared_wins: int = 0
    lives_lost: int = 0
    rounds_survived: int = 0
    rating_mu: float = 25.0
    rating_sigma: float = 25.0 / 3
    chips: int = 0  # stakes: chips won less chips paid into pots (a group's tables only)

    @property
    def rating(self) -> float:
        """A conservative skill estimate (mu - 3 sigma), as OpenSkill's ordinal."""
        return self.rating_mu - 3 * self.rating_sigma

    @property
    def points(self) -> int:
        """The rating as players see it: a whole number, ten points to one of OpenSkill's."""
        return round(10 * self.rating)


@dataclass(frozen=True)
class StakesResult:
    """A game played for stakes, settled: the pot, what each winner took, what stays for the
    group's next pot (what cannot be split, and a computer seat's share)."""

    pot: int
    takes: tuple[tuple[PlayerId, int], ...]
    left: int
    # Each person's chips from this game: what they took less what they paid in.
    moved: tuple[tuple[PlayerId, int], ...] = ()


@dataclass(frozen=True)
class RatingChange:
    """How a game moved a player in the group's table this month."""

    player: PlayerId
    points: int  # signed change
    place: int  # 1-based place in the group's table this month, after the game


def shared_places(table: Sequence[Standing]) -> list[int]:
    """The 1-based places of a table's lines, best first: equal points share a place and the
    next place skips the shared ones (1, 2, 2, 4), so two players tied in a first game read
    the same place on the podium and in ``/leaderboard``."""
    places: list[int] = []
    for index, standing in enumerate(table):
        tied = index > 0 and standing.points == table[index - 1].points
        places.append(places[-1] if tied else index + 1)
    return places


GLOBAL_SCOPE = 0  # Telegram chat ids are never 0
ALL_TIME = "all"
