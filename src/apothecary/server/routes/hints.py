"""A seat's hint in a room that gives them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from apothecary.server.routes.deps import Code, ReplaysDep, Token

router = APIRouter()


@router.post(
    "/api/rooms/{code}/hint",
    summary="Your seat's hint: the strongest bot's suggestion on your turn (rooms with hints)",
)
async def hint(replays: ReplaysDep, code: Code, token: Token) -> dict[str, Any]:
    """The strongest bot's suggestion for your seat."""
    return await replays.hint(code, token)
