"""Little Drop of Poison's batch engine against the scalar engine, step for step.

``drive`` (tests/support/batch_differential.py) plays the same random legal
actions and the same chance outcomes (the king, the peasants and every deal,
sampled for the scalar game and handed to the batch as ``chance``, a column
per event, and as ``init``'s for the opening ones) in both engines and
compares current player, legal mask, every seat's observation tensor,
rewards and terminated after every step, through the batch's auto-resets.
The planted-bug tests show a rule changed on either side is caught.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from batch_differential import Mismatch, assert_within_bounds, drive

import apothecary
from apothecary import batch
from apothecary.games.little_drop_of_poison import batch as batch_ldop
from apothecary.games.little_drop_of_poison import facts, rules

NAME = "little-drop-of-poison"
SMALL_DECK = "red:3x1;universal:1"
"""Four cards: at 5 players and more the deals run dry, so refills and deals
that stop (and the no-card-left end) are met every poison round."""
THREE = "red:2x1,1x2;blue:3x1;antidote(red):2;universal:1"
TWO_COLOURS = "r:4x1;g+r:2x2;antidote(g):1;antidote(r):1;universal:2"

# (players, options, games, steps, finished): every player count at the
# default deck, short games (a low target, one assassination round) so that
# most slots finish several, full default games at 3 and 4 players (and a
# stretch of one at 8), the round limits, and small decks for refills, empty
# deals and antidotes; ``finished`` is the fewest games the run must end.
CONFIGURATIONS: list[tuple[int, dict[str, Any], int, int, int]] = [
    (3, {"target": 2}, 64, 200, 128),
    (4, {"target": 2}, 48, 200, 64),
    (5, {"target": 2}, 40, 200, 40),
    (6, {"max_assassination_rounds": 1}, 40, 150, 40),
    (7, {"target": 2}, 24, 200, 12),
    (8, {"target": 2}, 24, 200, 12),
    (3, {}, 16, 500, 10),
    (4, {}, 12, 600, 6),
    (8, {}, 4, 300, 0),
    (4, {"max_poison_rounds": 1, "max_assassination_rounds": 4}, 64, 150, 120),
    (5, {"max_poison_rounds": 2, "max_assassination_rounds": 3}, 40, 150, 40),
    (8, {"deck": SMALL_DECK, "max_poison_rounds": 5, "max_assassination_rounds": 2}, 24, 150, 12),
    (3, {"deck": THREE, "max_poison_rounds": 4, "max_assassination_rounds": 3}, 48, 150, 48),
    (6, {"deck": TWO_COLOURS, "target": 2, "max_poison_rounds": 6}, 32, 200, 8),
]


@pytest.mark.parametrize(("players", "options", "games", "steps", "finished"), CONFIGURATIONS)
def test_batch_plays_the_scalar_rules(
    players: int, options: dict[str, Any], games: int, steps: int, finished: int
) -> None:
    engine = batch.load(NAME, players=players, **options)
    result = drive(engine, games, steps, seed=players * 100 + len(options))
    assert result.finished >= finished


PLANT = (4, {"target": 2}, 32, 150)


def plant_drive(engine: batch.BatchGame[Any], seed: int) -> None:
    _, _, games, steps = PLANT
    drive(engine, games, steps, seed=seed)


def load(players: int | None = None, **options: Any) -> batch_ldop.LittleDropOfPoisonBatch:
    engine = batch.load(NAME, players=players, **options)
    assert isinstance(engine, batch_ldop.LittleDropOfPoisonBatch)
    return engine


def planted() -> batch_ldop.LittleDropOfPoisonBatch:
    players, options, _, _ = PLANT
    return load(players, **options)


def test_a_batch_king_that_dies_a_drop_later_is_caught() -> None:
    engine = planted()
    engine._lethal = engine._lethal + (np.arange(engine.num_players + 1) == engine.num_players)
    with pytest.raises(Mismatch):
        plant_drive(engine, 1)


def test_a_batch_without_one_colour_antidotes_is_caught() -> None:
    engine = planted()
    engine._antidote_of = np.zeros_like(engine._antidote_of)
    with pytest.raises(Mismatch):
        plant_drive(engine, 2)


def test_a_batch_whose_universal_antidote_does_nothing_is_caught() -> None:
    engine = planted()
    engine._universal = np.zeros_like(engine._universal)
    with pytest.raises(Mismatch):
        plant_drive(engine, 3)


def test_a_batch_without_the_tie_break_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def shared(scores: Any, round_points: Any) -> Any:
        tied = scores == scores.max(axis=1, keepdims=True)
        return (tied / tied.sum(axis=1, keepdims=True)).astype(np.float32)

    monkeypatch.setattr(batch_ldop.LittleDropOfPoisonBatch, "returns", staticmethod(shared))
    # Games cut short by the round limit end in ties at low scores, often
    # with different points in the last assassination round.
    engine = batch.load(NAME, players=4, max_assassination_rounds=2, max_poison_rounds=3)
    with pytest.raises(Mismatch, match="rewards"):
        drive(engine, 64, 60, seed=4)


def test_a_scalar_engine_scoring_every_king_3_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    original = facts.kill_points
    monkeypatch.setattr(
        rules,
        "kill_points",
        lambda killer, victim, king: 3 if king else original(killer, victim, king),
    )
    with pytest.raises(Mismatch):
        plant_drive(planted(), 5)


def test_a_scalar_engine_without_blocks_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rules.LittleDropOfPoisonState, "_blocked", lambda self, character: 0)
    with pytest.raises(Mismatch):
        plant_drive(planted(), 6)


def test_draws_from_the_keys_follow_the_scalar_probabilities() -> None:
    """The king and seat 0's peasant are rat half the time; seat 1's is a rat
    3/7 of the time after a rat; each card dealt is a type with probability
    its copies over the deck's 48."""
    engine = load(4)
    n = 20_000
    state = engine.init(11, n)
    assert abs((state.king == 0).mean() - 0.5) < 0.015
    assert abs((state.kinds[:, 0] == 0).mean() - 0.5) < 0.015
    after_rat = state.kinds[state.kinds[:, 0] == 0, 1]
    assert abs((after_rat == 0).mean() - 3 / 7) < 0.02
    dealt = state.hands.sum(axis=1).sum(axis=0) / (8 * n)  # 8 cards per game
    copies = np.array(engine.game.start_counts) / engine.game.deck_size
    assert np.allclose(dealt, copies, atol=0.004)
    assert (state.draws == 1 + 4 + 8).all()


def test_draws_depend_on_the_game_not_its_batch() -> None:
    engine = batch.load(NAME, players=5, target=2)

    def observed(state: Any, steps: int) -> list[Any]:
        seen = []
        for _ in range(steps):
            state = engine.step(state, state.legal_action_mask.argmax(axis=1))
            seen.append(engine.observation(state))
        return seen

    small = observed(engine.init(5, 3), 80)
    large = observed(engine.init(5, 40), 80)
    assert all(np.array_equal(a, b[:3]) for a, b in zip(small, large, strict=True))


def test_chance_outcomes_that_cannot_happen_are_refused() -> None:
    engine = load(3)
    game = engine.game
    with pytest.raises(apothecary.IllegalActionError, match="game 1: chance 0 "):
        engine.init(0, 2, chance=np.array([[-1], [0]]))  # the king's draw is not a target
    # A deck of four: a fifth red card cannot be dealt.
    small = load(3, deck=SMALL_DECK)
    red = small.game.DEAL
    opening = np.array([[small.game.CROWN, *[small.game.PEASANT] * 3, red, red, red, red]])
    with pytest.raises(apothecary.IllegalActionError, match="event 7"):
        small.init(0, 1, chance=opening)
    with pytest.raises(apothecary.MalformedActionError, match=r"\(2, m\) ints"):
        engine.init(0, 2, chance=np.zeros((3, 2), dtype=np.int64))
    state = engine.init(0, 2, chance=np.array([[game.CROWN + 1], [-1]]))
    assert state.king.tolist()[0] == 1
    with pytest.raises(apothecary.ApothecaryError, match="opens with no chance"):
        batch.load("poison-pot").init(0, 2, chance=np.array([-1, -1]))


def test_decks_that_need_the_no_kill_left_rule_are_refused_by_name() -> None:
    with pytest.raises(apothecary.BadOptionError, match="does not support option deck="):
        batch.load(NAME, deck="red:5x1;antidote(red):2")  # no universal antidote
    with pytest.raises(apothecary.BadOptionError, match="no-kill-left rule"):
        batch.load(NAME, deck="red:2x1;universal:1")  # 2 red drops: nobody can die


def test_observations_lie_in_the_scalar_bounds() -> None:
    assert_within_bounds(load(6, target=3), 128, 150, seed=3)
