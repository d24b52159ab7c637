"""The HTTP API and the WebSocket protocol: a thin layer over the :class:`Hub`.

Every refusal is a JSON body ``{"error": code, "message": words}`` (HTTP) or
an ``{"type": "error", ...}`` message to that connection alone (WebSocket);
neither changes anything. The protocol is in docs/protocol.md; the HTTP API
is described by the OpenAPI schema at ``/openapi.json`` (and ``/docs``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path as PathlibPath
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Body, Depends, FastAPI, Path, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from apothecary import bots as bot_registry
from apothecary.core.errors import ApothecaryError
from apothecary.core.registry import game_class, games
from apothecary.server import commands, replays, tables
from apothecary.server.cluster import ClusterConfig
from apothecary.server.commands import SocketCommand
from apothecary.server.hub import GOING, Connection, Hub, HubConfig
from apothecary.server.room import (
    NAME_LIMIT,
    RoomError,
    RoomNotFound,
    Settings,
    TooMany,
    clean_text,
)
from apothecary.server.store import Store

CODE = r"^[A-Za-z0-9_-]{1,32}$"

STATIC = PathlibPath(__file__).parent / "static"
"""The browser client's files."""


@dataclass
class WebConfig:
    """What the transport enforces."""

    allowed_origins: tuple[str, ...] = ()
    """Browser origins besides the server's own that may open a socket."""
    max_message_bytes: int = 8192
    """The largest WebSocket message the server reads (a larger one is refused)."""
    rate_per_second: float = 10.0
    """Messages a connection may send each second, on average ..."""
    rate_burst: int = 30
    """... and at once."""
    hello_timeout: float = 10.0
    """Seconds a new socket has to say hello."""
    create_per_minute: int = 30
    """Rooms one client address may create a minute."""


class Bucket:
    """A token bucket: ``rate`` a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: Any = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens = float(burst)
        self.last = clock()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


# -- request bodies (their constraints are in the OpenAPI schema) ------------------------


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
    match_target: int | None = Field(
        default=None, ge=1, le=99, description="Play a series: first to this many wins."
    )
    listed: bool = Field(default=True, description="Shown in the list of open rooms.")
    hints: bool = Field(
        default=False, description="A casual room: a seat may ask the strongest bot for a hint."
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


class Refusal(BaseModel):
    """Every refusal."""

    error: str
    message: str


class ClaimSeat(BaseModel):
    """Sit down in a room."""

    name: str = Field(max_length=NAME_LIMIT, description="Your display name.")
    seat: int | None = Field(default=None, ge=0, le=99, description="Which seat; none: any.")


class SeatBot(BaseModel):
    """Hand a seat to a bot."""

    level: str = Field(max_length=64, description="A bot level or bot name.")


bearer = HTTPBearer(auto_error=False, description="The host token from room creation.")


Code = Annotated[str, Path(pattern=CODE, description="A room code.")]
Host = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def _token(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    return None if credentials is None else credentials.credentials


def create_app(
    store: Store,
    config: HubConfig | None = None,
    web: WebConfig | None = None,
    cluster: ClusterConfig | None = None,
) -> FastAPI:
    """The server's FastAPI application over ``store`` (sharing its rooms with
    other processes through Redis when ``cluster`` says so)."""
    hub = Hub(store, config, cluster)
    web = web or WebConfig()
    creators: dict[str, Bucket] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        try:
            yield
        finally:
            await hub.close()

    app = FastAPI(
        title="apothecary",
        summary="Rooms to play the four poison-themed games in, with friends and bots.",
        description="The HTTP API. Play itself goes over the WebSocket at "
        "/ws/rooms/{code}; see docs/protocol.md.",
        version=f"protocol {1}",
        lifespan=lifespan,
        responses={
            422: {
                "description": "The request is not of the form",
                "content": {"application/json": {"schema": Refusal.model_json_schema()}},
            }
        },
    )
    app.state.hub = hub

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return JSONResponse(
            {"error": "invalid_request", "message": f"{where}: {first.get('msg', 'invalid')}"},
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "bad_request")
        return JSONResponse(
            {"error": code, "message": str(error.detail)},
            status_code=error.status_code,
            headers=getattr(error, "headers", None),
        )

    @app.exception_handler(ApothecaryError)
    async def refused(_request: Request, error: ApothecaryError) -> JSONResponse:
        code = getattr(error, "code", "bad_request")
        status = getattr(error, "status", 400)
        return JSONResponse({"error": code, "message": str(error)}, status_code=status)

    # The browser client: plain files shipped in the package, no build step.
    # Every page path serves the one page; the client reads the path itself.
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(tables.router)

    @app.get("/", include_in_schema=False)
    @app.get("/rooms/{code}", include_in_schema=False)
    @app.get("/rules/{code}", include_in_schema=False)
    async def page(code: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    # Pages that are not the client's (/health, /docs, a JSON answer) get no <link
    # rel="icon">, so the browser asks for /favicon.ico: the flask, not a 404.
    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/health", summary="Whether the server is up")
    async def health() -> dict[str, Any]:
        answer: dict[str, Any] = {"status": "ok", "rooms": len(await hub.listed())}
        if hub.bus is not None:  # which process answered, behind a load balancer
            answer["process"] = hub.bus.id
        return answer

    @app.get("/api/games", summary="Every game, its options and bot levels")
    async def list_games() -> list[dict[str, Any]]:
        return [_game_info(name) for name in games()]

    @app.get("/api/games/{name}", summary="One game, its options and bot levels")
    async def one_game(name: Annotated[str, Path(max_length=64)]) -> dict[str, Any]:
        return _game_info(name)

    @app.get(
        "/api/games/{name}/rules",
        summary="A game's rules page (Markdown)",
        response_class=PlainTextResponse,
    )
    async def rules(name: Annotated[str, Path(max_length=64)]) -> str:
        cls = game_class(name)
        return cls.rules_page() or f"# {cls.info.title}\n"

    @app.post("/api/rooms", status_code=201, summary="Create a room (you are its host)")
    async def create_room(request: Request, body: CreateRoom) -> dict[str, Any]:
        client = request.client.host if request.client else "?"
        bucket = creators.setdefault(
            client, Bucket(web.create_per_minute / 60, web.create_per_minute)
        )
        if not bucket.take():
            raise TooMany("too many rooms created from your address; wait a minute")
        settings = Settings(
            turn_seconds=body.turn_seconds,
            match_target=body.match_target,
            listed=body.listed,
            fallback_level=body.fallback_level,
            hints=body.hints,
        )
        if body.host_name is not None:
            clean_text(body.host_name, NAME_LIMIT, "a display name")
        room, host_token = await hub.create(
            body.game, body.players, dict(body.options), body.seats, settings, body.seed
        )
        answer: dict[str, Any] = {
            "code": room.code,
            "host_token": host_token,
            "invite": f"/rooms/{room.code}",
            "room": room.public_info(),
        }
        if body.host_name is not None:
            seat, token = await _claim(room.code, body.host_name, None)
            answer.update(seat=seat, seat_token=token, room=await hub.ask(commands.Info(room.code)))
        return answer

    @app.get("/api/rooms", summary="Listed rooms that are not over")
    async def list_rooms() -> list[dict[str, Any]]:
        return await hub.listed()

    @app.get("/api/rooms/{code}", summary="A room's public facts")
    async def room_info(code: Code) -> dict[str, Any]:
        info: dict[str, Any] = await hub.ask(commands.Info(code))
        return info

    async def _claim(code: str, name: str, seat: int | None) -> tuple[int, str]:
        taken = await hub.ask(commands.Claim(code, name, seat))
        return int(taken[0]), str(taken[1])

    @app.post("/api/rooms/{code}/seats", summary="Claim a seat: returns its secret token")
    async def claim(code: Code, body: ClaimSeat) -> dict[str, Any]:
        seat, token = await _claim(code, body.name, body.seat)
        return {"seat": seat, "token": token}

    @app.post("/api/rooms/{code}/start", summary="Host: start, bots in the open seats")
    async def start(code: Code, credentials: Host) -> dict[str, Any]:
        info: dict[str, Any] = await hub.ask(commands.Start(code, _token(credentials)))
        return info

    @app.put("/api/rooms/{code}/seats/{seat}/bot", summary="Host: a bot plays this seat")
    async def seat_bot(
        code: Code,
        seat: Annotated[int, Path(ge=0, le=99)],
        credentials: Host,
        body: Annotated[SeatBot, Body()],
    ) -> dict[str, Any]:
        command = commands.SetBot(code, _token(credentials), seat, body.level)
        info: dict[str, Any] = await hub.ask(command)
        return info

    @app.post("/api/rooms/{code}/rematch", summary="Host: play again, seats rotated")
    async def rematch(code: Code, credentials: Host) -> dict[str, Any]:
        info: dict[str, Any] = await hub.ask(commands.Rematch(code, _token(credentials)))
        return info

    @app.get(
        "/api/rooms/{code}/games/{game_no}/record",
        summary="A finished game's full record, every secret included",
    )
    async def record(code: Code, game_no: Annotated[int, Path(ge=1, le=10**6)]) -> dict[str, Any]:
        record: dict[str, Any] = await hub.ask(commands.GetRecord(code, game_no))
        return record

    app.include_router(replays.router(store))

    @app.websocket("/ws/rooms/{code}")
    async def play(socket: WebSocket, code: str) -> None:
        if not _origin_allowed(socket, web.allowed_origins):
            await socket.close(code=1008, reason="origin not allowed")
            return
        await socket.accept()
        await _serve_socket(hub, web, socket, code)

    return app


def _game_info(name: str) -> dict[str, Any]:
    cls = game_class(name)
    info = cls.info
    return {
        "name": info.name,
        "title": info.title,
        "summary": info.summary,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "default_players": info.default_players,
        "has_hidden_information": info.has_hidden_information,
        "options": [
            {
                "name": spec.name,
                "type": spec.type.__name__,
                "default": spec.default,
                "help": spec.help,
                "choices": None if spec.choices is None else list(spec.choices),
                "minimum": spec.minimum,
                "maximum": spec.maximum,
            }
            for spec in cls.option_specs
        ],
        "levels": [
            {"name": level.name, "help": level.help} for level in bot_registry.levels(name).values()
        ],
        "bots": [{"name": e.name, "help": e.help} for e in bot_registry.entries(name).values()],
        "rules": f"/api/games/{name}/rules",
        "table": tables.table_urls(name),
    }


def _origin_allowed(socket: WebSocket, allowed: tuple[str, ...]) -> bool:
    """A browser's socket must come from this server's own pages or an allowed
    origin (so another site cannot play in its visitors' names); programs that
    send no Origin are let in."""
    origin = socket.headers.get("origin")
    if origin is None:
        return True
    if origin in allowed:
        return True
    host = socket.headers.get("host", "")
    return urlsplit(origin).netloc == host


def _error(code: str, message: str) -> dict[str, Any]:
    if len(message) > 500:
        message = message[:500] + "…"
    return {"type": "error", "error": code, "message": message}


async def _serve_socket(hub: Hub, web: WebConfig, socket: WebSocket, code: str) -> None:
    """One socket's life: hello, then messages until it closes."""
    try:
        first = await asyncio.wait_for(socket.receive_text(), web.hello_timeout)
    except KeyError:  # a binary frame: not a hello
        await socket.send_json(_error("bad_hello", 'the first message is {"type": "hello"}'))
        await socket.close(code=1008, reason="say hello first")
        return
    except (TimeoutError, WebSocketDisconnect, RuntimeError):
        with contextlib.suppress(Exception):
            await socket.close(code=1008, reason="say hello first")
        return
    hello = _parse(first, web.max_message_bytes)
    if isinstance(hello, str) or hello.get("type") != "hello":
        await socket.send_json(_error("bad_hello", 'the first message is {"type": "hello"}'))
        await socket.close(code=1008, reason="say hello first")
        return
    try:
        connection, welcome = await hub.connect(code, hello.get("token"))
    except RoomError as error:
        await socket.send_json(_error(error.code, str(error)))
        await socket.close(code=1008, reason=error.code)
        return
    await socket.send_json(welcome)
    writer = connection.writer = asyncio.create_task(_write(socket, connection))
    bucket = Bucket(web.rate_per_second, web.rate_burst)
    try:
        while True:
            try:
                text = await socket.receive_text()
            except (WebSocketDisconnect, RuntimeError):
                break
            except KeyError:  # a binary frame has no "text"
                text = None
            if not bucket.take():
                connection.send(_error("rate_limited", "too many messages; slow down"))
                continue
            if text is None:
                connection.send(_error("malformed", "send JSON text frames"))
                continue
            message = _parse(text, web.max_message_bytes)
            if isinstance(message, str):
                connection.send(_error("malformed", message))
                continue
            await _handle(hub, connection, message)
            if connection.dropped:
                break
    finally:
        connection.close()
        await hub.disconnect(connection)
        with contextlib.suppress(BaseException):
            await writer


def _parse(text: str, limit: int) -> dict[str, Any] | str:
    """The message as a dict, or why it cannot be read."""
    if len(text.encode("utf-8", "surrogatepass")) > limit:
        return f"message too large (the limit is {limit} bytes)"
    try:
        message = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return "not JSON"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return 'a message is a JSON object with a "type"'
    return message


async def _handle(hub: Hub, connection: Connection, message: dict[str, Any]) -> None:
    """One socket message, parsed into its command and done; a refusal goes
    to this connection alone."""
    try:
        await hub.do(connection, SocketCommand.parse(message))
    except RoomError as error:
        connection.send(_error(error.code, str(error)))
    except RoomNotFound as error:  # pragma: no cover - a room is never removed while open
        connection.send(_error("not_found", str(error)))


async def _write(socket: WebSocket, connection: Connection) -> None:
    """Drain the connection's queue into its socket until told to stop."""
    while True:
        text = await connection.queue.get()
        if text is None:
            break
        try:
            await socket.send_text(text)
        except Exception:
            break
    code, reason = connection.closing or GOING
    with contextlib.suppress(Exception):
        await socket.close(code=code, reason=reason)
