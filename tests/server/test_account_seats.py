"""Seats linked to accounts (issue #31): a signed-in person's seat follows them to
another device, "my games" lists the rooms they sit in and their finished games, a
guest who signs up keeps their seat by its token, one account never gets or links
another's seat, a deleted account's seats say "deleted player" everywhere, and
ended sessions are swept. On SQLite and on a real PostgreSQL (``db_url``)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from serving import cluster_flags, host_headers, make_room, server_process, sqlite_url
from test_accounts import GOOD, SAME, client_on, every_row, sign_in, sign_up
from test_accounts_http import ROOMY, signed_up
from test_http_api import bots_take_over, claim, hello, start

from apothecary.server.accounts import AccountConfig, Accounts, token_hash
from apothecary.server.routes.account import COOKIE
from apothecary.server.seats import DELETED, chair_in_game, result
from apothecary.server.store import Store, account_sessions, seat_links, users


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with client_on(db_url, create_per_minute=1_000_000) as made:
        yield made


def session_of(response: Any) -> str:
    """The session token a sign-up or sign-in set."""
    token: str = response.cookies[COOKIE]
    return token


def acting_as(client: TestClient, token: str | None) -> None:
    """The client's next requests carry this session (None: no cookie)."""
    client.cookies.clear()
    if token is not None:
        client.cookies.set(COOKIE, token)


def link(client: TestClient, *seats: tuple[str, str]) -> Any:
    body = {"seats": [{"room": room, "token": token} for room, token in seats]}
    return client.post("/api/account/seats", json=body, headers=SAME)


def my_games(client: TestClient) -> dict[str, Any]:
    answer = client.get("/api/account/games")
    assert answer.status_code == 200, answer.text
    games: dict[str, Any] = answer.json()
    return games


def seat_of(client: TestClient, code: str) -> Any:
    return client.post(f"/api/account/games/{code}/seat", headers=SAME)


def test_a_seat_follows_its_account_to_another_device(client: TestClient) -> None:
    """Issue #31: "When a signed-in person takes a seat, the seat belongs to their
    account ... On another device signed in to the same account, the client can
    get its seat credentials for that room from the server ... and play."""
    first = session_of(sign_up(client, "Cesare"))
    room = make_room(client, game="poison-pot", players=2, fallback_level="random")
    mine = claim(client, room["code"], "Cesare").json()
    linked = link(client, (room["code"], mine["token"]))
    assert linked.status_code == 200, linked.text
    assert linked.json() == {"linked": [{"room": room["code"], "seat": 1}], "refused": 0}

    acting_as(client, None)
    second = session_of(sign_in(client, "cesare"))  # another device: a session of its own
    assert second != first
    games = my_games(client)
    assert [g["room"] for g in games["current"]] == [room["code"]]
    lobby = games["current"][0]
    assert lobby["seat"] == 1 and lobby["players"] == ["host", "Cesare"]
    assert lobby["your_turn"] is False and lobby["link"] == f"/rooms/{room['code']}"
    given = seat_of(client, room["code"])
    assert given.status_code == 200, given.text
    seat = {"room": room["code"], "seat": 1, "token": mine["token"], "name": "Cesare"}
    assert given.json() == seat

    start(client, room)
    playing = my_games(client)["current"][0]
    assert playing["status"] == "playing" and playing["to_move"] in (0, 1)
    assert playing["your_turn"] == (playing["to_move"] == 1)
    with hello(client, room["code"], given.json()["token"]) as (_ws, update):
        assert update["you"] == 1  # the token from the server plays the seat


def test_a_guest_who_signs_up_keeps_their_seat_and_game(client: TestClient) -> None:
    """Issue #31: "A guest who signs up (or signs in) during or after a game keeps
    their seat and that game in their history"; the browser proves the seat by its token."""
    room = make_room(client, game="poison-pot", players=2, fallback_level="random")
    guest = claim(client, room["code"], "Borgia").json()
    start(client, room)
    bots_take_over(client, room)
    sign_up(client, "Borgia")
    claimed = link(client, (room["code"], guest["token"]), (room["code"], "not a token"))
    assert claimed.json() == {"linked": [{"room": room["code"], "seat": 1}], "refused": 1}
    finished = my_games(client)["finished"]
    assert len(finished) == 1, finished
    game = finished[0]
    assert game["room"] == room["code"] and game["game_no"] == 1 and game["seat"] == 1
    assert game["players"] == ["host", "Borgia"] and game["result"] in ("won", "lost", "drawn")
    assert game["replay"] == f"/replay/{room['code']}/1" and game["ended"] > 0
    assert my_games(client)["current"] == []  # the room is over: history only


def test_one_account_never_gets_or_takes_anothers_seat(client: TestClient) -> None:
    ann = session_of(sign_up(client, "ann"))
    room = make_room(client, game="poison-pot", players=3, fallback_level="random")
    hers = claim(client, room["code"], "ann").json()
    assert link(client, (room["code"], hers["token"])).json()["refused"] == 0
    theirs = claim(client, room["code"], "someone").json()

    acting_as(client, None)
    sign_up(client, "mallory")
    refused = seat_of(client, room["code"])
    assert refused.status_code == 404 and refused.json()["error"] == "no_seat"
    assert my_games(client) == {"current": [], "finished": []}
    # Holding her token is not enough to take her account's seat; a made-up one proves nothing.
    assert link(client, (room["code"], hers["token"])).json() == {"linked": [], "refused": 1}
    assert link(client, (room["code"], theirs["token"][::-1])).json()["refused"] == 1

    forged = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    acting_as(client, ann)
    cross = client.post(f"/api/account/games/{room['code']}/seat", headers=forged)
    assert cross.status_code == 403 and cross.json()["error"] == "cross_site"
    no_header = client.post(f"/api/account/games/{room['code']}/seat")
    assert no_header.status_code == 403 and no_header.json()["error"] == "cross_site"
    for cookie in (None, "forged-" + ann[7:]):
        acting_as(client, cookie)
        assert seat_of(client, room["code"]).json()["error"] == "not_signed_in"
        assert client.get("/api/account/games").status_code == 401
    acting_as(client, ann)
    assert seat_of(client, room["code"]).json()["token"] == hers["token"]


def test_a_freed_seat_is_no_longer_the_accounts(client: TestClient) -> None:
    sign_up(client, "Lucia")
    room = make_room(client, game="poison-pot", players=2, fallback_level="random")
    mine = claim(client, room["code"], "Lucia").json()
    link(client, (room["code"], mine["token"]))
    freed = client.delete(f"/api/rooms/{room['code']}/seats/1", headers=host_headers(room))
    assert freed.status_code == 200, freed.text
    assert seat_of(client, room["code"]).json()["error"] == "no_seat"
    assert my_games(client)["current"] == []


def test_deleting_an_account_leaves_deleted_player_in_rooms_and_records(
    client: TestClient,
) -> None:
    """Issue #31: deleting an account, "every record/room/seat that names it shows
    'deleted player'"."""
    sign_up(client, "Vanozza")
    room = make_room(client, game="poison-pot", players=2, fallback_level="random")
    mine = claim(client, room["code"], "Vanozza").json()
    link(client, (room["code"], mine["token"]))
    start(client, room)
    with hello(client, room["code"], mine["token"]) as (ws, _update):
        ws.send_json({"type": "chat", "text": "salute"})
    bots_take_over(client, room)
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    assert "Vanozza" in every_row(store)  # the check can see the name
    gone = client.post("/api/account/delete", json={"password": GOOD}, headers=SAME)
    assert gone.status_code == 200, gone.text
    assert "vanozza" not in every_row(store).lower()
    facts = client.get(f"/api/rooms/{room['code']}").json()
    assert facts["seats"][1]["name"] == DELETED
    record = client.get(f"/api/rooms/{room['code']}/games/1/record").json()
    assert record["seats"][1] == DELETED
    replay = client.get(f"/api/replays/{room['code']}/1").json()
    assert DELETED in str(replay) and "Vanozza" not in str(replay)
    with store.engine.connect() as connection:
        assert connection.execute(sa.select(seat_links)).all() == []


def test_a_rematch_moves_the_seat_and_the_history_follows(client: TestClient) -> None:
    """``Room.next_game``: "seats rotated by one"; the link follows the person's token."""
    sign_up(client, "Giulia")
    room = make_room(client, game="poison-pot", players=2, fallback_level="random")
    mine = claim(client, room["code"], "Giulia").json()
    link(client, (room["code"], mine["token"]))
    start(client, room)
    bots_take_over(client, room)
    again = client.post(f"/api/rooms/{room['code']}/rematch", headers=host_headers(room))
    assert again.status_code == 200, again.text
    assert my_games(client)["current"][0]["seat"] == 0  # one chair on, wrapped round
    assert seat_of(client, room["code"]).json()["seat"] == 0
    assert my_games(client)["finished"][0]["seat"] == 1  # where she sat in game 1


def test_chairs_in_earlier_games_and_results() -> None:
    assert [chair_in_game(0, k, 3, 3) for k in (1, 2, 3)] == [1, 2, 0]
    assert chair_in_game(2, 4, 4, 4) == 2
    assert result({"winners": [1]}, 1) == "won" and result({"winners": [0]}, 1) == "lost"
    assert result({"winners": []}, 0) == "drawn" and result(None, 0) is None


def test_ended_sessions_are_swept_at_a_sign_in(tmp_path: Path) -> None:
    """Expired-session cleanup: every account's ended sessions go at a sign-in, at most
    once per ``purge_seconds``; live ones stay."""
    quick = AccountConfig(hash_time_cost=1, hash_memory_kib=1024, purge_seconds=3600)
    with client_on(sqlite_url(tmp_path), quick) as client:
        accounts: Accounts = client.app.state.accounts  # type: ignore[attr-defined]
        store = accounts.store
        sign_up(client, "old")
        now = time.time()
        with store.engine.begin() as connection:
            old_id = connection.execute(sa.select(users.c.id)).scalar_one()
            rows = [
                ("absolute", now - 40 * 86400, now - 86400, now - 86400),
                ("idle", now - 9 * 86400, now - 8 * 86400, now + 86400),
                ("live", now - 86400, now - 60, now + 86400),
            ]
            for key, created, seen, expires in rows:
                connection.execute(
                    account_sessions.insert().values(
                        token_hash=token_hash(key),
                        user_id=old_id,
                        created=created,
                        last_seen=seen,
                        expires=expires,
                    )
                )
        accounts._purged = -float("inf")  # as a process that has not swept yet
        acting_as(client, None)
        sign_up(client, "another")  # another account's sign-up sweeps everyone's
        client.portal.call(store.run, lambda: None)  # type: ignore[union-attr]
        with store.engine.connect() as connection:
            kept = set(connection.execute(sa.select(account_sessions.c.token_hash)).scalars())
        assert token_hash("absolute") not in kept and token_hash("idle") not in kept
        assert token_hash("live") in kept and len(kept) == 3  # and the two sign-ups' own


def test_a_seat_linked_on_one_process_is_given_and_listed_on_another(
    postgres_db_url: str, redis_url: str
) -> None:
    """Several processes on one database: the link made through one is the other's
    too, and who is to move is asked of the process holding the room."""
    flags = (*cluster_flags(redis_url, f"t{secrets.token_hex(4)}"), *ROOMY)
    with (
        server_process(postgres_db_url, *flags) as (one, _),
        server_process(postgres_db_url, *flags) as (two, _),
        signed_up(one, "Rodrigo") as here,
    ):
        room = make_room(here, game="poison-pot", players=2, fallback_level="random")
        mine = here.post(f"/api/rooms/{room['code']}/seats", json={"name": "Rodrigo"}).json()
        body = {"seats": [{"room": room["code"], "token": mine["token"]}]}
        assert here.post("/api/account/seats", json=body, headers=SAME).json()["refused"] == 0
        assert here.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room)).is_success
        with httpx.Client(
            base_url=two, cookies={COOKIE: here.cookies[COOKIE]}, timeout=30
        ) as there:
            given = there.post(f"/api/account/games/{room['code']}/seat", headers=SAME).json()
            assert given["token"] == mine["token"] and given["seat"] == 1
            listed = there.get("/api/account/games").json()["current"]
            assert [game["room"] for game in listed] == [room["code"]]
            assert listed[0]["status"] == "playing" and listed[0]["to_move"] in (0, 1)
