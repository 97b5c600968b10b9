"""One row per Telegram message (``messages``): what each message shows and whether it has
keys, merged by a conditional write. It takes over the outbox's ``message_id`` and
``live_keys`` (kept there once per notice, several notices describing one message) and the
chats in doubt (``delivery_doubts``: now a message row whose id is unknown).

Revision ID: 0008_messages
Revises: 0007_delivery_doubts
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_messages"
down_revision: str | Sequence[str] | None = "0007_delivery_doubts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SENT = sa.text("sent_at IS NOT NULL")
HAS_MESSAGE = sa.text("message_id IS NOT NULL")


def upgrade() -> None:
    op.create_table(
        "messages",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=True),
        sa.Column("sent_by", sa.BigInteger(), nullable=False),
        sa.Column("shown", sa.BigInteger(), nullable=False),
        sa.Column("keys", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_messages_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_messages")),
    )
    op.create_index(
        "uq_messages_chat_id_message_id", "messages", ["chat_id", "message_id"], unique=True
    )
    op.create_index("ix_messages_game_shown", "messages", ["game_id", "shown"])
    # Each message as its newest notice left it; the oldest notice that showed it sent it.
    op.execute(
        "INSERT INTO messages"
        " (chat_id, message_id, game_id, kind, sent_by, shown, keys, updated_at)"
        " SELECT o.chat_id, o.message_id, o.game_id, o.kind, f.first, o.id, o.live_keys,"
        " COALESCE(o.sent_at, o.created_at)"
        " FROM outbox o JOIN (SELECT MIN(id) AS first, MAX(id) AS last FROM outbox"
        " WHERE message_id IS NOT NULL GROUP BY chat_id, message_id) f ON o.id = f.last"
    )
    # A chat in doubt: a message whose id is unknown, sent by its oldest doubtful notice.
    op.execute(
        "INSERT INTO messages"
        " (chat_id, message_id, game_id, kind, sent_by, shown, keys, updated_at)"
        " SELECT d.chat_id, NULL, o.game_id, o.kind, d.since, d.since, true, CURRENT_TIMESTAMP"
        " FROM delivery_doubts d LEFT JOIN outbox o ON o.id = d.since"
    )
    op.drop_table("delivery_doubts")
    op.drop_index("ix_outbox_chat_message", table_name="outbox")
    op.drop_index("ix_outbox_game_sent", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("live_keys")
        batch.drop_column("message_id")
    op.create_index(
        "ix_outbox_chat_sent",
        "outbox",
        ["chat_id", "sent_at"],
        postgresql_where=SENT,
        sqlite_where=SENT,
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_chat_sent", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("message_id", sa.BigInteger(), nullable=True))
        batch.add_column(
            sa.Column("live_keys", sa.Boolean(), server_default=sa.text("false"), nullable=False)
        )
    op.execute(
        "UPDATE outbox SET"
        " message_id = (SELECT m.message_id FROM messages m WHERE m.shown = outbox.id"
        " AND m.message_id IS NOT NULL),"
        " live_keys = COALESCE((SELECT m.keys FROM messages m WHERE m.shown = outbox.id"
        " AND m.message_id IS NOT NULL), false)"
    )
    op.create_index(
        "ix_outbox_game_sent",
        "outbox",
        ["game_id", "kind", "id"],
        postgresql_where=HAS_MESSAGE,
        sqlite_where=HAS_MESSAGE,
    )
    op.create_index(
        "ix_outbox_chat_message",
        "outbox",
        ["chat_id", "message_id"],
        postgresql_where=HAS_MESSAGE,
        sqlite_where=HAS_MESSAGE,
    )
    op.create_table(
        "delivery_doubts",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("since", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_delivery_doubts")),
    )
    op.execute(
        "INSERT INTO delivery_doubts (chat_id, since) SELECT chat_id, MIN(sent_by)"
        " FROM messages WHERE message_id IS NULL GROUP BY chat_id"
    )
    op.drop_index("ix_messages_game_shown", table_name="messages")
    op.drop_index("uq_messages_chat_id_message_id", table_name="messages")
    op.drop_table("messages")
