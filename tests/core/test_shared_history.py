"""The shared history behind State.clone(): every fork reads exactly its own actions."""

from __future__ import annotations

import pickle
import random

import pytest

import apothecary
from apothecary.core.game import History


def test_forks_appending_in_any_order_each_keep_their_own_actions() -> None:
    # A model list per fork; random forks and appends in random order,
    # including a fork of a fork that has already frozen a shared prefix.
    rng = random.Random(7)
    histories = [History()]
    models: list[list[int]] = [[]]
    for _ in range(3000):
        i = rng.randrange(len(histories))
        if rng.random() < 0.2:
            histories.append(histories[i].fork())
            models.append(models[i].copy())
        else:
            action = rng.randrange(100)
            histories[i].append(action)
            models[i].append(action)
        j = rng.randrange(len(histories))
        history, model = histories[j], models[j]
        assert len(history) == len(model)
        assert list(history) == model
        assert history.copy() == model
        assert history == model
        if model:
            k = rng.randrange(-len(model), len(model))
            assert history[k] == model[k]
            assert history[k:] == model[k:]
        with pytest.raises(IndexError):
            history[len(model)]


def test_a_clone_then_play_leaves_the_original_history_alone() -> None:
    game = apothecary.load("little-drop-of-poison", players=3)
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    before = state.history()
    branches = []
    for _ in range(3):
        branch = state.clone()
        for _ in range(5):
            branch.apply_action(rng.choice(branch.legal_actions()))
        branches.append(branch)
    assert state.history() == before
    for branch in branches:
        assert branch.history()[: len(before)] == before
        assert len(branch.history()) == len(before) + 5
        assert pickle.loads(pickle.dumps(branch)).history() == branch.history()
