"""When the process holding each room last vouched for it (committed it, or found
it still running), so that a restarted server gives the seat to move back the
time its turn timer ran while nobody held the room.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    """Add rooms.alive (empty in the rows already there: their last commit stands in)."""
    op.add_column("rooms", sa.Column("alive", sa.Float, nullable=True))


def downgrade() -> None:
    """Drop it (in place: SQLite drops a column since 3.35, and copying the table
    would break the games' and chat's foreign keys to it)."""
    op.drop_column("rooms", "alive")
