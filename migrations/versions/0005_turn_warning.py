"""A turn's nudge: the game keeps when its player is warned that the clock runs out.

Revision ID: 0005_turn_warning
Revises: 0004_shared_limits
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_turn_warning"
down_revision: str | Sequence[str] | None = "0004_shared_limits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("warn_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index(batch.f("ix_games_warn_at"), ["warn_at"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index(batch.f("ix_games_warn_at"))
        batch.drop_column("warn_at")
