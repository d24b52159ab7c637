"""Poison Pot invariants over seeded random games, on every board size."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary.core.game import sample_chance
from apothecary.games.poison_pot.board import board


def slides_by_walking(cells: list[str], radius: int) -> list[str]:
    """Every slide, found the slow way: walk each ray from each piece."""
    geometry = board(radius)
    slides = []
    for origin, piece in enumerate(cells):
        if not piece:
            continue
        for ray in geometry.rays[origin]:
            for target in ray:
                if cells[target]:
                    break
                slides.append(f"{geometry.names[origin]}-{geometry.names[target]}")
    return sorted(slides)


@pytest.mark.parametrize("radius", [1, 2, 3, 4])
def test_legal_slides_are_exactly_the_unblocked_straight_lines(radius: int) -> None:
    """Our rules page: "Move one piece, the pot or any cauldron of any colour,
    one or more circles in a straight line in one of the six directions. It may
    only pass over and stop on empty circles"."""
    game = apothecary.load("poison-pot", players=2, radius=radius)
    rng = random.Random(radius)
    checked = 0
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            view = state.observation(None)
            if view["phase"] == "slide":
                legal = sorted(state.action_to_string(a) for a in state.legal_actions())
                assert legal == slides_by_walking(view["board"], radius)
                checked += 1
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    assert checked == 4 * 3 * radius * (radius + 1)  # one slide per cauldron placed


def test_board_sizes_and_centres() -> None:
    """Our rules page: "37 circles, hexagon of radius 3, six-way adjacency; the
    pot starts on the centre" (and smaller or larger boards by ``radius``)."""
    assert [board(r).size for r in (1, 2, 3, 4)] == [7, 19, 37, 61]
    geometry = board(3)
    assert geometry.names[geometry.centre] == "d4"
    assert sorted(geometry.names[c] for c in geometry.neighbours[geometry.centre]) == [
        "c3",
        "c4",
        "d3",
        "d5",
        "e3",
        "e4",
    ]
    assert sorted(len(n) for n in geometry.neighbours).count(6) == 19  # the inner 19
    state = apothecary.load("poison-pot", players=3).new_initial_state()
    assert state.observation(None)["pot"] == "d4"
    assert state.observation(None)["remaining"] == {"red": 12, "blue": 12, "yellow": 12}
