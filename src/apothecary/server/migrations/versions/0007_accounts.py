"""Optional accounts: users (a name and an argon2id password hash), their
signed-in sessions (a hash of each session's token) and the count of sign-in
attempts per name and address, for every server process on the database.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    """Create the users, account_sessions and sign_in_attempts tables (the rooms
    are untouched)."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("password_changed", sa.Float, nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Index("ix_account_sessions_user_id", "user_id"),
    )
    op.create_table(
        "sign_in_attempts",
        sa.Column("key", sa.String(96), primary_key=True),
        sa.Column("minute", sa.Integer, nullable=False, index=True),
        sa.Column("tries", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    """Drop them (every account and session with them)."""
    op.drop_table("sign_in_attempts")
    op.drop_table("account_sessions")
    op.drop_table("users")
