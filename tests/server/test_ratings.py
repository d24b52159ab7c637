"""Ratings in one process: openskill's update as the server applies it, how a finished
rated game moves its seats' ratings in the store (SQLite and PostgreSQL), the
leaderboard's order, the profile, and the refusals of a rated room."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from test_accounts import GOOD, SAME, client_on

from apothecary.server.ratings import (
    bot_subject,
    fresh,
    leaderboard,
    link_seat,
    placings,
    profile,
    rate_finished,
    shown,
    update,
    user_subject,
)
from apothecary.server.room import TIMEOUT, Changes, Room, Settings, hash_token
from apothecary.server.store import Store, rating_history, ratings, users

# -- the numbers ---------------------------------------------------------------------------


def test_two_newcomers_move_by_openskills_plackett_luce_numbers() -> None:
    """openskill's PlackettLuce, defaults μ = 25, σ = 25/3: after one game between
    two newcomers the winner has μ 27.6354, the loser 22.3646, both σ 8.0659."""
    assert fresh() == (25.0, 25 / 3)
    after = update([("a", 25.0, 25 / 3), ("b", 25.0, 25 / 3)], [1, 2])
    assert after["a"] == pytest.approx((27.635389, 8.065901), abs=1e-5)
    assert after["b"] == pytest.approx((22.364611, 8.065901), abs=1e-5)
    # Shown: 40 μ ± 40·3σ, ranked by 40 (μ - 3σ).
    assert shown(25.0, 25 / 3) == {"rating": 1000, "plus_minus": 1000, "conservative": 0}
    assert shown(*after["a"]) == {"rating": 1105, "plus_minus": 968, "conservative": 138}
    # A tie moves nobody's μ, only shrinks the uncertainty.
    tied = update([("a", 25.0, 25 / 3), ("b", 25.0, 25 / 3)], [1, 1])
    assert tied["a"][0] == pytest.approx(25.0) and tied["a"][1] < 25 / 3


def test_a_bot_level_in_two_seats_moves_by_the_mean_of_its_seats() -> None:
    after = update(
        [("a", 25.0, 25 / 3), ("bot:hard", 25.0, 25 / 3), ("bot:hard", 25.0, 25 / 3)], [1, 2, 2]
    )
    assert after["a"] == pytest.approx((27.869049, 8.205243), abs=1e-5)
    assert after["bot:hard"] == pytest.approx((23.565476, 8.058224), abs=1e-5)


def _room(seats: list[str], rated: bool = True) -> Room:
    room, _ = Room.create("poison-pot", 2, {}, seats, Settings(rated=rated), 0.0, "seed")
    return room


def test_a_seat_the_bot_still_plays_at_the_end_has_abandoned_and_loses() -> None:
    """Board Game Arena's rule: abandoning a rated game counts as a loss, below
    everyone who stayed, even when the bot playing the seat won the position."""
    room = _room(["open", "open"])
    room.claim("ann")
    room.claim("bob")
    room.seats[0].hand_to_bot("medium", TIMEOUT)
    placed = placings(room, [0], {0: 7, 1: 8})
    assert [(p.subject, p.rank, p.won, p.abandoned) for p in placed] == [
        ("user:7", 3, False, True),
        ("user:8", 2, False, False),
    ]
    room.seats[0].take_back()  # back before the end: the seat is theirs again, and won
    assert [p.rank for p in placings(room, [0], {0: 7, 1: 8})] == [1, 2]
    assert [p.rank for p in placings(room, [], {0: 7, 1: 8})] == [1, 1]  # nobody won: a tie


# -- in the store ---------------------------------------------------------------------------


def _user(store: Store, name: str) -> int:
    with store.engine.begin() as connection:
        made = connection.execute(
            users.insert().values(
                name=name,
                name_key=name.lower(),
                password_hash="x",
                created=0.0,
                password_changed=0.0,
            )
        )
        return int(made.inserted_primary_key[0])  # type: ignore[index]


def play_rated(store: Store, seats: list[str], people: dict[int, int], seed: str) -> Room:
    """A rated poison-pot room with these seats (``people``: seat to account id),
    played to its end with each commit written as the hub writes it."""
    room, _ = Room.create("poison-pot", 2, {}, seats, Settings(rated=True), 0.0, seed)
    store.commit(room, Changes(), 0.0)
    for seat, user_id in people.items():
        _index, token = room.claim(f"person{seat}", seat)
        with store.engine.begin() as connection:
            link_seat(connection, room.code, hash_token(token), user_id)
    store.commit(room, room.start(1.0), 1.0)
    step = 0
    while room.status == "playing":
        state = room.state
        assert state is not None
        pending = room.pending()
        assert pending is not None
        legal = state.legal_actions()
        action = room.chance_action() if pending.kind == "chance" else legal[step % len(legal)]
        step += 1
        store.commit(room, room.apply(action, 2.0 + step), 2.0 + step)
    return room


def test_a_finished_rated_game_moves_both_ratings_once(db_url: str) -> None:
    store = Store(db_url)
    store.migrate()
    try:
        ann, bob = _user(store, "ann"), _user(store, "bob")
        room = play_rated(store, ["open", "open"], {0: ann, 1: bob}, "s1")
        assert room.outcome is not None
        with store.engine.connect() as connection:
            rows = {r.subject: r for r in connection.execute(ratings.select())}
            history = connection.execute(rating_history.select()).all()
        assert set(rows) == {user_subject(ann), user_subject(bob)}
        assert len(history) == 2 and {h.game_no for h in history} == {1}
        winners = room.outcome["winners"]
        assert isinstance(winners, list)
        for seat, user_id in ((0, ann), (1, bob)):
            row = rows[user_subject(user_id)]
            assert row.games == 1 and row.wins == int(seat in winners)
            expected = 27.635389 if winners == [seat] else 22.364611 if winners else 25.0
            assert row.mu == pytest.approx(expected, abs=1e-5)
        # A second commit of the same finish (a replay after a crash) rates nothing again.
        with store.engine.begin() as connection:
            rate_finished(connection, room, 1, 99.0)
        with store.engine.connect() as connection:
            assert (
                connection.execute(sa.select(sa.func.count()).select_from(rating_history)).scalar()
                == 2
            )
            page = profile(connection, "ANN")  # any case
            board = leaderboard(connection, "poison-pot", 2)
        assert page["name"] == "ann" and page["games"][0]["games"] == 1
        assert page["recent"][0]["replay"] == f"/replay/{room.code}/1"
        assert [e["name"] for e in board[0]["entries"]] == sorted(
            ["ann", "bob"], key=lambda n: -rows[user_subject(ann if n == "ann" else bob)].mu
        )
        # Deleting an account deletes its ratings and history (they name it).
        with store.engine.begin() as connection:
            connection.execute(users.delete().where(users.c.id == ann))
        with store.engine.connect() as connection:
            left = {r.subject for r in connection.execute(ratings.select())}
            assert left == {user_subject(bob)}
            assert (
                connection.execute(sa.select(sa.func.count()).select_from(rating_history)).scalar()
                == 1
            )
    finally:
        store.close()


def test_a_bot_seat_rates_the_levels_pseudo_account(db_url: str) -> None:
    store = Store(db_url)
    store.migrate()
    try:
        ann = _user(store, "ann")
        play_rated(store, ["open", "easy"], {0: ann}, "s2")
        play_rated(store, ["easy", "open"], {1: ann}, "s3")
        with store.engine.connect() as connection:
            bot = connection.execute(
                ratings.select().where(ratings.c.subject == bot_subject("easy"))
            ).one()
            entries = leaderboard(connection, "poison-pot", None)[0]["entries"]
        assert bot.games == 2 and bot.user_id is None
        assert {e["name"] for e in entries} == {"ann", "easy bot"}
        assert {e["kind"] for e in entries} == {"user", "bot"}
    finally:
        store.close()


def test_the_leaderboard_ranks_by_the_conservative_rating(tmp_path: Any) -> None:
    """A newcomer who won once (μ high, σ high) is below a steady player whose
    μ - 3σ is higher; a board is per player count."""
    store = Store(f"sqlite:///{tmp_path / 'board.sqlite3'}")
    store.migrate()
    try:
        lucky, steady, weak = _user(store, "lucky"), _user(store, "steady"), _user(store, "weak")
        rows = [
            (lucky, 30.0, 8.0, 2),  # conservative 6.0
            (steady, 27.0, 2.0, 2),  # 21.0
            (weak, 20.0, 1.0, 2),  # 17.0
            (weak, 40.0, 1.0, 3),  # another board
        ]
        with store.engine.begin() as connection:
            for user_id, mu, sigma, players in rows:
                connection.execute(
                    ratings.insert().values(
                        subject=user_subject(user_id),
                        game="poison-pot",
                        players=players,
                        user_id=user_id,
                        mu=mu,
                        sigma=sigma,
                        games=3,
                        wins=1,
                        updated=0.0,
                    )
                )
        with store.engine.connect() as connection:
            boards = leaderboard(connection, "poison-pot", None)
            only = leaderboard(connection, "poison-pot", 3)
        assert [b["players"] for b in boards] == [2, 3]
        assert [e["name"] for e in boards[0]["entries"]] == ["steady", "weak", "lucky"]
        assert [e["place"] for e in boards[0]["entries"]] == [1, 2, 3]
        assert [e["conservative"] for e in boards[0]["entries"]] == [840, 680, 240]
        assert [(b["players"], [e["name"] for e in b["entries"]]) for b in only] == [(3, ["weak"])]
    finally:
        store.close()


# -- the refusals over HTTP -----------------------------------------------------------------


def _signed_up(client: TestClient, name: str) -> str:
    made = client.post("/api/account/sign-up", json={"name": name, "password": GOOD}, headers=SAME)
    assert made.status_code == 201, made.text
    token = made.cookies["apothecary_session"]
    client.cookies.clear()
    return str(token)


def _rated_room(client: TestClient, **body: Any) -> dict[str, Any]:
    made = client.post(
        "/api/rooms", json={"game": "poison-pot", "players": 2, "rated": True, **body}
    )
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    return answer


def test_a_rated_room_refuses_guests_hints_and_a_second_seat(tmp_path: Any) -> None:
    with client_on(f"sqlite:///{tmp_path / 'refusals.sqlite3'}") as client:
        ann = _signed_up(client, "ann")
        hints = client.post("/api/rooms", json={"game": "poison-pot", "rated": True, "hints": True})
        assert (hints.status_code, hints.json()["error"]) == (400, "rated_hints")
        room = _rated_room(client)
        assert room["room"]["settings"]["rated"] is True
        seats = f"/api/rooms/{room['code']}/seats"
        guest = client.post(seats, json={"name": "guest"})
        assert (guest.status_code, guest.json()["error"]) == (403, "rated_needs_account")
        cookie = {"Cookie": f"apothecary_session={ann}"}
        no_header = client.post(seats, json={"name": "x"}, headers=cookie)
        assert (no_header.status_code, no_header.json()["error"]) == (403, "cross_site")
        sat = client.post(seats, json={"name": "typed"}, headers={**cookie, **SAME})
        assert sat.status_code == 200, sat.text
        info = client.get(f"/api/rooms/{room['code']}").json()
        assert info["seats"][sat.json()["seat"]]["name"] == "ann"  # the account's name
        again = client.post(seats, json={"name": "x"}, headers={**cookie, **SAME})
        assert (again.status_code, again.json()["error"]) == (409, "rated_already_seated")
        # A host who names themselves must be signed in, or no room is made.
        before = client.get("/api/rooms").headers["x-total-count"]
        hosted = client.post(
            "/api/rooms", json={"game": "poison-pot", "rated": True, "host_name": "h"}
        )
        assert (hosted.status_code, hosted.json()["error"]) == (403, "rated_needs_account")
        assert client.get("/api/rooms").headers["x-total-count"] == before
        # An unrated room still seats a guest by the name typed.
        casual = client.post("/api/rooms", json={"game": "poison-pot", "host_name": "guest"})
        assert casual.status_code == 201 and casual.json()["room"]["seats"][0]["name"] == "guest"


def test_profiles_and_leaderboards_answer_over_http(tmp_path: Any) -> None:
    with client_on(f"sqlite:///{tmp_path / 'pages.sqlite3'}") as client:
        _signed_up(client, "ann")
        page = client.get("/api/users/Ann")
        assert page.status_code == 200 and page.json()["name"] == "ann"
        assert page.json()["games"] == [] and page.json()["history"] == []
        missing = client.get("/api/users/nobody")
        assert (missing.status_code, missing.json()["error"]) == (404, "user_not_found")
        board = client.get("/api/leaderboard/poison-pot")
        assert board.status_code == 200 and board.json()["boards"] == []
        unknown = client.get("/api/leaderboard/no-such-game")
        assert unknown.status_code in (400, 404), unknown.text
        for path in ("/u/ann", "/leaderboard/poison-pot"):
            assert "text/html" in client.get(path).headers["content-type"]
