"""Each game's browser table, served from the game's own package.

A game's manifest names its table (:class:`~apothecary.core.manifest.TableFiles`:
a package and the files in it); the server serves those files, and only those,
at ``/tables/<game>/<file>``, and gives the client the URLs in the game's info
(:func:`table_urls`, ``table`` in ``/api/games``), so the client loads a table
from where the server says and never guesses a file name from a game's name.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException
from fastapi import Path as PathParameter
from fastapi.responses import FileResponse, Response

from apothecary.core.registry import games, manifest

PREFIX = "/tables"
"""Where the tables are served: ``/tables/<game>/<file>``."""

MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}

router = APIRouter(include_in_schema=False)


def table_urls(name: str) -> dict[str, str] | None:
    """The URLs of game ``name``'s table files by kind (``script``, ``style``),
    or None for a game with no table of its own (the client draws the generic one)."""
    table = manifest(name).table
    if table is None:
        return None
    return {kind: f"{PREFIX}/{name}/{file}" for kind, file in table.files().items()}


@router.get(PREFIX + "/{name}/{file}")
async def table_file(
    name: Annotated[str, PathParameter(max_length=64)],
    file: Annotated[str, PathParameter(max_length=128)],
) -> Response:
    """One of the files a game's manifest names for its table; 404 for any other."""
    table = manifest(name).table if name in games() else None
    if table is None or file not in table.served():
        raise HTTPException(404, f"no table file {file!r} for {name!r}")
    resource = resources.files(table.package).joinpath(file)
    media_type = MEDIA_TYPES.get(Path(file).suffix, "application/octet-stream")
    if isinstance(resource, Path):
        # As the static files are served (ETag, Last-Modified: the browser revalidates).
        return FileResponse(resource, media_type=media_type)
    return Response(resource.read_bytes(), media_type=media_type)
