"""Little Drop of Poison's table layout (``layout.js``) against the engine, under Node.

Real update messages are made by a served room (``Room.view``, as the browser
gets them) through whole games, and the pure ``layout`` is run on each with
the browser's names. Every legal move must be played by exactly one drawn
control (a character's mat, a card of the hand, Done or Pass), and each
control must play the move the engine says it shows; names come from the
seats; the sound of an event comes from its data. The check proves itself:
an update whose moves are planted on the wrong actions is caught.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from js import GAMES, module_url, needs_node, run_js

from apothecary.core.game import State
from apothecary.server.room import Room, Settings

pytestmark = needs_node

GAME = "little-drop-of-poison"
LAYOUT = GAMES / "little_drop_of_poison" / "layout.js"
NAMES = ["Ann", "Bob", "Cy", "Dee"]

# For each update: the layout with the names of NAMES (the reader's "(you)"), and,
# when a card can be chosen first, the layout with that card chosen.
BODY = f"""
const L = await import({module_url(LAYOUT)!r});
const out = DATA.updates.map((update) => {{
  const you = update.you;
  const base = (s) => DATA.names[s];
  const label = (s) => (s === you ? `${{base(s)}} (you)` : base(s));
  const names = L.seatNamer(update.observation.players, base, label, you);
  const view = {{ names, selected: null, selectedSlot: null, lastPlay: null }};
  const drawn = L.layout(update, view);
  const chosen = drawn.hand.cards.find((card) => card.live && !card.add);
  const picked = chosen
    ? L.layout(update, {{ ...view, selected: chosen.code, selectedSlot: chosen.slot }})
    : null;
  const strip = (d) => ({{
    characters: d.characters.map((m) => ({{
      character: m.character, seat: m.seat, title: m.title, action: m.action && m.action.id,
      hitLabel: m.hitLabel, plays: m.plays.map((p) => ({{ seat: p.seat, who: p.who }})),
    }})),
    cards: d.hand.cards.map((c) => ({{ code: c.code, live: c.live, add: c.add && c.add.id }})),
    buttons: d.hand.buttons.map((b) => ({{ kind: b.kind, action: b.action.id }})),
    turn: d.turn,
    reveal: d.reveal && d.reveal.rows.map((r) => ({{ seat: r.seat, who: r.who }})),
  }});
  return {{
    drawn: strip(drawn),
    picked: picked && {{ code: chosen.code, selected: picked.selected,
      hit: picked.characters.filter((m) => m.action).map((m) => m.hitLabel) }},
    sounds: (update.events || []).map(L.soundOf),
  }};
}});
emit(out);
"""


def play_and_view(seed: int, players: int) -> list[tuple[dict[str, Any], State]]:
    """Whole games' worth of update messages: each seat's view at each of its turns
    (and a spectator's), with the position's engine state alongside."""
    room, _ = Room.create(GAME, players, {}, None, Settings(), now=0.0, seed=f"layout{seed}")
    for name in NAMES[:players]:
        room.claim(name)
    room.start(0.0)
    rng = random.Random(seed)
    views: list[tuple[dict[str, Any], State]] = []
    for _ in range(2000):
        pending = room.pending()
        if pending is None or pending.kind == "next_game":
            break
        if pending.kind == "chance":
            room.apply(room.chance_action(), 0.0)
            continue
        state = room.state
        assert state is not None and pending.seat is not None
        if rng.random() < 0.5 or len(views) < 6:
            views.append((room.view(pending.seat), state.clone()))
            views.append((room.view((pending.seat + 1) % players), state.clone()))
        room.apply(rng.choice(state.legal_actions()), 0.0)
    assert room.state is not None
    views.append((room.view(0), room.state.clone()))  # the end, with the last reveal
    return views


def problems(update: dict[str, Any], state: State, answer: dict[str, Any]) -> list[str]:
    """What the layout's answer gets wrong about ``update``, by the engine."""
    game = state.game
    found: list[str] = []
    drawn = answer["drawn"]
    controls: list[tuple[str, int]] = []
    for mat in drawn["characters"]:
        if mat["action"] is not None:
            controls.append((f"on {mat['character']}", mat["action"]))
    for card in drawn["cards"]:
        if card["add"] is not None:
            controls.append((card["code"], card["add"]))
    for button in drawn["buttons"]:
        controls.append((button["kind"], button["action"]))
    legal_ids = sorted(a["id"] for a in update["legal"])
    drawn_ids = sorted({action for _, action in controls})
    if drawn_ids != legal_ids:
        found.append(f"controls play {drawn_ids}, the legal moves are {legal_ids}")
    # one control per move, but for cards alike in the hand (two b1: either adds b1)
    shown: dict[int, set[str]] = {}
    for shows, action in controls:
        shown.setdefault(action, set()).add(shows)
    kinds = [mat["action"] for mat in drawn["characters"]] + [b["action"] for b in drawn["buttons"]]
    for action in {a for a in kinds if a is not None}:
        if sum(1 for _, other in controls if other == action) != 1:
            found.append(f"move {action} is played by several controls: {shown[action]}")
    for shows, action in controls:
        if state.action_to_string(action) != shows:
            found.append(f"the control for {shows!r} plays {state.action_to_string(action)!r}")
    names = NAMES[: game.num_players]
    you = update["you"]
    for mat in drawn["characters"]:
        if mat["seat"] is not None:
            seat = mat["seat"]
            want = f"{names[seat]} (you)" if seat == you else names[seat]
            if mat["title"] != want:
                found.append(f"seat {seat}'s mat is titled {mat['title']!r}, not {want!r}")
        for play in mat["plays"]:
            if play["who"] != ("you" if play["seat"] == you else names[play["seat"]]):
                found.append(f"a play of seat {play['seat']} is shown as {play['who']!r}")
    mover = update["observation"]["to_move"]
    if mover is not None and mover != you and names[mover] not in drawn["turn"]:
        found.append(f"the turn line {drawn['turn']!r} does not name {names[mover]}")
    for row in drawn["reveal"] or []:
        first = "You" if row["seat"] == you else names[row["seat"]]
        if not row["who"].startswith(f"{first} → "):
            found.append(f"a reveal row of seat {row['seat']} reads {row['who']!r}")
    for event, sound in zip(update["events"], answer["sounds"], strict=True):
        reveal = event.get("reveal")
        want_sound = None if not reveal else "death" if reveal["deaths"] else "reveal"
        if sound != want_sound:
            found.append(f"event {event['text']!r} sounds {sound!r}, not {want_sound!r}")
    picked = answer["picked"]
    if picked is not None:
        if picked["selected"] != picked["code"] or not picked["hit"]:
            found.append(f"choosing {picked['code']} first left {picked}")
        for hit in picked["hit"]:
            if not hit.startswith("Put "):
                found.append(f"with a card chosen a character still reads {hit!r}")
    return found


def run_layout(views: list[tuple[dict[str, Any], State]]) -> list[Any]:
    answers = run_js(BODY, {"updates": [update for update, _ in views], "names": NAMES})
    assert isinstance(answers, list) and len(answers) == len(views)
    return answers


@pytest.mark.parametrize(("seed", "players"), [(1, 3), (2, 4)])
def test_every_legal_move_is_one_drawn_control_that_plays_it(seed: int, players: int) -> None:
    views = play_and_view(seed, players)
    answers = run_layout(views)
    found = [
        p
        for (update, state), a in zip(views, answers, strict=True)
        for p in problems(update, state, a)
    ]
    assert found == []
    # the games went through every kind of control and a reveal with a sound
    kinds = {b["kind"] for a in answers for b in a["drawn"]["buttons"]}
    assert "done" in kinds
    assert any(a["picked"] for a in answers)
    assert any(s for a in answers for s in a["sounds"])
    assert any(m["action"] is not None for a in answers for m in a["drawn"]["characters"])


def test_a_planted_wrong_mapping_is_caught() -> None:
    """The moves of two legal actions swapped (the table would play the wrong card
    or character): the check names it."""
    views = play_and_view(3, 3)
    planted = []
    for update, state in views:
        legal = update["legal"]
        if len(legal) >= 2:
            wrong = copy.deepcopy(update)
            wrong["legal"][0]["move"], wrong["legal"][1]["move"] = (
                legal[1]["move"],
                legal[0]["move"],
            )
            planted.append((wrong, state))
    assert planted
    answers = run_layout(planted)
    for (update, state), answer in zip(planted, answers, strict=True):
        assert any("plays" in p for p in problems(update, state, answer)), update["legal"][:2]


def test_names_come_from_the_seats_and_twins_are_told_apart() -> None:
    """Two seats with one name get their numbers: the layout names seats from
    their numbers, never from the words of a label."""
    body = f"""
    const L = await import({module_url(LAYOUT)!r});
    const base = (s) => ["Ann", "Ann", "Bob"][s];
    const names = L.seatNamer(3, base, (s) => (s === 2 ? "Bob (you)" : base(s)), 2);
    emit([0, 1, 2].map((s) => [names.name(s), names.label(s), names.who(s)]));
    """
    assert run_js(body) == [
        ["Ann 0", "Ann 0", "Ann 0"],
        ["Ann 1", "Ann 1", "Ann 1"],
        ["Bob", "Bob (you)", "you"],
    ]
