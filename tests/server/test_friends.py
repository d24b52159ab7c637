"""Friends (issue #31, item 5: "Invite a friend by user name to a room; a friends
list with who is online; block a person so they cannot invite you or sit at your
rooms"), over HTTP on SQLite and on a real PostgreSQL (``db_url``): requests and
their answers, invitations shown with the room's link, who is online (a recent
request, or an open room socket), blocks, the cross-site check, and migration
0012 folding rated_seats into seat_links."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient
from serving import cluster_flags, make_room, server_process
from test_account_seats import acting_as, session_of
from test_accounts import SAME, client_on, sign_up
from test_accounts_http import ROOMY, signed_up
from test_http_api import GAME
from test_store import HEAD, schema_drift

from apothecary.server.friends import ONLINE_SECONDS
from apothecary.server.room import hash_token
from apothecary.server.store import Store, account_sessions, alembic_config, seat_links, users


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with client_on(db_url, create_per_minute=1_000_000) as made:
        yield made


class People:
    """Accounts made on one client, each request sent with one of their sessions."""

    def __init__(self, client: TestClient, *names: str) -> None:
        self.client = client
        self.sessions: dict[str, str] = {}
        for name in names:
            made = sign_up(client, name)
            assert made.status_code == 201, made.text
            self.sessions[name] = session_of(made)

    def send(self, who: str | None, method: str, path: str, **body: Any) -> Any:
        """``who``'s request (None: a guest's); a state-changing one with the header."""
        acting_as(self.client, None if who is None else self.sessions[who])
        headers = SAME if method != "GET" else {}
        return self.client.request(method, path, json=body or None, headers=headers)

    def listing(self, who: str) -> dict[str, Any]:
        answer = self.send(who, "GET", "/api/friends")
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    def befriend(self, one: str, other: str) -> None:
        asked = self.send(one, "POST", "/api/friends/requests", name=other)
        assert asked.json() == {"state": "requested"}, asked.text
        accepted = self.send(other, "POST", f"/api/friends/requests/{one}/accept")
        assert accepted.status_code == 200, accepted.text


def refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] == code, answer.text


def names(listing: dict[str, Any]) -> list[str]:
    return [friend["name"] for friend in listing["friends"]]


def test_a_request_accepted_makes_friends_on_both_sides(client: TestClient) -> None:
    people = People(client, "ann", "bob", "cyd")
    people.send("ann", "POST", "/api/friends/requests", name="BOB")  # names fold case
    assert people.listing("ann")["outgoing"] == ["bob"]
    assert people.listing("bob")["incoming"] == ["ann"]
    assert names(people.listing("bob")) == []
    assert people.send("bob", "POST", "/api/friends/requests/ann/accept").status_code == 200
    assert names(people.listing("ann")) == ["bob"] and names(people.listing("bob")) == ["ann"]
    assert people.listing("ann")["outgoing"] == [] and people.listing("bob")["incoming"] == []
    # Two people who ask each other are friends at the second request.
    people.send("cyd", "POST", "/api/friends/requests", name="ann")
    again = people.send("ann", "POST", "/api/friends/requests", name="cyd")
    assert again.json() == {"state": "friends"}
    assert names(people.listing("ann")) == ["bob", "cyd"]
    # Either may end it.
    assert people.send("bob", "DELETE", "/api/friends/ann").status_code == 200
    assert names(people.listing("ann")) == ["cyd"] and names(people.listing("bob")) == []


def test_a_declined_request_is_gone_and_answers_need_a_request(client: TestClient) -> None:
    people = People(client, "ann", "bob")
    people.send("ann", "POST", "/api/friends/requests", name="bob")
    assert people.send("bob", "POST", "/api/friends/requests/ann/decline").status_code == 200
    assert people.listing("ann")["outgoing"] == [] and people.listing("bob")["incoming"] == []
    refused(people.send("bob", "POST", "/api/friends/requests/ann/accept"), 404, "no_request")
    # The one who asked cannot accept their own request.
    people.send("ann", "POST", "/api/friends/requests", name="bob")
    refused(people.send("ann", "POST", "/api/friends/requests/bob/accept"), 404, "no_request")


def test_refusals_have_their_own_codes(client: TestClient) -> None:
    people = People(client, "ann", "bob")
    refused(
        people.send("ann", "POST", "/api/friends/requests", name="nobody"), 404, "user_not_found"
    )
    refused(people.send("ann", "POST", "/api/friends/requests", name="ann"), 400, "yourself")
    refused(people.send(None, "GET", "/api/friends"), 401, "not_signed_in")
    room = make_room(client, game=GAME, players=2)
    invite = {"name": "bob", "room": room["code"]}
    refused(people.send("ann", "POST", "/api/friends/invitations", **invite), 403, "not_friends")
    people.befriend("ann", "bob")
    gone = {"name": "bob", "room": "nosuchroom"}
    refused(people.send("ann", "POST", "/api/friends/invitations", **gone), 404, "no_room")


def test_a_friends_route_refuses_a_cross_site_request(client: TestClient) -> None:
    """docs/accounts.md#cross-site-requests: a state-changing account request
    without X-Apothecary is refused, and /api/friends is an account's."""
    people = People(client, "ann", "bob")
    acting_as(client, people.sessions["ann"])
    bare = client.post("/api/friends/requests", json={"name": "bob"})
    refused(bare, 403, "cross_site")
    other_site = client.post(
        "/api/friends/requests",
        json={"name": "bob"},
        headers={**SAME, "Sec-Fetch-Site": "cross-site"},
    )
    refused(other_site, 403, "cross_site")
    assert people.listing("bob")["incoming"] == []


def test_an_invitation_shows_with_the_rooms_link_until_dismissed(client: TestClient) -> None:
    people = People(client, "ann", "bob")
    people.befriend("ann", "bob")
    acting_as(client, people.sessions["ann"])
    room = make_room(client, game=GAME, players=2)
    sent = people.send("ann", "POST", "/api/friends/invitations", name="bob", room=room["code"])
    assert sent.status_code == 200, sent.text
    [invitation] = people.listing("bob")["invitations"]
    assert invitation["from"] == "ann" and invitation["room"] == room["code"]
    assert invitation["link"] == f"/rooms/{room['code']}" and invitation["title"]
    assert people.listing("ann")["invitations"] == []  # it is bob's, not ann's
    # Bob follows the link and sits down, signed in.
    assert (
        people.send("bob", "POST", f"/api/rooms/{room['code']}/seats", name="bob").status_code
        == 200
    )
    assert (
        people.send("bob", "DELETE", f"/api/friends/invitations/{room['code']}").status_code == 200
    )
    assert people.listing("bob")["invitations"] == []


def test_a_friend_is_online_after_a_recent_request_and_offline_after_none(
    client: TestClient, db_url: str
) -> None:
    """Online: one of the account's sessions was used in the last ONLINE_SECONDS."""
    people = People(client, "ann", "bob")
    people.befriend("ann", "bob")
    assert people.listing("ann")["friends"][0]["online"] is True  # bob just accepted
    long_ago = time.time() - ONLINE_SECONDS - 60
    store = Store(db_url)
    try:
        with store.engine.begin() as connection:
            connection.execute(account_sessions.update().values(last_seen=long_ago))
        # Ann's own request renews her session, not bob's.
        assert people.listing("ann")["friends"][0]["online"] is False
    finally:
        store.close()


def test_an_open_room_socket_keeps_its_account_online(client: TestClient, db_url: str) -> None:
    """A signed-in person playing in a room makes no HTTP request for minutes: the
    socket, which came with the session cookie, renews the session while open."""
    people = People(client, "ann", "bob")
    people.befriend("ann", "bob")
    room = make_room(client, game=GAME, players=2)
    long_ago = time.time() - ONLINE_SECONDS - 60
    store = Store(db_url)
    try:
        with store.engine.begin() as connection:
            connection.execute(account_sessions.update().values(last_seen=long_ago))
        assert people.listing("ann")["friends"][0]["online"] is False
        cookie = {"cookie": f"apothecary_session={people.sessions['bob']}"}
        with client.websocket_connect(f"/ws/rooms/{room['code']}", headers=cookie) as socket:
            socket.send_json({"type": "hello"})
            socket.receive_json()  # the welcome: the socket is open
            online = False
            for _ in range(200):  # the renewal is written by the store's writer, soon
                online = people.listing("ann")["friends"][0]["online"]
                if online:
                    break
                time.sleep(0.05)
            assert online
    finally:
        store.close()


def test_a_block_ends_the_friendship_and_stops_requests_and_invitations(
    client: TestClient,
) -> None:
    people = People(client, "ann", "bob")
    people.befriend("ann", "bob")
    acting_as(client, people.sessions["bob"])
    room = make_room(client, game=GAME, players=2)
    people.send("bob", "POST", "/api/friends/invitations", name="ann", room=room["code"])
    assert people.listing("ann")["invitations"] != []
    assert people.send("ann", "POST", "/api/friends/blocks", name="bob").status_code == 200
    ann, bob = people.listing("ann"), people.listing("bob")
    assert names(ann) == [] and names(bob) == [] and ann["blocked"] == ["bob"]
    assert ann["invitations"] == []  # bob's invitation went with the friendship
    refused(people.send("bob", "POST", "/api/friends/requests", name="ann"), 403, "blocked")
    refused(
        people.send("bob", "POST", "/api/friends/invitations", name="ann", room=room["code"]),
        403,
        "blocked",
    )
    assert people.listing("ann")["incoming"] == []
    # The blocker is told to unblock before asking; unblocking brings no friendship back.
    refused(people.send("ann", "POST", "/api/friends/requests", name="bob"), 403, "blocked")
    assert people.send("ann", "DELETE", "/api/friends/blocks/bob").status_code == 200
    assert people.listing("ann")["blocked"] == [] and names(people.listing("ann")) == []
    assert people.send("bob", "POST", "/api/friends/requests", name="ann").status_code == 200


def test_someone_blocked_cannot_sit_at_the_blockers_rooms(client: TestClient) -> None:
    """ "block a person so they cannot ... sit at your rooms": the account that
    created a room signed in is its host; a person it blocked is refused a seat
    there, signed in, while others sit."""
    people = People(client, "ann", "bob", "cyd")
    people.send("ann", "POST", "/api/friends/blocks", name="bob")
    acting_as(client, people.sessions["ann"])
    mine = make_room(client, game=GAME, players=3)
    seats = f"/api/rooms/{mine['code']}/seats"
    refused(people.send("bob", "POST", seats, name="bob"), 403, "blocked")
    assert people.send("cyd", "POST", seats, name="cyd").status_code == 200
    # A room ann did not create (a guest's) is not hers to close to bob.
    acting_as(client, None)
    theirs = make_room(client, game=GAME, players=2)
    elsewhere = f"/api/rooms/{theirs['code']}/seats"
    assert people.send("bob", "POST", elsewhere, name="bob").status_code == 200
    # Once unblocked, bob sits at ann's room.
    people.send("ann", "DELETE", "/api/friends/blocks/bob")
    assert people.send("bob", "POST", seats, name="bob").status_code == 200


def test_a_deleted_account_leaves_no_friendship_block_or_invitation(client: TestClient) -> None:
    people = People(client, "ann", "bob", "cyd")
    people.befriend("ann", "bob")
    people.send("cyd", "POST", "/api/friends/blocks", name="bob")
    acting_as(client, people.sessions["bob"])
    room = make_room(client, game=GAME, players=2)
    people.send("bob", "POST", "/api/friends/invitations", name="ann", room=room["code"])
    gone = people.send("bob", "POST", "/api/account/delete", password="correct horse battery")
    assert gone.status_code == 200, gone.text
    ann = people.listing("ann")
    assert names(ann) == [] and ann["invitations"] == []
    assert people.listing("cyd")["blocked"] == []


def test_0012_moves_rated_seats_into_seat_links_and_goes_back(db_url: str) -> None:
    """0012 makes seat_links the one table of seats' accounts: a rated seat's link
    moves over (no token: rated_seats kept none), one already there is kept once;
    going back brings rated_seats again."""
    old = Store(db_url)
    with old.engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0009")
        for name, user_id in (("ann", 1), ("bob", 2)):
            connection.execute(
                sa.text(
                    "INSERT INTO users (id, name, name_key, password_hash, created, "
                    "password_changed) VALUES (:id, :name, :name, 'x', 0, 0)"
                ),
                {"id": user_id, "name": name},
            )
        connection.execute(
            sa.text(
                "INSERT INTO seat_links (room, token_hash, user_id, seat_token, linked) "
                "VALUES ('r1', 'h-ann', 1, 'tok-ann', 5.0)"
            )
        )
        for token_hash, user_id in (("h-ann", 1), ("h-bob", 2)):
            connection.execute(
                sa.text(
                    "INSERT INTO rated_seats (room, token_hash, user_id) VALUES ('r1', :h, :u)"
                ),
                {"h": token_hash, "u": user_id},
            )
    old.close()
    store = Store(db_url)
    store.migrate()
    try:
        assert store.revision() == HEAD and schema_drift(store) == []
        with store.engine.connect() as connection:
            rows = connection.execute(
                sa.select(
                    seat_links.c.token_hash, seat_links.c.user_id, seat_links.c.seat_token
                ).order_by(seat_links.c.token_hash)
            ).all()
        assert [tuple(row) for row in rows] == [("h-ann", 1, "tok-ann"), ("h-bob", 2, None)]
        with store.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0009")
            back = connection.execute(
                sa.text("SELECT token_hash FROM seat_links ORDER BY token_hash")
            ).scalars()
            assert list(back) == ["h-ann"]  # the tokenless link cannot be a 0009 row
        assert "rated_seats" in sa.inspect(store.engine).get_table_names()
    finally:
        store.close()


def test_friends_online_invitations_and_blocks_hold_across_cluster_processes(
    postgres_db_url: str, redis_url: str
) -> None:
    """Several processes on one database: a request made through one is answered
    through the other, a friend signed in on the other is online, an invitation
    sent through one shows on the other, and a host's block refuses a seat claimed
    through the other process."""
    flags = (*cluster_flags(redis_url, f"t{secrets.token_hex(4)}"), *ROOMY)
    with (
        server_process(postgres_db_url, *flags) as (one, _),
        server_process(postgres_db_url, *flags) as (two, _),
        signed_up(one, "Ottilie") as ann,
        signed_up(two, "Bartholomew") as bob,
    ):
        ask = ann.post("/api/friends/requests", json={"name": "Bartholomew"}, headers=SAME)
        assert ask.json() == {"state": "requested"}, ask.text
        accepted = bob.post("/api/friends/requests/Ottilie/accept", headers=SAME)
        assert accepted.status_code == 200, accepted.text
        [friend] = ann.get("/api/friends").json()["friends"]
        assert friend == {**friend, "name": "Bartholomew", "online": True}
        room = make_room(ann, game=GAME, players=2)
        invite = {"name": "Bartholomew", "room": room["code"]}
        assert ann.post("/api/friends/invitations", json=invite, headers=SAME).status_code == 200
        [invitation] = bob.get("/api/friends").json()["invitations"]
        assert invitation["room"] == room["code"] and invitation["from"] == "Ottilie"
        assert ann.post(
            "/api/friends/blocks", json={"name": "Bartholomew"}, headers=SAME
        ).is_success
        seat = bob.post(f"/api/rooms/{room['code']}/seats", json={"name": "B"}, headers=SAME)
        refused(seat, 403, "blocked")
        assert bob.get("/api/friends").json()["invitations"] == []


def test_a_link_moved_without_its_token_gets_it_back_when_the_seat_is_proved(
    client: TestClient, db_url: str
) -> None:
    """A rated seat's link moved by 0012 has no token: it gives none to another
    device (no_seat) until the seat's first device proves the token again."""
    people = People(client, "ann")
    acting_as(client, None)
    room = make_room(client, game=GAME, players=2)
    store = Store(db_url)
    try:
        with store.engine.begin() as connection:
            connection.execute(
                seat_links.insert().values(
                    room=room["code"],
                    token_hash=hash_token(room["seat_token"]),
                    user_id=sa.select(users.c.id).scalar_subquery(),
                    seat_token=None,
                    linked=0.0,
                )
            )
    finally:
        store.close()
    credentials = f"/api/account/games/{room['code']}/seat"
    refused(people.send("ann", "POST", credentials), 404, "no_seat")
    proved = people.send(
        "ann",
        "POST",
        "/api/account/seats",
        seats=[{"room": room["code"], "token": room["seat_token"]}],
    )
    assert proved.json()["refused"] == 0, proved.text
    given = people.send("ann", "POST", credentials)
    assert given.status_code == 200 and given.json()["token"] == room["seat_token"], given.text
