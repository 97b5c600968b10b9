"""The turn where the player is: the outbox keeps the message each notice became (edit targets,
keys still live), the game keeps its log position and a "Play again" lobby's invited players,
and rounds no longer copy the turn clock.

Revision ID: 0002_turn_in_private
Revises: 0001_initial_schema
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002_turn_in_private"
down_revision: str | Sequence[str] | None = "0001_initial_schema"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNSENT = sa.text("sent_at IS NULL")
# A frozen copy of the model's JSON type: a migration never imports the application's code.
JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True, astext_type=sa.Text()), "postgresql"
)
SENT = sa.text("message_id IS NOT NULL")


def _instant() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("round", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("message_id", sa.BigInteger(), nullable=True))
        batch.add_column(
            sa.Column("live_keys", sa.Boolean(), server_default=sa.text("false"), nullable=False)
        )
    op.drop_index("ix_outbox_pending", table_name="outbox")
    op.create_index(
        "ix_outbox_pending", "outbox", ["chat_id", "id"], postgresql_where=UNSENT, sqlite_where=UNSENT
    )
    op.create_index(
        "ix_outbox_game_sent",
        "outbox",
        ["game_id", "kind", "id"],
        postgresql_where=SENT,
        sqlite_where=SENT,
    )
    op.create_index(
        "ix_outbox_chat_message",
        "outbox",
        ["chat_id", "message_id"],
        postgresql_where=SENT,
        sqlite_where=SENT,
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("log_seq", sa.Integer(), server_default=sa.text("0"), nullable=False)
        )
        batch.add_column(sa.Column("offered", JSON, nullable=True))
        batch.drop_column("lobby_message_id")
        batch.drop_column("table_message_id")
        batch.drop_column("table_round")
    # Games already running go on from their last log entry.
    op.execute(
        "UPDATE games SET log_seq = COALESCE("
        "(SELECT MAX(seq) FROM game_log WHERE game_log.game_id = games.id), 0)"
    )
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("turn")
        batch.drop_column("deadline")


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("turn", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("deadline", _instant(), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("table_round", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("table_message_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("lobby_message_id", sa.BigInteger(), nullable=True))
        batch.drop_column("offered")
        batch.drop_column("log_seq")
    op.drop_index("ix_outbox_chat_message", table_name="outbox")
    op.drop_index("ix_outbox_game_sent", table_name="outbox")
    op.drop_index("ix_outbox_pending", table_name="outbox")
    op.create_index(
        "ix_outbox_pending", "outbox", ["game_id", "id"], postgresql_where=UNSENT, sqlite_where=UNSENT
    )
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("live_keys")
        batch.drop_column("message_id")
        batch.drop_column("round")
