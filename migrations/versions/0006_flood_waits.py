"""Flood control chat by chat: until when Telegram refuses each chat (a 429's retry_after), so
every instance and the next life of one wait for it.

Revision ID: 0006_flood_waits
Revises: 0005_turn_warning
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_flood_waits"
down_revision: str | Sequence[str] | None = "0005_turn_warning"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "flood_waits",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("until", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_flood_waits")),
    )
    with op.batch_alter_table("flood_waits") as batch:
        batch.create_index(batch.f("ix_flood_waits_until"), ["until"])


def downgrade() -> None:
    with op.batch_alter_table("flood_waits") as batch:
        batch.drop_index(batch.f("ix_flood_waits_until"))
    op.drop_table("flood_waits")
