"""Several instances on one database: each outbox notice is claimed by one instance at a time,
with a lease that expires if that instance dies; a failed notice waits until ``claim_until``.

Revision ID: 0003_outbox_claims
Revises: 0002_turn_in_private
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_outbox_claims"
down_revision: str | Sequence[str] | None = "0002_turn_in_private"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("claim_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("claim_until")
        batch.drop_column("claimed_by")
