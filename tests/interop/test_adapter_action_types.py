"""The adapters take an action id as an int or a NumPy integer, and refuse
anything else (a bool, an enum member, a float, text) with
MalformedActionError, leaving the game as it was: OpenSpiel's
``apply_action(True)`` must not play action 1."""

from __future__ import annotations

import enum
from typing import Any

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

import numpy as np

import apothecary
from apothecary.interop import openspiel
from apothecary.interop.pettingzoo import env

GAME = "in-vino-morte"
KINDS = [int, np.int64, np.int32, np.uint8]
"""What an id may be, tried in turn after each refusal: RL code passes NumPy ints."""


def bad_actions(legal: list[int], notation: str) -> list[Any]:
    """Values that are not action ids, most of them equal to a legal id."""
    assert legal[:2] == [0, 1]
    members = enum.IntEnum("Move", {f"M{a}": a for a in legal})  # type: ignore[misc]
    return [
        True,
        False,
        next(iter(members)),
        notation,
        float(legal[0]),
        np.bool_(True),
        np.float64(legal[0]),
        [legal[0]],
    ]


def spiel_state() -> Any:
    state = openspiel.load(GAME, players=3).new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("index", range(8))
@pytest.mark.parametrize("method", ["apply_action", "apply_action_with_legality_check", "child"])
def test_openspiel_refuses_an_action_that_is_not_an_int(index: int, method: str) -> None:
    state = spiel_state()
    legal = state.legal_actions()
    action = bad_actions(legal, state.action_to_string(legal[0]))[index]
    before = (state.history(), str(state))
    with pytest.raises(apothecary.MalformedActionError, match="action"):
        getattr(state, method)(action)
    assert (state.history(), str(state)) == before
    kind = KINDS[index % len(KINDS)]
    child = state.child(kind(legal[0]))
    assert child.history() == [*before[0], legal[0]]
    if method != "child":
        getattr(state, method)(kind(legal[0]))  # and the game goes on
        assert state.history() == child.history()


def pettingzoo_table() -> Any:
    table = env(GAME, players=3)
    table.reset(seed=1)
    return table


@pytest.mark.parametrize("index", range(8))
def test_pettingzoo_refuses_an_action_that_is_not_an_int(index: int) -> None:
    table = pettingzoo_table()
    legal = table.state.legal_actions()
    action = bad_actions(legal, table.state.action_to_string(legal[0]))[index]
    before = (table.agent_selection, table.state.history())
    with pytest.raises(apothecary.MalformedActionError, match="action"):
        table.step(action)
    assert (table.agent_selection, table.state.history()) == before
    table.step(KINDS[index % len(KINDS)](legal[0]))  # and the game goes on
    assert table.state.history()[len(before[1])] == legal[0]
