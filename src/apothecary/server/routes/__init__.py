"""The HTTP routes, one :class:`~fastapi.APIRouter` a group (FastAPI's "bigger
applications" layout): pages, games, rooms, replays, hints, accounts (their passkeys
and seats), ratings, friends, turn-based play's mail links, and the games' browser
tables (:mod:`apothecary.server.tables`). What they share
(the room-code path parameter, the bearer token, the per-address rate limit,
the hub and the replays from the app's state) is in :mod:`.deps`, written once.
"""

from fastapi import APIRouter

from apothecary.server import tables
from apothecary.server.routes import (
    account,
    friends,
    games,
    hints,
    pages,
    passkeys,
    ratings,
    replays,
    rooms,
    seats,
    turns,
)

ROUTERS: tuple[APIRouter, ...] = (
    tables.router,
    pages.router,
    games.router,
    rooms.router,
    replays.router,
    hints.router,
    account.router,
    passkeys.router,
    ratings.router,
    seats.router,
    turns.router,
    friends.router,
)
"""Every router the app includes, in the order their routes are matched."""
