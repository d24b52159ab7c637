"""Room leases: which server process holds each room, until when, so that
several processes can share one database and never both write a room.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    """Create the leases table."""
    op.create_table(
        "leases",
        sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False, index=True),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("leases")
