"""What the use cases need from the outside world, as protocols. The store implements them."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, Self

from cuckoo_bot.app.model import Chat, Game, GameStatus, LogEntry, Player, Standing
from cuckoo_bot.app.notices import Elsewhere, Notice
from cuckoo_bot.domain.actions import PlayerId

if TYPE_CHECKING:
    from cuckoo_bot.app.notices import Delivered, SentMessage
    from cuckoo_bot.app.notices.message import Message


class ChatRepository(Protocol):
    async def get(self, chat_id: int, *, lock: bool = False) -> Chat | None: ...

    async def add(self, chat: Chat) -> None: ...

    async def save(self, chat: Chat) -> None:
        """Write the chat's title, language, settings and state (never its pot)."""
        ...

    async def take_pot(self, chat_id: int) -> int:
        """The chips left in the group's pot, locked until the transaction ends."""
        ...

    async def put_pot(self, chat_id: int, chips: int) -> None:
        """What a game's end leaves in the group's pot for its next game."""
        ...

    async def migrate(self, old_id: int, new_id: int) -> None:
        """Move a chat, its games and its league table to the supergroup id ``new_id``."""
        ...

    async def hold(self, chat_id: int, until: datetime) -> None:
        """Telegram refuses the chat (any chat, private ones too) until ``until``: a 429's
        ``retry_after``. A hold is only ever lengthened; holds long over are forgotten."""
        ...

    async def held(self, now: datetime) -> dict[int, datetime]:
        """The chats Telegram still refuses at ``now``, and until when."""
        ...


class PlayerRepository(Protocol):
    async def get(self, player_id: PlayerId) -> Player | None: ...

    async def get_many(self, player_ids: Sequence[PlayerId]) -> dict[PlayerId, Player]: ...

    async def upsert(self, player: Player) -> Player:
        """Insert, or refresh the name fields of a known player and return the stored one.

        ``can_dm`` is replaced only when given (not None). ``language`` is taken only when none
        is stored yet (Telegram's language on first sight); ``set_language`` changes it later.
        """
        ...

    async def set_language(self, player_id: PlayerId, language: str) -> None: ...

    async def set_reachable(self, player_id: PlayerId, reachable: bool) -> None:
        """Whether a private message to the player can be delivered (a 403 means no)."""
        ...


class GameRepository(Protocol):
    async def get(self, game_id: int, *, lock: bool = False) -> Game | None:
        """The game with its chat (``game.chat``). ``lock=True`` holds the game row until commit
        (``SELECT ... FOR UPDATE``)."""
        ...

    async def open_in_chat(self, chat_id: int, *, lock: bool = False) -> Game | None:
        """The chat's lobby or running game, if any (at most one)."""
        ...

    async def add(self, game: Game) -> Game:
        """Insert; sets ``game.id``."""
        ...

    async def save(self, game: Game) -> None:
        """Write the game back, append ``game.new_log`` to the log and clear it.

        Raises ``ConcurrentUpdate`` if the row changed since it was loaded (version check).
        """
        ...

    async def due(self, now: datetime, limit: int = 100) -> list[tuple[int, datetime]]:
        """Open games whose deadline is at or before ``now``: (game id, deadline)."""
        ...

    async def with_deadlines(self) -> list[tuple[int, datetime]]:
        """Every open game with a deadline, to re-arm timers at start-up."""
        ...

    async def count_by_status(self) -> dict[GameStatus, int]:
        """How many games there are in each status."""
        ...

    async def log(self, game_id: int) -> list[LogEntry]:
        """The game's append-only log, oldest first."""
        ...

    async def finished_in_chat(self, chat_id: int, limit: int = 10) -> list[Game]:
        """The chat's finished games, the latest first."""
        ...


class OutboxRepository(Protocol):
    """Notices to deliver. Several instances may share the outbox: each notice is held by one
    instance at a time (a claim with a lease it renews; a dead instance's claims run out)."""

    async def add_many(self, notices: Sequence[Notice]) -> None:
        """Insert in order, claimed by this instance; sets each ``notice.id`` and
        ``created_at``."""
        ...

    async def claim(self, chat_id: int | None = None, limit: int = 100) -> list[Notice]:
        """Notices not delivered yet that no other instance holds, oldest first (one chat's,
        or every chat's when ``chat_id`` is None); they are this instance's until the lease
        runs out. A notice waiting for its next try is left until then."""
        ...

    async def renew(self, ids: Collection[int]) -> set[int]:
        """Extend this instance's claims on notices still in its hands: the ids it still held
        (a notice another instance took once the lease ran out, or sent, is not among them)."""
        ...

    async def take_back(self, *, everyone: bool) -> int:
        """Claim for this instance, now, the undelivered notices held under its own name (or,
        with ``everyone``, under any name); failed tries waiting for their retry stay waiting."""
        ...

    async def hand_back(self) -> int:
        """Free every undelivered notice this instance holds (it is stopping)."""
        ...

    async def elsewhere(
        self,
        chats: Mapping[int, int | None],
        since: datetime | None = None,
        paced_since: datetime | None = None,
        born: datetime | None = None,
    ) -> Elsewhere:
        """For the chats (keys of ``chats``): where another instance holds, under a lease
        still running, a notice not delivered yet older than the notice id given for the chat
        (any, for None): that instance is showing something there right now; where a
        notice older than that id was shown (sent or edited) at ``since`` or later by another
        process: not by this instance, which remembers what it showed, unless marked in its
        name before ``born`` (when this process began: a previous life's late mark); and, in
        the private chats, when the newest such notice that sent a message (not one that
        edited a prompt: Telegram paces messages, not edits) was sent, if at ``paced_since``
        or later."""
        ...

    async def unprompted(self, game_id: int | None = None, limit: int = 50) -> list[int]:
        """Running games (this one, or any) whose newest prompt or group ask (the current
        turn's) is neither on its way (not delivered yet) nor shown with its keys: a game
        whose turn may wait for nobody. An older ask that still shows keys does not count."""
        ...

    async def untold(
        self, before: datetime, game_id: int | None = None, limit: int = 50
    ) -> list[Notice]:
        """The newest table of each running game (this one, or any), done by ``before``
        while no message shows it, passed over by delivery's own judgement (``PASSED_OVER``,
        not a refusal by Telegram, which would refuse it again): a round the group may never
        have seen end."""
        ...

    async def mark(self, delivered: Sequence[Delivered]) -> None:
        """Record of each notice that it was shown, refused, superseded or failed, and merge
        what it showed into its message's row in ``messages``: a row takes a report only if
        it is newer (``Message.after``), whatever order reports come in. One statement on
        PostgreSQL; on SQLite two, the messages first (killed in between, a notice is shown
        again, and no message stands that the store does not know of)."""
        ...

    async def prune(self, before: datetime) -> int:
        """Delete notices done before ``before`` whose game is over (or that have none) and
        whose message shows no keys; how many."""
        ...

    async def backlog(self) -> int:
        """How many notices wait to be delivered."""
        ...


class MessageRepository(Protocol):
    """The ``messages`` table: one row per message the bot has shown, or may have shown (no
    id: a send whose answer never came). Its rules: ``app/notices/message.py``."""

    async def get(self, chat_id: int, message_id: int) -> Message | None:
        """The row of one message, if the store knows it."""
        ...

    async def sent(self, game_id: int) -> list[SentMessage]:
        """The game's messages that later notices may edit: those that show keys, and in each
        chat the newest that shows its lobby, its table, or a player's answered prompt."""
        ...

    async def record(self, delivered: Sequence[Delivered]) -> None:
        """What these notices showed merged into their messages' rows (``Message.after``),
        their notices left as they are (the batch marks them): one statement."""
        ...

    async def doubt(self, chat_id: int, since: int) -> None:
        """A message may stand in this chat that the store never learnt of, after the
        newest one the notices before notice ``since`` put there: a row with no id."""
        ...

    async def doubts(self) -> dict[int, int]:
        """Every chat with a message of unknown id, with its oldest such notice."""
        ...

    async def copies(self, limit: int = 20) -> list[Message]:
        """Second copies: messages sent by the same notice as another message of the chat (an
        instance whose lease ran out while it was still showing the notice, another showing
        it again). The copy later notices edit is kept: the one showing the newest notice,
        then the newest message (the planners edit the newest). A copy that shows keys must
        lose them; one without keys that shows just what a newer copy shows (a card dealt
        twice) is a twin to delete. Rows of messages the store only learnt of by clearing a
        doubt (no kind) are never twins: what they showed is not known."""
        ...

    async def forget(self, chat_id: int, message_id: int) -> None:
        """The message is gone from the chat (a twin deleted): its row goes too."""
        ...

    async def cleared(self, chat_id: int, message_ids: Sequence[int], shown: int) -> None:
        """These messages, which no row accounted for, stand in the chat without keys: each
        row says so as of notice ``shown`` (the notice shown again, whose copies they may be),
        so that a late report of that notice or an older one (an instance that showed it and
        lagged) cannot give the row its keys back, while a later notice's edit still can (a
        deal written before the clear but shown after it). One statement."""
        ...

    async def settle_doubt(self, chat_id: int, since: int) -> None:
        """The messages of unknown id in the chat since notice ``since`` are dealt with (an
        older one recorded since stays)."""
        ...

    async def newest_before(self, chat_id: int, notice_id: int) -> int:
        """The newest message a notice older than ``notice_id`` put in the chat (0: none)."""
        ...

    async def messages_between(self, chat_id: int, low: int, high: int) -> frozenset[int]:
        """The messages notices put in the chat from ``low`` to ``high``, both included."""
        ...

    async def later_game_shown(self, chat_id: int, game_id: int, after: int) -> bool:
        """A notice newer than notice ``after``, of a game opened after game ``game_id``, has
        put a message in the chat."""
        ...

    async def prune(self, before: datetime) -> int:
        """Delete the rows of messages without keys last changed before ``before`` whose
        game is over (or that have none); how many."""
        ...


class StandingRepository(Protocol):
    async def get_many(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, Standing]: ...

    async def claim(
        self, scope: int, season: str, player_ids: Sequence[PlayerId]
    ) -> dict[PlayerId, Standing]:
        """The players' rows in a table, made if missing and locked until commit."""
        ...

    async def save(self, standing: Standing) -> None: ...

    async def table(self, scope: int, season: str, limit: int | None = 20) -> list[Standing]:
        """Best first: rating, then wins (``limit=None``: the whole table)."""
        ...

    async def of_player(self, player_id: PlayerId, season: str) -> list[Standing]: ...


class UpdateLog(Protocol):
    async def first_time(self, update_id: int) -> bool:
        """Record ``update_id``; False if it was already processed (a redelivery)."""
        ...


@dataclass(frozen=True)
class Pending:
    """Which of the sweeper's reads would find anything now: ``due``
    (``GameRepository.due``), ``held`` (``ChatRepository.held``), ``doubts``
    (``MessageRepository.doubts``), ``copies`` (``MessageRepository.copies``); ``unsent``:
    some notice is not delivered yet, held by any instance or by none (a sweep that finds
    none has nothing to claim)."""

    due: bool = False
    held: bool = False
    doubts: bool = False
    unsent: bool = False
    copies: bool = False


class SweepRepository(Protocol):
    async def pending(self, now: datetime) -> Pending:
        """What the sweeper would find now, in one statement: on most runs nothing, or only
        notices on their way, and then that one statement is all a sweep reads."""
        ...


class UnitOfWork(Protocol):
    """One database transaction: only ``commit`` keeps changes; leaving without it rolls back."""

    chats: ChatRepository
    players: PlayerRepository
    games: GameRepository
    outbox: OutboxRepository
    messages: MessageRepository
    standings: StandingRepository
    updates: UpdateLog
    sweep: SweepRepository

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    async def commit(self) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self, *, read_only: bool = False, autocommit: bool = False) -> UnitOfWork:
        """``read_only=True``: a unit of work that only reads takes no write lock (on
        PostgreSQL it begins no transaction, which at READ COMMITTED would add nothing).
        ``autocommit=True``: no transaction, for a unit of work that writes one statement."""
        ...


class ConcurrentUpdate(Exception):
    """The game changed under us (another instance or a timeout won the race)."""


class CallLedger(Protocol):
    """Telegram's limits shared by the instances of one database: one budget per group, and
    the overall rate split among the instances alive."""

    async def take(
        self, chat_id: int, now: float, rate: int, period: float
    ) -> tuple[bool, list[float], datetime | None]:
        """Count a call to the group if fewer than ``rate`` were made in the ``period``
        seconds before ``now`` (Unix seconds) by any instance and Telegram does not hold the
        group back (``ChatRepository.hold``): whether it was counted, the times of the calls
        now in that window, and until when the group is held when that is why not."""
        ...

    async def spend(self, chat_id: int, now: float, period: float) -> list[float]:
        """Count a call made anyway (an answer that cannot wait); the window's call times."""
        ...

    async def alive(self, instance: str, now: datetime, within: timedelta) -> int:
        """Say that ``instance`` is alive at ``now``; how many instances were seen ``within``
        (itself included)."""
        ...
