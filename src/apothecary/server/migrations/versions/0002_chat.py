"""Room chat, kept so that a restarted server shows the table talk again.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    """Create the chat table."""
    op.create_table(
        "chat",
        sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(1000), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("chat")
