"""Poison Pot's table layout (games/poison_pot/layout.js) under Node, against the engine.

The updates are the ones a browser gets: a real room (``Room.view``) played
with people in every seat, so each update's ``legal`` list is the server's
(``id``, ``notation``, ``label``, ``words``, ``move``). The layout must reach
every legal move from exactly one control, and the move a circle plays must be
the engine's action for that circle (checked by the engine's own notation, which
the layout never reads); seats it names are numbers, named by the table.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from tests.support.js import GAMES, module_url, needs_node, run_js

from apothecary.server.room import Room, Settings

pytestmark = needs_node

LAYOUT = module_url(GAMES / "poison_pot" / "layout.js")
TABLE_DIR = GAMES / "poison_pot"

# Every control of an update, with the picked-up piece it was drawn under: the
# controls with nothing picked up, then, for each piece a control picks up,
# the controls drawn while it is picked up.
REACH = f"""
const {{ layout }} = await import({LAYOUT!r});
const out = [];
for (const update of DATA) {{
  const found = [];
  const first = layout(update, update.legal, {{ you: update.you }});
  const walk = (plan, selected) => {{
    for (const [circle, control] of plan.controls) {{
      if (control.play === undefined) continue;
      found.push({{ circle, selected, play: control.play, role: control.role }});
    }}
  }};
  walk(first, null);
  for (const [circle, control] of first.controls) {{
    if (!control.select) continue;
    const picked = layout(update, update.legal, {{ you: update.you, selected: control.select }});
    walk(picked, control.select);
  }}
  out.push(found);
}}
emit(out);
"""


def _room(players: int, radius: int, seed: str) -> Room:
    room, _host = Room.create(
        "poison-pot", players, {"radius": radius}, None, Settings(), now=0.0, seed=seed
    )
    for name in ("Ann", "Bob", "Cy")[:players]:
        room.claim(name)
    room.start(0.0)
    return room


def _play(room: Room, rng: random.Random, stop: int | None = None) -> list[dict[str, Any]]:
    """Play the room (chance by its seed, people at random) and return the
    update each person to move got at each of their decisions, up to ``stop``."""
    updates: list[dict[str, Any]] = []
    while (pending := room.pending()) is not None and (stop is None or len(updates) < stop):
        if pending.kind == "chance":
            room.apply(room.chance_action(), 0.0)
            continue
        assert pending.seat is not None
        update = room.view(pending.seat)
        updates.append(update)
        room.apply(rng.choice([action["id"] for action in update["legal"]]), 0.0)
    return updates


def _problems(updates: list[dict[str, Any]], found: list[list[dict[str, Any]]]) -> list[str]:
    """What is wrong with the controls ``found`` for ``updates``: a legal move
    reached by no control or by two, or a control that plays another circle's
    move than the engine's notation says (a slide ``from-to``, a placement its circle)."""
    problems: list[str] = []
    for update, controls in zip(updates, found, strict=True):
        notation = {action["id"]: action["notation"] for action in update["legal"]}
        reached = Counter(control["play"] for control in controls)
        for action_id, written in notation.items():
            if reached[action_id] != 1:
                problems.append(f"{written}: reached by {reached[action_id]} controls")
        for control in controls:
            written = notation.get(control["play"])
            wanted = (
                control["circle"]
                if control["selected"] is None
                else f"{control['selected']}-{control['circle']}"
            )
            if written != wanted:
                problems.append(f"{wanted}: the control plays {written!r}")
    return problems


@pytest.mark.parametrize(("players", "radius"), [(2, 2), (3, 3)])
def test_every_legal_move_is_reachable_from_exactly_one_control(players: int, radius: int) -> None:
    """Rulebook: "A player moves the POISON POT, or ANY other cauldron already on
    the playing surface, any number of empty spaces and in a straight line", then
    places the cauldron drawn "in an empty circle": each of those is one circle
    to click (a placement) or a piece then a circle (a slide), never two."""
    updates = _play(_room(players, radius, "layout"), random.Random(5))
    assert {a["move"]["kind"] for u in updates for a in u["legal"]} == {"slide", "place"}
    found = run_js(REACH, updates)
    assert _problems(updates, found) == []
    # A placement is one click; a slide is a piece picked up, then its target.
    assert {c["role"] for controls in found for c in controls} == {"place", "target"}


def test_a_planted_wrong_mapping_is_caught() -> None:
    """Two slides' moves swapped on the wire: the layout follows ``move`` (as it
    must), so the circle it draws plays the other slide, and the check names it."""
    updates = _play(_room(2, 2, "planted"), random.Random(2), stop=3)
    planted = copy.deepcopy(updates[0])
    legal = planted["legal"]
    assert legal[0]["move"]["kind"] == legal[1]["move"]["kind"] == "slide"
    legal[0]["move"], legal[1]["move"] = legal[1]["move"], legal[0]["move"]
    found = run_js(REACH, [planted])
    problems = _problems([planted], found)
    assert any(legal[0]["notation"] in problem for problem in problems), problems
    assert any(legal[1]["notation"] in problem for problem in problems), problems


NAMES = f"""
const {{ layout }} = await import({LAYOUT!r});
const {{ readWords }} = await import("/static/words.js");
const names = ["Ann", "Bob", "Cy"];
emit(DATA.map((update) => {{
  const plan = layout(update, update.legal || [], {{ you: update.you }});
  const who = (s) => (s === update.you ? "you" : names[s]);
  return {{
    turn: plan.turn,
    read: readWords(plan.turn, who, {{ capital: true }}),
    chips: plan.chips.map((chip) => [chip.seat, chip.colour, chip.state]),
  }};
}}));
"""


def test_names_come_from_seats_in_the_turn_words_and_chips() -> None:
    """The line over the table names the seat to move by number (the table puts
    in the name), says "Your turn" to the seat itself, and each chip is a seat
    with its colour (rulebook: each player takes one colour)."""
    room = _room(3, 2, "names")
    _play(room, random.Random(1), stop=1)  # seat 0 slides; seat 0 places next
    while (pending := room.pending()) is not None and pending.kind == "chance":
        room.apply(room.chance_action(), 0.0)
    watching, moving = room.view(1), room.view(0)
    answers = run_js(NAMES, [watching, moving])
    drawn = moving["observation"]["drawn"]
    assert answers[0]["turn"][0] == {"seat": 0}
    assert answers[0]["read"] == f"Ann (red) places the {drawn} cauldron"
    assert (
        answers[1]["read"] == f"Your turn: place the {drawn} cauldron you drew on an empty circle"
    )
    colours = moving["observation"]["colours"]
    assert answers[1]["chips"] == [
        [0, colours[0], "placing"],
        [1, colours[1], "safe group"],
        [2, colours[2], "safe group"],
    ]


def test_the_winners_are_named_from_the_outcome_seats() -> None:
    """At the end the line names the winners (from the outcome's seats) and gives
    each colour's score."""
    room = _room(2, 1, "end")
    _play(room, random.Random(3))
    assert room.outcome is not None
    winners = room.outcome["winners"]
    views = [room.view(0), room.view(1)]
    answers = run_js(NAMES, views)
    scores = ", ".join(
        f"{colour} {score}"
        for colour, score in zip(
            views[0]["observation"]["colours"], room.outcome["scores"], strict=True
        )
    )
    names = ["Ann", "Bob"]
    for viewer, answer in enumerate(answers):
        if len(winners) == 1:
            who = "You win" if winners[0] == viewer else f"{names[winners[0]]} wins"
        else:
            joined = " and ".join("you" if s == viewer else names[s] for s in winners)
            who = f"{joined[0].upper()}{joined[1:]} share the win"
        assert answer["read"] == f"{who}: {scores}"
        for seat, _colour, state in answer["chips"]:
            assert (state in ("wins", "shares the win")) == (seat in winners)


SOUNDS = """
const table = await import(DATA.table);
const { soundOf } = await import(DATA.layout);
emit({ same: table.soundOf === soundOf, sounds: DATA.events.map((e) => soundOf(e)) });
"""


def test_sound_follows_the_event_kind() -> None:
    """Turning up a face-down cauldron (the draw) is a reveal; a slide or a
    placement makes no sound of its own, and nobody dies in Poison Pot. The
    table exports the layout's ``soundOf`` (the shell asks the table)."""
    room = _room(2, 1, "sound")
    _play(room, random.Random(4))
    events = room.view(0, since=0)["events"]
    # table.js imports the DOM kit, which only reads ``document`` when called.
    answer = run_js(
        SOUNDS,
        {"table": module_url(TABLE_DIR / "table.js"), "layout": LAYOUT, "events": events},
    )
    assert answer["same"] is True
    kinds = [event["kind"] for event in events]
    assert set(kinds) == {"slide", "draw", "place"}
    assert answer["sounds"] == ["reveal" if kind == "draw" else None for kind in kinds]


CHIP_NAMES = f"""
const {{ chipName }} = await import({LAYOUT!r});
emit(DATA.cases.map(([seat, most]) => chipName(DATA.update, seat, DATA.labels[seat], 0, most)));
"""


def test_two_seats_of_one_name_keep_their_numbers_on_the_chips() -> None:
    """Two "easy bot"s: the room's seats say they share a name, so each chip keeps
    its seat number however short the name is cut; a name no other seat has
    is the shell's own, cut. Without the room's seats nothing tells them apart."""
    room, _host = Room.create(
        "poison-pot", 3, {"radius": 1}, ["open", "easy", "easy"], Settings(), now=0.0, seed="t"
    )
    room.claim("Annabel")
    room.start(0.0)
    update = room.view(0)
    names = [place["name"] for place in update["seats"]]
    assert names[1] == names[2]
    labels = ["Annabel (you)", f"{names[1]} (seat 1)", f"{names[2]} (seat 2)"]
    cases = [[0, 30], [0, 6], [1, 30], [1, 8], [2, 8]]
    shown = run_js(CHIP_NAMES, {"update": update, "labels": labels, "cases": cases})
    assert shown[0] == "Annabel (you)" and shown[1] == "Annab…"
    assert shown[2] == f"{names[1]} #1"
    for (seat, most), name in zip(cases[3:], shown[3:], strict=True):
        assert name.endswith(f"… #{seat}") and len(name) <= most, name
    update["seats"] = []
    bare = run_js(CHIP_NAMES, {"update": update, "labels": labels, "cases": cases[3:]})
    assert not any("#" in name for name in bare), bare
