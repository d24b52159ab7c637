"""Rooms, their games, and every game's actions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    """Create the rooms, games and actions tables."""
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("host_hash", sa.String(64), nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("deadline", sa.Float, nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("room", sa.String(32), sa.ForeignKey("rooms.code"), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("seating", sa.JSON, nullable=False),
        sa.Column("outcome", sa.JSON, nullable=True),
    )
    op.create_table(
        "actions",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("step", sa.Integer, primary_key=True),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("notation", sa.String(200), nullable=False),
        sa.Column("actor", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.ForeignKeyConstraint(["room", "game_no"], ["games.room", "games.game_no"]),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("actions")
    op.drop_table("games")
    op.drop_table("rooms")
