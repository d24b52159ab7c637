"""Bad input: schemathesis against the OpenAPI schema, and a fuzz of the WebSocket.

The issue asks that the server keep running through malformed JSON, wrong
types, unknown message kinds, huge and rapid messages, forged, reused and
other rooms' tokens, actions for another seat and stale state ids; that it
answer each with a clear error to that client alone; and that no room's state
change. It checks, in this order: game over, not your turn (or not a seat),
malformed, illegal, stale state id.

Every refusal here goes through :func:`refused`, which compares the room in
memory, the room as the store rebuilds it, its stored actions and chat, and
its public facts before and after, and pings every other socket to show that
nothing was sent to them. The last tests plant bugs to show it catches them.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
import schemathesis
import sqlalchemy as sa
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)
from serving import app_client, host_headers, make_room, sqlite_url
from soft_authenticator import SoftAuthenticator
from starlette.websockets import WebSocketDisconnect

from apothecary.core.registry import games
from apothecary.server.accounts import AccountConfig, token_hash
from apothecary.server.app import WebConfig, create_app
from apothecary.server.hub import Hub
from apothecary.server.passkeys import MAX_PASSKEYS
from apothecary.server.room import (
    CHAT_LIMIT,
    GameOver,
    IllegalAction,
    MalformedAction,
    NotYourTurn,
    Room,
    Settings,
    StaleState,
    hash_token,
)
from apothecary.server.store import Store, friendships, seat_links, turn_mails, users

GAME = "poison-pot"
"""Two or three people, perfect information (chance draws the cauldrons): small and quick."""

ROOMY = WebConfig(
    create_per_minute=1_000_000,
    rate_per_second=10_000.0,
    rate_burst=10_000,
    accounts=AccountConfig(
        attempts_per_account=10**6, attempts_per_address=10**6, hash_time_cost=1, hash_memory_kib=64
    ),
)
"""Limits out of the way, for the tests that are not about them."""

WAIT = 20.0
"""Seconds to wait for a message that must come (a hang fails instead)."""


# -- sockets ----------------------------------------------------------------------------------


def receive(ws: Any, timeout: float = WAIT) -> dict[str, Any]:
    """The next message the server sent ``ws``; WebSocketDisconnect when it closed."""

    async def next_message() -> dict[str, Any]:
        with anyio.fail_after(timeout):
            message: dict[str, Any] = await ws._send_rx.receive()
            return message

    message = ws.portal.call(next_message)
    if message["type"] == "websocket.close":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    parsed: dict[str, Any] = json.loads(message["text"])
    return parsed


def closed(ws: Any) -> WebSocketDisconnect:
    """The close that must come next on ``ws`` (after any error message)."""
    with pytest.raises(WebSocketDisconnect) as caught:
        for _ in range(5):
            receive(ws)
    return caught.value


@dataclass
class Viewer:
    """One open socket of a room."""

    ws: Any
    you: int | None
    last: dict[str, Any]
    """The latest update it was sent."""

    def send(self, message: object) -> None:
        """A dict as JSON text, text as it is, bytes as a binary frame."""
        if isinstance(message, bytes):
            self.ws.send_bytes(message)
        elif isinstance(message, str):
            self.ws.send_text(message)
        else:
            self.ws.send_text(json.dumps(message))

    def receive(self) -> dict[str, Any]:
        message = receive(self.ws)
        if message["type"] == "update":
            self.last = message
        return message

    def update(self) -> dict[str, Any]:
        message = self.receive()
        assert message["type"] == "update", message
        return message

    def presence(self) -> dict[str, Any]:
        """The presence message a join or a leave sends the others (not an update)."""
        message = self.receive()
        assert message["type"] == "presence", message
        return message

    def quiet(self) -> None:
        """Nothing is waiting for this socket: a ping's pong comes next."""
        self.send({"type": "ping"})
        message = self.receive()
        assert message == {"type": "pong"}, f"socket of seat {self.you} was sent {message}"

    @property
    def state_id(self) -> str:
        state_id: str = self.last["state_id"]
        return state_id

    def legal(self) -> list[dict[str, Any]]:
        legal: list[dict[str, Any]] = self.last["legal"]
        return legal


@dataclass
class Table:
    """A room with sockets open on it."""

    client: TestClient
    stack: ExitStack
    code: str
    host_token: str
    tokens: list[str]
    viewers: list[Viewer] = field(default_factory=list)

    @property
    def hub(self) -> Hub:
        hub: Hub = self.client.app.state.hub  # type: ignore[attr-defined]
        return hub

    @property
    def room(self) -> Room:
        return self.hub._rooms[self.code].room

    def connect(self) -> Any:
        return self.stack.enter_context(self.client.websocket_connect(f"/ws/rooms/{self.code}"))

    def join(self, token: object) -> Viewer:
        """A socket that said hello with ``token``; everyone else reads its presence."""
        ws = self.connect()
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        welcome = receive(ws)
        assert welcome["type"] == "welcome", welcome
        viewer = Viewer(ws, welcome["you"], {})
        viewer.update()
        self._told(viewer)
        self.viewers.append(viewer)
        return viewer

    def leave(self, viewer: Viewer) -> None:
        viewer.ws.close()
        self.viewers.remove(viewer)
        self._told(viewer)

    def _told(self, viewer: Viewer) -> None:
        """The others read a presence message for ``viewer`` joining or leaving,
        if that changed what they see: a spectator more or fewer, or the first
        or last socket of a seat (a seat's second device changes nothing)."""
        if viewer.you is None or all(v.you != viewer.you for v in self.viewers):
            for other in self.viewers:
                other.presence()

    def quiet(self) -> None:
        for viewer in self.viewers:
            viewer.quiet()

    def mover(self) -> Viewer:
        to_move = self.room.pending()
        assert to_move is not None and to_move.kind == "human"
        return next(v for v in self.viewers if v.you == to_move.seat)

    def play_until(self, seat: int) -> None:
        """Play first legal actions until ``seat`` is to move."""
        while self.mover().you != seat:
            self.play()

    def play(self) -> None:
        """The seat to move plays its first legal action; everyone reads the update."""
        mover = self.mover()
        before = self.room.state_id
        mover.send({"type": "act", "action": mover.legal()[0]["id"], "state_id": mover.state_id})
        for viewer in self.viewers:
            viewer.update()
        assert self.room.state_id != before
        assert all(v.state_id == self.room.state_id for v in self.viewers)

    def finish(self) -> None:
        """Bots play for both people until the game ends; then both take their seats back."""
        for seat in range(len(self.tokens)):
            response = self.client.put(
                f"/api/rooms/{self.code}/seats/{seat}/bot",
                json={"level": "random"},
                headers={"Authorization": f"Bearer {self.host_token}"},
            )
            assert response.status_code == 200, response.text
        deadline = time.monotonic() + WAIT
        while self.room.status != "over":
            assert time.monotonic() < deadline, "the bots did not finish the game"
            time.sleep(0.01)
        for viewer in self.viewers:
            while viewer.receive()["status"] != "over":
                pass
        self.quiet()
        for viewer in [v for v in self.viewers if v.you is not None]:
            viewer.send({"type": "back"})
            for other in self.viewers:
                other.update()
        self.quiet()


def fingerprint(table: Table) -> dict[str, Any]:
    """Everything a refusal must leave alone: the room in memory and as the
    store rebuilds it, the current game's stored actions, the chat, and the
    room's public facts."""

    def facts(room: Room) -> dict[str, Any]:
        return {
            "row": room.snapshot(),
            "state_id": room.state_id,
            "history": None if room.state is None else room.state.history(),
            "events": len(room.log),
            "outcome": room.outcome,
            "chat": [dict(entry) for entry in room.chat],
            "chat_count": room.chat_count,
        }

    hub = table.hub
    room = table.room
    stored = hub.store.load(table.code)
    assert stored is not None
    return {
        "memory": facts(room),
        "stored": facts(stored),
        "actions": hub.store.game_actions(table.code, room.game_no) if room.game_no else None,
        "info": table.client.get(f"/api/rooms/{table.code}").json(),
    }


def assert_unchanged(before: dict[str, Any], after: dict[str, Any]) -> None:
    """The room's state did not change."""
    changed = sorted(key for key in before if before[key] != after[key])
    assert not changed, f"room state changed in {changed}: {before} -> {after}"


def refused(table: Table, viewer: Viewer, message: object, code: str) -> dict[str, Any]:
    """``message`` from ``viewer`` is answered with error ``code`` to it alone,
    and changes nothing. Returns the error."""
    before = fingerprint(table)
    viewer.send(message)
    reply = viewer.receive()
    assert reply.get("type") == "error", f"{message!r:.200} was answered with {reply}"
    assert set(reply) == {"type", "error", "message"}, reply
    assert reply["error"] == code, f"{message!r:.200}: expected {code}, got {reply}"
    assert isinstance(reply["message"], str) and reply["message"].strip(), reply
    table.quiet()
    assert_unchanged(before, fingerprint(table))
    return reply


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Any) -> Iterator[TestClient]:
    with app_client(sqlite_url(tmp_path), web=ROOMY) as test_client:
        yield test_client


def new_table(client: TestClient, stack: ExitStack, start: bool = True) -> Table:
    """A two-seat room of two people (the host in seat 0), started unless told."""
    room = make_room(client, game=GAME, seats=["open", "open"], fallback_level="random")
    guest = client.post(f"/api/rooms/{room['code']}/seats", json={"name": "guest"})
    assert guest.status_code == 200, guest.text
    if start:
        response = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
        assert response.status_code == 200, response.text
    return Table(
        client, stack, room["code"], room["host_token"], [room["seat_token"], guest.json()["token"]]
    )


@pytest.fixture
def table(client: TestClient) -> Iterator[Table]:
    """A started room: the host (seat 0, to move), the guest (seat 1) and a spectator."""
    with ExitStack() as stack:
        made = new_table(client, stack)
        made.join(made.tokens[0])
        made.join(made.tokens[1])
        made.join(None)
        yield made


# -- schemathesis -----------------------------------------------------------------------------

SCHEMA = schemathesis.openapi.from_dict(create_app(Store("sqlite://")).openapi())
"""The app's OpenAPI schema (made without starting the app)."""

OPERATIONS = {
    result.ok().label: result.ok()
    for result in SCHEMA.get_all_operations()
    if isinstance(result, Ok)
}
assert len(OPERATIONS) == len(list(SCHEMA.get_all_operations())), (
    "the schema has a broken operation"
)
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def send_case(client: TestClient, case: Any) -> Any:
    """Send a schemathesis case through the test client; its response."""
    sent = case.as_transport_kwargs(base_url="http://testserver")
    extra = {k: v for k, v in sent.items() if k not in ("method", "url", "headers", "params")}
    extra.pop("cookies", None)
    if "data" in extra:
        extra["content"] = extra.pop("data")
    return client.request(
        sent["method"], sent["url"], headers=sent["headers"], params=sent["params"], **extra
    )


FUZZ_PASSWORD = "fuzzing all the way"
"""The password of the fuzz's account ("fuzzer", signed in from the start)."""


def aim_account(case: Any, label: str, index: int, made: Iterator[int]) -> None:
    """An account operation's case (every other one) with the header the server's
    own pages send and a body that passes: a new name, the account's password."""
    if " /api/account" not in label or index % 2:
        return
    case.headers = {**(case.headers or {}), "X-Apothecary": "1"}
    bodies: dict[str, dict[str, str]] = {
        "POST /api/account/sign-up": {"name": f"fuzz{next(made)}", "password": FUZZ_PASSWORD},
        "POST /api/account/sign-in": {"name": "fuzzer", "password": FUZZ_PASSWORD},
        "POST /api/account/password": {"current": FUZZ_PASSWORD, "new": FUZZ_PASSWORD + "!"},
        "POST /api/account/delete": {"password": FUZZ_PASSWORD},
        "POST /api/account/passkeys/register/options": {"password": FUZZ_PASSWORD},
    }
    if label in bodies:
        case.body = bodies[label]


def aim_passkey(case: Any, label: str, index: int, client: TestClient) -> None:
    """A passkey operation's case (every other one) with a real answer of a software
    authenticator (tests/support/soft_authenticator.py): a registration to the
    fuzz's account, a sign-in with a passkey of it, the id of one to remove."""
    if " /api/account/passkeys/" not in label or index % 2:
        return
    same, again = {"X-Apothecary": "1"}, {"password": FUZZ_PASSWORD}
    # Room for one more (an account has at most MAX_PASSKEYS): the oldest go.
    kept = client.get("/api/account/passkeys").json()["passkeys"]
    for old in kept[: max(0, len(kept) - MAX_PASSKEYS + 2)]:
        client.post(f"/api/account/passkeys/{old['id']}/delete", headers=same)

    def registered() -> tuple[SoftAuthenticator, str]:
        device = SoftAuthenticator()
        options = client.post(
            "/api/account/passkeys/register/options", json=again, headers=same
        ).json()
        answer = {"credential": device.create(options["options"])}
        made = client.post("/api/account/passkeys/register", json=answer, headers=same)
        assert made.status_code == 201, made.text
        return device, str(made.json()["id"])

    if label == "POST /api/account/passkeys/register":
        options = client.post(
            "/api/account/passkeys/register/options", json=again, headers=same
        ).json()
        case.body = {"credential": SoftAuthenticator().create(options["options"])}
    elif label == "POST /api/account/passkeys/sign-in":
        device, _ = registered()
        options = client.post("/api/account/passkeys/sign-in/options", json={}, headers=same)
        case.body = {"credential": device.get(options.json()["options"])}
    elif label == "POST /api/account/passkeys/{passkey_id}/delete":
        case.path_parameters = {**case.path_parameters, "passkey_id": registered()[1]}


def aim_friends(case: Any, label: str, index: int, lobby: str) -> None:
    """A friends operation's case (every other one) with the header and people
    the fixture made: "pal" is the fuzzer's friend, "asker" asked to be one."""
    if " /api/friends" not in label or index % 2:
        return
    case.headers = {**(case.headers or {}), "X-Apothecary": "1"}
    named = "asker" if "/requests/" in label else "pal"
    if "{name}" in label:
        case.path_parameters = {**case.path_parameters, "name": named}
    bodies: dict[str, dict[str, str]] = {
        "POST /api/friends/requests": {"name": "asker"},
        "POST /api/friends/blocks": {"name": "pal"},
        "POST /api/friends/invitations": {"name": "pal", "room": lobby},
    }
    if label in bodies:
        case.body = bodies[label]


def befriend_the_fuzzer(test_client: TestClient) -> None:
    """Two more accounts: "pal", the fuzzer's friend, and "asker", who asked to be
    one (signed up before the fuzzer, whose cookie the client keeps)."""
    hub = test_client.app.state.hub  # type: ignore[attr-defined]
    with hub.store.engine.begin() as connection:
        rows = connection.execute(sa.select(users.c.name, users.c.id)).all()
        ids = {str(name): int(user_id) for name, user_id in rows}
        connection.execute(
            friendships.insert(),
            [
                {"asker": ids["pal"], "asked": ids["fuzzer"], "created": 0.0, "accepted": 0.0},
                {"asker": ids["asker"], "asked": ids["fuzzer"], "created": 0.0, "accepted": None},
            ],
        )


@pytest.fixture
def api(tmp_path: Any) -> Iterator[tuple[TestClient, list[dict[str, Any]]]]:
    """An app with three real rooms for the fuzz to hit: a lobby, a game
    waiting for a person, and a finished game (bots only)."""
    with app_client(sqlite_url(tmp_path), web=ROOMY) as test_client:
        lobby = make_room(test_client, game=GAME, fallback_level="random")
        # Hints on, so the hint operation has a seat to answer (the host's, to move).
        playing = make_room(test_client, game=GAME, fallback_level="random", hints=True)
        test_client.post(f"/api/rooms/{playing['code']}/start", headers=host_headers(playing))
        over = make_room(test_client, None, game=GAME, seats=["random", "random"])
        test_client.post(f"/api/rooms/{over['code']}/start", headers=host_headers(over))
        hub = test_client.app.state.hub  # type: ignore[attr-defined]
        deadline = time.monotonic() + WAIT
        while hub._rooms[over["code"]].room.status != "over":
            assert time.monotonic() < deadline
            time.sleep(0.01)
        # The finished game's record, so an upload can be a real one.
        record = test_client.get(f"/api/rooms/{over['code']}/games/1/record")
        assert record.status_code == 200, record.text
        over["record"] = record.json()
        for other in ("pal", "asker"):
            made = test_client.post(
                "/api/account/sign-up",
                json={"name": other, "password": FUZZ_PASSWORD},
                headers={"X-Apothecary": "1"},
            )
            assert made.status_code == 201, made.text
        account = {"name": "fuzzer", "password": FUZZ_PASSWORD}
        signed_up = test_client.post(
            "/api/account/sign-up", json=account, headers={"X-Apothecary": "1"}
        )
        assert signed_up.status_code == 201, signed_up.text  # its cookie: the client's now
        # The account sits in the two rooms it hosts, so "your seat's token" has seats to give.
        mine = [{"room": room["code"], "token": room["seat_token"]} for room in (lobby, playing)]
        linked = test_client.post(
            "/api/account/seats", json={"seats": mine}, headers={"X-Apothecary": "1"}
        )
        assert len(linked.json()["linked"]) == 2, linked.text
        mailed(test_client, playing["code"])
        befriend_the_fuzzer(test_client)
        yield test_client, [lobby, playing, over]


TURN_LINK = "fuzz-turn-link-" + "x" * 28
MAIL_TOKEN = "fuzz-unsubscribe-" + "y" * 26


def mailed(client: TestClient, code: str) -> None:
    """The account was mailed its turn in room ``code``: the mail's link and
    unsubscribe token are real ones (as apothecary.server.turnmail writes them)."""
    store = client.app.state.hub.store  # type: ignore[attr-defined]
    with store.engine.begin() as connection:
        link = connection.execute(seat_links.select().where(seat_links.c.room == code)).one()
        connection.execute(
            users.update().where(users.c.id == link.user_id).values(mail_token=MAIL_TOKEN)
        )
        connection.execute(
            turn_mails.insert().values(
                room=code,
                turn="1:0:0",
                user_id=link.user_id,
                token_hash=link.token_hash,
                link_hash=token_hash(TURN_LINK),
                sent=time.time(),
            )
        )


def aim_mail(case: Any, label: str, index: int) -> None:
    """A turn-based mail's operation (every other case) with the real link or token."""
    if index % 2:
        return
    if label == "POST /api/turn-link":
        case.body = {"link": TURN_LINK}
    elif label.endswith(" /unsubscribe"):
        case.query = {**(case.query or {}), "token": MAIL_TOKEN}


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_openapi_operations_never_fail_and_answer_as_declared(
    label: str, api: tuple[TestClient, list[dict[str, Any]]]
) -> None:
    """Every operation, with data that fits its schema and data that does not,
    at random rooms and games and at real ones (with the host's token): never
    a 5xx, and a response the schema declares matches it."""
    client, rooms = api
    operation = OPERATIONS[label]
    if label == "GET /api/replays/{code}/{game_no}/analysis":
        # Reading an analysis finds one only once started (an analysis costs
        # playouts: started only where it is read).
        started = client.post(f"/api/replays/{rooms[-1]['code']}/1/analysis")
        assert started.status_code == 200, started.text
    params = {p.name for p in operation.path_parameters}
    names = sorted(games())
    seen: dict[int, int] = {}
    made = itertools.count()

    def aim(case: Any, index: int) -> Any:
        """The case, pointed at a real room (with its host's token) or game."""
        room = rooms[index % len(rooms)]
        if "code" in params:
            case.path_parameters = {**case.path_parameters, "code": room["code"]}
        if "name" in params:
            # A game's name, or the account's for a profile (the fixture's "fuzzer").
            named = "fuzzer" if label.startswith("GET /api/users") else names[index % len(names)]
            case.path_parameters = {**case.path_parameters, "name": named}
        if "game" in params:  # a leaderboard
            case.path_parameters = {**case.path_parameters, "game": names[index % len(names)]}
        if "code" in params and index % 2 == 0:
            seat_token = room.get("seat_token") or room["host_token"]
            token = seat_token if label.endswith("/hint") else room["host_token"]
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        if label == "POST /api/replays" and index % 2 == 0:
            case.body = rooms[-1]["record"]
        if "game_no" in params:
            case.path_parameters = {**case.path_parameters, "game_no": 1 + index % 2}
        if "seat" in params:
            case.path_parameters = {**case.path_parameters, "seat": index % 3}
        if label.endswith("/bot") and isinstance(case.body, dict) and index % 3 == 0:
            case.body = {**case.body, "level": "random"}
        if label == "POST /api/rooms" and isinstance(case.body, dict) and index % 2 == 0:
            case.body = {**case.body, "game": names[index % len(names)], "seats": None}
        if label == "POST /api/rooms/tutorial" and index % 2 == 0:
            case.body = {"game": names[index % len(names)], "name": "fuzz"}
        aim_account(case, label, index, made)
        aim_mail(case, label, index)
        aim_passkey(case, label, index, client)
        aim_friends(case, label, index, rooms[0]["code"])
        return case

    negatable = bool(params) or "{code}" in label or label.startswith(("POST", "PUT"))
    modes = [GenerationMode.POSITIVE] + ([GenerationMode.NEGATIVE] if negatable else [])
    for mode in modes:

        @given(case=operation.as_strategy(generation_mode=mode), index=st.integers(0, 11))
        @settings(
            max_examples=30,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any, index: int) -> None:
            for aimed in (False, True):
                if aimed:
                    case = aim(case, index)
                response = send_case(client, case)
                seen[response.status_code] = seen.get(response.status_code, 0) + 1
                case.validate_response(response, checks=CHECKS)

        run()
    assert any(status < 300 for status in seen), f"{label}: nothing was accepted ({seen})"
    assert client.get("/health").json()["status"] == "ok"


# -- the first message ----------------------------------------------------------------------


def test_a_forged_or_foreign_token_is_refused_and_the_socket_closed(
    client: TestClient, table: Table
) -> None:
    with ExitStack() as stack:
        other = new_table(client, stack)
        foreign = [other.tokens[0], other.tokens[1], other.host_token]
    forged: list[object] = [
        "forged",
        "",
        " " + table.tokens[0],
        table.tokens[0][:-1],
        table.tokens[0].upper() if table.tokens[0].upper() != table.tokens[0] else "X",
        hash_token(table.tokens[0]),  # what the store keeps is not a token
        table.host_token,  # the host's token is not a seat's
        "x" * 5000,
        0,
        1,
        True,
        [table.tokens[0]],
        {"token": table.tokens[0]},
        *foreign,
    ]
    for token in forged:
        before = fingerprint(table)
        ws = table.connect()
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        reply = receive(ws)
        assert reply["type"] == "error" and reply["error"] == "forbidden", (token, reply)
        assert reply["message"]
        assert table.tokens[0] not in reply["message"]
        assert closed(ws).code == 1008
        table.quiet()
        assert_unchanged(before, fingerprint(table))
    assert table.room.presence[None] == 1


@pytest.mark.parametrize(
    "first",
    [
        "not json",
        "{",
        "[]",
        "null",
        '"hello"',
        json.dumps({"type": "act", "action": 0, "state_id": "1:0"}),
        json.dumps({"type": "ping"}),
        json.dumps({"token": None}),
        json.dumps({"type": "HELLO", "token": None}),
        json.dumps({"type": "hello", "token": None, "pad": "x" * 9000}),
        "[" * 5000 + "]" * 5000,
    ],
)
def test_a_first_message_that_is_not_a_hello_is_refused(table: Table, first: str) -> None:
    before = fingerprint(table)
    ws = table.connect()
    ws.send_text(first)
    reply = receive(ws)
    assert reply["type"] == "error" and reply["error"] == "bad_hello", reply
    assert closed(ws).code == 1008
    table.quiet()
    assert_unchanged(before, fingerprint(table))


def test_a_binary_first_frame_is_refused_with_an_error(table: Table) -> None:
    """The protocol: a socket whose first message is not a hello is closed
    (1008) *after its error*; a binary frame is not a hello."""
    ws = table.connect()
    ws.send_bytes(json.dumps({"type": "hello", "token": None}).encode())
    try:
        reply = receive(ws)
    except WebSocketDisconnect as closing:
        pytest.fail(f"closed ({closing.code} {closing.reason!r}) without an error message")
    assert reply["type"] == "error", reply
    assert closed(ws).code == 1008
    table.quiet()


def test_an_unknown_or_malformed_room_code_is_refused(client: TestClient) -> None:
    for code in ["AAAAAAAAAAAA", "x", "x" * 300, "a.b", "%00", "a%20b"]:
        with client.websocket_connect(f"/ws/rooms/{code}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": None}))
            reply = receive(ws)
            assert reply["type"] == "error" and reply["error"] == "not_found", reply
            assert closed(ws).code == 1008


def test_a_socket_that_says_nothing_is_closed(tmp_path: Any) -> None:
    with app_client(sqlite_url(tmp_path), web=WebConfig(hello_timeout=0.2)) as client:
        room = make_room(client, game=GAME)
        with client.websocket_connect(f"/ws/rooms/{room['code']}") as ws:
            assert closed(ws).code == 1008


def test_sockets_from_other_sites_are_refused(tmp_path: Any) -> None:
    web = WebConfig(allowed_origins=("https://friend.example",))
    with app_client(sqlite_url(tmp_path), web=web) as client:
        code = make_room(client, game=GAME)["code"]
        for origin in ["https://evil.example", "http://testserver.evil.example", "null"]:
            with (
                pytest.raises(WebSocketDisconnect) as refusal,
                client.websocket_connect(f"/ws/rooms/{code}", headers={"origin": origin}),
            ):
                pass
            assert refusal.value.code == 1008, origin
        for origin in ["http://testserver", "https://friend.example"]:
            with client.websocket_connect(f"/ws/rooms/{code}", headers={"origin": origin}) as ws:
                ws.send_text(json.dumps({"type": "hello", "token": None}))
                assert receive(ws)["type"] == "welcome"


# -- messages after the hello ------------------------------------------------------------------

NOT_A_MESSAGE = [
    "",
    " ",
    "not json",
    "{",
    '{"type": "act",}',
    "{'type': 'ping'}",
    "\x00",
    "\ud800",
    "NaN",
    "[]",
    "[1, 2]",
    '[{"type": "ping"}]',
    "1",
    "null",
    "true",
    '"ping"',
    "{}",
    '{"type": null}',
    '{"type": 1}',
    '{"type": ["ping"]}',
    '{"type": {"ping": 1}}',
    '{"action": 0, "state_id": "1:0"}',
    "[" * 3000 + "]" * 3000,
    '{"a":' * 3000 + "1" + "}" * 3000,
]

UNKNOWN_KINDS = ["", "ACT", "act ", "Ping", "move", "join", "start", "__proto__", "x" * 5000]


def test_text_that_is_not_a_message_is_refused(table: Table) -> None:
    mover = table.mover()
    for text in NOT_A_MESSAGE:
        refused(table, mover, text, "malformed")
    table.play()


def test_binary_frames_are_refused(table: Table) -> None:
    mover = table.mover()
    good = {"type": "act", "action": mover.legal()[0]["id"], "state_id": mover.state_id}
    for frame in [b"", b"\x00\xff", json.dumps(good).encode(), b"\x81" * 100]:
        refused(table, mover, frame, "malformed")
    table.play()


def test_unknown_message_kinds_are_refused(table: Table) -> None:
    mover = table.mover()
    for kind in UNKNOWN_KINDS:
        reply = refused(table, mover, {"type": kind, "action": 0}, "unknown_type")
        assert len(reply["message"]) < 200
    refused(table, mover, {"type": "hello", "token": table.tokens[1]}, "already_joined")
    assert mover.you == 0
    table.play()


def test_messages_over_the_size_limit_are_refused(table: Table) -> None:
    mover = table.mover()
    legal = mover.legal()[0]["id"]
    limit = WebConfig().max_message_bytes
    act = {"type": "act", "action": legal, "state_id": mover.state_id}
    padding = limit - len(json.dumps({**act, "pad": ""}))
    refused(table, mover, {**act, "pad": "x" * (padding + 1)}, "malformed")
    wide = json.dumps({**act, "pad": "é" * (padding // 2 + 1)}, ensure_ascii=False)
    assert len(wide) <= limit < len(wide.encode())  # the limit counts bytes, not characters
    refused(table, mover, wide, "malformed")
    refused(table, mover, {"type": "chat", "text": "x" * 100_000}, "malformed")
    refused(table, mover, "x" * 1_000_000, "malformed")
    # Exactly at the limit is read.
    exact = {"type": "ping", "pad": ""}
    exact["pad"] = "x" * (limit - len(json.dumps(exact)))
    assert len(json.dumps(exact).encode()) == limit
    mover.send(exact)
    assert mover.receive() == {"type": "pong"}
    mover.send({**act, "pad": "x" * padding})
    for viewer in table.viewers:
        viewer.update()
    assert table.room.step > 0


WRONG_ACTIONS: list[object] = [
    None,
    True,
    False,
    1.0,
    1.5,
    math.inf,
    -1,
    10**30,
    -(10**30),
    [],
    [666],
    {},
    {"id": 666},
    "",
    " ",
    "zzz",
    "d4-",
    "d4-a1-a2",
    "x" * 3000,
    "d4-a1\x00",
    "\ud800",
    "666 ",
]


def test_actions_of_the_wrong_type_or_form_are_malformed(table: Table) -> None:
    mover = table.mover()
    ids = {entry["id"] for entry in mover.legal()}
    game = table.room.game
    wrong = [*WRONG_ACTIONS, game.num_distinct_actions(), -game.num_distinct_actions()]
    for action in wrong:
        if isinstance(action, int) and action in ids:
            continue
        message = {"type": "act", "action": action, "state_id": mover.state_id}
        refused(table, mover, message, "malformed_action")
    refused(table, mover, {"type": "act", "state_id": mover.state_id}, "malformed_action")
    table.play()


def test_an_error_does_not_echo_a_huge_message_back(table: Table) -> None:
    """An error names what was wrong; it need not repeat 8 KB of input (which,
    escaped, comes back four times as large: an amplifier for a flood)."""
    mover = table.mover()
    for action in ["x" * 7000, "\x00" * 1300]:
        reply = refused(table, mover, {"type": "act", "action": action}, "malformed_action")
        assert len(reply["message"]) <= 1000, f"a {len(reply['message'])}-character error"


def test_illegal_actions_are_refused(table: Table) -> None:
    mover = table.mover()
    state = table.room.state
    assert state is not None
    legal = set(state.legal_actions())
    illegal = [a for a in range(table.room.game.num_distinct_actions()) if a not in legal]
    rng = random.Random(7)
    for action in rng.sample(illegal, 12):
        message = {"type": "act", "action": action, "state_id": mover.state_id}
        refused(table, mover, message, "illegal_action")
        notation = {**message, "action": state.action_to_string(action)}
        refused(table, mover, notation, "illegal_action")
    table.play()


def test_stale_state_ids_are_refused(table: Table) -> None:
    host, guest = table.viewers[0], table.viewers[1]
    seen = host.state_id
    action = host.legal()[0]["id"]
    for state_id in [None, "", 1, 1.0, [seen], {"id": seen}, "0:0", "2:0", "1:1", "1:-1", " 1:0"]:
        refused(table, host, {"type": "act", "action": action, "state_id": state_id}, "stale_state")
    table.play_until(1)
    reply = guest.legal()[0]
    refused(table, guest, {"type": "act", "action": reply["id"], "state_id": seen}, "stale_state")
    table.play()
    assert guest.state_id == table.room.state_id != seen


def test_actions_for_another_seat_or_from_a_spectator_are_refused(table: Table) -> None:
    host, guest, watcher = table.viewers
    legal = host.legal()[0]
    for action in (legal["id"], legal["notation"]):
        move = {"type": "act", "action": action, "state_id": host.state_id}
        refused(table, guest, move, "not_your_turn")
        refused(table, watcher, move, "not_your_turn")
    refused(table, watcher, {"type": "chat", "text": "hello"}, "bad_request")
    refused(table, watcher, {"type": "back"}, "bad_request")
    table.play_until(1)
    refused(
        table,
        host,
        {"type": "act", "action": legal["id"], "state_id": host.state_id},
        "not_your_turn",
    )


def test_chat_that_is_empty_too_long_or_not_text_is_refused(table: Table) -> None:
    host = table.viewers[0]
    texts: list[object] = [None, 1, True, [], {}, ["hi"], "", " ", "\n\t", "\x00\x07\x1b",
                           "\u200b\u202e", "x" * (CHAT_LIMIT + 1)]  # fmt: skip
    for text in texts:
        refused(table, host, {"type": "chat", "text": text}, "bad_request")
    refused(table, host, {"type": "chat"}, "bad_request")
    # At the limit is said, to everyone, control characters removed.
    host.send({"type": "chat", "text": "\x1b\x07 " + "x" * CHAT_LIMIT + "\u202e\n"})
    for viewer in table.viewers:
        said = viewer.receive()
        assert said["type"] == "chat" and said["text"] == "x" * CHAT_LIMIT, said
        assert said["seat"] == 0 and said["name"] == "host"
    table.quiet()
    assert table.room.chat_count == 1
    table.play()


def test_the_checks_come_in_the_order_of_the_issue(client: TestClient, table: Table) -> None:
    """game over, not your turn (or not a seat), malformed, illegal, stale state id:
    a message that breaks several rules is refused for the first."""
    host, guest, watcher = table.viewers
    state = table.room.state
    assert state is not None
    illegal = next(a for a in range(1000) if a not in state.legal_actions())
    legal = host.legal()[0]["id"]
    stale = "9:9"

    def act(action: object, state_id: object) -> dict[str, Any]:
        return {"type": "act", "action": action, "state_id": state_id}

    # Not your turn comes before malformed, illegal and stale.
    for viewer in (guest, watcher):
        refused(table, viewer, act("zzz", stale), "not_your_turn")
        refused(table, viewer, act([], None), "not_your_turn")
        refused(table, viewer, act(illegal, stale), "not_your_turn")
        refused(table, viewer, act(legal, stale), "not_your_turn")
    # Malformed comes before illegal and stale.
    refused(table, host, act("zzz", stale), "malformed_action")
    refused(table, host, act(10**9, stale), "malformed_action")
    # Illegal comes before stale.
    refused(table, host, act(illegal, stale), "illegal_action")
    refused(table, host, act(state.action_to_string(illegal), None), "illegal_action")
    # Stale alone.
    refused(table, host, act(legal, stale), "stale_state")
    table.play()
    # Game over comes first of all, for seats and spectators alike.
    table.finish()
    assert table.room.status == "over"
    for viewer in (host, guest, watcher):
        refused(table, viewer, act("zzz", stale), "game_over")
        refused(table, viewer, act(illegal, None), "game_over")
        refused(table, viewer, act(0, table.room.state_id), "game_over")
    # Before the first game, an action is refused too.
    with ExitStack() as stack:
        lobby = new_table(client, stack, start=False)
        ann = lobby.join(lobby.tokens[0])
        refused(lobby, ann, act(0, "0:0"), "conflict")


def test_one_token_on_two_sockets_is_one_seat(table: Table) -> None:
    """A phone and a laptop: both sockets play the same seat, both are told."""
    phone, guest, watcher = table.viewers
    laptop = table.join(table.tokens[0])
    assert laptop.you == phone.you == 0
    assert table.room.presence[0] == 2
    move = {"type": "act", "action": laptop.legal()[0]["id"], "state_id": laptop.state_id}
    laptop.send(move)
    for viewer in table.viewers:
        viewer.update()
    assert phone.state_id == laptop.state_id == table.room.state_id != move["state_id"]
    # The same message again, from either socket, is late.
    for socket in (phone, laptop):
        refused(
            table, socket, move, "illegal_action" if table.mover() is phone else "not_your_turn"
        )
    table.play_until(0)
    late = {"type": "act", "action": phone.legal()[0]["id"], "state_id": move["state_id"]}
    refused(table, phone, late, "stale_state")
    table.leave(laptop)
    assert table.client.get(f"/api/rooms/{table.code}").json()["seats"][0]["connected"]
    before = table.room.state_id
    table.play()  # the phone still plays seat 0
    assert table.room.state_id != before
    assert guest.you == 1 and watcher.you is None


def test_rapid_messages_are_rate_limited_per_connection(tmp_path: Any) -> None:
    # The address's own bucket (120 messages, 40 a second) is lifted: the host's
    # flood alone nearly empties it, so on a fast machine, with little time to
    # refill it, it refused the guest too, and this test is about connections.
    web = WebConfig(rate_per_second=0.001, rate_burst=5, address_rate_burst=10**6)
    with app_client(sqlite_url(tmp_path), web=web) as client, ExitStack() as stack:
        table = new_table(client, stack)
        host, guest = table.join(table.tokens[0]), table.join(table.tokens[1])
        before = fingerprint(table)
        for _ in range(5):
            host.send({"type": "ping"})
            assert host.receive() == {"type": "pong"}
        flood = [
            {"type": "ping"},
            {"type": "act", "action": host.legal()[0]["id"], "state_id": host.state_id},
            {"type": "chat", "text": "hi"},
            "not json",
            {"type": "zzz"},
            {"type": "chat", "text": "x" * 20_000},
        ] * 20
        for message in flood:
            host.send(message)
        for _ in flood:
            reply = host.receive()
            assert reply["type"] == "error" and reply["error"] == "rate_limited", reply
            assert reply["message"]
        assert_unchanged(before, fingerprint(table))
        # The other connection is not limited by this one, and the server still plays.
        guest.send({"type": "ping"})
        assert guest.receive() == {"type": "pong"}
        guest.send({"type": "act", "action": 0, "state_id": "1:0"})
        assert guest.receive()["error"] == "not_your_turn"
        assert_unchanged(before, fingerprint(table))


def test_binary_frames_count_against_the_rate_limit(tmp_path: Any) -> None:
    """Every frame a connection sends is a message for the rate limit; a
    binary frame is answered like any other, so it must not slip past it."""
    web = WebConfig(rate_per_second=0.001, rate_burst=5)
    with app_client(sqlite_url(tmp_path), web=web) as client, ExitStack() as stack:
        table = new_table(client, stack)
        host = table.join(table.tokens[0])
        for _ in range(5):
            host.send({"type": "ping"})
            assert host.receive() == {"type": "pong"}
        host.send(b"\x00")
        reply = host.receive()
        assert reply["type"] == "error" and reply["error"] == "rate_limited", reply


def test_a_flood_then_a_pause_then_play(tmp_path: Any) -> None:
    web = WebConfig(rate_per_second=50.0, rate_burst=10)
    with app_client(sqlite_url(tmp_path), web=web) as client, ExitStack() as stack:
        table = new_table(client, stack)
        host, _guest = table.join(table.tokens[0]), table.join(table.tokens[1])
        before = fingerprint(table)
        began = time.monotonic()
        for _ in range(300):
            host.send({"type": "act", "action": "zzz", "state_id": "1:0"})
        codes = [host.receive()["error"] for _ in range(300)]
        took = time.monotonic() - began
        assert set(codes) <= {"malformed_action", "rate_limited"}
        # No more were read than the bucket held and refilled while the flood lasted.
        assert codes.count("malformed_action") <= 10 + 50 * took + 1
        assert codes[:10] == ["malformed_action"] * 10
        if took < 2.0:
            assert codes.count("rate_limited") >= 300 - 10 - 50 * took - 1 > 0
        assert_unchanged(before, fingerprint(table))
        time.sleep(0.3)  # the bucket refills
        table.play_until(1)
        table.play_until(0)


def test_a_socket_keeps_its_person_when_a_rematch_rotates_the_seats(table: Table) -> None:
    """After a rematch everyone moves one seat on; a socket that stays open
    must go on seeing and playing for its own person, not for whoever now
    sits in the seat it had (that would show them another seat's secrets and
    let them move for it)."""
    host, guest, _watcher = table.viewers
    table.finish()
    response = table.client.post(
        f"/api/rooms/{table.code}/rematch", headers={"Authorization": f"Bearer {table.host_token}"}
    )
    assert response.status_code == 200, response.text
    seats = response.json()["seats"]
    assert [s["name"] for s in seats] == ["guest", "host"]
    for viewer in table.viewers:
        viewer.update()
    # A fresh socket with the host's token sits in seat 1 now...
    fresh = table.join(table.tokens[0])
    assert fresh.you == 1
    # ... and so must the host's socket that stayed open.
    assert host.last["you"] == 1, f"the host's open socket now views seat {host.last['you']}"
    assert guest.last["you"] == 0
    assert host.legal() == [] and guest.legal() != []
    move = {"type": "act", "action": guest.legal()[0]["id"], "state_id": guest.state_id}
    refused(table, host, move, "not_your_turn")


# -- the room's own checks, for every game --------------------------------------------------


@pytest.mark.parametrize("game", sorted(games()))
def test_every_refusal_of_check_action_changes_nothing_in_any_game(game: str) -> None:
    """Along a seeded game of each kind: every action id that is not legal is
    illegal (never another exception), other seats and spectators are told it
    is not their turn, junk is malformed, a stale id is stale; the state does
    not move; after the end, everything is game over."""
    room, _host = Room.create(game, None, {}, None, Settings(), 0.0, seed="fuzz")
    for index in range(room.game.num_players):
        room.claim(f"p{index}", index)
    room.start(0.0)
    rng = random.Random(game)
    junk: list[object] = [None, "", "zzz", 1.5, True, [], {}, -1, 10**9]
    for _step in range(60):
        while (pending := room.pending()) is not None and pending.kind == "chance":
            room.apply(room.chance_action(), 0.0)
        if pending is None:
            break
        state = room.state
        assert state is not None and pending.seat is not None
        history, state_id = state.history(), room.state_id
        legal = state.legal_actions()
        for seat in [*range(room.game.num_players), None]:
            if seat != pending.seat:
                with pytest.raises(NotYourTurn):
                    room.check_action(seat, legal[0], state_id)
        for action in range(room.game.num_distinct_actions()):
            if action not in legal:
                with pytest.raises(IllegalAction):
                    room.check_action(pending.seat, action, state_id)
        for thing in junk:
            with pytest.raises(MalformedAction):
                room.check_action(pending.seat, thing, state_id)
        with pytest.raises(StaleState):
            room.check_action(pending.seat, legal[0], "0:0")
        assert state.history() == history and room.state_id == state_id
        room.apply(room.check_action(pending.seat, rng.choice(legal), state_id), 0.0)
    else:
        return  # a long game: sixty steps are enough
    assert room.status == "over"
    for seat in [*range(room.game.num_players), None]:
        with pytest.raises(GameOver):
            room.check_action(seat, "zzz", "0:0")


# -- the checks above can fail ----------------------------------------------------------------


def test_planted_a_skipped_stale_check_is_caught(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = Room.check_action

    def careless(self: Room, seat: Any, action: object, state_id: object) -> int:
        return original(self, seat, action, self.state_id)  # ignores the state id sent

    monkeypatch.setattr(Room, "check_action", careless)
    host = table.viewers[0]
    stale = {"type": "act", "action": host.legal()[0]["id"], "state_id": "0:0"}
    with pytest.raises(AssertionError, match="was answered with"):
        refused(table, host, stale, "stale_state")


def test_planted_an_error_path_that_changes_state_is_caught(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = Room.check_action

    def leaky(self: Room, seat: Any, action: object, state_id: object) -> int:
        if state_id != self.state_id:
            self.seats[0].wins += 1  # changes something, then refuses
        return original(self, seat, action, state_id)

    monkeypatch.setattr(Room, "check_action", leaky)
    host = table.viewers[0]
    stale = {"type": "act", "action": host.legal()[0]["id"], "state_id": "0:0"}
    with pytest.raises(AssertionError, match="room state changed"):
        refused(table, host, stale, "stale_state")


def test_planted_an_error_told_to_everyone_is_caught(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = Hub.do

    async def loud(self: Hub, connection: Any, command: Any) -> None:
        live = self._rooms[connection.room]
        try:
            await original(self, connection, command)
        finally:
            for other in live.connections - {connection}:  # the others hear of the refusal
                other.send(live.room.view(other.viewer))

    monkeypatch.setattr(Hub, "do", loud)
    guest = table.viewers[1]
    with pytest.raises(AssertionError, match="was sent"):
        refused(table, guest, {"type": "act", "action": 0, "state_id": "1:0"}, "not_your_turn")
