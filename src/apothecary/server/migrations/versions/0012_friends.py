"""Friends (requests and friendships), blocks, invitations to rooms, and the
account that hosts each room; and one table for seats' accounts: rated_seats'
rows move into seat_links (whose seat token may now be missing) and it goes.

Revision ID: 0012
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"


def _user() -> sa.ForeignKey:
    """A reference to an account that goes when the account does (one per column)."""
    return sa.ForeignKey("users.id", ondelete="CASCADE")


def upgrade() -> None:
    """Create friendships, blocks, invitations and room_hosts; fold rated_seats
    into seat_links."""
    op.create_table(
        "friendships",
        sa.Column("asker", sa.Integer, _user(), primary_key=True),
        sa.Column("asked", sa.Integer, _user(), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("accepted", sa.Float, nullable=True),
        sa.Index("ix_friendships_asked", "asked"),
    )
    op.create_table(
        "blocks",
        sa.Column("blocker", sa.Integer, _user(), primary_key=True),
        sa.Column("blocked", sa.Integer, _user(), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Index("ix_blocks_blocked", "blocked"),
    )
    op.create_table(
        "invitations",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("invitee", sa.Integer, _user(), primary_key=True),
        sa.Column("inviter", sa.Integer, _user(), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Index("ix_invitations_invitee", "invitee"),
        sa.Index("ix_invitations_inviter", "inviter"),
    )
    op.create_table(
        "room_hosts",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer, _user(), nullable=False),
        sa.Index("ix_room_hosts_user_id", "user_id"),
    )
    with op.batch_alter_table("seat_links") as batch:
        batch.alter_column("seat_token", existing_type=sa.String(64), nullable=True)
    # A rated seat's link moves over unless seat_links has that seat already (the
    # browser links every seat it takes when signed in, so most are there); rated_seats
    # kept no token, so a moved link has none until the seat's token is proved again.
    op.execute(
        "INSERT INTO seat_links (room, token_hash, user_id, seat_token, linked) "
        "SELECT r.room, r.token_hash, r.user_id, NULL, 0.0 FROM rated_seats r "
        "WHERE NOT EXISTS (SELECT 1 FROM seat_links s "
        "WHERE s.room = r.room AND s.token_hash = r.token_hash)"
    )
    op.drop_table("rated_seats")


def downgrade() -> None:
    """Bring rated_seats back from seat_links (one link per account and room, of
    every room still there: ratings read a rated room's only, so the others' rows
    are never read), drop the tokenless links (0009's seat_links needs a token),
    drop the new tables."""
    op.create_table(
        "rated_seats",
        sa.Column("room", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, _user(), nullable=False),
        sa.UniqueConstraint("room", "user_id", name="uq_rated_seats_room_user"),
    )
    # One link per account and room, the newest (0009's rated_seats seats an account once).
    op.execute(
        "INSERT INTO rated_seats (room, token_hash, user_id) "
        "SELECT s.room, s.token_hash, s.user_id FROM seat_links s "
        "JOIN rooms r ON r.code = s.room "
        "WHERE NOT EXISTS (SELECT 1 FROM seat_links t WHERE t.room = s.room "
        "AND t.user_id = s.user_id AND (t.linked > s.linked OR "
        "(t.linked = s.linked AND t.token_hash > s.token_hash)))"
    )
    op.execute("DELETE FROM seat_links WHERE seat_token IS NULL")
    with op.batch_alter_table("seat_links") as batch:
        batch.alter_column("seat_token", existing_type=sa.String(64), nullable=False)
    for table in ("room_hosts", "invitations", "blocks", "friendships"):
        op.drop_table(table)
