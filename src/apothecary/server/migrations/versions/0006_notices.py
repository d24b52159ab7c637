"""Room notices (someone left, came back, was handed to a bot, took the seat
back), kept so that a restarted server's log still says who did what.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    """Create the notices table."""
    op.create_table(
        "notices",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("level", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(16), nullable=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.ForeignKeyConstraint(["room", "game_no"], ["games.room", "games.game_no"]),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("notices")
