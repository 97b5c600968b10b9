"""Several instances on one PostgreSQL share Telegram's limits: the latest calls to each group
(one budget per group, whichever instance calls), and the instances alive (the overall rate is
split among them).

Revision ID: 0004_shared_limits
Revises: 0003_outbox_claims
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004_shared_limits"
down_revision: str | Sequence[str] | None = "0003_outbox_claims"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "group_budgets",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column(
            "calls",
            sa.JSON().with_variant(postgresql.ARRAY(sa.Double()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_group_budgets")),
    )
    op.create_table(
        "instances",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_instances")),
    )


def downgrade() -> None:
    op.drop_table("instances")
    op.drop_table("group_budgets")
