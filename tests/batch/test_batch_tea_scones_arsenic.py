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
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from batch_differential import Mismatch, Replay, drive, uniform_policy

import apothecary
from apothecary import batch
from apothecary.core.game import Action, State, sample_chance
from apothecary.games.tea_scones_arsenic import batch as batch_tsa
from apothecary.games.tea_scones_arsenic.facts import BACK, DECIDE, DOSE_COUNTS, EAT, KINDS, STOP
from apothecary.games.tea_scones_arsenic.facts import OVER as OVER_PHASE
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenic, TeaSconesArsenicState

NAME = "tea-scones-arsenic"


def eat_or_back(world: TeaSconesArsenicState) -> Action:
    """Eat what does not kill; put back what would, while a cube is left."""
    seat = world.turn_player
    if world.totals[seat] + world.hand_dose < world.lethal_dose or world.eat_off:
        return EAT
    return BACK if world.cubes[seat] else EAT


def careful(world: State, rng: random.Random) -> Action:
    """:func:`eat_or_back`, stopping one time in twenty when allowed, otherwise
    a random legal action."""
    assert isinstance(world, TeaSconesArsenicState)
    if world.phase == DECIDE:
        return eat_or_back(world)
    legal = list(world.legal_actions())
    if STOP in legal and len(legal) > 1 and rng.random() < 0.95:
        legal.remove(STOP)
    return rng.choice(legal)


def late(left: int) -> Callable[[State, random.Random], Action]:
    """:func:`eat_or_back`, never stopping while the box holds more than
    ``left`` scones, then stopping whenever allowed: ties with a nearly empty
    box, eat-offs the box runs out in, shared wins."""

    def policy(world: State, rng: random.Random) -> Action:
        assert isinstance(world, TeaSconesArsenicState)
        if world.phase == DECIDE:
            return eat_or_back(world)
        legal = list(world.legal_actions())
        if STOP in legal:
            if world.box_count <= left:
                return STOP
            if len(legal) > 1:
                legal.remove(STOP)
        return rng.choice(legal)

    return policy


# (players, spoon, games, steps): every player count, with and without the
# Little Spoon; enough steps that each slot plays several games.
CONFIGURATIONS: list[tuple[int, bool, int, int]] = [
    (1, False, 64, 100),
    (1, True, 32, 100),
    (2, False, 64, 100),
    (2, True, 64, 100),
    (3, False, 48, 110),
    (3, True, 48, 110),
    (4, False, 32, 130),
    (4, True, 32, 130),
    (5, False, 24, 140),
    (5, True, 24, 140),
    (6, False, 24, 150),
    (6, True, 24, 150),
]


FINISHED: dict[tuple[int, bool, str], int] = {}
"""Games played to their end per configuration and policy (for the docs' count)."""


@pytest.mark.parametrize(("players", "spoon", "games", "steps"), CONFIGURATIONS)
@pytest.mark.parametrize("policy", [uniform_policy, careful], ids=["uniform", "careful"])
def test_batch_plays_the_scalar_rules(
    players: int, spoon: bool, games: int, steps: int, policy: Any
) -> None:
    engine = batch.load(NAME, players=players, little_spoon=spoon)
    result = drive(engine, games, steps, seed=players * 10 + spoon, policy=policy)
    FINISHED[players, spoon, policy.__name__] = result.finished
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
    with pytest.raises(Mismatch, match=r"current_player|terminated"):
        plant_drive(spoon=False, seed=1)


def test_a_batch_that_offers_no_spoon_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        batch_tsa, "spoon_holder", lambda after, eater, alive, spoons: np.full(after.shape, -1)
    )
    with pytest.raises(Mismatch, match=r"current_player|legal_action_mask"):
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
    with pytest.raises(Mismatch, match=r"current_player|terminated"):
        plant_drive(spoon=False, seed=3)


def test_a_scalar_engine_that_offers_no_spoon_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(TeaSconesArsenicState, "_next_spoon_holder", lambda self, after: -1)
    with pytest.raises(Mismatch, match=r"current_player|legal_action_mask"):
        plant_drive(spoon=True, seed=4)


def test_a_batch_that_shows_every_dose_to_every_seat_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = batch.load(NAME, players=3)
    assert isinstance(engine, batch_tsa.TeaSconesArsenicBatch)
    original = engine._scones

    def everyone_sees(state: Any) -> Any:
        games, at, dose, known = original(state)
        return games, at, dose, np.full_like(known, 0b111111)

    monkeypatch.setattr(engine, "_scones", everyone_sees)
    with pytest.raises(Mismatch, match="observation"):
        drive(engine, 16, 10, seed=5)


def test_the_plants_are_quiet_without_a_plant() -> None:
    """The plant drives pass on the engines as they are: what fails above is the plant."""
    plant_drive(spoon=False, seed=1)
    plant_drive(spoon=True, seed=2)


DRAW_KIND_1 = 6
"""The action id of taking an unmarked kind-1 scone."""


def test_doses_drawn_from_the_keys_follow_the_scalar_probabilities() -> None:
    """A first kind-1 scone is a 0 or a 1 a third of the time each, a 2 or a 3
    a sixth; after a 3 went back marked, the next kind-1 scone by kind is drawn
    from the five unmarked ones (2/5, 2/5, 1/5, never a 3)."""
    engine = batch.load(NAME, players=2)
    n = 30_000
    first = engine.step(engine.init(3, n), np.full(n, DRAW_KIND_1))
    shares = np.bincount(first.hand_dose, minlength=4) / n
    assert np.allclose(shares, np.array(DOSE_COUNTS) / 6, atol=0.012)
    back = engine.step(first, np.full(n, BACK))
    second = engine.step(back, np.full(n, DRAW_KIND_1))
    after_three = np.bincount(second.hand_dose[first.hand_dose == 3], minlength=4)
    assert np.allclose(after_three / after_three.sum(), [2 / 5, 2 / 5, 1 / 5, 0], atol=0.03)
    # The unmarked count left at the draw: the box's five are the other kind-1 scones.
    assert (second.unmarked[:, 0] == 4).all() and (second.marked_count == 1).all()


def test_draws_depend_on_the_game_not_its_batch() -> None:
    engine = batch.load(NAME, players=3, little_spoon=True)

    def doses(state: Any, steps: int) -> list[list[int]]:
        seen = []
        for _ in range(steps):
            state = engine.step(state, state.legal_action_mask.argmax(axis=1))
            seen.append(state.hand_dose.tolist())
        return seen

    small, large = doses(engine.init(5, 3), 40), doses(engine.init(5, 40), 40)
    assert [row[:3] for row in large] == small
    assert len({tuple(row) for row in large}) > 5


def test_a_dose_none_of_the_kind_has_left_is_refused() -> None:
    engine = batch.load(NAME, players=2)
    state = engine.init(0, 2)
    three = np.array([3, -1])  # game 0's kind-1 scone is its only 3
    state = engine.step(state, np.full(2, DRAW_KIND_1), chance=three)
    state = engine.step(state, np.full(2, EAT))
    with pytest.raises(apothecary.IllegalActionError, match="game 0: chance 3 is not a dose"):
        engine.step(state, np.full(2, DRAW_KIND_1), chance=three)
    with pytest.raises(apothecary.IllegalActionError, match="game 1: chance 7"):
        engine.step(state, np.full(2, DRAW_KIND_1), chance=np.array([-1, 7]))


def test_auto_reset_is_next_step() -> None:
    engine = batch.load(NAME, players=1)
    start = engine.init(4, 2)
    # Solo: stopping at once ends the game, a living winner with no scone.
    end = engine.step(start, np.array([STOP, DRAW_KIND_1]))
    assert end.terminated.tolist() == [True, False]
    assert end.rewards.tolist() == [[1.0], [0.0]]
    assert end.current_player[0] == apothecary.TERMINAL and not end.legal_action_mask[0].any()
    again = engine.step(end, np.array([12345, EAT]))
    assert again.episode.tolist() == [1, 0] and not again.terminated.any()
    assert again.rewards.sum() == 0
    assert np.array_equal(engine.observation(again)[0], engine.observation(start)[0])
    assert end.terminated[0] and end.episode[0] == 0  # step is a pure function


@pytest.mark.parametrize(("players", "spoon"), [(1, False), (3, True), (6, True)])
def test_shapes_are_fixed_and_observations_lie_in_the_scalar_bounds(
    players: int, spoon: bool
) -> None:
    engine = batch.load(NAME, players=players, little_spoon=spoon)
    low, high = (np.array(b, dtype=np.float32) for b in engine.game.observation_tensor_bounds())
    state = engine.init(6, 64)
    shapes = {name: value.shape for name, value in vars(state).items()}
    rng = np.random.default_rng(6)
    for _ in range(150):
        obs = engine.observation(state)
        assert (obs >= low).all() and (obs <= high).all()
        state = engine.step(state, batch.random_legal_actions(state.legal_action_mask, rng))
        assert {name: value.shape for name, value in vars(state).items()} == shapes
    assert state.episode.sum() > 0
    # The cup and marked slots are the scalar game's own bounds.
    scalar = engine.game
    assert isinstance(scalar, TeaSconesArsenic)
    assert state.cup_kind.shape[2] == scalar.longest_cup
    assert state.marked_kind.shape[1] == scalar.max_marked
    assert state.pool.shape[1] == KINDS


def recorded_games(
    game: TeaSconesArsenic,
    policy: Callable[[State, random.Random], Action],
    wanted: Callable[[TeaSconesArsenicState], bool],
    count: int,
    seed: int,
) -> list[list[Action]]:
    """The histories of the first ``count`` scalar games (of at most 20,000)
    that end as ``wanted`` says."""
    rng = random.Random(seed)
    found: list[list[Action]] = []
    for _ in range(20_000):
        world = game.new_initial_state()
        while not world.is_terminal():
            chance = world.is_chance_node()
            world.apply_action(sample_chance(world, rng) if chance else policy(world, rng))
        if wanted(world):
            found.append(world.history())
            if len(found) == count:
                return found
    raise AssertionError(f"only {len(found)} such games in 20,000")


def shared(world: TeaSconesArsenicState) -> bool:
    """Two or more winners: the main game's tie with an empty box."""
    outcome = world.outcome()
    return outcome is not None and len(outcome.winners) > 1 and not world.eat_off


# (what, players, spoon, policy, ending): endings random play seldom reaches.
RARE: list[tuple[str, int, bool, Any, Callable[[TeaSconesArsenicState], bool]]] = [
    ("shared-win", 6, False, late(0), shared),
    ("shared-win-spoon", 6, True, late(0), shared),
    ("eat-off-box-empty", 6, False, late(1), lambda w: w.eat_off and w.box_count == 0),
    ("eat-off-spoon", 6, True, late(4), lambda w: w.eat_off),
    ("eat-off-4", 4, True, late(8), lambda w: w.eat_off),
]


@pytest.mark.parametrize(
    ("players", "spoon", "policy", "wanted"), [r[1:] for r in RARE], ids=[r[0] for r in RARE]
)
def test_rare_endings_play_the_scalar_rules(
    players: int, spoon: bool, policy: Any, wanted: Callable[[TeaSconesArsenicState], bool]
) -> None:
    """Scalar games found to end so, replayed through the batch step by step."""
    engine = batch.load(NAME, players=players, little_spoon=spoon)
    scalar = engine.game
    assert isinstance(scalar, TeaSconesArsenic)
    histories = recorded_games(scalar, policy, wanted, 8, seed=players + spoon)
    replay = Replay(histories)
    steps = max(sum(1 for a in h if a > 3) for h in histories) + 1
    result = drive(engine, 8, steps, 0, policy=replay.policy, chance=replay.chance)
    assert result.finished >= 8
    assert [world.history() for world in replay.games()[:8]] == histories
