"""Drive a batch engine and the scalar engine side by side and compare them.

Each of the batch's games has a scalar twin. At every step both get the same
action (a random legal one, from a seeded ``random.Random``) and the same
chance outcomes (drawn for the scalar game by its probabilities, then handed
to the batch through ``step(..., chance=)``: one per game, or a column per
event where one action sets off several); a twin whose game has ended is
replaced by a new game as the batch auto-resets it (next-step), and a game
that opens with chance events (the first ones, through ``init(...,
chance=)``, and every restart) gets its twin's opening outcomes. After every
step every field a learner reads is compared for every game: current player,
legal mask, every seat's observation tensor, rewards and terminated.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from apothecary.batch import BatchGame, random_legal_actions
from apothecary.core.game import Action, State, sample_chance

Policy = Callable[[State, random.Random], Action]
"""A seat's choice (or chance's outcome) at a scalar state, drawing from the
``random.Random`` given."""


def uniform_policy(world: State, rng: random.Random) -> Action:
    """A legal action uniformly at random: the default driver."""
    return rng.choice(world.legal_actions())


class Replay:
    """Recorded scalar games played again through :func:`drive`: each new
    scalar game the drive starts takes the next history (its decisions as
    :meth:`policy`, its chance outcomes as :meth:`chance`); a game past its
    history, or started once every history is used, plays on at random.

    For rules random play seldom reaches: find the games with the scalar
    engine alone (fast), then compare the batch over exactly those games.
    """

    def __init__(self, histories: list[list[Action]]) -> None:
        self._unused = [list(reversed(h)) for h in reversed(histories)]
        # By id, with the state itself kept so that no id is reused.
        self._playing: dict[int, tuple[State, list[Action]]] = {}

    def _moves(self, world: State) -> list[Action]:
        entry = self._playing.get(id(world))
        if entry is None:
            entry = (world, self._unused.pop() if self._unused else [])
            self._playing[id(world)] = entry
        return entry[1]

    def games(self) -> list[State]:
        """The scalar games followed so far, in the order they started (the
        first ones played the histories, which a test can check)."""
        return [world for world, _moves in self._playing.values()]

    def policy(self, world: State, rng: random.Random) -> Action:
        """The game's next recorded decision (a random legal one past its end)."""
        moves = self._moves(world)
        return moves.pop() if moves else uniform_policy(world, rng)

    def chance(self, world: State, rng: random.Random) -> Action:
        """The game's next recorded chance outcome (drawn past its end)."""
        moves = self._moves(world)
        return moves.pop() if moves else sample_chance(world, rng)


@dataclass
class Drive:
    """What one differential run covered."""

    steps: int
    finished: int
    """Games played to their end (over every slot of the batch)."""


class Mismatch(AssertionError):
    """The two engines disagree; the message says where."""


def expected(game: Any, worlds: list[State]) -> dict[str, np.ndarray]:
    """The scalar engines' answers, shaped as the batch's fields."""
    n, players = len(worlds), game.num_players
    player = np.array([w.current_player() for w in worlds], dtype=np.int64)
    mask = np.zeros((n, game.num_distinct_actions()), dtype=np.bool_)
    obs = np.empty((n, players, game.observation_tensor_size()), dtype=np.float32)
    rewards = np.zeros((n, players), dtype=np.float32)
    for i, world in enumerate(worlds):
        mask[i, list(world.legal_actions())] = True
        for seat in range(players):
            obs[i, seat] = world.observation_tensor(seat)
        if world.is_terminal():  # it ended on this step (the next one restarts it)
            rewards[i] = world.returns()
    terminated = np.array([w.is_terminal() for w in worlds], dtype=np.bool_)
    return {
        "current_player": player,
        "legal_action_mask": mask,
        "observation": obs,
        "rewards": rewards,
        "terminated": terminated,
    }


def compare(engine: BatchGame[Any], state: Any, want: dict[str, np.ndarray], step: int) -> None:
    """Raise Mismatch naming the first game and field where the engines differ."""
    got = {
        "current_player": state.current_player.astype(np.int64),
        "legal_action_mask": state.legal_action_mask,
        "observation": engine.observation(state),
        "rewards": state.rewards,
        "terminated": state.terminated,
    }
    for field, expect in want.items():
        have = got[field]
        if have.shape != expect.shape:
            raise Mismatch(f"step {step}: {field} has shape {have.shape}, expected {expect.shape}")
        if not np.array_equal(have, expect):
            bad = np.argwhere(have != expect)[0]
            raise Mismatch(
                f"step {step}: {field} differs first at index {tuple(bad.tolist())}: "
                f"batch {have[tuple(bad)]!r}, scalar {expect[tuple(bad)]!r}"
            )


def resolve_chance(world: State, rng: random.Random, chance: Policy = sample_chance) -> list[int]:
    """Play ``world``'s chance events until a seat is to move (or the end),
    each chosen by ``chance``; the outcomes, in order."""
    outcomes = []
    while world.is_chance_node():
        outcome = chance(world, rng)
        world.apply_action(outcome)
        outcomes.append(outcome)
    return outcomes


def as_chance(engine: BatchGame[Any], rows: list[list[int]]) -> np.ndarray | None:
    """The outcomes of each game's chance events as ``step``'s ``chance``:
    ``(n,)`` while no game had more than one, else a column per event."""
    if not engine.game.info.has_chance:
        assert not any(rows)
        return None
    width = max(1, *map(len, rows))
    assert width <= engine.max_chance_per_step, "more chance events than the engine allows"
    outcomes = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        outcomes[i, : len(row)] = row
    return outcomes[:, 0] if width == 1 else outcomes


def drive(
    engine: BatchGame[Any],
    games: int,
    steps: int,
    seed: int,
    policy: Policy = uniform_policy,
    chance: Policy = sample_chance,
) -> Drive:
    """Run ``games`` games in both engines for ``steps`` steps, comparing after each.

    ``policy`` picks every seat's action (uniformly random by default; a game
    whose random play never reaches some rule can be driven towards it), and
    ``chance`` every chance outcome (by the scalar probabilities by default;
    :class:`Replay` gives both for recorded games)."""
    game = engine.game
    rng = random.Random(seed)
    worlds = [game.new_initial_state() for _ in range(games)]
    opening = [resolve_chance(world, rng, chance) for world in worlds]
    state = engine.init(seed, games, as_chance(engine, opening) if any(opening) else None)
    compare(engine, state, expected(game, worlds), 0)
    finished = 0
    for step in range(1, steps + 1):
        actions = np.zeros(games, dtype=np.int64)
        outcomes: list[list[int]] = []
        for i, world in enumerate(worlds):
            if world.is_terminal():
                worlds[i] = world = game.new_initial_state()
                finished += 1
            else:
                actions[i] = policy(world, rng)
                world.apply_action(int(actions[i]))
            outcomes.append(resolve_chance(world, rng, chance))
        state = engine.step(state, actions, as_chance(engine, outcomes))
        compare(engine, state, expected(game, worlds), step)
    return Drive(steps, finished)


def assert_within_bounds(engine: BatchGame[Any], games: int, steps: int, seed: int) -> None:
    """Random legal playouts whose every observation lies within the scalar
    game's ``observation_tensor_bounds()``, for every game, seat and step."""
    low, high = (np.array(b, dtype=np.float32) for b in engine.game.observation_tensor_bounds())
    state = engine.init(seed, games)
    rng = np.random.default_rng(seed)
    for step in range(steps):
        obs = engine.observation(state)
        outside = (obs < low) | (obs > high)
        if outside.any():
            raise Mismatch(f"step {step}: out of bounds at {tuple(np.argwhere(outside)[0])}")
        state = engine.step(state, random_legal_actions(state.legal_action_mask, rng))
