"""The browser client's pages, its icon, and the health check."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse

from apothecary.server.routes.deps import STATIC, HubDep, index_page

router = APIRouter()

# Every page path serves the one page; the client reads the path itself.
PAGES = ("/", "/rooms/{code}", "/rules/{code}", "/replay", "/replay/{code}/{game_no}", "/account")
for path in PAGES:
    router.add_api_route(path, index_page, methods=["GET"], include_in_schema=False)


# Pages that are not the client's (/health, /docs, a JSON answer) get no <link
# rel="icon">, so the browser asks for /favicon.ico: the flask, not a 404.
@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> FileResponse:
    """The flask."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/health", summary="Whether the server is up")
async def health(hub: HubDep) -> dict[str, Any]:
    """Up, with how many rooms are listed."""
    # Only the count: the answer stays small however many rooms are listed.
    total, _page = await hub.listed_page(0, 0)
    answer: dict[str, Any] = {"status": "ok", "rooms": total}
    if hub.placement.process is not None:  # which process answered, behind a load balancer
        answer["process"] = hub.placement.process
    return answer
