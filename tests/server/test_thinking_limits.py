"""Issue 28 item 2 against a real ``apothecary serve``: bots and hints cannot
starve others. A planted endless bot or hint is stopped at its wall-clock
limit and its room goes on while another room's bots still answer; a seat
gets one hint at a time; a room nobody is connected to stops playing until
someone connects. Small and seeded; nothing asserts how long anything took."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import app_client, host_headers, make_room, server_process, sqlite_url
from websockets.sync.client import ClientConnection, connect

import apothecary
from apothecary.server import replays
from apothecary.server.routes.hints import HintShares, TooManyHints

WAIT = 120.0
"""The longest a test waits for what it expects (a loaded machine is slow)."""

PLANTED = """
import asyncio, pathlib, sys
import planted_thinking as planted
import apothecary.server.replays as replays
from apothecary.cli import main


async def endless_hint(self, code, token):
    # Planted: the hint's search never ends (an LDoP hint thinks 31-86 s); it
    # is thought in the real pool, within the real --hint-seconds.
    room = await asyncio.to_thread(replays.load_room, self.store, code)
    seat = room.seat_of(token)
    position = room.hint_position(seat)
    with ARRIVED.open("a") as arrived:
        arrived.write("hint\\n")
    await self.analyses.think(planted.EndlessBot(room.game, seat), position, ("hint", code))
    return {}


ARRIVED = pathlib.Path(sys.argv.pop(1))
planted.register("poison-pot")
replays.Replays.hint = endless_hint
sys.argv[0] = "apothecary"
main()
"""


@contextmanager
def planted_server(tmp_path: Path, *flags: str) -> Iterator[tuple[str, Path]]:
    """A server with the endless bot and hint planted: (base URL, the file each
    admitted hint writes a line to)."""
    arrived = tmp_path / "arrived"
    arrived.touch()
    launcher = [sys.executable, "-c", PLANTED, str(arrived)]
    with server_process(sqlite_url(tmp_path), *flags, launcher=launcher) as (base, _process):
        yield base, arrived


def started_room(client: httpx.Client, seats: list[str], **body: Any) -> dict[str, Any]:
    """A Poison Pot room of two, started."""
    room = make_room(client, game="poison-pot", players=2, seats=seats, **body)
    started = client.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
    assert started.status_code == 200, started.text
    return room


def wait_over(client: httpx.Client, *codes: str) -> None:
    """Return once every room named is over."""
    deadline = time.monotonic() + WAIT
    for code in codes:
        while client.get(f"/api/rooms/{code}").json()["status"] != "over":
            assert time.monotonic() < deadline, f"room {code} did not finish"
            time.sleep(0.1)


@contextmanager
def socket(base: str, code: str, token: str | None) -> Iterator[ClientConnection]:
    """A socket of room ``code`` that has said hello (as a seat, or to watch)."""
    url = base.replace("http://", "ws://") + f"/ws/rooms/{code}"
    with connect(url, open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        yield ws


def test_an_endless_bot_is_stopped_and_every_room_plays_on(tmp_path: Path) -> None:
    flags = ("--workers-for-bots", "1", "--bot-seconds", "0.5", "--pause-after", "3600")
    with (
        planted_server(tmp_path, *flags) as (base, _arrived),
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        # One pool worker: the endless bot holds it until it is stopped, each turn.
        stuck = started_room(client, ["endless", "easy"], host_name=None, seed="stuck")
        other = started_room(client, ["easy", "easy"], host_name=None, seed="other")
        wait_over(client, other["code"], stuck["code"])
        record = client.get(f"/api/rooms/{stuck['code']}/games/1/record")
        assert record.status_code == 200, record.text
        assert len(record.json()["actions"]) > 2  # the endless seat's turns were played


def _my_turn(ws: ClientConnection, seat: int) -> None:
    """Read updates until it is ``seat``'s turn."""
    deadline = time.monotonic() + WAIT
    while True:
        assert time.monotonic() < deadline, "our turn never came"
        message = json.loads(ws.recv(timeout=WAIT))
        update = message["type"] == "update"
        if update and message["to_move"] == seat and message["waiting_for"] == "human":
            return


def test_an_endless_hint_is_stopped_and_a_seat_has_one_at_a_time(tmp_path: Path) -> None:
    flags = ("--workers-for-bots", "1", "--hint-seconds", "2")
    with (
        planted_server(tmp_path, *flags) as (base, arrived),
        httpx.Client(base_url=base, timeout=WAIT) as client,
    ):
        room = make_room(
            client,
            host_name="hana",
            game="poison-pot",
            players=2,
            seats=["open", "easy"],
            hints=True,
        )
        code = room["code"]
        with socket(base, code, room["seat_token"]) as ws:
            started = client.post(f"/api/rooms/{code}/start", headers=host_headers(room))
            assert started.status_code == 200, started.text
            _my_turn(ws, room["seat"])
            mine = {"Authorization": f"Bearer {room['seat_token']}"}
            answers: list[httpx.Response] = []
            asker = threading.Thread(
                target=lambda: answers.append(client.post(f"/api/rooms/{code}/hint", headers=mine))
            )
            asker.start()
            deadline = time.monotonic() + WAIT
            while arrived.read_text().count("hint") < 1:
                assert time.monotonic() < deadline, "the first hint never started"
                time.sleep(0.02)
            second = client.post(f"/api/rooms/{code}/hint", headers=mine)
            assert (second.status_code, second.json()["error"]) == (429, "too_many_hints")
            # Meanwhile another room's bots answer (they think in the hub's own pool).
            other = started_room(client, ["easy", "easy"], host_name=None)
            wait_over(client, other["code"])
            asker.join(WAIT)
            assert len(answers) == 1
            assert (answers[0].status_code, answers[0].json()["error"]) == (
                503,
                "thinking_too_long",
            )
            # Its place is free again: the next hint is thought (and stopped) in turn.
            third = client.post(f"/api/rooms/{code}/hint", headers=mine)
            assert (third.status_code, third.json()["error"]) == (503, "thinking_too_long")
            assert arrived.read_text().count("hint") == 2


def test_a_room_nobody_is_connected_to_stops_playing_until_someone_watches(
    tmp_path: Path,
) -> None:
    with (
        server_process(sqlite_url(tmp_path), "--pause-after", "0") as (base, _process),
        httpx.Client(base_url=base, timeout=10) as client,
    ):
        alone = make_room(client, host_name=None, game="poison-pot", players=2,
                          seats=["easy", "easy"], seed="alone")  # fmt: skip
        watched = make_room(client, host_name=None, game="poison-pot", players=2,
                            seats=["easy", "easy"], seed="watched")  # fmt: skip
        with socket(base, watched["code"], None):
            for room in (alone, watched):
                started = client.post(
                    f"/api/rooms/{room['code']}/start", headers=host_headers(room)
                )
                assert started.status_code == 200, started.text
            # A spectator sees the watched room's bots play a whole game ...
            wait_over(client, watched["code"])
        # ... while the room nobody is connected to played no move at all.
        step = client.get(f"/api/rooms/{alone['code']}/games/1/record")
        assert step.status_code == 409  # still being played
        with socket(base, alone["code"], None) as ws:
            moves = 0
            while True:  # a spectator connects: the bots play on, to the end
                message = json.loads(ws.recv(timeout=WAIT))
                if message["type"] == "update":
                    moves += len(message["events"])
                    if message["status"] == "over":
                        break
        assert moves > 0


def test_hint_shares_per_address_and_per_minute() -> None:
    shares = HintShares(per_minute=2)
    with (
        shares.admitted("seat-1", "1.2.3.4"),
        shares.admitted("seat-2", "1.2.3.4"),
        pytest.raises(TooManyHints, match="still thinking"),
        shares.admitted("seat-1", "1.2.3.4"),
    ):
        pass
    # Two a minute per seat: the third at once is refused, another seat is not.
    with shares.admitted("seat-1", "1.2.3.4"):
        pass
    with pytest.raises(TooManyHints, match="wait a minute"), shares.admitted("seat-1", "5.6.7.8"):
        pass
    with shares.admitted("seat-3", "5.6.7.8"):
        pass
    assert not shares.asking  # every place held was given back


def test_an_address_has_a_few_hints_at_once() -> None:
    shares = HintShares(per_minute=100)
    with contextlib.ExitStack() as stack:
        for n in range(4):
            stack.enter_context(shares.admitted(f"seat-{n}", "1.2.3.4"))
        with pytest.raises(TooManyHints, match="4 hints thinking"):
            stack.enter_context(shares.admitted("seat-9", "1.2.3.4"))
        stack.enter_context(shares.admitted("seat-9", "5.6.7.8"))  # another address may


def _uploaded_games(client: Any, count: int) -> list[str]:
    """``count`` finished random games of Poison Pot uploaded: their replays' paths."""
    import random

    from apothecary.core.game import sample_chance
    from apothecary.core.records import Record

    paths = []
    for n in range(count):
        rng = random.Random(n)
        state = apothecary.load("poison-pot", players=2, radius=2).new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        answer = client.post("/api/replays", content=Record.from_state(state).dumps())
        assert answer.status_code == 201, answer.text
        paths.append(f"/api/replays/{answer.json()['code']}/1/analysis")
    return paths


@pytest.fixture
def endless_analyses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every decision of an analysis waits for ever (so an analysis runs until stopped)."""

    async def never(*_args: Any, **_kwargs: Any) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    monkeypatch.setattr(replays.Analyses, "value", never)


@pytest.mark.usefixtures("endless_analyses")
def test_an_address_runs_one_analysis_at_a_time(tmp_path: Path) -> None:
    with app_client(sqlite_url(tmp_path)) as client:
        first, second = _uploaded_games(client, 2)
        assert client.post(first).json()["status"] == "running"
        refused = client.post(second)
        assert (refused.status_code, refused.json()["error"]) == (429, "too_many_analyses")
        assert client.post(first).status_code == 200  # the running one is never refused


@pytest.mark.usefixtures("endless_analyses")
def test_the_server_runs_a_few_analyses_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replays, "ANALYSES_PER_ADDRESS", 10)
    with app_client(sqlite_url(tmp_path)) as client:
        paths = _uploaded_games(client, replays.ANALYSES_AT_ONCE + 1)
        for path in paths[:-1]:
            assert client.post(path).json()["status"] == "running"
        refused = client.post(paths[-1])
        assert (refused.status_code, refused.json()["error"]) == (429, "too_many_analyses")
        assert "its most" in refused.json()["message"]


def test_bots_in_a_thread_seat_only_levels_and_quick_bots(tmp_path: Path) -> None:
    # A thread cannot be stopped at --bot-seconds, so a server whose bots think
    # in one (--workers-for-bots 0, as here) refuses a named search bot; the
    # game's levels and the bots registered as quick (random, rules) still sit.
    with app_client(sqlite_url(tmp_path)) as client:
        refused = client.post(
            "/api/rooms", json={"game": "poison-pot", "players": 2, "seats": ["rollout", "easy"]}
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"] == "bot_needs_workers"
        assert "rollout" in refused.json()["message"]
        fallback = client.post(
            "/api/rooms", json={"game": "poison-pot", "fallback_level": "rollout"}
        )
        assert fallback.json()["error"] == "bot_needs_workers", fallback.text
        room = make_room(client, game="poison-pot", players=2, seats=["open", "random"])
        seat = f"/api/rooms/{room['code']}/seats/1/bot"
        for level in ("easy", "hard", "random", "rules"):  # rules: a quick bot
            put = client.put(seat, json={"level": level}, headers=host_headers(room))
            assert put.status_code == 200, put.text
        put = client.put(seat, json={"level": "rollout"}, headers=host_headers(room))
        assert put.status_code == 400 and put.json()["error"] == "bot_needs_workers", put.text
