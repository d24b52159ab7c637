"""Tea, Scones and Arsenic's batch engine against the scalar engine, step for step.

``drive`` (tests/support/batch_differential.py) plays the same actions and
the same doses (sampled for the scalar game, handed to the batch as
``chance``) in both engines and compares current player, legal mask, every
seat's observation tensor, rewards and terminated after every step, through
the batch's auto-resets. Uniformly random play stops early and rarely empties
the box, so each configuration is also driven by a "careful" policy that
never eats a lethal scone it can put back and seldom stops: long games, many
marked scones, honour rounds, empty boxes. The planted-rule tests show a
rule changed on either side is caught.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from batch_differential import Mismatch, drive, uniform_policy

import apothecary
from apothecary import batch
from apothecary.core.game import Action, State
from apothecary.games.tea_scones_arsenic import batch as batch_tsa
from apothecary.games.tea_scones_arsenic.facts import BACK, DECIDE, DOSE_COUNTS, EAT, KINDS, STOP
from apothecary.games.tea_scones_arsenic.facts import OVER as OVER_PHASE
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenicState

NAME = "tea-scones-arsenic"


def careful(world: State, rng: random.Random) -> Action:
    """Eat what does not kill, put back what would (while a cube is left),
    stop one time in twenty when allowed, otherwise a random legal action."""
    assert isinstance(world, TeaSconesArsenicState)
    legal = list(world.legal_actions())
    if world.phase == DECIDE:
        seat = world.turn_player
        if world.totals[seat] + world.hand_dose < world.lethal_dose or BACK not in legal:
            return EAT
        return BACK
    if STOP in legal and len(legal) > 1 and rng.random() < 0.95:
        legal.remove(STOP)
    return rng.choice(legal)


# (players, spoon, games, steps): every player count, with and without the
# Little Spoon; enough steps that each slot plays several games.
CONFIGURATIONS: list[tuple[int, bool, int, int]] = [
    (1, False, 128, 120),
    (1, True, 64, 120),
    (2, False, 128, 120),
    (2, True, 128, 120),
    (3, False, 96, 120),
    (3, True, 96, 120),
    (4, False, 64, 140),
    (4, True, 64, 140),
    (5, False, 48, 150),
    (5, True, 48, 150),
    (6, False, 48, 160),
    (6, True, 48, 160),
]


@pytest.mark.parametrize(("players", "spoon", "games", "steps"), CONFIGURATIONS)
@pytest.mark.parametrize("policy", [uniform_policy, careful], ids=["uniform", "careful"])
def test_batch_plays_the_scalar_rules(
    players: int, spoon: bool, games: int, steps: int, policy: Any
) -> None:
    engine = batch.load(NAME, players=players, little_spoon=spoon)
    result = drive(engine, games, steps, seed=players * 10 + spoon, policy=policy)
    # Every slot finished at least one game, so every phase and reset was compared.
    assert result.finished >= games


def plant_drive(spoon: bool, seed: int) -> None:
    """A drive long enough to reach eat-offs (2 players) or spoon windows (4)."""
    if spoon:
        drive(batch.load(NAME, players=4, little_spoon=True), 32, 40, seed=seed)
    else:
        drive(batch.load(NAME, players=2), 128, 100, seed=seed)


def test_a_batch_that_skips_the_eat_off_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Players tied on scones and arsenic share the win, box or no box.
    monkeypatch.setattr(batch_tsa, "settled", lambda tied, box: np.ones(box.shape, np.bool_))
    with pytest.raises(Mismatch, match="current_player|terminated"):
        plant_drive(spoon=False, seed=1)


def test_a_batch_that_offers_no_spoon_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        batch_tsa, "spoon_holder", lambda after, eater, alive, spoons: np.full(after.shape, -1)
    )
    with pytest.raises(Mismatch, match="current_player|legal_action_mask"):
        plant_drive(spoon=True, seed=2)


def test_a_scalar_engine_that_skips_the_eat_off_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = TeaSconesArsenicState._end_main_game

    def shared(self: TeaSconesArsenicState) -> None:
        original(self)
        if self.eat_off and self.phase != OVER_PHASE:
            self.eat_off = False
            self._finish(self.eat_off_seats, "tied: a shared win")

    monkeypatch.setattr(TeaSconesArsenicState, "_end_main_game", shared)
    with pytest.raises(Mismatch, match="current_player|terminated"):
        plant_drive(spoon=False, seed=3)


def test_a_scalar_engine_that_offers_no_spoon_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(TeaSconesArsenicState, "_next_spoon_holder", lambda self, after: -1)
    with pytest.raises(Mismatch, match="current_player|legal_action_mask"):
        plant_drive(spoon=True, seed=4)


def test_the_plants_are_quiet_without_a_plant() -> None:
    """The plant drives pass on the engines as they are: what fails above is the plant."""
    plant_drive(spoon=False, seed=1)
    plant_drive(spoon=True, seed=2)
