"""Chats in doubt: a message may stand there that the store never learnt of (a send
whose answer was lost), so any instance, not only the one that had the doubt, clears its keys.

Revision ID: 0007_delivery_doubts
Revises: 0006_flood_waits
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_delivery_doubts"
down_revision: str | Sequence[str] | None = "0006_flood_waits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "delivery_doubts",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("since", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_delivery_doubts")),
    )


def downgrade() -> None:
    op.drop_table("delivery_doubts")
