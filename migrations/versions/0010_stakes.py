"""Stakes: a player's chips in each league row, and the chips a group's pot keeps for its
next game.

Revision ID: 0010_stakes
Revises: 0009_outbox_game_asks
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_stakes"
down_revision: str | Sequence[str] | None = "0009_outbox_game_asks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("standings") as batch:
        batch.add_column(sa.Column("chips", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("chats") as batch:
        batch.add_column(sa.Column("pot", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("pot")
    with op.batch_alter_table("standings") as batch:
        batch.drop_column("chips")
