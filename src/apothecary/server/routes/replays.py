"""Replays of finished games and their analyses (the work is in
:mod:`apothecary.server.replays`; these are its routes)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam

from apothecary.server import replays as work
from apothecary.server.room import RoomNotFound
from apothecary.server.routes.deps import Code, GameNo, PerAddress, ReplaysDep

router = APIRouter(prefix="/api/replays")

uploading = PerAddress(
    "upload",
    lambda _request: work.UPLOADS_PER_MINUTE,
    "too many records uploaded from your address; wait a minute",
)
"""Records one client address may upload a minute (each is kept in the database)."""


@router.get(
    "/{code}/{game_no}",
    summary="A finished game's replay: who sat where, the outcome, every move revealed",
)
async def replay_summary(
    replays: ReplaysDep, code: Code, game_no: GameNo, request: Request
) -> dict[str, Any]:
    """Who sat where, the outcome, every move (503 ``replay_too_slow`` when
    rebuilding the game takes longer than the server's replay limit)."""
    # Replaying is CPU work: in the replay pool, so no room's play waits on it.
    summary: dict[str, Any] = await replays.replay(code, game_no, "summary", owner=_by(request))
    return summary


@router.get(
    "/{code}/{game_no}/steps/{step}",
    summary="What a viewer saw after a number of actions (view: a seat, spectator, all)",
)
async def replay_step(
    replays: ReplaysDep,
    code: Code,
    game_no: GameNo,
    step: Annotated[int, PathParam(ge=0, le=10**6)],
    request: Request,
    view: Annotated[str, Query(max_length=16, pattern=r"^(all|spectator|\d{1,2})$")] = "all",
) -> dict[str, Any]:
    """One step as one viewer saw it (503 ``replay_too_slow`` as above)."""
    shown: dict[str, Any] = await replays.replay(
        code, game_no, "frame", (step, view), owner=_by(request)
    )
    return shown


@router.post(
    "",
    status_code=201,
    summary="Upload a finished game's record (JSON) to replay it: returns its link",
    dependencies=[Depends(uploading)],
    # The body is read raw (to bound and decode it ourselves); declared here so
    # the schema says what to send.
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
)
async def upload(replays: ReplaysDep, request: Request) -> dict[str, Any]:
    """The record kept as a finished room: its replay's link (503
    ``replay_too_slow`` when checking it takes longer than the replay limit)."""
    record = work.read_record(await request.body())
    code = await replays.upload(record, owner=_by(request))
    return {"code": code, "game_no": 1, "link": f"/replay/{code}/1"}


@router.post(
    "/{code}/{game_no}/analysis",
    summary="Start (or find) a finished game's analysis by the strongest bot",
)
async def start_analysis(
    replays: ReplaysDep, code: Code, game_no: GameNo, request: Request
) -> dict[str, Any]:
    """The analysis, started or found (429 ``too_many_analyses`` when the server
    runs as many as it may, or one your address started still runs)."""
    address = _by(request)
    played = await replays.played(code, game_no, owner=address)
    return (await replays.analyses.start((code, game_no), played, address)).to_json()


@router.get(
    "/{code}/{game_no}/analysis",
    summary="A game's analysis: progress and the decisions valued so far",
)
async def get_analysis(
    replays: ReplaysDep, code: Code, game_no: GameNo, request: Request
) -> dict[str, Any]:
    """The analysis as far as it went."""
    played = await replays.played(code, game_no, owner=_by(request))
    job = await replays.analyses.find((code, game_no), played)
    if job is None:
        raise RoomNotFound("no analysis of this game has been started (POST to start one)")
    return job.to_json()


def _by(request: Request) -> str | None:
    """The client address a request came from: the replay pool takes one
    address's calls in turn with every other's."""
    return request.client.host if request.client else None
