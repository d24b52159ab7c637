"""A rated game between two accounts on a real ``apothecary serve`` process: both
ratings move by openskill's numbers, both profiles list the game with its replay,
and the leaderboard has both, best first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rated_play import play_to_the_end
from serving import server_process, sqlite_url
from test_accounts import SAME
from test_accounts_http import ROOMY, signed_up


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with server_process(sqlite_url(tmp_path_factory.mktemp("rated")), *ROOMY) as (url, _):
        yield url


def test_a_rated_game_between_two_accounts_moves_both_ratings(base: str) -> None:
    with signed_up(base, "ann") as ann, signed_up(base, "bob") as bob:
        made = ann.post(
            "/api/rooms",
            json={"game": "poison-pot", "players": 2, "rated": True, "host_name": "x"},
            headers=SAME,
        )
        assert made.status_code == 201, made.text
        room = made.json()
        code = room["code"]
        joined = bob.post(f"/api/rooms/{code}/seats", json={"name": "y"}, headers=SAME)
        assert joined.status_code == 200, joined.text
        started = ann.post(
            f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {room['host_token']}"}
        )
        assert started.status_code == 200, started.text
        outcome = play_to_the_end(base, code, [room["seat_token"], joined.json()["token"]])
        pages = {name: ann.get(f"/api/users/{name}").json() for name in ("ann", "bob")}
        board = ann.get("/api/leaderboard/poison-pot?players=2").json()["boards"][0]["entries"]
    seat_of = {"ann": room["seat"], "bob": joined.json()["seat"]}
    for name, page in pages.items():
        (played,) = page["games"]
        assert (played["game"], played["players"], played["games"]) == ("poison-pot", 2, 1)
        assert played["wins"] == int(seat_of[name] in outcome["winners"])
        assert played["plus_minus"] == 968  # 40·3σ, σ 8.3333 → 8.0659 after one game
        # openskill PlackettLuce: 25 → 27.6354 (1105) for a win, 22.3646 (895) for a loss.
        expected = 1000 if not outcome["winners"] else 1105 if played["wins"] else 895
        assert played["rating"] == expected
        (recent,) = page["recent"]
        assert recent["replay"] == f"/replay/{code}/1" and recent["before"]["rating"] == 1000
    assert {entry["name"] for entry in board} == {"ann", "bob"}
    ratings = [entry["conservative"] for entry in board]
    assert ratings == sorted(ratings, reverse=True)
