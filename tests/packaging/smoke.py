"""Smoke test of an installed apothecary: CI runs it in a fresh venv holding
the wheel (``.[web]`` extras), from a folder outside the checkout.

It uses every kind of file the package ships: it plays each game to the end
(random bots, then the medium ones), reads each rules page, loads the
stored CFR strategy and lets its bot move, and starts ``apothecary serve``
from the venv's own script on a loopback port (the database migrations run on
start-up) to fetch ``/``, ``/health``, every static file the page and its
modules import, every game's table, a rules page over HTTP, and to create a room
of each game. A file missing from the wheel fails one of these; a checkout
on the path instead of the wheel fails the first check.

Run: ``python tests/packaging/smoke.py`` (prints one line a check, exits 1 on failure).
"""

from __future__ import annotations

import json
import posixpath
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import apothecary
from apothecary import bots
from apothecary.arena.match import play_game

IMPORTS = re.compile(r"""(?:from\s*|import\s*\(\s*)["']([^"'`$]+\.js)["']""")
"""A module's static imports and literal dynamic ones, e.g. ``from "./dom.js"``."""
PAGE_REFS = re.compile(r"""(?:src|href)="(/static/[^"]+)\"""")


def check(what: str, ok: bool, detail: object = "") -> None:
    """Print one check; stop the run at the first that fails."""
    print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
    if not ok:
        raise SystemExit(1)


def play(name: str, players: int, seed: int, bot: str) -> int:
    """Play one game of ``name`` by ``bot`` in every seat; the number of actions it took."""
    game = apothecary.load(name, players=players)
    seats = [bots.load(bot, game, seat, seed=seed + seat) for seat in range(players)]
    return len(play_game(game, seats, random.Random(seed)).history())


def check_games() -> list[str]:
    """Every game plays and has its rules page; the CFR data loads and plays."""
    names = apothecary.games()
    check("four built-in games", len(names) >= 4, names)
    for name in names:
        info = apothecary.game_class(name).info
        for bot in ("random", "medium"):
            length = play(name, info.min_players, seed=1, bot=bot)
            check(f"{name}: a game of {bot} bots ends ({length} actions)", length > 0)
        page = apothecary.game_class(name).rules_page()
        check(f"{name}: rules page", bool(page) and page.startswith("# "), page)

    from apothecary.games.in_vino_morte.cfr import load_table

    table = load_table()
    check(f"CFR strategy loads ({len(table):,} information states)", len(table) > 100)
    length = play("in-vino-morte", 3, seed=2, bot="cfr")
    check(f"in-vino-morte: a game of cfr bots ends ({length} actions)", length > 0)
    return names


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fetch(
    url: str, body: dict[str, Any] | None = None, extra: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """GET (or POST ``body`` as JSON) ``url``, with ``extra`` headers: the status and the body."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"} if body is not None else {}
    headers.update(extra or {})
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def check_server(names: list[str], folder: Path) -> None:
    """Serve from the venv's ``apothecary`` script and fetch the client's files."""
    script = Path(sys.executable).with_name("apothecary")
    check(f"the apothecary command is installed ({script})", script.is_file())
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    database = f"sqlite:///{folder / 'rooms.sqlite3'}"
    command = [
        str(script),
        "serve",
        "--port",
        str(port),
        "--db",
        database,
        "--log-level",
        "warning",
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as server:
        try:
            deadline = time.monotonic() + 60
            status = 0
            while status != 200 and server.poll() is None and time.monotonic() < deadline:
                try:
                    status, _ = fetch(f"{base}/health")
                except OSError:
                    time.sleep(0.2)
            output = server.stdout.read() if server.poll() is not None and server.stdout else b""
            check(
                "apothecary serve answers /health", status == 200, output.decode(errors="replace")
            )

            status, page = fetch(f"{base}/")
            check("GET / (the client's page)", status == 200 and b"<html" in page.lower(), status)
            queue = PAGE_REFS.findall(page.decode())
            # Each game's table, at the URLs its info gives (served from its own package).
            status, listed = fetch(f"{base}/api/games")
            tables = [game["table"] for game in json.loads(listed) if game["table"]]
            check("every built-in game has a table", len(tables) >= 4, tables)
            queue += [url for table in tables for url in table.values()]
            seen: set[str] = set()
            while queue:
                path = queue.pop()
                if path in seen:
                    continue
                seen.add(path)
                status, body = fetch(base + path)
                check(f"GET {path}", status == 200 and len(body) > 0, status)
                if path.endswith(".js"):
                    folder_url = path.rsplit("/", 1)[0]
                    for target in IMPORTS.findall(body.decode()):
                        # "./kit.js" or "../dom.js": relative to the script's own folder
                        if target.startswith("."):
                            target = posixpath.normpath(posixpath.join(folder_url, target))
                        queue.append(target)
            check(f"every script the page imports ({len(seen)} files)", len(seen) > 10, seen)

            status, listed = fetch(f"{base}/api/games")
            served = sorted(game["name"] for game in json.loads(listed))
            check("GET /api/games lists every game", served == names, served)
            for name in names:
                status, rules = fetch(f"{base}/api/games/{name}/rules")
                check(f"GET /api/games/{name}/rules", status == 200 and rules.startswith(b"# "))
                status, room = fetch(f"{base}/api/rooms", {"host_name": "smoke", "game": name})
                check(f"POST /api/rooms ({name}): stored", status == 201, room[:300])
            check_accounts(base)
        finally:
            server.terminate()
            server.wait(timeout=30)


def check_accounts(base: str) -> None:
    """An account signs up; a common password is refused (its list ships in the package)."""
    url, same = f"{base}/api/account/sign-up", {"X-Apothecary": "1"}
    status, body = fetch(url, {"name": "smoke", "password": "1qaz2wsx3edc"}, same)
    check("sign-up refuses a common password", b"weak_password" in body, body[:300])
    status, body = fetch(url, {"name": "smoke", "password": "a smoke test passphrase"}, same)
    check("POST /api/account/sign-up", status == 201, body[:300])


def main() -> None:
    """Run every check from a scratch folder."""
    where = Path(apothecary.__file__).resolve()
    check(
        f"apothecary {apothecary.__version__} is the installed one ({where.parent})",
        "site-packages" in where.parts,
        where,
    )
    names = check_games()
    with tempfile.TemporaryDirectory() as folder:
        check_server(names, Path(folder))
    print("smoke test passed")


if __name__ == "__main__":
    main()
