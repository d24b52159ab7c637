"""Rooms over HTTP: create, list, read, claim a seat, the host's commands and
a finished game's record. Each is a :mod:`~apothecary.server.commands` value
the hub does where the room is held."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from pydantic import BaseModel, Field

from apothecary import bots as bot_registry
from apothecary.core.errors import ApothecaryError
from apothecary.core.registry import games
from apothecary.core.tutorial import load_script
from apothecary.server import commands
from apothecary.server.accounts import User
from apothecary.server.friends import Friends
from apothecary.server.room import (
    NAME_LIMIT,
    OPEN,
    TURN_HOURS_MAX,
    RoomError,
    Settings,
    clean_text,
)
from apothecary.server.routes import ratings
from apothecary.server.routes.account import COOKIE
from apothecary.server.routes.deps import Code, HubDep, PerAddress, Token

if TYPE_CHECKING:
    from apothecary.server.hub import Hub

router = APIRouter(prefix="/api/rooms")

creating = PerAddress(
    "create",
    lambda request: int(request.app.state.web.create_per_minute),
    "too many rooms created from your address; wait a minute",
)
"""Rooms one client address may create a minute (:attr:`WebConfig.create_per_minute`)."""


class CreateRoom(BaseModel):
    """A new room."""

    game: str = Field(max_length=64, description="A game's registry name (see /api/games).")
    players: int | None = Field(default=None, ge=1, le=99, description="Player count.")
    options: dict[str, bool | int | float | str] = Field(
        default_factory=dict, description="Game options (see the game's option list)."
    )
    seats: list[Annotated[str, Field(max_length=64)]] | None = Field(
        default=None,
        max_length=99,
        description="Per seat: 'open' for a person, or a bot level or name. Missing: open.",
    )
    turn_seconds: float | None = Field(
        default=None, ge=1, le=86400, description="Seconds per move; none: no timer."
    )
    turn_hours: float | None = Field(
        default=None,
        ge=1,
        le=TURN_HOURS_MAX,
        description="Turn-based: hours per turn (instead of turn_seconds); the person to "
        "move is told by browser notification and e-mail (docs/turn-based.md).",
    )
    match_target: int | None = Field(
        default=None, ge=1, le=99, description="Play a series: first to this many wins."
    )
    listed: bool = Field(default=True, description="Shown in the list of open rooms.")
    hints: bool = Field(
        default=False, description="A casual room: a seat may ask the strongest bot for a hint."
    )
    rated: bool = Field(
        default=False,
        description="A rated room: accounts and bots only, no hints; games move ratings.",
    )
    fallback_level: str = Field(
        default="medium",
        max_length=64,
        description="The bot for seats left open at an early start, and for timed-out turns.",
    )
    host_name: str | None = Field(
        default=None, max_length=NAME_LIMIT, description="Take a seat as this name at once."
    )
    seed: str | None = Field(
        default=None, max_length=64, description="Only on servers started to allow it."
    )


class ClaimSeat(BaseModel):
    """Sit down in a room."""

    name: str = Field(max_length=NAME_LIMIT, description="Your display name.")
    seat: int | None = Field(default=None, ge=0, le=99, description="Which seat; none: any.")


class SeatBot(BaseModel):
    """Hand a seat to a bot."""

    level: str = Field(max_length=64, description="A bot level or bot name.")


async def _ask(hub: HubDep, command: commands.RoomCommand) -> dict[str, Any]:
    answer: dict[str, Any] = await hub.ask(command)
    return answer


async def _signed_in(request: Request) -> User | None:
    """The account the request is signed in to (its session cookie), or None."""
    session = await request.app.state.accounts.session(request.cookies.get(COOKIE), time.time())
    return None if session is None else session.user


async def _claim(
    request: Request, hub: HubDep, code: str, name: str, seat: int | None
) -> tuple[int, str]:
    # Someone the room's host blocked does not sit (docs/accounts.md#friends); a
    # rated room's seat goes to the signed-in account (routes/ratings.py).
    friends: Friends = request.app.state.friends
    await friends.may_sit(code, await _signed_in(request))
    return await ratings.claim_seat(request, hub, code, name, seat)


@router.post(
    "",
    status_code=201,
    summary="Create a room (you are its host)",
    dependencies=[Depends(creating)],
)
async def create_room(hub: HubDep, request: Request, body: CreateRoom) -> dict[str, Any]:
    """A new room, its host token, and the host's seat if they named themselves."""
    settings = Settings(
        turn_seconds=body.turn_seconds,
        turn_hours=body.turn_hours,
        match_target=body.match_target,
        listed=body.listed,
        fallback_level=body.fallback_level,
        hints=body.hints,
        rated=body.rated,
    )
    if body.host_name is not None:
        clean_text(body.host_name, NAME_LIMIT, "a display name")
        if body.rated:  # refused before the room is made, not after
            await ratings.rated_session(request)
    stoppable_only(hub, body.game, [*(body.seats or ()), body.fallback_level])
    room, host_token = await hub.create(
        body.game,
        body.players,
        dict(body.options),
        body.seats,
        settings,
        body.seed,
        request.client.host if request.client else None,
    )
    if (host := await _signed_in(request)) is not None:  # whose blocks its seats obey
        await request.app.state.friends.host(room.code, host)
    answer: dict[str, Any] = {
        "code": room.code,
        "host_token": host_token,
        "invite": f"/rooms/{room.code}",
        "room": room.public_info(),
    }
    if body.host_name is not None:
        seat, token = await _claim(request, hub, room.code, body.host_name, None)
        answer.update(seat=seat, seat_token=token, room=await _ask(hub, commands.Info(room.code)))
    return answer


class CreateTutorial(BaseModel):
    """A learn-to-play room."""

    game: str = Field(max_length=64, description="A game's registry name (see /api/games).")
    name: str = Field(default="You", max_length=NAME_LIMIT, description="Your display name.")


@router.post(
    "/tutorial",
    status_code=201,
    summary="Create and start a learn-to-play room (docs/client.md, Learn to play)",
    dependencies=[Depends(creating)],
)
async def create_tutorial(hub: HubDep, request: Request, body: CreateTutorial) -> dict[str, Any]:
    """An unlisted room set up as the game's tutorial script says, the person
    seated at the script's seat and the game started: its code and tokens."""
    script = load_script(body.game) if body.game in games() else None
    if script is None:
        raise RoomError(f"{body.game!r} has no tutorial (see /api/games: 'tutorial')")
    clean_text(body.name, NAME_LIMIT, "a display name")
    seats = [OPEN if seat == script.seat else "easy" for seat in range(script.players)]
    room, host_token = await hub.create(
        body.game,
        script.players,
        dict(script.options),
        seats,
        Settings(listed=False, fallback_level="easy", tutorial=True),
        None,
        request.client.host if request.client else None,
    )
    seat, token = await _claim(request, hub, room.code, body.name, script.seat)
    await _ask(hub, commands.Start(room.code, host_token))
    return {
        "code": room.code,
        "host_token": host_token,
        "invite": f"/rooms/{room.code}",
        "seat": seat,
        "seat_token": token,
    }


PAGE_LIMIT = 100
"""The most rooms one ``GET /api/rooms`` answers with (``limit``'s bound)."""


@router.get(
    "",
    summary="Listed rooms that are not over, newest first, a page at a time",
    responses={
        200: {
            "headers": {
                "X-Total-Count": {
                    "description": "How many listed rooms there are in all (for the pages).",
                    "schema": {"type": "integer"},
                }
            }
        }
    },
)
async def list_rooms(
    hub: HubDep,
    response: Response,
    offset: Annotated[int, Query(ge=0, le=10**6, description="Rooms to skip.")] = 0,
    limit: Annotated[
        int, Query(ge=1, le=PAGE_LIMIT, description="Rooms to answer with, at most.")
    ] = 50,
) -> list[dict[str, Any]]:
    """One page of the lobby's list, newest first; the header says how many in all."""
    total, rooms = await hub.listed_page(offset, limit)
    response.headers["X-Total-Count"] = str(total)
    return rooms


@router.get("/{code}", summary="A room's public facts")
async def room_info(hub: HubDep, code: Code) -> dict[str, Any]:
    """What anyone may know of the room."""
    return await _ask(hub, commands.Info(code))


@router.post("/{code}/seats", summary="Claim a seat: returns its secret token")
async def claim(hub: HubDep, request: Request, code: Code, body: ClaimSeat) -> dict[str, Any]:
    """The seat and its token (in a rated room, the signed-in account's)."""
    seat, token = await _claim(request, hub, code, body.name, body.seat)
    return {"seat": seat, "token": token}


@router.post("/{code}/start", summary="Host: start, bots in the open seats")
async def start(hub: HubDep, code: Code, token: Token) -> dict[str, Any]:
    """Started: the room's facts."""
    return await _ask(hub, commands.Start(code, token))


@router.put("/{code}/seats/{seat}/bot", summary="Host: a bot plays this seat")
async def seat_bot(
    hub: HubDep,
    code: Code,
    seat: Annotated[int, Path(ge=0, le=99)],
    token: Token,
    body: Annotated[SeatBot, Body()],
) -> dict[str, Any]:
    """The seat handed to the bot: the room's facts."""
    if hub.config.bot_workers == 0:
        game = (await _ask(hub, commands.Info(code)))["game"]
        stoppable_only(hub, str(game), [body.level])
    return await _ask(hub, commands.SetBot(code, token, seat, body.level))


class NeedsWorkers(RoomError):
    """A search bot asked of a server whose bots think in a thread."""

    code = "bot_needs_workers"


def stoppable_only(hub: Hub, game: str, names: Iterable[str]) -> None:
    """With bots thinking in a thread (``--workers-for-bots 0``), a room seats
    only the game's levels and the random bot: a thread cannot be stopped at
    its wall-clock limit, and a named search bot (``rollout``, ``ismcts``)
    could think for minutes. The levels are sized to think well under a
    second, and so is a bot a level plays with no budget of its own (medium's
    ``rules``) or one registered as quick (a rules bot). NeedsWorkers names
    the first other bot; an unknown game or name is left to the room's own
    checks."""
    if hub.config.bot_workers > 0:
        return
    try:
        levels = bot_registry.levels(game)
    except ApothecaryError:
        return
    as_levels = {level.bot for level in levels.values() if not level.budget}
    quick = {name for name, entry in bot_registry.entries(game).items() if entry.quick}
    as_levels |= quick
    allowed = {OPEN, "random", *levels, *as_levels}
    for name in names:
        if name not in allowed and name.split(":")[0] in bot_registry.entries(game):
            raise NeedsWorkers(
                f"seat bot {name!r}: this server thinks bots in a thread "
                "(--workers-for-bots 0), which cannot be stopped at its time limit; "
                f"it seats the levels ({', '.join(levels)}), "
                f"{', '.join(sorted(as_levels | {'random'}))} only"
            )


@router.delete("/{code}/seats/{seat}", summary="Host: free a seat in the lobby")
async def open_seat(
    hub: HubDep, code: Code, seat: Annotated[int, Path(ge=0, le=99)], token: Token
) -> dict[str, Any]:
    """The seat open again (its person's token no longer works): the room's facts."""
    return await _ask(hub, commands.OpenSeat(code, token, seat))


@router.post("/{code}/rematch", summary="Host: play again, seats rotated")
async def rematch(hub: HubDep, code: Code, token: Token) -> dict[str, Any]:
    """The next game set up: the room's facts."""
    return await _ask(hub, commands.Rematch(code, token))


@router.get(
    "/{code}/games/{game_no}/record",
    summary="A finished game's full record, every secret included",
)
async def record(
    hub: HubDep, code: Code, game_no: Annotated[int, Path(ge=1, le=10**6)]
) -> dict[str, Any]:
    """The record, once the game is over."""
    return await _ask(hub, commands.GetRecord(code, game_no))
