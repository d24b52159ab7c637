"""Seats linked to accounts (seat_links: an account, a room, the seat's token and
its hash), and indexes on account_sessions' timeouts for the sweep of ended sessions.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    """Create seat_links and index account_sessions.expires and .last_seen."""
    op.create_table(
        "seat_links",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat_token", sa.String(64), nullable=False),
        sa.Column("linked", sa.Float, nullable=False),
        sa.Index("ix_seat_links_user_id", "user_id"),
    )
    op.create_index("ix_account_sessions_expires", "account_sessions", ["expires"])
    op.create_index("ix_account_sessions_last_seen", "account_sessions", ["last_seen"])


def downgrade() -> None:
    """Drop them (every link of a seat to an account with them)."""
    op.drop_index("ix_account_sessions_last_seen", "account_sessions")
    op.drop_index("ix_account_sessions_expires", "account_sessions")
    op.drop_table("seat_links")
