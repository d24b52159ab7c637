"""Ratings: which account sits in each seat of a rated room, every player's openskill
rating per game and player count (accounts and bot levels), and one history row per
seat of each rated game.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    """Create the rated_seats, ratings and rating_history tables (nothing else changes)."""
    op.create_table(
        "rated_seats",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.UniqueConstraint("room", "user_id", name="uq_rated_seats_room_user"),
    )
    op.create_table(
        "ratings",
        sa.Column("subject", sa.String(80), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("players", sa.Integer, primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
        sa.Index("ix_ratings_user_id", "user_id"),
        sa.Index("ix_ratings_board", "game", "players"),
    )
    op.create_table(
        "rating_history",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("game_no", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("subject", sa.String(80), nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("abandoned", sa.Boolean, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Index("ix_rating_history_subject", "subject", "at"),
        sa.Index("ix_rating_history_user_id", "user_id"),
    )


def downgrade() -> None:
    """Drop them (every rating with them)."""
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_table("rated_seats")
