"""An account's seats over HTTP (``/api/account/games``, ``/api/account/seats``):
link seats to the signed-in account by their tokens, list its games, and give
another device signed in to it a seat's token. The rules are
:mod:`apothecary.server.seats`'; the session and the cross-site check are
:mod:`apothecary.server.routes.account`'s, as for every account route (these
paths are under its prefix, so a POST needs the ``X-Apothecary`` header).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from apothecary.server.routes.account import CHANGES, PREFIX, SessionDep
from apothecary.server.routes.deps import Code
from apothecary.server.seats import CLAIMS_MAX, SEAT_TOKEN_MAX, Seats


async def _no_store(response: Response) -> None:
    # Every answer here is one account's own (one a seat's secret): never cached.
    response.headers["Cache-Control"] = "no-store"


router = APIRouter(prefix=PREFIX, tags=["account"], dependencies=[Depends(_no_store)])


async def _seats(request: Request) -> Seats:
    seats: Seats = request.app.state.seats
    return seats


SeatsDep = Annotated[Seats, Depends(_seats)]


class SeatToken(BaseModel):
    """A seat the browser holds the token of."""

    room: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$", description="The room's code.")
    token: str = Field(min_length=1, max_length=SEAT_TOKEN_MAX, description="The seat token.")


class ClaimSeats(BaseModel):
    """Seats to link to the signed-in account, each proved by its token."""

    seats: list[SeatToken] = Field(max_length=CLAIMS_MAX, description="The seats' tokens.")


class Linked(BaseModel):
    """A seat now the account's."""

    room: str
    seat: int = Field(description="Its chair now.")


class ClaimedSeats(BaseModel):
    """What came of a claim."""

    linked: list[Linked] = Field(description="The seats now the account's.")
    refused: int = Field(
        description="Tokens that prove no seat (freed, a room gone) or another account's seat."
    )


class SeatCredentials(BaseModel):
    """A seat of the account, to play it from this device."""

    room: str
    seat: int = Field(description="The chair.")
    token: str = Field(description="The seat token (send it in the socket's hello).")
    name: str = Field(description="The seat's display name.")


@router.post(
    "/seats",
    summary="Link seats to the account by their tokens (after a claim, or at sign-up)",
    dependencies=CHANGES,
)
async def claim_seats(seats: SeatsDep, session: SessionDep, body: ClaimSeats) -> ClaimedSeats:
    """The seats linked; tokens that prove no seat are counted, not named."""
    pairs = [(seat.room, seat.token) for seat in body.seats]
    linked, refused = await seats.claim_many(session.user, pairs, time.time())
    return ClaimedSeats(
        linked=[Linked(room=one.room, seat=one.seat) for one in linked], refused=refused
    )


@router.get("/games", summary="The account's games: those it sits in, and those finished")
async def my_games(seats: SeatsDep, session: SessionDep) -> dict[str, Any]:
    """``current``: the rooms in their lobby or playing (players, who is to move,
    whether it is your turn, the series); ``finished``: every finished game,
    newest first (when, how it went, the replay's link)."""
    return await seats.games(session.user)


@router.post(
    "/games/{code}/seat",
    summary="Your seat's token in a room, to play it on this device",
    dependencies=CHANGES,
)
async def seat_credentials(seats: SeatsDep, session: SessionDep, code: Code) -> SeatCredentials:
    """The seat and its token (404 ``no_seat`` when the account has none there).
    A POST, though it changes nothing: it hands out a secret, so it gets the
    same cross-site checks as every state-changing account route."""
    return SeatCredentials(**await seats.credentials(session.user, code))
