"""Replays of finished games and their analyses (the work is in
:mod:`apothecary.server.replays`; these are its routes)."""

from __future__ import annotations

import asyncio
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
async def replay_summary(replays: ReplaysDep, code: Code, game_no: GameNo) -> dict[str, Any]:
    """Who sat where, the outcome, every move."""
    room = await replays.finished_game(code, game_no)
    # Replaying is CPU work: off the event loop, so no room's play waits on it.
    return await asyncio.to_thread(work.summary, room, code, game_no)


@router.get(
    "/{code}/{game_no}/steps/{step}",
    summary="What a viewer saw after a number of actions (view: a seat, spectator, all)",
)
async def replay_step(
    replays: ReplaysDep,
    code: Code,
    game_no: GameNo,
    step: Annotated[int, PathParam(ge=0, le=10**6)],
    view: Annotated[str, Query(max_length=16, pattern=r"^(all|spectator|\d{1,2})$")] = "all",
) -> dict[str, Any]:
    """One step as one viewer saw it."""
    kept = await replays.finished_entry(code, game_no)
    return await asyncio.to_thread(work.frame, kept.room, step, view, kept)


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
    """The record kept as a finished room: its replay's link."""
    record = work.read_record(await request.body())
    code = await replays.store.run(work.import_record, replays.store, record)
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
    room = await replays.finished_game(code, game_no)
    address = request.client.host if request.client else None
    return (await replays.analyses.start((code, game_no), room, address)).to_json()


@router.get(
    "/{code}/{game_no}/analysis",
    summary="A game's analysis: progress and the decisions valued so far",
)
async def get_analysis(replays: ReplaysDep, code: Code, game_no: GameNo) -> dict[str, Any]:
    """The analysis as far as it went."""
    room = await replays.finished_game(code, game_no)
    job = await replays.analyses.find((code, game_no), room)
    if job is None:
        raise RoomNotFound("no analysis of this game has been started (POST to start one)")
    return job.to_json()
