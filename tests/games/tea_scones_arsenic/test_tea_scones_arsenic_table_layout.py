"""The table's pure layout (games/tea_scones_arsenic/layout.js) under Node,
against the engine: real update messages of a served room, as each seat's
browser gets them, and what the layout draws from them.

The checks: every legal action is played by exactly one drawn control, and
each control plays the action the engine's ids say it should (``kind-3`` is
the draw of kind 3, ``marked-1`` the second marked scone, ``hand-eat`` eat,
...); no control plays an action that is not legal; every seat is named from
the names the shell gives (no ``seat N`` is left in anything drawn); the
sound of each event follows what the engine did (a death, cups turned over);
and a planted wrong mapping is caught.
"""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from tests.support.js import GAMES, module_url, needs_node, run_js

from apothecary.core.words import read
from apothecary.games.tea_scones_arsenic.facts import (
    BACK,
    BACK_SHUFFLE,
    DRAW_BASE,
    EAT,
    MARKED_BASE,
    PASS,
    SHUFFLE,
    SPOON,
    STOP,
)
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenicState
from apothecary.server.room import Room, Settings

LAYOUT = module_url(GAMES / "tea_scones_arsenic" / "layout.js")

FIXED_KEYS = {
    "stop": STOP,
    "shuffle": SHUFFLE,
    "hand-eat": EAT,
    "hand-back": BACK,
    "hand-back+shuffle": BACK_SHUFFLE,
    "hand-spoon": SPOON,
    "hand-pass": PASS,
}
"""What each fixed control plays, by the engine's ids."""

SEAT_WORDS = re.compile(r"\bseats? \d")
"""What a seat named by the engine's English ("seat 2") looks like."""


def expected_action(key: str) -> int:
    """The engine's action for a control's key (an independent reading of the keys)."""
    if key.startswith("kind-"):
        return DRAW_BASE + int(key.removeprefix("kind-")) - 1
    if key.startswith("marked-"):
        return MARKED_BASE + int(key.removeprefix("marked-"))
    return FIXED_KEYS[key]


def play_room(players: int, spoon: bool, seed: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """A room of bots played to its end: the update each seat to move got
    before each of its moves, then a spectator's and every seat's last
    update; and, per action, (the events every viewer read, whether a seat
    died, whether totals were turned over)."""
    seats = ["medium"] * players
    room, _host = Room.create(
        "tea-scones-arsenic", players, {"little_spoon": spoon}, seats, Settings(), 0.0, seed
    )
    room.start(0.0)
    updates: list[dict[str, Any]] = []
    told: list[Any] = []
    while True:
        pending = room.pending()
        if pending is None or pending.kind == "next_game":
            break
        state = room.state
        assert state is not None
        if pending.kind == "chance":
            action = room.chance_action()
        else:
            assert pending.seat is not None
            view = room.view(pending.seat)
            assert view["legal"], "the seat to move is offered its actions"
            updates.append(view)
            action = room.make_bot(pending.seat).step(state.clone())
        before = cast(TeaSconesArsenicState, state.clone())
        events = len(room.log)
        room.apply(action, 0.0, by_bot=pending.kind == "bot")
        after = cast(TeaSconesArsenicState, room.state)
        died = sum(after.alive) < sum(before.alive)
        ended = after.main_game_over and not before.main_game_over
        revealed = ended or (after.is_terminal() and before.eat_off)
        told += [(row, died, revealed) for row in room.log[events:]]
    for viewer in [None, *range(players)]:
        updates.append(room.view(viewer))
    return updates, told


RUN = f"""
const {{ layout, turnText, soundOf }} = await import({LAYOUT!r});
const out = DATA.updates.map((update) => {{
  const you = update.observation.seat;
  // DATA.bare: no names from the shell (the layout falls back to "seat N")
  const names = DATA.bare ? {{}} : {{
    name: (s) => `Name${{s}}`,
    label: (s) => (s === you ? `Name${{s}} (you)` : `Name${{s}}`),
  }};
  const plant = PLANT;
  const model = layout(update, plant ? plant(update.legal) : update.legal, names, DATA.wide);
  const strings = [];
  const walk = (v) => {{
    if (typeof v === "string") strings.push(v);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  }};
  walk(model);
  return {{
    controls: model.controls.map((c) => ({{ key: c.key, id: c.id }})),
    seatNames: model.seats.map((s) => s.name),
    marked: model.box.marked.map((m) => m.byText),
    last: model.strip.last,
    turn: turnText(update, names),
    strings: [...strings, turnText(update, names)],
    sounds: (update.events || []).map(soundOf),
  }};
}});
emit(out);
"""


def run_layout(
    updates: list[dict[str, Any]], wide: bool = True, plant: str = "null", bare: bool = False
) -> Any:
    """The layout's answers for ``updates``; ``plant``: a JS function that
    changes each legal list first (to plant a fault); ``bare``: no seat names."""
    data = {"updates": updates, "wide": wide, "bare": bare}
    return run_js(RUN.replace("PLANT", plant), data)


def named(runs: list[Any]) -> str:
    """Words runs as the test's names read them (``Name2`` for seat 2)."""
    out = []
    for run in runs:
        if isinstance(run, str):
            out.append(run)
        else:
            assert set(run) == {"seat"}, run  # the game names one seat at a time
            out.append(f"Name{run['seat']}")
    return "".join(out)


def problems(updates: list[dict[str, Any]], drawn: list[Any]) -> list[str]:
    """Where the drawn controls disagree with the engine's legal actions."""
    found: list[str] = []
    for update, model in zip(updates, drawn, strict=True):
        legal = sorted(action["id"] for action in update["legal"])
        played = sorted(control["id"] for control in model["controls"])
        if played != legal:
            found.append(f"{update['state_id']}: controls play {played}, legal {legal}")
        keys = [control["key"] for control in model["controls"]]
        if len(set(keys)) != len(keys):
            found.append(f"{update['state_id']}: a key is drawn twice: {keys}")
        for control in model["controls"]:
            if control["id"] != expected_action(control["key"]):
                found.append(f"{update['state_id']}: {control['key']} plays {control['id']}")
    return found


@pytest.fixture(scope="module")
def games() -> list[tuple[list[dict[str, Any]], list[Any]]]:
    return [
        play_room(3, True, "layout-a"),
        play_room(4, False, "layout-b"),
        play_room(1, False, "c"),
    ]


@needs_node
@pytest.mark.parametrize("wide", [True, False])
def test_every_legal_move_is_played_by_exactly_one_control(
    games: list[tuple[list[dict[str, Any]], list[Any]]], wide: bool
) -> None:
    for updates, _told in games:
        drawn = run_layout(updates, wide)
        assert problems(updates, drawn) == []
        assert sum(len(model["controls"]) for model in drawn) > len(updates) / 2


@needs_node
def test_a_planted_wrong_mapping_is_caught(
    games: list[tuple[list[dict[str, Any]], list[Any]]],
) -> None:
    updates, _told = games[0]
    # the moves of the first two legal actions swapped: a table reading ids by
    # position, or a move table wrong by one, would draw this
    swap = (
        "(legal) => legal.length < 2 ? legal : ["
        "{ ...legal[0], move: legal[1].move }, "
        "{ ...legal[1], move: legal[0].move }, "
        "...legal.slice(2)]"
    )
    drawn = run_layout(updates, plant=swap)
    assert problems(updates, drawn) != []
    # and an action the layout never draws
    drop = (
        "(legal) => legal.map((a) => "
        "(a.move.kind === 'eat' ? { ...a, move: { kind: 'nibble' } } : a))"
    )
    drawn = run_layout(updates, plant=drop)
    assert any("controls play" in p for p in problems(updates, drawn))


@needs_node
def test_seats_are_named_from_the_shell_names_never_as_seat_numbers(
    games: list[tuple[list[dict[str, Any]], list[Any]]],
) -> None:
    for updates, _told in games:
        drawn = run_layout(updates)
        for update, model in zip(updates, drawn, strict=True):
            you = update["observation"]["seat"]
            # a seat's panel shows the room's name for it (the number is drawn beside it)
            assert model["seatNames"] == [
                place["name"] + (" (you)" if s == you else "")
                for s, place in enumerate(update["seats"])
            ]
            numbered = [s for s in model["strings"] if SEAT_WORDS.search(s)]
            assert numbered == [], f"{update['state_id']}: {numbered}"
            for chip, marked in zip(
                model["marked"], update["observation"]["box"]["marked"], strict=True
            ):
                by = marked["by"]
                own = update["seats"][by]["name"]
                assert chip == ("by you" if by == you else f"by {own} #{by}")  # short: not cut
            events = [e for e in update["events"] if e["kind"] != "dose"]
            if events:
                # the last event's own words, each seat by its name
                assert read(events[-1]["words"]) in events[-1]["text"]
                assert model["last"] == f"Last: {named(events[-1]['words'])}"


@needs_node
def test_the_name_check_catches_seat_numbers(
    games: list[tuple[list[dict[str, Any]], list[Any]]],
) -> None:
    # planted: no names given, so the seats are drawn as "seat N", which the check finds
    updates, _told = games[0]
    drawn = run_layout(updates[:5], bare=True)
    assert all(any(SEAT_WORDS.search(s) for s in model["strings"]) for model in drawn)


@needs_node
def test_the_sound_of_an_event_follows_what_the_engine_did(
    games: list[tuple[list[dict[str, Any]], list[Any]]],
) -> None:
    for updates, told in games:
        final = updates[-1]  # the last seat's view, with every event of the game
        drawn = run_layout([final])
        sounds = drawn[0]["sounds"]
        assert len(sounds) == len(told)
        for sound, (_row, died, revealed) in zip(sounds, told, strict=True):
            assert sound == ("death" if died else "reveal" if revealed else None)
    every = [s for updates, _ in games for s in run_layout([updates[-1]])[0]["sounds"]]
    assert "death" in every or "reveal" in every


@needs_node
def test_a_spectator_gets_no_control(games: list[tuple[list[dict[str, Any]], list[Any]]]) -> None:
    updates, _told = games[0]
    spectator = [u for u in updates if u["you"] is None]
    assert spectator
    assert [model["controls"] for model in run_layout(spectator)] == [[]]
