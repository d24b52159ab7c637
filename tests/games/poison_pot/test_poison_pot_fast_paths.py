"""Poison Pot's fast paths agree with the rules they shortcut.

``PoisonPotState.apply_action`` recognises a legal id by its phase's own test
(a slide by its line's occupancy, a draw by the colours left, a placement by an
empty circle) rather than by looking it up in the legal list, and the legal
placements are a list kept up to date move by move. These tests hold them to
the slow answers: the listed legal actions, the board itself, and the base
class's own path (``_refuse_or_apply``: the legal list, then ``_apply``).
"""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary.core.errors import IllegalActionError
from apothecary.core.game import sample_chance
from apothecary.games.poison_pot.rules import EMPTY, PLACE, SLIDE, PoisonPotState


def candidate_ids(state: PoisonPotState) -> list[int]:
    """The ids worth trying here: at a slide every pair of circles on one
    line (where the fast test has something to get wrong), at a draw and a
    placement every id of that phase, and a few of the other phases'."""
    game = state.game
    geometry = game.board
    n = geometry.size
    others = [0, n * n - 1, game.draw_base, game.place_base, game.num_distinct_actions() - 1]
    if state.phase == SLIDE:
        return sorted({origin * n + target for origin, target in geometry.line} | set(others))
    return sorted(set(range(game.draw_base, game.num_distinct_actions())) | set(others))


def fast_path_mismatches(state: PoisonPotState) -> list[str]:
    """Every way the fast paths disagree with the slow answers at ``state``."""
    problems = []
    legal = state.legal_actions()
    game = state.game
    if state.phase == PLACE:  # the kept list is the empty circles
        empty = [game.place_base + c for c, piece in enumerate(state.board) if piece == EMPTY]
        if legal != empty:
            problems.append(f"placements {legal} but empty circles {empty}")
    for action in candidate_ids(state):
        fast = state.clone()
        try:
            fast.apply_action(action)
        except IllegalActionError:
            if action in legal:
                problems.append(f"{action} is listed legal but refused")
            if str(fast) != str(state) or fast.history() != state.history():
                problems.append(f"refusing {action} changed the state")
            continue
        if action not in legal:
            problems.append(f"{action} is not listed legal but was applied")
            continue
        slow = state.clone()
        slow._refuse_or_apply(action)  # the base's checked path: legal list, then _apply
        same = (
            str(fast) == str(slow)
            and fast.history() == slow.history()
            and fast.legal_actions() == slow.legal_actions()
            and fast.observation_tensor(0) == slow.observation_tensor(0)
        )
        if not same:
            problems.append(f"{action} applied differently by the fast path")
    return problems


def positions(players: int, radius: int, games: int, seed: int) -> list[PoisonPotState]:
    """Every position of a few seeded random games."""
    game = apothecary.load("poison-pot", players=players, radius=radius)
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = game.new_initial_state()
        assert isinstance(state, PoisonPotState)
        while not state.is_terminal():
            found.append(state.clone())
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return [s for s in found if isinstance(s, PoisonPotState)]


@pytest.mark.parametrize(("players", "radius"), [(2, 1), (3, 2), (2, 3), (3, 3), (2, 4)])
def test_apply_action_takes_exactly_the_listed_actions(players: int, radius: int) -> None:
    """Our rules page: a slide "may only pass over and stop on empty
    circles", the drawn cauldron goes on "any empty circle": an id is applied
    exactly when it is listed legal, as the base class would apply it, and a
    refused one leaves the state as it was."""
    states = positions(players, radius, games=1, seed=radius)
    # Every position of a small board; on the larger ones every third (each
    # slide position tries every pair of circles on a line).
    sample = states if radius <= 2 else states[::3]
    for state in sample:
        assert fast_path_mismatches(state) == []


def test_the_check_catches_a_slide_over_a_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: a slide test that looks at the target only (not the circles
    between) lets a piece jump, and the check above says so."""
    state = positions(2, 3, games=1, seed=5)[30]
    while state.phase != SLIDE:
        state.apply_action(state.legal_actions()[0])
    geometry = state.game.board
    n = geometry.size
    assert fast_path_mismatches(state) == []
    planted = list(geometry.slide_checks)
    for origin, target in geometry.line:
        line, _, origin_bit = geometry.slide_checks[origin * n + target]
        target_bit = dict(geometry.line_bits[target])[line]
        planted[origin * n + target] = (line, origin_bit | target_bit, origin_bit)
    monkeypatch.setattr(geometry, "slide_checks", tuple(planted))
    assert any("not listed legal but was applied" in p for p in fast_path_mismatches(state))
