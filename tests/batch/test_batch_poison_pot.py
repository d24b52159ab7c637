"""Poison Pot's batch engine against the scalar engine, step for step.

``drive`` (tests/support/batch_differential.py) plays the same random legal
actions and the same draws (sampled for the scalar game, handed to the
batch as ``chance``) in both engines and compares current player, legal
mask, every seat's observation tensor, rewards and terminated after every
step; the planted-bug tests show a rule changed on either side is caught.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from batch_differential import Mismatch, drive

import apothecary
from apothecary import batch
from apothecary.games.poison_pot import batch as batch_pp
from apothecary.games.poison_pot import rules

# (players, options, games, steps): a game is 2 steps per cauldron (3r(r+1)),
# plus the step that restarts it.
CONFIGURATIONS: list[tuple[int, dict[str, Any], int, int]] = [
    (2, {"radius": 1}, 256, 40),
    (3, {"radius": 1}, 256, 40),
    (2, {"radius": 2}, 256, 76),
    (3, {"radius": 2}, 256, 76),
    (2, {}, 128, 150),
    (3, {}, 128, 150),
    (2, {"radius": 4}, 32, 250),
    (3, {"radius": 4}, 32, 125),
]


@pytest.mark.parametrize(("players", "options", "games", "steps"), CONFIGURATIONS)
def test_batch_plays_the_scalar_rules(
    players: int, options: dict[str, Any], games: int, steps: int
) -> None:
    engine = batch.load("poison-pot", players=players, **options)
    result = drive(engine, games, steps, seed=players * 10 + int(options.get("radius", 3)))
    assert result.finished >= games


def plant_drive(engine: batch.BatchGame[Any], seed: int) -> None:
    drive(engine, 256, 76, seed=seed)


def test_a_batch_without_the_tie_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = batch.load("poison-pot", players=2, radius=2)
    # Both half points on one seat, where they cancel: no tie rule.
    monkeypatch.setattr(engine, "_last_placer", engine._placer_before)
    with pytest.raises(Mismatch, match="rewards"):
        plant_drive(engine, 1)


def test_a_batch_whose_pot_poisons_nothing_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = batch.load("poison-pot", players=3, radius=2)
    far = np.full_like(engine._neighbours, engine.circles)
    original = batch_pp.PoisonPotBatch.safe_groups

    def unpoisoned(self: batch_pp.PoisonPotBatch, cells: Any, pot: Any) -> Any:
        saved, self._neighbours = self._neighbours, far
        try:
            return original(self, cells, pot)
        finally:
            self._neighbours = saved

    monkeypatch.setattr(batch_pp.PoisonPotBatch, "safe_groups", unpoisoned)
    with pytest.raises(Mismatch, match="rewards"):
        plant_drive(engine, 2)


def test_a_scalar_engine_without_the_tie_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules, "tie_broken_scores", lambda groups, cauldrons: list(groups))
    with pytest.raises(Mismatch, match="rewards"):
        plant_drive(batch.load("poison-pot", players=2, radius=2), 3)


def test_a_batch_that_slides_through_pieces_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = batch.load("poison-pot", players=2, radius=2)
    # Only the target need be empty.
    monkeypatch.setattr(batch_pp, "path_clear", lambda empty, nearer, steps: empty)
    with pytest.raises(Mismatch, match="legal_action_mask"):
        drive(engine, 64, 20, seed=4)


def test_draws_from_the_keys_follow_the_scalar_probabilities() -> None:
    """At the first draw each colour is a third; after red, blue and yellow are
    6/17 each on the radius-2 board (6 per colour), red 5/17."""
    engine = batch.load("poison-pot", players=2, radius=2)
    n = 20_000
    state = engine.init(11, n)
    slide = np.full(n, state.legal_action_mask[0].argmax())
    first = engine.step(state, slide)
    shares = np.bincount(first.drawn, minlength=3) / n
    assert np.allclose(shares, 1 / 3, atol=0.015)
    red = first.drawn == 0
    place = first.legal_action_mask.argmax(axis=1)
    placed = engine.step(first, place)
    second = engine.step(placed, placed.legal_action_mask.argmax(axis=1))
    after_red = np.bincount(second.drawn[red], minlength=3) / red.sum()
    assert np.allclose(after_red, [5 / 17, 6 / 17, 6 / 17], atol=0.025)


def test_draws_depend_on_the_game_not_its_batch() -> None:
    engine = batch.load("poison-pot", players=3, radius=1)

    def colours(state: Any, steps: int) -> list[list[int]]:
        seen = []
        for _ in range(steps):
            state = engine.step(state, state.legal_action_mask.argmax(axis=1))
            seen.append(state.drawn.tolist())
        return seen

    small = colours(engine.init(5, 3), 30)
    large = colours(engine.init(5, 50), 30)
    assert [row[:3] for row in large] == small
    # Every episode of a slot draws afresh: the restarted games differ.
    assert len({tuple(row) for row in large}) > 5


def test_a_chance_outcome_with_no_cauldron_left_is_refused() -> None:
    engine = batch.load("poison-pot", players=2, radius=1)
    state = engine.init(0, 2)
    draw_red = engine.game.draw_base
    for _ in range(2):  # slide and place twice, drawing the two reds
        slide = state.legal_action_mask.argmax(axis=1)
        state = engine.step(state, slide, chance=np.array([draw_red, -1]))
        state = engine.step(state, state.legal_action_mask.argmax(axis=1))
    slide = state.legal_action_mask.argmax(axis=1)
    with pytest.raises(apothecary.IllegalActionError, match="game 0: chance"):
        engine.step(state, slide, chance=np.array([draw_red, -1]))
    with pytest.raises(apothecary.IllegalActionError, match="game 1: chance 7"):
        engine.step(state, slide, chance=np.array([-1, 7]))


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("poison-pot", {"players": 3}),
        ("in-vino-morte", {"cheese": True}),
        ("little-drop-of-poison", {"players": 5}),
    ],
)
def test_an_observation_written_into_a_buffer_is_the_same(
    name: str, options: dict[str, Any]
) -> None:
    engine = batch.load(name, **options)
    state = engine.init(2, 16)
    rng = np.random.default_rng(2)
    buffer = np.full((16, engine.num_players, engine.observation_tensor_size()), np.nan, "float32")
    for _ in range(30):  # a buffer full of anything is overwritten everywhere
        assert engine.observation(state, out=buffer) is buffer
        assert np.array_equal(buffer, engine.observation(state))
        state = engine.step(state, batch.random_legal_actions(state.legal_action_mask, rng))
    with pytest.raises(apothecary.ApothecaryError, match="out must be a float32 array"):
        engine.observation(state, out=buffer[:8])
