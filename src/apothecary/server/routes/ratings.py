"""Ratings over HTTP: a game's leaderboard, a person's profile, their pages, and a
seat of a rated room, which only a signed-in account may claim (docs/ratings.md)."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from apothecary.core.registry import game_class
from apothecary.server import commands
from apothecary.server.accounts import NAME_MAX, CrossSite, Session
from apothecary.server.ratings import AlreadySeated, NeedsAccount, Ratings
from apothecary.server.routes.account import COOKIE, HEADER
from apothecary.server.routes.deps import HubDep, index_page

router = APIRouter(tags=["ratings"])

for path in ("/leaderboard/{game}", "/u/{name}"):
    # The client's one page; it reads the path itself (static/ratings.js, profile.js).
    router.add_api_route(path, index_page, methods=["GET"], include_in_schema=False)


def _ratings(request: Request) -> Ratings:
    found: Ratings = request.app.state.ratings
    return found


@router.get("/api/leaderboard/{game}", summary="A game's leaderboard, per player count")
async def game_leaderboard(
    request: Request,
    game: Annotated[str, Path(max_length=64, description="A game's registry name.")],
    players: Annotated[
        int | None, Query(ge=1, le=99, description="Only this player count's board.")
    ] = None,
) -> dict[str, Any]:
    """Every rated player of the game (accounts and bot levels), best first by the
    conservative rating, one board per player count."""
    title = game_class(game).info.title  # an unknown game is refused with its own error
    boards = await _ratings(request).leaderboard(game, players)
    return {"game": game, "title": title, "boards": boards}


@router.get("/api/users/{name}", summary="A person's profile: games, wins, rating history")
async def user_profile(
    request: Request,
    name: Annotated[str, Path(min_length=1, max_length=NAME_MAX, description="A user name.")],
) -> dict[str, Any]:
    """Per game their games, wins and rating; the rating after each rated game;
    recent games with their replays. 404 ``user_not_found`` for no such account."""
    return await _ratings(request).profile(name)


async def rated_session(request: Request) -> Session:
    """The signed-in session a seat of a rated room is claimed with, or the refusal:
    NeedsAccount without one, CrossSite without :data:`HEADER`."""
    session = await request.app.state.accounts.session(request.cookies.get(COOKIE), time.time())
    if session is None:
        raise NeedsAccount("a rated room seats accounts only: sign in to play here")
    if not request.headers.get(HEADER):
        raise CrossSite(f"a seat of a rated room is claimed with the {HEADER} header")
    found: Session = session
    return found


async def claim_seat(
    request: Request, hub: HubDep, code: str, name: str, seat: int | None
) -> tuple[int, str]:
    """Claim a seat of room ``code``: as ``name`` in a room that is not rated; in
    a rated one as the signed-in account (its user name is the seat's name), which
    must send :data:`HEADER` (the cookie gives the request its power) and may hold
    one seat of the room. The seat and its token."""
    info = await hub.ask(commands.Info(code))
    if not info["settings"].get("rated"):
        taken = await hub.ask(commands.Claim(code, name, seat))
        return int(taken[0]), str(taken[1])
    session = await rated_session(request)
    # In a rated room every person's seat is named by their account (names are unique).
    if any(s["kind"] == "human" and s["name"] == session.user.name for s in info["seats"]):
        raise AlreadySeated("your account has a seat of this room already")
    taken = await hub.ask(commands.Claim(code, session.user.name, seat))
    index, token = int(taken[0]), str(taken[1])
    await _ratings(request).link(code, token, session.user.id, time.time())
    return index, token
