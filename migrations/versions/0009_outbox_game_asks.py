"""The outbox by game and kind (``ix_outbox_game_kind``): the sweeper's look for a turn nobody
can play reads each running game's newest ask (prompt or group ask), and its look for a round
the group never saw each game's newest table, without reading the whole outbox for each game.

Revision ID: 0009_outbox_game_asks
Revises: 0008_messages
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0009_outbox_game_asks"
down_revision: str | Sequence[str] | None = "0008_messages"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_outbox_game_kind", "outbox", ["game_id", "kind", "id"])


def downgrade() -> None:
    op.drop_index("ix_outbox_game_kind", table_name="outbox")
