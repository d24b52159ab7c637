"""In Vino Morte's table layout (``layout.js``), run under Node on the updates a
browser gets from a real room, checked against the engine.

Each update is ``Room.view(seat)`` of a room played by seeded random moves
(five seats, two of them named alike, Cheese on so steals come up). The
layout's answer is what the table draws: for each seat the move its glass
plays (a drink, a swap, or the pour popover's deals) and the steal on its
cheese. The checks: every legal move is on exactly one control and no control
plays anything else; each control sits where the engine says its move acts
(the notation of the action, read here in Python, names that seat); the
words name seats by name, never "seat N"; a seat shows its name from the
room's seat list. A layout planted with a wrong mapping is caught.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from js import GAMES, module_url, needs_node, run_js

from apothecary.core.game import State
from apothecary.server.room import Room, Settings

pytestmark = needs_node

LAYOUT = GAMES / "in_vino_morte" / "layout.js"
TABLE = GAMES / "in_vino_morte" / "table.js"
NAMES = ["Ann", "Bob", "Bob", "Cy", "Di"]

BODY = """
const { layout, soundOf } = await import(DATA.module);
const name = (s) => DATA.names[s];
emit(DATA.updates.map((update) => {
  const plan = layout(update, update.legal || [], { wide: update.wide, name });
  const controlOf = (c) => c && {
    kind: c.kind,
    words: c.words,
    ids: c.kind === "pour" ? c.deals.map((d) => d.action.id) : [c.action.id],
    deals: c.kind === "pour" ? c.deals.map((d) => d.words) : [],
  };
  const stealOf = (steal) => steal && { id: steal.action.id, words: steal.words };
  return {
    seats: plan.seats.map((s) => ({
      seat: s.seat,
      name: s.name.words,
      control: controlOf(s.control),
      steal: stealOf(s.cheese && s.cheese.steal),
      x: s.x,
      y: s.y,
    })),
    centre: plan.centre.map((line) => line.words),
    sounds: (update.events || []).map(soundOf),
  };
}));
"""


def played_room(seed: int) -> tuple[list[dict[str, Any]], list[State]]:
    """The updates of one seeded game, each as its mover reads it before moving
    (and, every few moves, as another seat and a spectator read it), with the
    engine's state beside each."""
    room, _host = Room.create(
        "in-vino-morte",
        5,
        {"cheese": True, "round_limit": 8},
        ["open"] * 5,
        Settings(),
        now=0.0,
        seed=f"layout-{seed}",
    )
    for person in NAMES:
        room.claim(person)
    room.start(0.0)
    rng = random.Random(seed)
    updates: list[dict[str, Any]] = []
    states: list[State] = []
    for step in range(400):
        state = room.state
        assert state is not None
        if state.is_terminal():
            break
        mover = state.current_player()
        viewers: list[int | None] = [mover]
        if step % 5 == 0:
            viewers += [(mover + 1) % 5, None]
        for viewer in viewers:
            update = room.view(viewer)
            update["wide"] = step % 2 == 0
            updates.append(update)
            states.append(state.clone())
        room.apply(rng.choice(state.legal_actions()), 0.0)
    return updates, states


def check(updates: list[dict[str, Any]], states: list[State], answers: list[Any]) -> set[str]:
    """Every check of the module's docstring on the layout's ``answers``; gives
    the kinds of control seen."""
    kinds: set[str] = set()
    for update, state, answer in zip(updates, states, answers, strict=True):
        viewer = update["observation"]["seat"]
        mover = state.current_player()
        legal = {a["id"] for a in update["legal"]}
        played: list[int] = []
        for place in answer["seats"]:
            seat = place["seat"]
            own = NAMES[seat] + (" (you)" if seat == viewer else "")
            assert place["name"] == own
            control = place["control"]
            if control is not None:
                kinds.add(control["kind"])
                played += control["ids"]
                for action in control["ids"]:
                    notation = state.action_to_string(action)
                    if control["kind"] == "drink":
                        assert notation == "drink" and seat == mover
                    elif control["kind"] == "swap":
                        assert notation == f"swap {seat}"
                    else:
                        assert re.fullmatch(rf"deal {seat} (wine|poison)(\+cheese)?", notation)
                for words in [control["words"], *control["deals"]]:
                    assert not re.search(r"\bseat \d", words), words
                if control["kind"] == "swap":
                    assert NAMES[seat] in control["words"]
            if place["steal"] is not None:
                kinds.add("steal")
                played.append(place["steal"]["id"])
                assert state.action_to_string(place["steal"]["id"]) == f"steal {seat}"
                assert place["steal"]["words"].startswith(f"Steal {NAMES[seat]}")
        if viewer == mover:
            assert sorted(played) == sorted(legal), (played, legal)
        else:
            assert played == [] and legal == set()
        for line in answer["centre"]:
            assert not re.search(r"\bseat \d", line), line
        points = [(p["x"], p["y"]) for p in answer["seats"]]
        assert len(set(points)) == len(points)
    return kinds


def layout_answers(updates: list[dict[str, Any]]) -> list[Any]:
    answers = run_js(
        BODY, {"module": module_url(LAYOUT), "names": NAMES, "updates": updates}, timeout=120
    )
    assert isinstance(answers, list)
    return answers


@pytest.fixture(scope="module")
def game() -> tuple[list[dict[str, Any]], list[State], list[Any]]:
    updates, states = played_room(1)
    return updates, states, layout_answers(updates)


def test_every_legal_move_is_on_exactly_one_control(game: Any) -> None:
    updates, states, answers = game
    kinds = check(updates, states, answers)
    assert kinds == {"drink", "swap", "pour", "steal"}, kinds


def test_a_wrong_mapping_is_caught(game: Any) -> None:
    """Two swaps' moves exchanged (each now says the other's seat): the layout
    puts each on the wrong glass, and the checks say so."""
    updates, states, _ = game
    planted = None
    for index, update in enumerate(updates):
        swaps = [a for a in update["legal"] if a["move"]["kind"] == "swap"]
        if len(swaps) >= 2:
            swaps[0]["move"], swaps[1]["move"] = swaps[1]["move"], swaps[0]["move"]
            planted = index
            break
    assert planted is not None
    answers = layout_answers([updates[planted]])
    with pytest.raises(AssertionError):
        check([updates[planted]], [states[planted]], answers)


def test_a_move_of_no_known_kind_is_on_no_control(game: Any) -> None:
    """A legal action whose move the table does not know is reachable from
    nothing, which the check counts as a legal move left out."""
    updates, states, _ = game
    index = next(i for i, u in enumerate(updates) if u["legal"])
    update = updates[index]
    update["legal"][0]["move"] = {"kind": "action", "action": update["legal"][0]["id"]}
    answers = layout_answers([update])
    with pytest.raises(AssertionError):
        check([update], [states[index]], answers)


def test_the_sounds_come_from_the_events_data(game: Any) -> None:
    """``soundOf``: "death" for an event after which a seat is dead that was
    alive (the engine's word for it), "reveal" for a round's end that killed
    nobody, else nothing."""
    updates, _states, answers = game
    heard: set[str | None] = set()
    for update, answer in zip(updates, answers, strict=True):
        for event, sound in zip(update["events"], answer["sounds"], strict=True):
            died = event.get("died") is True or any(g["died"] for g in event["reveal"] or [])
            expected = "death" if died else "reveal" if event["reveal"] else None
            assert sound == expected, (event, sound)
            heard.add(sound)
    assert {"death", None} <= heard


def test_the_table_script_reads_no_text() -> None:
    """No regex over notation, a label or an event's text in the table's
    scripts, nor kit.js's name parsing (a planted one is found)."""
    bad = re.compile(
        r"\.(notation|label|text)\s*\)?\.(match|replace|split|startsWith|endsWith|indexOf)\("
        r"|\.(exec|test)\([^)]*\.(notation|label|text)\b"
        r"|\b(plain|shortName|legalByNotation|parseDeal)\("
    )
    for path in (LAYOUT, TABLE):
        found = bad.search(path.read_text())
        assert found is None, (path.name, found)
    for planted in (
        "const m = /^deal (\\d+)/.exec(action.notation);",
        "const [verb] = action.notation.split(' ');",
        "const shown = plain(label(s));",
    ):
        assert bad.search(planted), planted
