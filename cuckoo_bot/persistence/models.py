"""The database schema as SQLAlchemy 2 typed models. Mapping to the app's dataclasses is explicit
(``mapping.py``); these rows never leave the persistence package."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from cuckoo_bot.persistence.types import UtcDateTime, json_type

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

GAME_STATUSES = ("lobby", "running", "finished", "cancelled")
OPEN_STATUSES = ("lobby", "running")
# Statuses a deadline can wake: a lobby, a turn, and a finished game's "Play again" key.
TIMED_STATUSES = (*OPEN_STATUSES, "finished")
# ``abandoned``: the game ended (cancelled) while the round was being played.
ROUND_STATUSES = ("playing", "revealed", "misdealt", "abandoned")

# SQLite only auto-increments an ``INTEGER PRIMARY KEY``; PostgreSQL gets a 64-bit identity.
BigId = BigInteger().with_variant(Integer(), "sqlite")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


OPEN_GAME = text(_in("status", OPEN_STATUSES))
UNSENT = text("sent_at IS NULL")
SENT = text("sent_at IS NOT NULL")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class ChatRow(Base):
    __tablename__ = "chats"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    title: Mapped[str] = mapped_column(String(255))
    language: Mapped[str | None] = mapped_column(String(35))
    # HouseRules.to_dict() plus "turn_timeout" (null: the operator's default).
    settings: Mapped[dict[str, Any]] = mapped_column(json_type())
    migrated_from: Mapped[int | None] = mapped_column(BigInteger)
    active: Mapped[bool] = mapped_column(Boolean)
    # Stakes: chips left for the group's next pot (only a game's end writes it).
    pot: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class PlayerRow(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    first_name: Mapped[str] = mapped_column(String(255))
    last_name: Mapped[str | None] = mapped_column(String(255))
    username: Mapped[str | None] = mapped_column(String(64))
    language: Mapped[str | None] = mapped_column(String(35))
    can_dm: Mapped[bool | None] = mapped_column(Boolean)
    is_computer: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class GameRow(Base):
    __tablename__ = "games"
    __table_args__ = (
        CheckConstraint(_in("status", GAME_STATUSES), name="status"),
        # A chat has at most one lobby or running game.
        Index(
            "uq_games_open_chat_id",
            "chat_id",
            unique=True,
            postgresql_where=OPEN_GAME,
            sqlite_where=OPEN_GAME,
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chats.id"), index=True)
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    creator_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"))
    # HouseRules.to_dict() plus "turn_timeout", as the chat had them when the lobby opened.
    settings: Mapped[dict[str, Any]] = mapped_column(json_type())
    seats: Mapped[list[int]] = mapped_column(json_type())
    state: Mapped[dict[str, Any] | None] = mapped_column(json_type())
    # Copied out of ``state`` for queries and reports.
    dealer: Mapped[int | None] = mapped_column(BigInteger)
    winners: Mapped[list[int]] = mapped_column(json_type())
    shared_victory: Mapped[bool] = mapped_column(Boolean)
    deadline: Mapped[datetime | None] = mapped_column(UtcDateTime, index=True)
    # When the player whose turn it is gets a nudge that the clock runs out (then cleared).
    warn_at: Mapped[datetime | None] = mapped_column(UtcDateTime, index=True)
    language: Mapped[str] = mapped_column(String(35))
    # A "Play again" lobby: the previous game's players, invited to take a seat.
    offered: Mapped[list[int] | None] = mapped_column(json_type())
    cancel_reason: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    version: Mapped[int] = mapped_column(Integer)
    # The last ``game_log.seq`` written: the log goes on without reading it back.
    log_seq: Mapped[int] = mapped_column(Integer, server_default=text("0"))


class GamePlayerRow(Base):
    """Who sits where, with lives from the state (null while in the lobby)."""

    __tablename__ = "game_players"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("players.id"), primary_key=True, index=True
    )
    seat: Mapped[int] = mapped_column(Integer)
    lives: Mapped[int | None] = mapped_column(Integer)
    eliminated_in_round: Mapped[int | None] = mapped_column(Integer)
    is_computer: Mapped[bool] = mapped_column(Boolean)


class RoundRow(Base):
    """One deal, derived from the log: the deck it was dealt from and how it ended."""

    __tablename__ = "rounds"
    __table_args__ = (CheckConstraint(_in("status", ROUND_STATUSES), name="status"),)

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    dealer_id: Mapped[int] = mapped_column(BigInteger)
    deck: Mapped[list[str]] = mapped_column(json_type())  # 52 card codes, top first
    status: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[dict[str, Any] | None] = mapped_column(json_type())
    dealt_at: Mapped[datetime] = mapped_column(UtcDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class GameLogRow(Base):
    """Append-only: one row per ``LogEntry``."""

    __tablename__ = "game_log"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(Integer, ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    round: Mapped[int | None] = mapped_column(Integer)
    actor: Mapped[int | None] = mapped_column(BigInteger)
    action: Mapped[dict[str, Any] | None] = mapped_column(json_type())
    events: Mapped[list[list[Any]]] = mapped_column(json_type())  # [[event name, data], ...]
    at: Mapped[datetime] = mapped_column(UtcDateTime)


class ProcessedUpdateRow(Base):
    __tablename__ = "processed_updates"

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    processed_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)


class OutboxRow(Base):
    """A notice to show (the intent, written with the move); once done, when and how. The
    message it became is a row of ``messages``."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_pending", "chat_id", "id", postgresql_where=UNSENT, sqlite_where=UNSENT),
        # What was done lately in a chat (``elsewhere``).
        Index(
            "ix_outbox_chat_sent", "chat_id", "sent_at", postgresql_where=SENT, sqlite_where=SENT
        ),
        # A game's newest ask and newest table (the sweeper's repairs, ``app/repair.py``).
        Index("ix_outbox_game_kind", "game_id", "kind", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16))
    chat_id: Mapped[int] = mapped_column(BigInteger)  # a group, or a user for private messages
    game_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("games.id", ondelete="CASCADE"))
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    round: Mapped[int | None] = mapped_column(
        Integer
    )  # the round a table or private notice is about
    payload: Mapped[dict[str, Any]] = mapped_column(json_type())
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    error: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer)
    # Which instance delivers it, until when (a lease: the instance renews it while the notice
    # is in its hands; if the instance dies, another takes the notice once it expires). After a
    # failed try, ``claim_until`` alone says when the notice may be tried again.
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claim_until: Mapped[datetime | None] = mapped_column(UtcDateTime)


class MessageRow(Base):
    """One Telegram message the bot has shown, or may have (no ``message_id``: a send whose
    answer never came). Its rules: ``app/notices/message.py``."""

    __tablename__ = "messages"
    __table_args__ = (
        # A message is one row: a report about it merges into the row (ON CONFLICT).
        Index("uq_messages_chat_id_message_id", "chat_id", "message_id", unique=True),
        # A game's messages with keys, and its newest of each kind in each chat.
        Index("ix_messages_game_shown", "game_id", "shown"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    game_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("games.id", ondelete="CASCADE"))
    kind: Mapped[str | None] = mapped_column(String(16))
    sent_by: Mapped[int] = mapped_column(BigInteger)  # the notice that sent it
    shown: Mapped[int] = mapped_column(BigInteger)  # the newest notice it shows: only grows
    keys: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class StandingRow(Base):
    __tablename__ = "standings"

    scope: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    season: Mapped[str] = mapped_column(String(7), primary_key=True)
    player_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("players.id"), primary_key=True, index=True
    )
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    shared_wins: Mapped[int] = mapped_column(Integer)
    lives_lost: Mapped[int] = mapped_column(Integer)
    rounds_survived: Mapped[int] = mapped_column(Integer)
    rating_mu: Mapped[float] = mapped_column(Double)
    rating_sigma: Mapped[float] = mapped_column(Double)
    chips: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


metadata = Base.metadata


# Several instances on one PostgreSQL share Telegram's limits through these two tables
# (``persistence/ledger.py``); one instance on SQLite keeps its budget in memory.
CallTimes = JSON().with_variant(ARRAY(Double()), "postgresql")


class GroupBudgetRow(Base):
    """The times (Unix seconds) of the latest Bot API calls to one group, by any instance."""

    __tablename__ = "group_budgets"

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    calls: Mapped[list[float]] = mapped_column(CallTimes)


class InstanceRow(Base):
    """An instance sharing the database, and when it last said it was alive: the overall rate
    (30 calls a second per bot) is split among the living ones."""

    __tablename__ = "instances"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    seen_at: Mapped[datetime] = mapped_column(UtcDateTime)


class FloodWaitRow(Base):
    """Until when Telegram's flood control refuses a chat (a 429's ``retry_after``): every
    instance, and the next life of this one, waits until then before calling it again."""

    __tablename__ = "flood_waits"

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    until: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
