"""Finished analyses, kept so that a restarted server (or another server process
on the same database) serves a game's analysis again without computing it.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    """Create the analyses table."""
    op.create_table(
        "analyses",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("plan", sa.String(255), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("decisions", sa.JSON, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.ForeignKeyConstraint(["room", "game_no"], ["games.room", "games.game_no"]),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("analyses")
