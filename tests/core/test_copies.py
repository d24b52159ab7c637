"""Copies that cannot corrupt the original: ``copy.copy`` and ``copy.deepcopy``
behave like ``clone()``, and a state pickles at every protocol, for every game."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import pytest
from toy_high_card.game import ToyGame, ToyState

import apothecary
from apothecary.core.errors import ApothecaryError
from apothecary.core.game import State, sample_chance
from apothecary.testing import ConformanceError, check_game, fingerprint

GAMES = sorted(apothecary.games())
PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def step(state: State, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def positions(name: str, seed: int = 5, every: int = 7) -> list[State]:
    """Clones of every ``every``-th position of a seeded random game, its start
    and its end included."""
    rng = random.Random(f"{name}:{seed}")
    state = apothecary.load(name).new_initial_state()
    found = [state.clone()]
    while not state.is_terminal():
        step(state, rng)
        if state.move_number() % every == 0 or state.is_terminal():
            found.append(state.clone())
    return found


def middle(name: str) -> State:
    """A position half-way through a seeded random game."""
    found = positions(name, every=1)
    return found[len(found) // 2]


def assert_independent(original: State, copied: State, rng: random.Random) -> None:
    """``copied`` equals ``original``, and playing on it leaves ``original`` as it was."""
    before = fingerprint(original)
    assert copied is not original
    assert fingerprint(copied) == before
    if not copied.is_terminal():
        step(copied, rng)
        assert fingerprint(original) == before
        assert copied.history() != original.history()
    if not original.is_terminal():
        snapshot = fingerprint(copied)
        step(original, rng)
        assert fingerprint(copied) == snapshot


def play_out(state: State, rng: random.Random) -> None:
    while not state.is_terminal():
        step(state, rng)
    assert state.outcome() is not None


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
def test_copies_are_independent_of_the_original(name: str, how: Any) -> None:
    rng = random.Random(1)
    for state in positions(name):
        copied = how(state)
        assert type(copied) is type(state)
        assert_independent(state, copied, rng)


@pytest.mark.parametrize("name", GAMES)
def test_a_copied_state_plays_on_like_the_original(name: str) -> None:
    start = middle(name)
    results = []
    for made in (start.clone(), copy.copy(start), copy.deepcopy(start)):
        play_out(made, random.Random(9))
        results.append(fingerprint(made))
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize("name", GAMES)
def test_deepcopy_keeps_shared_references_shared(name: str) -> None:
    state = positions(name)[1]
    holder: dict[str, Any] = {"a": state, "b": [state], "game": state.game}
    copied = copy.deepcopy(holder)
    assert copied["a"] is copied["b"][0]
    assert copied["a"] is not state
    assert fingerprint(copied["a"]) == fingerprint(state)
    assert copied["game"] == state.game


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_state_pickles_at_every_protocol(name: str, protocol: int) -> None:
    rng = random.Random(protocol)
    for state in positions(name, every=11):
        loaded = pickle.loads(pickle.dumps(state, protocol=protocol))
        assert type(loaded) is type(state)
        assert loaded.game == state.game
        assert_independent(state, loaded, rng)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_unpickled_state_plays_on_like_the_original(name: str, protocol: int) -> None:
    start = middle(name)
    loaded = pickle.loads(pickle.dumps(start, protocol=protocol))
    play_out(start, random.Random(4))
    play_out(loaded, random.Random(4))
    assert fingerprint(loaded) == fingerprint(start)


@pytest.mark.parametrize("name", GAMES)
def test_a_resampled_state_copies_and_pickles(name: str) -> None:
    rng = random.Random(2)
    state = middle(name)
    seat = 0 if state.current_player() < 0 else state.current_player()

    def unpickled(world: State) -> State:
        loaded: State = pickle.loads(pickle.dumps(world, protocol=0))
        return loaded

    for how in (copy.copy, copy.deepcopy, unpickled):
        world = state.resample_from_infostate(seat, random.Random(3))
        assert_independent(world, how(world), rng)


def test_states_and_their_games_pickle_together_at_every_protocol() -> None:
    state = positions("poison-pot")[1]
    for protocol in PROTOCOLS:
        game, loaded = pickle.loads(pickle.dumps((state.game, state), protocol=protocol))
        assert game == state.game and loaded.game == state.game
        assert fingerprint(loaded) == fingerprint(state)


# -- the conformance suite checks copies and pickles -----------------------------


class _ShallowCopyState(ToyState):
    """Toy high card whose ``copy.copy`` shares the move list (the old default)."""

    __slots__ = ()

    def __copy__(self) -> _ShallowCopyState:
        other = _ShallowCopyState.__new__(_ShallowCopyState)
        for name in ("game", "_history", "_legal", "cards", "moves"):
            setattr(other, name, getattr(self, name))
        return other


class _ShallowCopyGame(ToyGame):
    def new_initial_state(self) -> _ShallowCopyState:
        return _ShallowCopyState(self)


class _SharedDeepcopyState(ToyState):
    """Toy high card whose ``copy.deepcopy`` returns the state itself."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> _SharedDeepcopyState:
        return self


class _SharedDeepcopyGame(ToyGame):
    def new_initial_state(self) -> _SharedDeepcopyState:
        return _SharedDeepcopyState(self)


class _OldProtocolState(ToyState):
    """Toy high card that cannot be pickled at protocols 0 and 1."""

    __slots__ = ()

    def __reduce_ex__(self, protocol: Any) -> Any:
        if protocol < 2:
            raise TypeError("cannot pickle at this protocol")
        return super().__reduce_ex__(protocol)


class _OldProtocolGame(ToyGame):
    def new_initial_state(self) -> _OldProtocolState:
        return _OldProtocolState(self)


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        (_ShallowCopyGame, r"copy\.copy"),
        (_SharedDeepcopyGame, r"copy\.deepcopy"),
        (_OldProtocolGame, "protocol 0"),
    ],
)
def test_the_conformance_suite_catches_bad_copies(factory: type[ToyGame], message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_game("toy-high-card", games=10, seed=3, game_factory=factory)


def test_the_conformance_suite_passes_every_game_s_copies() -> None:
    for name in GAMES:
        check_game(name, games=1, seed=2, max_steps_per_game=25)


class _NotItsGamesStartState(ToyState):
    """A state its game never starts, so that replaying its history cannot remake it."""

    __slots__ = ()


def test_a_state_that_replay_cannot_remake_refuses_to_pickle_clearly() -> None:
    state = _NotItsGamesStartState(ToyGame())
    for protocol in PROTOCOLS:
        with pytest.raises(ApothecaryError, match="cannot pickle a _NotItsGamesStartState"):
            pickle.dumps(state, protocol=protocol)
    assert fingerprint(copy.copy(state)) == fingerprint(state)  # copies still work
