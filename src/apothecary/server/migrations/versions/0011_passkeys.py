"""Passkeys (WebAuthn) as a second way into an account: passkeys (each credential's
public key and signature count) and passkey_challenges (the challenges given out,
each good once until it expires).

Revision ID: 0011
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    """Create passkeys and passkey_challenges (nothing else changes)."""
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(1400), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("user_handle", sa.String(64), nullable=False),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.Integer, nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float, nullable=True),
        sa.Index("ix_passkeys_user_id", "user_id"),
    )
    op.create_table(
        "passkey_challenges",
        sa.Column("challenge", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("user_handle", sa.String(64), nullable=True),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Index("ix_passkey_challenges_expires", "expires"),
    )


def downgrade() -> None:
    """Drop them (every passkey with them)."""
    op.drop_table("passkey_challenges")
    op.drop_table("passkeys")
