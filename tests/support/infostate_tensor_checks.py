"""Checks of a game's information-state tensor over sampled positions: fixed
length, within the declared bounds, equal wherever the seat's information state
string is equal and different wherever it differs (perfect recall).

The positions come from seeded random games, with some positions' children (so
that two positions differ in one public action) and, for every seat, a world
resampled from that seat's information state (the same string for it, other
strings for the seats whose knowledge the resample redrew).
"""

from __future__ import annotations

import hashlib
import random
from array import array
from collections.abc import Callable
from dataclasses import dataclass

from apothecary.core.game import Action, Game, State, sample_chance

Tensor = Callable[[State, int], list[float]]
Policy = Callable[[State, random.Random], Action]


def _uniform(state: State, rng: random.Random) -> Action:
    return rng.choice(list(state.legal_actions()))


def sample_positions(
    game: Game,
    games: int,
    seed: int,
    stride: int = 1,
    children_every: int = 7,
    policy: Policy = _uniform,
    twins: int = 4,
) -> list[State]:
    """Every ``stride``-th position of ``games`` seeded random games (their ends
    included); every ``children_every``-th position, each of its children; and
    per game ``twins`` twins of its end (see :func:`twin`)."""
    rng = random.Random(seed)
    found: list[State] = []
    step = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if step % stride == 0:
                found.append(state.clone())
            if step % children_every == 0:
                for action in state.legal_actions():
                    child = state.clone()
                    child.apply_action(action)
                    found.append(child)
            step += 1
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(policy(state, rng))
        found.append(state)
        found += [twin(state, rng) for _ in range(twins)]
    return found


def twin(state: State, rng: random.Random) -> State:
    """``state``'s game with one chance outcome changed and every later action
    replayed while it stays legal: mostly a position that differs from the
    original in a hidden fact and in what it later made public (a death, a
    total), and in nothing else."""
    history = state.history()
    replay = state.game.new_initial_state()
    chances = []
    for index, action in enumerate(history):
        if replay.is_chance_node() and len(replay.chance_outcomes()) > 1:
            chances.append(index)
        replay.apply_action(action)
    if not chances:
        return replay
    changed = rng.choice(chances)
    replay = state.game.new_initial_state()
    for action in history[:changed]:
        replay.apply_action(action)
    others = [a for a, _p in replay.chance_outcomes() if a != history[changed]]
    replay.apply_action(rng.choice(others))
    for action in history[changed + 1 :]:
        if replay.is_terminal() or action not in replay.legal_actions():
            break
        replay.apply_action(action)
    return replay


def _own(state: State, player: int) -> list[float]:
    return state.information_state_tensor(player)


@dataclass
class Faults:
    """What :func:`infostate_tensor_faults` found, and how much it looked at."""

    wrong_length: int = 0
    out_of_bounds: int = 0
    split: int = 0
    """Records with a string seen before for that seat but another tensor."""
    merged: int = 0
    """Records with a tensor seen before for that seat but another string."""
    records: int = 0
    repeated_strings: int = 0
    """Records whose string was seen before (material for the ``split`` check)."""

    @property
    def faults(self) -> int:
        """All faults found."""
        return self.wrong_length + self.out_of_bounds + self.split + self.merged


def _digest(values: list[float]) -> bytes:
    return hashlib.blake2b(array("d", values).tobytes(), digest_size=16).digest()


def infostate_tensor_faults(positions: list[State], tensor: Tensor = _own, seed: int = 0) -> Faults:
    """Check ``tensor`` (the game's own by default) on every position and on a
    world resampled from each seat's information state, for every seat."""
    rng = random.Random(seed)
    game = positions[0].game
    players = game.num_players
    size = game.information_state_tensor_size()
    low, high = game.information_state_tensor_bounds()
    found = Faults()
    by_string: dict[tuple[int, str], bytes] = {}
    by_tensor: dict[tuple[int, bytes], str] = {}
    for state in positions:
        worlds = [state] + [state.resample_from_infostate(seat, rng) for seat in range(players)]
        for world in worlds:
            for seat in range(players):
                values = tensor(world, seat)
                text = world.information_state_string(seat)
                found.records += 1
                if len(values) != size:
                    found.wrong_length += 1
                    continue
                if any(not lo <= v <= hi for v, lo, hi in zip(values, low, high, strict=True)):
                    found.out_of_bounds += 1
                key = _digest(values)
                earlier = by_string.setdefault((seat, text), key)
                if earlier is not key:
                    found.repeated_strings += 1
                    found.split += earlier != key
                found.merged += by_tensor.setdefault((seat, key), text) != text
    return found


def _observed(state: State, player: int) -> list[float]:
    return state.observation_tensor(player)


def observation_bound_faults(positions: list[State], tensor: Tensor = _observed) -> int:
    """Values of ``tensor`` (the game's observation tensor by default) outside
    the game's declared ``observation_tensor_bounds``."""
    game = positions[0].game
    low, high = game.observation_tensor_bounds()
    return sum(
        1
        for state in positions
        for seat in range(game.num_players)
        for v, lo, hi in zip(tensor(state, seat), low, high, strict=True)
        if not lo <= v <= hi
    )


Ranges = Callable[[State], list[tuple[int, int]]]


def blanking(ranges: Ranges) -> Tensor:
    """A planted bug: the game's information-state tensor with the ``(start,
    length)`` ranges that ``ranges(state)`` names zeroed (one fact lost)."""

    def tensor(state: State, seat: int) -> list[float]:
        values = state.information_state_tensor(seat)
        for start, length in ranges(state):
            values[start : start + length] = [0.0] * length
        return values

    return tensor


def with_move_count(state: State, seat: int) -> list[float]:
    """A planted bug: the information-state tensor with its first number
    replaced by the number of moves played, unscaled (out of any [0, 1] bound)."""
    values = state.information_state_tensor(seat)
    values[0] = float(len(state.history()))
    return values
