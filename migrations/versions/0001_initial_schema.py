"""Initial schema: chats, players, games with their seats, rounds and log, the outbox,
processed updates and the league standings.

Revision ID: 0001_initial_schema
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001_initial_schema"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the model's types: a migration never imports the application's code.
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True, astext_type=sa.Text()), "postgresql"
)
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _instant() -> sa.DateTime:
    return sa.DateTime(timezone=True)


OPEN_GAME = sa.text("status IN ('lobby', 'running')")
UNSENT = sa.text("sent_at IS NULL")


def upgrade() -> None:
    op.create_table(
        "chats",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("title", sa.String(length=255), nullable=False),
        sa.Column("language", sa.String(length=35), nullable=True),
        sa.Column("settings", JSON, nullable=False),
        sa.Column("migrated_from", sa.BigInteger(), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", _instant(), nullable=False),
        sa.Column("updated_at", _instant(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chats")),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("first_name", sa.String(length=255), nullable=False),
        sa.Column("last_name", sa.String(length=255), nullable=True),
        sa.Column("username", sa.String(length=64), nullable=True),
        sa.Column("language", sa.String(length=35), nullable=True),
        sa.Column("can_dm", sa.Boolean(), nullable=True),
        sa.Column("is_computer", sa.Boolean(), nullable=False),
        sa.Column("created_at", _instant(), nullable=False),
        sa.Column("updated_at", _instant(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "processed_updates",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("processed_at", _instant(), nullable=False),
        sa.PrimaryKeyConstraint("update_id", name=op.f("pk_processed_updates")),
    )
    op.create_index(
        op.f("ix_processed_updates_processed_at"), "processed_updates", ["processed_at"]
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("creator_id", sa.BigInteger(), nullable=False),
        sa.Column("settings", JSON, nullable=False),
        sa.Column("seats", JSON, nullable=False),
        sa.Column("state", JSON, nullable=True),
        sa.Column("dealer", sa.BigInteger(), nullable=True),
        sa.Column("winners", JSON, nullable=False),
        sa.Column("shared_victory", sa.Boolean(), nullable=False),
        sa.Column("deadline", _instant(), nullable=True),
        sa.Column("lobby_message_id", sa.BigInteger(), nullable=True),
        sa.Column("table_message_id", sa.BigInteger(), nullable=True),
        sa.Column("table_round", sa.Integer(), nullable=True),
        sa.Column("language", sa.String(length=35), nullable=False),
        sa.Column("cancel_reason", sa.String(length=64), nullable=True),
        sa.Column("created_at", _instant(), nullable=False),
        sa.Column("started_at", _instant(), nullable=True),
        sa.Column("finished_at", _instant(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "status IN ('lobby', 'running', 'finished', 'cancelled')",
            name=op.f("ck_games_status"),
        ),
        sa.ForeignKeyConstraint(["chat_id"], ["chats.id"], name=op.f("fk_games_chat_id_chats")),
        sa.ForeignKeyConstraint(
            ["creator_id"], ["players.id"], name=op.f("fk_games_creator_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_chat_id"), "games", ["chat_id"])
    op.create_index(op.f("ix_games_deadline"), "games", ["deadline"])
    # A chat has at most one lobby or running game.
    op.create_index(
        "uq_games_open_chat_id",
        "games",
        ["chat_id"],
        unique=True,
        postgresql_where=OPEN_GAME,
        sqlite_where=OPEN_GAME,
    )
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("lives", sa.Integer(), nullable=True),
        sa.Column("eliminated_in_round", sa.Integer(), nullable=True),
        sa.Column("is_computer", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_players_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_game_players_player_id_players")
        ),
        sa.PrimaryKeyConstraint("game_id", "player_id", name=op.f("pk_game_players")),
        sa.UniqueConstraint("game_id", "seat", name=op.f("uq_game_players_game_id_seat")),
    )
    op.create_index(op.f("ix_game_players_player_id"), "game_players", ["player_id"])
    op.create_table(
        "rounds",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("dealer_id", sa.BigInteger(), nullable=False),
        sa.Column("deck", JSON, nullable=False),
        sa.Column("turn", sa.Integer(), nullable=True),
        sa.Column("deadline", _instant(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", JSON, nullable=True),
        sa.Column("dealt_at", _instant(), nullable=False),
        sa.Column("ended_at", _instant(), nullable=True),
        sa.CheckConstraint(
            "status IN ('playing', 'revealed', 'misdealt', 'abandoned')",
            name=op.f("ck_rounds_status"),
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rounds_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "number", name=op.f("pk_rounds")),
    )
    op.create_table(
        "game_log",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("actor", sa.BigInteger(), nullable=True),
        sa.Column("action", JSON, nullable=True),
        sa.Column("events", JSON, nullable=False),
        sa.Column("at", _instant(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_log_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_log")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_game_log_game_id_seq")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("payload", JSON, nullable=False),
        sa.Column("created_at", _instant(), nullable=False),
        sa.Column("sent_at", _instant(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    op.create_index(
        "ix_outbox_pending",
        "outbox",
        ["game_id", "id"],
        postgresql_where=UNSENT,
        sqlite_where=UNSENT,
    )
    op.create_table(
        "standings",
        sa.Column("scope", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("season", sa.String(length=7), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("shared_wins", sa.Integer(), nullable=False),
        sa.Column("lives_lost", sa.Integer(), nullable=False),
        sa.Column("rounds_survived", sa.Integer(), nullable=False),
        sa.Column("rating_mu", sa.Double(), nullable=False),
        sa.Column("rating_sigma", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_standings_player_id_players")
        ),
        sa.PrimaryKeyConstraint("scope", "season", "player_id", name=op.f("pk_standings")),
    )
    op.create_index(op.f("ix_standings_player_id"), "standings", ["player_id"])


def downgrade() -> None:
    # Indexes go with their tables; children before parents.
    op.drop_table("standings")
    op.drop_table("outbox")
    op.drop_table("game_log")
    op.drop_table("rounds")
    op.drop_table("game_players")
    op.drop_table("games")
    op.drop_table("processed_updates")
    op.drop_table("players")
    op.drop_table("chats")
