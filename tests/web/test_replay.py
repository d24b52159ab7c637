"""The replay viewer in a real browser (Debian's Chromium) against a real server.

Issue 20's replay: a finished game of each of the four games is opened, stepped
through with the page's own controls and seen through each viewpoint. At every
step shown, a seat's view must be exactly that seat's ``observation`` of the
replayed state, and "everything revealed" must show what the seats hide from
each other; an unfinished game's replay link is refused.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import host_headers, make_room

from apothecary import bots
from apothecary.arena.match import play_game
from apothecary.core.game import State
from apothecary.core.records import Record
from apothecary.core.registry import load


def finished_record(name: str, players: int, seed: int) -> Record:
    """A finished game played by the medium bots, chance from ``seed``."""
    game = load(name, players)
    seated = [bots.load("medium", game, p, seed=seed + p) for p in range(players)]
    state = play_game(game, seated, random.Random(seed))
    return Record.from_state(state, [f"P{i}" for i in range(players)])


def named(text: str, names: list[str]) -> str:
    """The engine's words with each "seat N" given its name, as the replay (and the
    room's log) shows them."""
    return re.sub(r"\bseat (\d+)\b", lambda m: names[int(m[1])], text)


def upload(api: httpx.Client, record: Record) -> str:
    response = api.post("/api/replays", content=record.dumps())
    assert response.status_code == 201, response.text
    link: str = response.json()["link"]
    return link


def frame(page: Any) -> dict[str, Any]:
    data: dict[str, Any] = page.evaluate("document.querySelector('#replay').replayFrame")
    return data


def wait_step(page: Any, step: int, view: str) -> dict[str, Any]:
    page.wait_for_selector(f"#replay[data-step='{step}'][data-view='{view}']")
    return frame(page)


def analysed(page: Any, web_server: str, api: httpx.Client, record: Record, step: int) -> None:
    """``record`` uploaded, opened at ``step`` with everything revealed, and its
    analysis run to the end."""
    link = upload(api, record)
    page.goto(f"{web_server}{link}?move={step}&view=all")
    wait_step(page, step, "all")
    page.click("#analyse")
    page.wait_for_selector("#replay-analysis[data-status='done']", timeout=60_000)


def replayed(record: Record, step: int) -> State:
    return record.replay(upto=step)


def check_views(page: Any, record: Record, step: int) -> None:
    """Each seat's view at ``step`` is exactly its observation; everything
    revealed holds every seat's observation and the whole state."""
    state = replayed(record, step)
    for seat in range(record.players):
        page.select_option("#replay-view", str(seat))
        shown = wait_step(page, step, str(seat))
        assert shown["observation"] == state.observation(seat), (step, seat)
        assert shown["legal"] == []
        assert page.locator("#replay-board .table-area").count() == 1
        assert page.locator("#replay-board .table-area *").count() > 0
    page.select_option("#replay-view", "all")
    everything = wait_step(page, step, "all")
    assert [v["observation"] for v in everything["views"]] == [
        state.observation(seat) for seat in range(record.players)
    ]
    assert everything["spectator"]["observation"] == state.observation(None)
    assert everything["truth"] == str(state)
    assert page.locator("#replay-board figure.replay-seat").count() == record.players
    assert page.locator("#replay-truth pre").inner_text().strip() == str(state).strip()


def step_forward(page: Any, times: int) -> int:
    for _ in range(times):
        before = int(page.get_attribute("#replay", "data-step"))
        page.click("#replay-forward")
        page.wait_for_selector(f"#replay[data-step='{before + 1}']")
    return int(page.get_attribute("#replay", "data-step"))


GAMES = [
    ("in-vino-morte", 3, 5),
    ("little-drop-of-poison", 3, 1),
    ("poison-pot", 2, 2),
    ("tea-scones-arsenic", 3, 4),
]


@pytest.mark.parametrize(("name", "players", "seed"), GAMES, ids=[g[0] for g in GAMES])
def test_a_finished_game_replays_each_seat_exactly_as_it_saw_it(
    page: Any,
    web_server: str,
    api: httpx.Client,
    name: str,
    players: int,
    seed: int,
    artifacts: Path,
) -> None:
    record = finished_record(name, players, seed)
    link = upload(api, record)
    page.goto(f"{web_server}{link}?view=0")
    wait_step(page, 0, "0")
    # The page's controls: three moves on, then steps spread over the game by the slider.
    at = step_forward(page, 3)
    # The keyboard alone: the arrow keys step (the focus on a control of the replay).
    page.focus("#replay-forward")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#replay[data-step='2']")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-step='3']")
    assert page.inner_text("#replay-counter") == f"move 3 of {len(record.actions)}"
    check_views(page, record, at)
    total = len(record.actions)
    for step in sorted({total // 3, (2 * total) // 3, total}):
        page.fill("#replay-slider", str(step))
        page.dispatch_event("#replay-slider", "input")
        page.wait_for_selector(f"#replay[data-step='{step}']")
        check_views(page, record, step)
    page.click("#replay-back")
    wait_step(page, total - 1, "all")
    assert f"move={total - 1}" in page.input_value("#replay-link")
    page.screenshot(path=str(artifacts / f"replay-{name}.png"), full_page=True)
    assert page.errors == []


def test_everything_revealed_shows_what_the_seats_hide(
    page: Any, web_server: str, api: httpx.Client, artifacts: Path
) -> None:
    # In Vino Morte: the dealer pours covered glasses; only the dealer knows what is in them.
    record = finished_record("in-vino-morte", 3, 5)
    link = upload(api, record)
    state = replayed(record, 0)
    step = 0
    while state.observation(None)["phase"] == "deal" or all(
        g is None for g in state.observation(None)["glasses"]
    ):
        step += 1
        state = replayed(record, step)
        if step > 10:
            break
    dealer = state.observation(None)["dealer"]
    hidden_from_others = state.observation(dealer)["glasses"]
    assert any(g in ("wine", "poison") for g in hidden_from_others)
    page.goto(f"{web_server}{link}?move={step}&view=all")
    everything = wait_step(page, step, "all")
    assert everything["views"][dealer]["observation"]["glasses"] == hidden_from_others
    other = (dealer + 1) % 3
    assert everything["views"][other]["observation"]["glasses"] != hidden_from_others

    # Drawn: the dealer's table shows what is in the covered glasses; another seat's does not.
    def known(seat: int) -> int:
        figure = f"figure[data-seat='{seat}']"
        count: int = page.locator(f"{figure} .ivm-wine, {figure} .ivm-poison").count()
        return count

    revealed = [g for g in hidden_from_others if g in ("wine", "poison")]
    public = [g for g in state.observation(other)["glasses"] if g in ("wine", "poison")]
    assert known(dealer) == len(revealed) > known(other) == len(public)
    truth = page.locator("#replay-truth pre").inner_text()
    assert str(state).strip() == truth.strip()
    page.select_option("#replay-view", str(other))
    seen = wait_step(page, step, str(other))
    assert seen["observation"] == state.observation(other)
    assert seen["observation"]["glasses"] != hidden_from_others
    # The move list reads as the viewpoint read the moves: the dealer's pours revealed
    # with everything revealed, and only as much as seat 1 was told from its eyes.
    first = load("in-vino-morte", 3).new_initial_state()
    pour = first.string_to_action(record.actions[0])
    page.select_option("#replay-view", "1")
    page.wait_for_selector("#replay-moves[data-view='1']")
    as_seen = page.locator("#replay-moves li").first.inner_text()
    assert as_seen == named(first.describe_action(pour, 1)["text"], record.seats)
    page.select_option("#replay-view", "all")
    page.wait_for_selector("#replay-moves[data-view='all']")
    revealed_words = page.locator("#replay-moves li").first.inner_text()
    assert revealed_words == named(first.describe_action(pour, 0)["text"], record.seats) != as_seen
    assert page.locator("#replay-moves li").count() == len(record.actions)
    page.screenshot(path=str(artifacts / "replay-everything-ivm.png"), full_page=True)


def test_a_room_game_opens_from_its_result_and_an_unfinished_one_is_refused(
    page: Any, web_server: str, api: httpx.Client, enter_room: Any, artifacts: Path
) -> None:
    # A game played in a room by bots: its result screen links to its replay.
    answer = make_room(api, game="in-vino-morte", players=3, seats=["open", "random", "random"])
    host = host_headers(answer)
    assert api.post(f"/api/rooms/{answer['code']}/start", headers=host).status_code == 200
    bot = api.put(
        f"/api/rooms/{answer['code']}/seats/0/bot", json={"level": "random"}, headers=host
    )
    assert bot.status_code == 200, bot.text
    deadline = time.monotonic() + 30
    while api.get(f"/api/rooms/{answer['code']}").json()["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    enter_room(page, answer)
    page.wait_for_selector("#open-replay")
    page.click("#open-replay")
    page.wait_for_selector("#replay[data-step='0']")
    record = Record.from_json(api.get(f"/api/rooms/{answer['code']}/games/1/record").json())
    assert frame(page)["truth"] == str(replayed(record, 0))
    # The seats by the names the room gave them (not "random (seat 1)", "host (seat 0)"),
    # in the menu, the moves and the result (not "seat 0 deals ... to seat 2").
    names = ["host", "random bot (seat 1)", "random bot (seat 2)"]
    options = page.locator("#replay-view option").all_inner_texts()[2:]
    assert options == [f"{name}, as they saw it" for name in names]
    facts = api.get(f"/api/replays/{answer['code']}/1").json()
    shown = page.locator("#replay-moves li").all_inner_texts()
    assert shown == [named(move["text"], names) for move in facts["moves"]]
    assert any("seat 0" in move["text"] for move in facts["moves"])  # so a name was put in
    assert named(facts["outcome"]["reason"], names) in page.inner_text(".replay-head")

    # A game still being played: the link is refused, and so is the API.
    playing = make_room(api, game="in-vino-morte", players=3, seats=["open", "random", "random"])
    api.post(f"/api/rooms/{playing['code']}/start", headers=host_headers(playing))
    refused = api.get(f"/api/replays/{playing['code']}/1/steps/0?view=all")
    assert refused.status_code == 409
    assert refused.json()["error"] == "not_finished"
    assert set(refused.json()) == {"error", "message"}
    for path in (f"/api/replays/{playing['code']}/1", f"/api/replays/{playing['code']}/1/analysis"):
        assert api.get(path).status_code == 409
    page.goto(f"{web_server}/replay/{playing['code']}/1?view=all")
    page.wait_for_selector("#replay-refused")
    assert "not over" in page.inner_text("#replay-refused")
    assert page.locator("#replay").count() == 0
    page.screenshot(path=str(artifacts / "replay-refused.png"))


def test_the_arrow_keys_step_as_soon_as_the_replay_opens(
    page: Any, web_server: str, api: httpx.Client
) -> None:
    """Nothing clicked or focused first (before, the keys were heard only inside
    the replay, so they did nothing until a click there)."""
    link = upload(api, finished_record("poison-pot", 2, 2))
    page.goto(f"{web_server}{link}?view=all")
    wait_step(page, 0, "all")
    assert page.evaluate("document.activeElement === document.body")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-step='1']", timeout=5_000)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#replay[data-step='2']", timeout=5_000)
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#replay[data-step='1']", timeout=5_000)
    # The viewpoint menu keeps its own arrows.
    page.focus("#replay-view")
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)  # nothing to wait for: the step must stay where it is
    assert page.get_attribute("#replay", "data-step") == "1"
    assert page.errors == []


def test_a_tampered_upload_names_its_first_bad_action(
    page: Any, web_server: str, api: httpx.Client, tmp_path: Path
) -> None:
    record = finished_record("poison-pot", 2, 2)
    data = json.loads(record.dumps())
    data["actions"][7] = "z9"
    answer = api.post("/api/replays", content=json.dumps(data))
    assert answer.status_code == 400
    assert answer.json()["error"] == "bad_record"
    assert answer.json()["message"].startswith("action 7 ('z9')")
    cut = record.dumps()[: len(record.dumps()) // 2]
    assert api.post("/api/replays", content=cut).json()["error"] == "bad_record"
    # From the page: the file chooser shows the server's words.
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(data))
    page.goto(f"{web_server}/replay")
    page.set_input_files("#record-file", str(bad))
    page.wait_for_selector("#upload-error")
    assert "action 7" in page.inner_text("#upload-error")


def test_the_analysis_fills_the_chart_and_the_plot(
    page: Any, web_server: str, api: httpx.Client, artifacts: Path
) -> None:
    record = finished_record("in-vino-morte", 3, 5)
    analysed(page, web_server, api, record, 0)
    assert page.locator("#analysis-chart svg rect.bar").count() >= 1
    assert page.locator("#analysis-chart svg rect.bar.played").count() == 1
    assert page.locator("#analysis-plot path.chance-line").count() == 3
    page.screenshot(path=str(artifacts / "replay-analysis.png"), full_page=True)


def test_a_seat_asks_for_a_hint_on_its_turn_in_a_room_with_hints(
    page: Any, web_server: str, api: httpx.Client, enter_room: Any, artifacts: Path
) -> None:
    answer = make_room(
        api, game="tea-scones-arsenic", players=2, seats=["open", "random"], hints=True
    )
    assert answer["room"]["settings"]["hints"] is True
    code = answer["code"]
    assert api.post(f"/api/rooms/{code}/start", headers=host_headers(answer)).status_code == 200
    enter_room(page, answer)
    # Everyone is told that the room gives hints.
    assert page.inner_text("#hints-badge") == "Hints on"
    page.wait_for_selector("#hint")
    page.click("#hint")
    page.wait_for_selector("#hint-answer strong")
    hinted = page.locator("#legal button.move.hinted")
    assert hinted.count() == 1
    # The suggestion is one of this seat's legal moves, computed for its token only.
    token = {"Authorization": f"Bearer {answer['seat_token']}"}
    state_id = page.get_attribute("#room", "data-state-id")
    hint = api.post(f"/api/rooms/{code}/hint", headers=token).json()
    assert hint["state_id"] == state_id and hint["seat"] == 0
    notations = page.eval_on_selector_all(
        "#legal button[data-notation]", "bs => bs.map(b => b.dataset.notation)"
    )
    assert hint["suggestion"]["notation"] in notations
    assert sorted(m["notation"] for m in hint["moves"]) == sorted(notations)
    assert hinted.get_attribute("data-notation") == hint["suggestion"]["notation"]
    # No token, a forged one, or a room without hints: refused in the project's shape.
    for headers in ({}, {"Authorization": "Bearer forged"}):
        refused = api.post(f"/api/rooms/{code}/hint", headers=headers)
        assert refused.status_code == 403 and set(refused.json()) == {"error", "message"}
    plain = make_room(api, game="tea-scones-arsenic", players=2, seats=["open", "random"])
    api.post(f"/api/rooms/{plain['code']}/start", headers=host_headers(plain))
    no_hints = api.post(
        f"/api/rooms/{plain['code']}/hint",
        headers={"Authorization": f"Bearer {plain['seat_token']}"},
    )
    assert no_hints.status_code == 403 and "does not give hints" in no_hints.json()["message"]
    page.screenshot(path=str(artifacts / "room-hint.png"))


def test_replay_web_serves_a_record_file(page: Any, tmp_path: Path) -> None:
    import subprocess
    import sys

    record = finished_record("in-vino-morte", 3, 5)
    path = tmp_path / "game.json"
    record.save(path)
    command = [sys.executable, "-m", "apothecary.cli", "replay", "--web", str(path)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith("replay at http://127.0.0.1:"), line
            page.goto(line.split(" at ", 1)[1].strip() + "?move=2&view=1")
            shown = wait_step(page, 2, "1")
            assert shown["observation"] == replayed(record, 2).observation(1)
        finally:
            process.terminate()
            process.wait(10)
    unfinished = tmp_path / "unfinished.json"
    Record.from_state(replayed(record, 3)).save(unfinished)
    refused = subprocess.run(
        [*command[:-1], str(unfinished)], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith("error: the record stops after 3 actions")


def test_axe_finds_nothing_serious_on_the_replay_page(
    page: Any, web_server: str, api: httpx.Client, axe: Any
) -> None:
    analysed(page, web_server, api, finished_record("tea-scones-arsenic", 3, 4), 20)
    axe(page)
    result = page.evaluate("async () => await axe.run('#replay', {resultTypes: ['violations']})")
    serious = [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == []
