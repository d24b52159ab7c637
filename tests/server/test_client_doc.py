"""docs/client.md names exactly the pages the server serves (the client's one page)."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.routing import APIRoute
from serving import app_client

from apothecary.server.app import STATIC
from apothecary.server.routes import ROUTERS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "client.md").read_text(encoding="utf-8")
INDEX = (STATIC / "index.html").read_bytes()


def documented() -> dict[str, str]:
    """The table under 'What the server serves': {path with `*` for each
    placeholder: what it is}."""
    heading = "## What the server serves\n"
    assert heading in DOC, "docs/client.md has no section listing the paths"
    section = DOC.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, re.M)
    return {re.sub(r"\b[A-Z]+\b", "*", path): what for path, what in rows}


def as_pattern(path: str) -> str:
    """A route's path with `*` for each parameter."""
    return re.sub(r"\{[^}]+\}", "*", path)


def test_the_documented_pages_are_exactly_those_the_server_serves(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    pages = {path for path, what in documented().items() if what.startswith("`index.html`")}
    assert "/rules/*" in pages and "/rooms/*" in pages, pages
    with app_client(url) as client:
        # Every path the server matches, its own and its routers' (the app
        # includes each router whole, so their routes are read from the routers).
        app_routes = client.app.routes  # type: ignore[attr-defined]
        routes = [*app_routes, *(route for router in ROUTERS for route in router.routes)]
        served = set()
        for route in routes:
            if isinstance(route, APIRoute) and "GET" in route.methods:
                answer = client.get(re.sub(r"\{[^}]+\}", "1", route.path))
                if answer.status_code == 200 and answer.content == INDEX:
                    served.add(as_pattern(route.path))
        for path in pages:  # and each documented page answers with the page
            assert client.get(path.replace("*", "1")).content == INDEX, path
    assert served == pages
