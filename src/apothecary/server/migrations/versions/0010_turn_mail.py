"""Turn-based play's e-mails and vacations: an optional address on each account,
whether it wants your-turn mails and its unsubscribe token, its vacation (until when,
days taken in which year), and turn_mails (one row per room and turn mailed, with the
hash of the mail's link token).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    """Add users.email, .turn_mail, .mail_token and the vacation's columns, and
    create turn_mails."""
    # In place (no batch copy): copying users would break its sessions' and links'
    # foreign keys on SQLite, and a unique index needs no table rebuild.
    op.add_column("users", sa.Column("email", sa.String(254), nullable=True))
    op.add_column(
        "users", sa.Column("turn_mail", sa.Boolean, nullable=False, server_default=sa.true())
    )
    op.add_column("users", sa.Column("mail_token", sa.String(64), nullable=True))
    op.add_column("users", sa.Column("vacation_until", sa.Float, nullable=True))
    op.add_column("users", sa.Column("vacation_year", sa.Integer, nullable=True))
    op.add_column(
        "users", sa.Column("vacation_used", sa.Integer, nullable=False, server_default="0")
    )
    op.create_index("ix_users_mail_token", "users", ["mail_token"], unique=True)
    op.create_table(
        "turn_mails",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("turn", sa.String(64), primary_key=True),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("link_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("sent", sa.Float, nullable=False),
        sa.Index("ix_turn_mails_user_id", "user_id"),
    )


def downgrade() -> None:
    """Drop them (every record of a mail sent, and every address, with them)."""
    op.drop_table("turn_mails")
    op.drop_index("ix_users_mail_token", "users")
    for column in (
        "vacation_used",
        "vacation_year",
        "vacation_until",
        "mail_token",
        "turn_mail",
        "email",
    ):
        op.drop_column("users", column)
