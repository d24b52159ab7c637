"""The HTTP API, endpoint by endpoint: games and rules, rooms and seats, the
host's powers, records, listing, and what the database keeps of the secrets.

Every refusal is a clear 4xx JSON body ``{"error": CODE, "message": WORDS}``
(docs/protocol.md) and changes nothing.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import sqlite3
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serving import FAST, app_client, host_headers, make_room, sqlite_url

from apothecary import bots as bot_registry
from apothecary.core.records import Record
from apothecary.core.registry import game_class, games
from apothecary.server.app import WebConfig
from apothecary.server.hub import HubConfig
from apothecary.server.room import NAME_LIMIT, hash_token

GAME = "poison-pot"
HIDDEN = "in-vino-morte"
"""A game with secrets: the dealer alone knows what was poured."""

WEB = WebConfig(create_per_minute=1_000_000)
WAIT = 30.0


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(sqlite_url(tmp_path), web=WEB) as test_client:
        yield test_client


def refusal(response: Any, status: int | None = None) -> dict[str, Any]:
    """A clear 4xx in JSON; the body. The room's own refusals are checked for
    the documented shape ``{"error", "message"}`` here; FastAPI's request
    validation (422) answers in its own, which :func:`clear` checks alone (in
    :func:`test_every_refusal_has_the_same_shape`), so that one bug fails one test."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    if status is not None:
        assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body: dict[str, Any] = response.json()
    assert isinstance(body, dict), body
    if response.status_code != 422:
        clear(body)
    return body


def clear(body: dict[str, Any]) -> None:
    """The documented shape of a refusal."""
    assert set(body) == {"error", "message"}, body
    assert isinstance(body["error"], str) and re.fullmatch(r"[a-z_]+", body["error"]), body
    assert isinstance(body["message"], str) and body["message"].strip(), body


def info(client: TestClient, code: str) -> dict[str, Any]:
    response = client.get(f"/api/rooms/{code}")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def room_count(client: TestClient) -> tuple[int, int]:
    """Rooms the hub holds, and rooms the database holds."""
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with hub.store.engine.connect() as connection:
        stored = connection.exec_driver_sql("SELECT COUNT(*) FROM rooms").scalar()
    return len(hub._rooms), stored


def claim(client: TestClient, code: str, name: str, seat: int | None = None) -> Any:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    return client.post(f"/api/rooms/{code}/seats", json=body)


def two_people(client: TestClient, game: str = GAME, **body: Any) -> tuple[dict[str, Any], str]:
    """A room of two people: the host (seat 0) and a guest (seat 1); the guest's token."""
    room = make_room(client, game=game, players=2, fallback_level="random", **body)
    guest = claim(client, room["code"], "guest")
    assert guest.status_code == 200, guest.text
    token: str = guest.json()["token"]
    return room, token


def start(client: TestClient, room: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def bots_take_over(client: TestClient, room: dict[str, Any]) -> None:
    """The host lets a random bot play for everyone, and waits for the end."""
    for seat in range(info(client, room["code"])["players"]):
        response = client.put(
            f"/api/rooms/{room['code']}/seats/{seat}/bot",
            json={"level": "random"},
            headers=host_headers(room),
        )
        assert response.status_code == 200, response.text
    wait_over(client, room["code"])


def wait_over(client: TestClient, code: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while (facts := info(client, code))["status"] != "over":
        assert time.monotonic() < deadline, "the game did not end"
        time.sleep(0.01)
    return facts


@contextmanager
def hello(client: TestClient, code: str, token: str | None) -> Iterator[tuple[Any, dict[str, Any]]]:
    """A socket on the room that said hello: (socket, its first update)."""
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        ws.send_json({"type": "hello", "token": token})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome", welcome
        update = ws.receive_json()
        assert update["type"] == "update", update
        yield ws, update


# -- the server and its games ---------------------------------------------------------------


def test_health(client: TestClient) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "rooms": 0}
    make_room(client, game=GAME)
    make_room(client, game=GAME, listed=False)
    assert client.get("/health").json() == {"status": "ok", "rooms": 1}


def test_games_list_their_options_levels_and_rules(client: TestClient) -> None:
    response = client.get("/api/games")
    assert response.status_code == 200
    listed = response.json()
    assert [entry["name"] for entry in listed] == list(games())
    for entry in listed:
        cls = game_class(entry["name"])
        assert entry["title"] == cls.info.title and entry["summary"]
        assert entry["min_players"] <= entry["default_players"] <= entry["max_players"]
        assert entry["has_hidden_information"] == cls.info.has_hidden_information
        assert [o["name"] for o in entry["options"]] == [s.name for s in cls.option_specs]
        for option, spec in zip(entry["options"], cls.option_specs, strict=True):
            assert option["type"] == spec.type.__name__
            assert option["default"] == spec.default and option["help"]
            assert set(option) == {
                "name",
                "type",
                "default",
                "help",
                "choices",
                "minimum",
                "maximum",
                "room_maximum",
                "room_default",
            }
        levels = [level["name"] for level in entry["levels"]]
        assert {"easy", "medium", "hard"} <= set(levels)
        assert levels == list(bot_registry.levels(entry["name"]))
        assert [b["name"] for b in entry["bots"]] == list(bot_registry.entries(entry["name"]))
        assert client.get(f"/api/games/{entry['name']}").json() == entry
        rules = client.get(entry["rules"])
        assert rules.status_code == 200
        assert rules.headers["content-type"].startswith("text/plain")
        assert rules.text.startswith("# ") and len(rules.text) > 200
    for path in ["/api/games/nope", "/api/games/nope/rules", "/api/games/POISON-POT"]:
        body = refusal(client.get(path))
        assert "nope" in body["message"] or "POISON-POT" in body["message"]


# -- creating a room -------------------------------------------------------------------------


def test_creating_a_room_answers_with_its_code_tokens_and_facts(client: TestClient) -> None:
    response = client.post(
        "/api/rooms",
        json={
            "game": GAME,
            "players": 3,
            "options": {"radius": 2},
            "seats": ["open", "easy"],
            "turn_seconds": 30,
            "match_target": 2,
            "listed": False,
            "fallback_level": "random",
            "host_name": "  Ann  ",
        },
    )
    assert response.status_code == 201, response.text
    answer = response.json()
    assert set(answer) == {"code", "host_token", "invite", "room", "seat", "seat_token"}
    assert answer["invite"] == f"/rooms/{answer['code']}"
    assert answer["seat"] == 0 and answer["seat_token"] != answer["host_token"]
    room = answer["room"]
    assert room["code"] == answer["code"] and room["game"] == GAME and room["players"] == 3
    assert room["options"] == {"radius": 2} and room["status"] == "lobby" and room["game_no"] == 0
    assert room["settings"] == {
        "turn_seconds": 30,
        "match_target": 2,
        "listed": False,
        "fallback_level": "random",
        "hints": False,
        "rated": False,
        "tutorial": False,
    }
    assert [(s["kind"], s["level"]) for s in room["seats"][1:]] == [("bot", "easy"), ("open", None)]
    facts = info(client, answer["code"])
    assert facts["open_seats"] == [2]
    assert facts["seats"][0]["kind"] == "human" and facts["seats"][0]["name"] == "Ann"
    for secret in (answer["host_token"], answer["seat_token"]):
        assert secret not in json.dumps(facts)
    for bound in (1, 86400):
        make_room(client, game=GAME, turn_seconds=bound)


def test_the_creation_answer_shows_the_host_in_their_seat(client: TestClient) -> None:
    """With host_name, the answer's room is the room as it is once the host
    sat down (a client draws its lobby from it), not as it was a moment before."""
    answer = make_room(client, "Ann", game=GAME)
    assert answer["room"]["seats"] == info(client, answer["code"])["seats"], (
        "the answer's room shows the host's seat as it was before the host sat down"
    )
    assert answer["room"]["open_seats"] == [1]


BAD_ROOMS: dict[str, dict[str, Any]] = {
    "unknown game": {"game": "nope"},
    "empty game": {"game": ""},
    "no game": {},
    "game not text": {"game": 5},
    "unknown option": {"game": GAME, "options": {"bogus": 1}},
    "option out of range": {"game": GAME, "options": {"radius": 9}},
    "option of the wrong type": {"game": GAME, "options": {"radius": "x"}},
    "option not whole": {"game": GAME, "options": {"radius": 2.5}},
    "options not an object": {"game": GAME, "options": ["radius"]},
    "too few players": {"game": GAME, "players": 1},
    "too many players": {"game": GAME, "players": 4},
    "no players": {"game": GAME, "players": 0},
    "players beyond any game": {"game": GAME, "players": 100},
    "players not a number": {"game": GAME, "players": "two"},
    "unknown seat bot": {"game": GAME, "seats": ["nobot"]},
    "seat bot with a bad budget": {"game": GAME, "seats": ["ismcts:iterations=-5"]},
    "more seats than players": {"game": GAME, "seats": ["open", "open", "open"]},
    "seats not a list": {"game": GAME, "seats": "open"},
    "unknown fallback level": {"game": GAME, "fallback_level": "zz"},
    "fallback level open": {"game": GAME, "fallback_level": "open"},
    "turn_seconds zero": {"game": GAME, "turn_seconds": 0},
    "turn_seconds below one": {"game": GAME, "turn_seconds": 0.5},
    "turn_seconds negative": {"game": GAME, "turn_seconds": -30},
    "turn_seconds over a day": {"game": GAME, "turn_seconds": 86401},
    "turn_seconds not a number": {"game": GAME, "turn_seconds": "soon"},
    "match_target zero": {"game": GAME, "match_target": 0},
    "match_target too high": {"game": GAME, "match_target": 100},
    "host name too long": {"game": GAME, "host_name": "x" * (NAME_LIMIT + 1)},
    "host name not text": {"game": GAME, "host_name": 7},
}


@pytest.mark.parametrize("body", BAD_ROOMS.values(), ids=BAD_ROOMS.keys())
def test_a_bad_room_is_refused_clearly_and_not_made(client: TestClient, body: Any) -> None:
    before = room_count(client)
    refusal(client.post("/api/rooms", json=body))
    assert room_count(client) == before, "a refused request left a room behind"
    assert client.get("/api/rooms").json() == []


def test_a_refused_host_name_leaves_no_room_behind(client: TestClient) -> None:
    """The host's name is refused after the room was made and committed: the
    refusal must not leave a room (listed, in the store) that nobody holds."""
    for name in ["", "   ", "\x00\x1b\u202e"]:
        before = room_count(client)
        body = refusal(client.post("/api/rooms", json={"game": GAME, "host_name": name}), 400)
        assert "name" in body["message"]
        assert room_count(client) == before, f"host_name {name!r}: a room was left behind"
        assert client.get("/api/rooms").json() == []


@pytest.mark.parametrize("content", ["not json", "[]", "null", '{"game": "poison-pot",}'])
def test_a_room_body_that_is_not_an_object_is_refused_clearly(
    client: TestClient, content: str
) -> None:
    before = room_count(client)
    response = client.post(
        "/api/rooms", content=content, headers={"content-type": "application/json"}
    )
    refusal(response)
    assert room_count(client) == before


def test_a_chosen_seed_needs_a_server_that_allows_it(tmp_path: Path) -> None:
    strict = HubConfig(bot_workers=0, bot_delay=0.0, allow_seed=False)
    with app_client(sqlite_url(tmp_path), strict, web=WEB) as client:
        body = refusal(client.post("/api/rooms", json={"game": GAME, "seed": "abc"}), 400)
        assert "seed" in body["message"]
        assert room_count(client) == (0, 0)
    with app_client(sqlite_url(tmp_path / "other"), FAST, web=WEB) as client:
        make_room(client, game=GAME, seed="abc")


# -- seats -----------------------------------------------------------------------------------


def test_claiming_seats(client: TestClient) -> None:
    room = make_room(client, None, game=GAME, players=3)
    code = room["code"]
    first = claim(client, code, "Bob")
    assert first.status_code == 200 and first.json()["seat"] == 0
    chosen = claim(client, code, "Cy", 2)
    assert chosen.status_code == 200 and chosen.json()["seat"] == 2
    assert set(first.json()) == {"seat", "token"}
    assert first.json()["token"] != chosen.json()["token"]
    seats = info(client, code)["seats"]
    assert [(s["kind"], s["name"]) for s in seats] == [
        ("human", "Bob"),
        ("open", ""),
        ("human", "Cy"),
    ]
    assert info(client, code)["open_seats"] == [1]
    # A name of the longest length, with its control characters taken out.
    longest = claim(client, code, "\x1b" + "é" * (NAME_LIMIT - 2) + "\u202e")
    assert longest.status_code == 200, longest.text
    name = info(client, code)["seats"][1]["name"]
    assert name == "é" * (NAME_LIMIT - 2)
    assert all(unicodedata.category(ch)[0] != "C" for ch in name)
    # Full.
    assert refusal(claim(client, code, "Dee"), 409)["error"] == "conflict"


BAD_NAMES: dict[str, object] = {
    "empty": "",
    "blank": "   ",
    "only control characters": "\x00\x07\x1b\u200b",
    "too long": "x" * (NAME_LIMIT + 1),
    "not text": 5,
    "null": None,
}


@pytest.mark.parametrize("name", BAD_NAMES.values(), ids=BAD_NAMES.keys())
def test_a_bad_name_is_refused_clearly(client: TestClient, name: object) -> None:
    room = make_room(client, None, game=GAME)
    before = info(client, room["code"])
    refusal(client.post(f"/api/rooms/{room['code']}/seats", json={"name": name}))
    assert info(client, room["code"]) == before


BAD_SEATS: dict[str, tuple[object, int | None]] = {
    "taken": (0, 409),
    "past the last": (2, 400),
    "far past the last": (99, 400),
    "negative": (-1, None),
    "beyond any room": (100, None),
    "not a number": ("one", None),
    "a fraction": (0.5, None),
}


@pytest.mark.parametrize(("seat", "status"), BAD_SEATS.values(), ids=BAD_SEATS.keys())
def test_a_bad_seat_is_refused_clearly(
    client: TestClient, seat: object, status: int | None
) -> None:
    room = make_room(client, game=GAME)  # the host sits in seat 0
    before = info(client, room["code"])
    response = client.post(f"/api/rooms/{room['code']}/seats", json={"name": "Bob", "seat": seat})
    refusal(response, status)
    assert info(client, room["code"]) == before


def test_seats_are_claimed_in_the_lobby_only(client: TestClient) -> None:
    room = make_room(client, game=GAME)
    start(client, room)
    refusal(claim(client, room["code"], "late"), 409)
    refusal(claim(client, "AAAAAAAAAAAA", "Bob"), 404)
    refusal(claim(client, "bad.code", "Bob"))


# -- the host's powers -----------------------------------------------------------------------


def test_only_the_host_starts(client: TestClient) -> None:
    room, guest_token = two_people(client)
    other = make_room(client, game=GAME)
    code = room["code"]
    forged = [
        {},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer forged"},
        {"Authorization": f"Bearer {room['host_token']}x"},
        {"Authorization": f"Bearer {hash_token(room['host_token'])}"},
        {"Authorization": f"Basic {room['host_token']}"},
        {"Authorization": room["host_token"]},
        {"Authorization": f"Bearer {room['seat_token']}"},  # the host's seat token
        {"Authorization": f"Bearer {guest_token}"},
        {"Authorization": f"Bearer {other['host_token']}"},  # another room's host
    ]
    before = info(client, code)
    for headers in forged:
        body = refusal(client.post(f"/api/rooms/{code}/start", headers=headers), 403)
        assert body["error"] == "forbidden"
        assert room["host_token"] not in body["message"]
        assert info(client, code) == before
    started = start(client, room)
    assert started["status"] == "playing" and started["game_no"] == 1
    assert refusal(client.post(f"/api/rooms/{code}/start", headers=host_headers(room)), 409)
    refusal(client.post("/api/rooms/AAAAAAAAAAAA/start", headers=host_headers(room)), 404)


def test_starting_fills_open_seats_with_the_fallback_bot(client: TestClient) -> None:
    room = make_room(client, game=GAME, players=3, seats=["open", "open", "easy"])
    started = start(client, room)
    assert [(s["kind"], s["level"]) for s in started["seats"]] == [
        ("human", None),
        ("bot", "medium"),  # the default fallback level
        ("bot", "easy"),
    ]


def test_the_host_hands_an_absent_persons_seat_to_a_bot(client: TestClient) -> None:
    room, guest_token = two_people(client)
    code = room["code"]
    start(client, room)
    bot = f"/api/rooms/{code}/seats/1/bot"
    before = info(client, code)
    for headers in [{}, {"Authorization": f"Bearer {guest_token}"}]:
        refusal(client.put(bot, json={"level": "random"}, headers=headers), 403)
    refusal(client.put(bot, json={"level": "nobot"}, headers=host_headers(room)), 400)
    refusal(client.put(f"/api/rooms/{code}/seats/2/bot", json={"level": "random"},
                       headers=host_headers(room)), 400)  # fmt: skip
    refusal(client.put(bot, json={}, headers=host_headers(room)))
    assert info(client, code) == before
    # The host plays; the guest never comes; the host hands the guest's seat to a bot.
    with hello(client, code, room["seat_token"]) as (ws, update):
        while update["to_move"] != 1:
            move = {
                "type": "act",
                "action": update["legal"][0]["id"],
                "state_id": update["state_id"],
            }
            ws_send(ws, move)
            update = ws_update(ws)
        handed = client.put(bot, json={"level": "random"}, headers=host_headers(room))
        assert handed.status_code == 200, handed.text
        seat = handed.json()["seats"][1]
        assert seat["kind"] == "human" and seat["name"] == "guest"
        assert seat["away"] and seat["level"] == "random"
        # The bot plays for the guest, and it is the host's turn again.
        events: list[dict[str, Any]] = []
        while update["to_move"] != 0:
            update = ws_update(ws)
            events += update["events"]
        assert any(event["actor"] == 1 for event in events), events
    # The guest comes back with their token and takes the seat back by acting.
    with hello(client, code, guest_token) as (ws, update):
        assert update["you"] == 1 and update["seats"][1]["away"]
        ws_send(ws, {"type": "back"})
        update = ws_update(ws)
        assert not update["seats"][1]["away"]


def test_a_bot_seat_keeps_its_bot_during_a_game(client: TestClient) -> None:
    room = make_room(client, game=GAME, seats=["open", "random"])
    lobby = client.put(
        f"/api/rooms/{room['code']}/seats/1/bot", json={"level": "easy"}, headers=host_headers(room)
    )
    assert lobby.status_code == 200 and lobby.json()["seats"][1]["level"] == "easy"
    start(client, room)
    again = client.put(
        f"/api/rooms/{room['code']}/seats/1/bot", json={"level": "hard"}, headers=host_headers(room)
    )
    refusal(again, 409)


def ws_send(ws: Any, message: dict[str, Any]) -> None:
    ws.send_json(message)


def ws_update(ws: Any) -> dict[str, Any]:
    """The next update on the socket (chat on the way is skipped)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "update":
            return message
        assert message["type"] != "error", message


def test_a_rematch_moves_everyone_one_seat_on(client: TestClient) -> None:
    room, guest_token = two_people(client)
    code = room["code"]
    refusal(client.post(f"/api/rooms/{code}/rematch", headers=host_headers(room)), 409)  # lobby
    start(client, room)
    refusal(client.post(f"/api/rooms/{code}/rematch", headers=host_headers(room)), 409)  # playing
    bots_take_over(client, room)
    over = info(client, code)
    wins = {s["name"]: s["wins"] for s in over["seats"]}
    assert sum(wins.values()) >= 1
    for headers in [{}, {"Authorization": f"Bearer {guest_token}"}]:
        refusal(client.post(f"/api/rooms/{code}/rematch", headers=headers), 403)
    assert info(client, code) == over
    again = client.post(f"/api/rooms/{code}/rematch", headers=host_headers(room))
    assert again.status_code == 200, again.text
    facts = again.json()
    assert facts["game_no"] == 2 and facts["status"] == "playing"
    assert [s["name"] for s in facts["seats"]] == ["guest", "host"]
    assert {s["name"]: s["wins"] for s in facts["seats"]} == wins  # wins move with people
    # Tokens move with their people too.
    for token, seat in [(room["seat_token"], 1), (guest_token, 0)]:
        with hello(client, code, token) as (_ws, update):
            assert update["you"] == seat
    wait_over(client, code)
    record = client.get(f"/api/rooms/{code}/games/2/record").json()
    assert record["seats"] == ["guest", "host"]
    assert client.get(f"/api/rooms/{code}/games/1/record").json()["seats"] == ["host", "guest"]


# -- records ---------------------------------------------------------------------------------


def test_a_record_is_given_only_once_its_game_is_over(client: TestClient) -> None:
    room, _guest = two_people(client, HIDDEN)
    code = room["code"]
    refusal(client.get(f"/api/rooms/{code}/games/1/record"), 404)  # no game yet
    start(client, room)
    # The dealer pours poison: a secret of the dealer's until the glass is drunk.
    with hello(client, code, room["seat_token"]) as (ws, update):
        poison = next(a for a in update["legal"] if "poison" in a["notation"])
        ws_send(ws, {"type": "act", "action": poison["id"], "state_id": update["state_id"]})
        update = ws_update(ws)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    played, _seating = hub.store.game_actions(code, 1)
    assert poison["notation"] in played
    early = client.get(f"/api/rooms/{code}/games/1/record")
    assert early.status_code == 409
    body = refusal(early, 409)
    for secret in [*played, "poison", "wine"]:
        assert secret not in early.text, f"the refusal tells {secret!r}"
        assert secret not in json.dumps(info(client, code)), f"the room's facts tell {secret!r}"
    assert "over" in body["message"]
    refusal(client.get(f"/api/rooms/{code}/games/2/record"), 404)
    refusal(client.get(f"/api/rooms/{code}/games/0/record"))
    refusal(client.get("/api/rooms/AAAAAAAAAAAA/games/1/record"), 404)
    # Once it is over, the whole record, every secret in it.
    bots_take_over(client, room)
    full = client.get(f"/api/rooms/{code}/games/1/record")
    assert full.status_code == 200, full.text
    data = full.json()
    assert data["format"] == "apothecary-record" and data["version"] == 1
    assert data["game"] == HIDDEN and data["players"] == 2
    assert data["seats"] == ["host", "guest"]
    played, _seating = hub.store.game_actions(code, 1)
    assert data["actions"] == played and data["actions"][0] == poison["notation"]
    assert data["outcome"] is not None and data["outcome"]["winners"]
    record = Record.loads(json.dumps(data))
    assert record == Record.from_json(data)
    final = record.replay()
    assert final.is_terminal()
    outcome = final.outcome()
    assert outcome is not None and outcome.to_json() == data["outcome"]
    assert info(client, code)["seats"][outcome.winners[0]]["wins"] == 1


# -- listing and finding rooms -----------------------------------------------------------------


def test_listed_and_unlisted_rooms(client: TestClient) -> None:
    listed = make_room(client, game=GAME)
    hidden = make_room(client, game=GAME, listed=False)
    bots = make_room(client, None, game=GAME, seats=["random", "random"])
    codes = [r["code"] for r in client.get("/api/rooms").json()]
    assert sorted(codes) == sorted([listed["code"], bots["code"]])
    assert info(client, hidden["code"])["settings"]["listed"] is False
    for entry in client.get("/api/rooms").json():
        assert set(entry) == set(info(client, entry["code"]))
        assert "seed" not in json.dumps(entry) and "hash" not in json.dumps(entry)
    start(client, bots)
    wait_over(client, bots["code"])
    assert [r["code"] for r in client.get("/api/rooms").json()] == [listed["code"]]
    assert client.get("/health").json()["rooms"] == 1
    assert info(client, bots["code"])["status"] == "over"  # still found by its code


def test_room_codes_and_tokens_are_long_random_and_distinct(client: TestClient) -> None:
    # 150 rooms from one address: more than an address may hold (rooms_per_address).
    client.app.state.hub.config.rooms_per_address = 10**6  # type: ignore[attr-defined]
    made = [make_room(client, game=GAME, listed=False) for _ in range(150)]
    codes = [r["code"] for r in made]
    secrets = [r["host_token"] for r in made] + [r["seat_token"] for r in made]
    assert len(set(codes)) == len(codes)
    assert len(set(secrets)) == len(secrets)
    for code in codes:
        assert len(code) >= 12 and re.fullmatch(r"[A-Za-z0-9_-]+", code), code
    for secret in secrets:
        assert len(secret) >= 32 and re.fullmatch(r"[A-Za-z0-9_-]+", secret)
    # No order to walk: neighbours share no more than chance would give.
    shared = sum(a[:2] == b[:2] for a, b in itertools.pairwise(codes))
    assert shared < 10
    assert client.get("/api/rooms").json() == []  # none of them can be found by listing
    for code in ["A" * 12, codes[0][:-1] + ("A" if codes[0][-1] != "A" else "B"), codes[0][:11]]:
        refusal(client.get(f"/api/rooms/{code}"), 404)


def test_every_refusal_has_the_same_shape(client: TestClient) -> None:
    """docs/protocol.md: every refusal is {"error", "message"} — those of the
    request's form (FastAPI's validation) and of routing too."""
    room = make_room(client, game=GAME)
    cases = [
        client.get("/api/rooms/bad.code"),
        client.get(f"/api/rooms/{'x' * 33}"),
        client.get(f"/api/rooms/{room['code']}/games/0/record"),
        client.get(f"/api/rooms/{room['code']}/games/x/record"),
        client.put(f"/api/rooms/{room['code']}/seats/x/bot", json={"level": "easy"}),
        client.post("/api/rooms", json={"game": GAME, "turn_seconds": 0}),
        client.post("/api/rooms", json={}),
        client.post(f"/api/rooms/{room['code']}/seats", json={"name": "x" * (NAME_LIMIT + 1)}),
        client.get("/api/nothing-here"),
        client.delete("/api/rooms"),
    ]
    wrong = []
    for response in cases:
        assert 400 <= response.status_code < 500, response.text
        body = response.json()
        if set(body) != {"error", "message"}:
            wrong.append(f"{response.request.method} {response.request.url.path}: {body}")
    assert not wrong, "refusals not in the documented shape:\n" + "\n".join(wrong)


# -- what the database and the logs keep --------------------------------------------------------


def test_the_database_and_logs_hold_no_token(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secrets: list[str] = []
    with app_client(sqlite_url(tmp_path), web=WEB) as client:
        room, guest = two_people(client)
        secrets += [room["host_token"], room["seat_token"], guest]
        third = client.post(f"/api/rooms/{room['code']}/seats", json={"name": "late"})
        refusal(third, 409)
        start(client, room)
        with hello(client, room["code"], room["seat_token"]) as (ws, update):
            ws_send(ws, {"type": "chat", "text": "good luck"})
            move = {
                "type": "act",
                "action": update["legal"][0]["id"],
                "state_id": update["state_id"],
            }
            ws_send(ws, move)
            ws_update(ws)
        other = make_room(client, game=HIDDEN, players=2, seats=["open", "random"])
        secrets += [other["host_token"], other["seat_token"]]
        hub = client.app.state.hub  # type: ignore[attr-defined]
        played, _ = hub.store.game_actions(room["code"], 1)
        assert played, "an action was stored"
    database = tmp_path / "server.sqlite3"
    with sqlite3.connect(database) as connection:
        tables = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        assert {"rooms", "games", "actions", "chat"} <= set(tables)
        values: list[str] = []
        for table in tables:
            for row in connection.execute(f'SELECT * FROM "{table}"'):
                values += [str(value) for value in row]
        host_hashes = [row[0] for row in connection.execute("SELECT host_hash FROM rooms")]
    for secret in secrets:
        assert not any(secret in value for value in values), "a token is stored in plain"
    assert hash_token(room["host_token"]) in host_hashes
    assert any(hash_token(room["seat_token"]) in value for value in values)
    # Nor anywhere in the files (the write-ahead log included).
    for path in tmp_path.iterdir():
        if path.name.startswith("server.sqlite3"):
            raw = path.read_bytes()
            for secret in secrets:
                assert secret.encode() not in raw, f"a token is in {path.name}"
    for secret in secrets:
        assert secret not in caplog.text, "a token is in the logs"
