"""In Vino Morte's batch engine against the scalar engine, step for step.

``drive`` (tests/support/batch_differential.py) plays the same random legal
actions in both and compares current player, legal mask, every seat's
observation tensor, rewards and terminated after every step, through the
batch's auto-resets; the planted-bug tests show the comparison catches a
rule changed on either side.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest
from batch_differential import Mismatch, assert_within_bounds, drive

import apothecary
from apothecary import batch
from apothecary.core import registry
from apothecary.games.in_vino_morte import batch as batch_ivm
from apothecary.games.in_vino_morte.rules import InVinoMorteState

# (players, options, games in the batch, steps): every player count, every
# option; enough steps that each slot plays several games (a game at n
# players takes at most n * n - 1 actions without Cheese).
CONFIGURATIONS: list[tuple[int, dict[str, Any], int, int]] = [
    (2, {}, 256, 12),
    (3, {}, 256, 24),
    (4, {}, 256, 32),
    (5, {}, 192, 36),
    (6, {}, 128, 48),
    (7, {}, 96, 60),
    (8, {}, 64, 70),
    (9, {}, 64, 84),
    (6, {"deck": "9+9"}, 96, 40),
    (9, {"deck": "9+9"}, 32, 84),
    (2, {"cheese": True}, 256, 12),
    (3, {"cheese": True}, 256, 30),
    (4, {"cheese": True}, 192, 40),
    (5, {"cheese": True, "cheese_on_reveal": False}, 128, 48),
    (7, {"cheese": True}, 64, 70),
    (9, {"cheese": True, "cheese_on_reveal": False}, 32, 90),
    (5, {"round_limit": 1}, 192, 20),
    (7, {"round_limit": 3, "deck": "9+9"}, 64, 50),
    (3, {"cheese": True, "round_limit": 1}, 256, 12),
    (4, {"cheese": True, "round_limit": 2, "deck": "9+9"}, 192, 30),
]


@pytest.mark.parametrize(("players", "options", "games", "steps"), CONFIGURATIONS)
def test_batch_plays_the_scalar_rules(
    players: int, options: dict[str, Any], games: int, steps: int
) -> None:
    engine = batch.load("in-vino-morte", players=players, **options)
    result = drive(engine, games, steps, seed=players * 100 + len(options))
    # Every slot finished at least one game, so every phase and reset was compared.
    assert result.finished >= games


PLANT = (4, {"cheese": True}, 64, 40)


def test_a_batch_that_skips_the_cheese_reversal_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_ivm, "drink_kills", lambda card, cheese: card == 1)
    players, options, games, steps = PLANT
    with pytest.raises(Mismatch):
        drive(batch.load("in-vino-morte", players=players, **options), games, steps, seed=1)


def test_a_batch_whose_reveal_ignores_cheese_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        batch_ivm, "reveal_kills", lambda card, cheese, on_reveal: batch_ivm.drink_kills(card, 0)
    )
    players, options, games, steps = PLANT
    with pytest.raises(Mismatch):
        drive(batch.load("in-vino-morte", players=players, **options), games, steps, seed=2)


def test_a_scalar_engine_whose_reveal_ignores_cheese_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        InVinoMorteState, "_dies", lambda self, seat, on_reveal: self.card[seat] == 1
    )
    players, options, games, steps = PLANT
    with pytest.raises(Mismatch):
        drive(batch.load("in-vino-morte", players=players, **options), games, steps, seed=3)


def test_the_next_dealer_planted_to_the_left_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = batch.load("in-vino-morte", players=5)
    monkeypatch.setattr(engine, "_counter_clockwise", engine._clockwise)
    with pytest.raises(Mismatch):
        drive(engine, 64, 30, seed=4)


def play_to_the_end(engine: batch.BatchGame[Any], state: Any) -> Any:
    """Step game 0 (of a batch of one) with its first legal action until it ends."""
    while not state.terminated[0]:
        state = engine.step(state, state.legal_action_mask.argmax(axis=1))
    return state


def test_auto_reset_is_next_step() -> None:
    engine = batch.load("in-vino-morte", players=3)
    end = play_to_the_end(engine, engine.init(5, 1))
    # The terminal step reports the end: rewards, TERMINAL, the winners' block.
    assert end.rewards.sum() == pytest.approx(1.0)
    assert end.current_player[0] == apothecary.TERMINAL
    assert not end.legal_action_mask.any()
    assert engine.observation(end)[0, :, -3:].sum() > 0
    # The next step ignores its action and starts the slot's next episode.
    again = engine.step(end, np.array([12345]))
    assert again.episode[0] == 1 and not again.terminated[0]
    assert again.rewards.sum() == 0 and again.current_player[0] == 0
    start = engine.init(5, 1)
    assert np.array_equal(engine.observation(again), engine.observation(start))
    # The old state is untouched: step is a pure function.
    assert end.terminated[0] and end.episode[0] == 0


def test_games_are_independent_of_their_batch() -> None:
    """Game i's play depends only on (seed, i) and its actions, not on its neighbours."""
    engine = batch.load("in-vino-morte", players=4, cheese=True)
    small, large = engine.init(9, 4), engine.init(9, 64)
    assert np.array_equal(small.key, large.key[:4])


def test_bad_actions_are_refused_without_touching_the_state() -> None:
    engine = batch.load("in-vino-morte", players=4)
    state = engine.init(0, 3)
    with pytest.raises(apothecary.IllegalActionError, match="game 1: action 4 is not legal"):
        engine.step(state, np.array([0, 4, 0]))
    with pytest.raises(apothecary.MalformedActionError, match="game 2: action 99"):
        engine.step(state, np.array([0, 0, 99]))
    with pytest.raises(apothecary.MalformedActionError, match="3 ints"):
        engine.step(state, np.array([0.0, 0.0, 0.0]))
    with pytest.raises(apothecary.ApothecaryError, match="no chance events"):
        engine.step(state, np.array([0, 0, 0]), chance=np.array([0, 0, 0]))
    assert (state.step == 0).all()


def test_load_mirrors_apothecary_load(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = batch.load("in-vino-morte")
    assert engine.num_players == 4 and dict(engine.options) == dict(
        apothecary.load("in-vino-morte").options
    )
    with pytest.raises(apothecary.BadOptionError, match="unknown option"):
        batch.load("in-vino-morte", spoon=True)
    with pytest.raises(apothecary.PlayerCountError):
        batch.load("in-vino-morte", players=10)
    # Every game has an engine now: one taken out stands for a game without.
    without = dataclasses.replace(registry.manifest("little-drop-of-poison"), batch=None)
    monkeypatch.setitem(registry._MANIFESTS, "little-drop-of-poison", without)
    with pytest.raises(batch.NoBatchEngineError, match="little-drop-of-poison has no batch engine"):
        batch.load("little-drop-of-poison")
    with pytest.raises(apothecary.UnknownGameError, match="unknown game"):
        batch.load("no-such-game")
    assert "in-vino-morte" in batch.engines()


def test_observations_lie_in_the_scalar_bounds() -> None:
    engine = batch.load("in-vino-morte", players=5, cheese=True, round_limit=20)
    assert_within_bounds(engine, 128, 60, seed=3)


def test_an_option_an_engine_cannot_play_is_refused_by_name() -> None:
    class WithoutCheese(batch_ivm.InVinoMorteBatch):
        refused_options: ClassVar[Mapping[str, str]] = {"cheese": "a reason given here"}

    with pytest.raises(
        apothecary.BadOptionError, match="does not support option cheese=True: a reason given here"
    ):
        WithoutCheese(apothecary.load("in-vino-morte", cheese=True))
    assert WithoutCheese(apothecary.load("in-vino-morte")).num_players == 4  # the default plays


def test_random_legal_actions_are_legal_and_uniform() -> None:
    mask = np.zeros((3, 6), dtype=np.bool_)
    mask[0, [1, 4]] = True
    mask[2, :] = True  # row 1 has none: a game that has ended
    rng = np.random.default_rng(0)
    picks = np.array([batch.random_legal_actions(mask, rng) for _ in range(6000)])
    assert set(picks[:, 0]) == {1, 4} and set(picks[:, 1]) == {0}
    assert np.allclose(np.bincount(picks[:, 2], minlength=6) / 6000, 1 / 6, atol=0.02)
