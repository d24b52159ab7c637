"""Tea, Scones and Arsenic's information-state tensor: fixed length, within its
bounds, the same for a seat wherever its information state string is the same
(resampled worlds included) and different wherever that string differs; the
observation tensor within its bounds. Each property is shown to catch a planted
tensor that loses (or leaks) one fact."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from infostate_tensor_checks import (
    Tensor,
    blanking,
    infostate_tensor_faults,
    observation_bound_faults,
    sample_positions,
    twin,
    with_move_count,
)

import apothecary
from apothecary.core.game import Action, State
from apothecary.games.tea_scones_arsenic import rules as tsa
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenic, TeaSconesArsenicState


def _rarely_stop(state: State, rng: random.Random) -> Action:
    # stop rarely, so that games run long, cups fill up and marked scones pile up
    legal = list(state.legal_actions())
    if tsa.STOP in legal and rng.random() > 0.1:
        legal.remove(tsa.STOP)
    return rng.choice(legal)


def _positions(
    players: int, spoon: bool, games: int = 2, stride: int = 3, children_every: int = 7
) -> list[State]:
    game = apothecary.load("tea-scones-arsenic", players=players, little_spoon=spoon)
    return sample_positions(
        game, games, seed=players, stride=stride, children_every=children_every, policy=_rarely_stop
    )


@pytest.mark.parametrize(
    ("players", "spoon"), [(1, False), (2, True), (3, False), (4, True), (6, True)]
)
def test_information_state_tensor_has_perfect_recall(players: int, spoon: bool) -> None:
    positions = _positions(players, spoon)
    found = infostate_tensor_faults(positions, seed=players)
    assert found.faults == 0, found
    # the "same string, same tensor" half had material to look at
    assert found.repeated_strings > found.records // 4
    assert observation_bound_faults(positions) == 0


def test_sizes_per_configuration() -> None:
    for players in range(1, 7):
        for spoon in (False, True):
            game = apothecary.load("tea-scones-arsenic", players=players, little_spoon=spoon)
            low, high = game.information_state_tensor_bounds()
            assert len(low) == len(high) == game.information_state_tensor_size()
            low, high = game.observation_tensor_bounds()
            assert len(low) == len(high) == game.observation_tensor_size()
            assert all(lo <= hi for lo, hi in zip(low, high, strict=True))


# -- planted bugs: each check catches a tensor that is wrong in one way ------------


def _layout(state: State) -> tuple[int, int, int]:
    """(header length, turn slot width, offset of the seen dose in a slot)."""
    game = state.game
    assert isinstance(game, TeaSconesArsenic)
    n = game.num_players
    return 3 * n + 2, game._turn_width(), n + tsa._TURN_ACTIONS + game.max_marked + 1


def _in_every_turn(offset: Callable[[int], int], length: Callable[[int], int]) -> Tensor:
    """The tensor with ``length(n)`` numbers from ``offset(n)`` past the seen dose
    zeroed in every turn slot (n players)."""

    def ranges(state: State) -> list[tuple[int, int]]:
        header, width, seen = _layout(state)
        n = state.game.num_players
        size = state.game.information_state_tensor_size()
        return [(base + seen + offset(n), length(n)) for base in range(header, size, width)]

    return blanking(ranges)


def test_catches_a_tensor_without_the_seats_own_doses() -> None:
    without_own_doses = _in_every_turn(lambda n: 0, lambda n: 4)
    positions = _positions(3, spoon=False, games=1)
    assert infostate_tensor_faults(positions, without_own_doses, seed=3).merged > 0


def test_catches_a_tensor_without_the_spoon_answers() -> None:
    without_answers = _in_every_turn(lambda n: 4, lambda n: 2 * n)
    # every position's children: a spoon window is short (a spoon is used once)
    positions = _positions(4, spoon=True, games=1, stride=50, children_every=1)
    assert infostate_tensor_faults(positions, without_answers, seed=4).merged > 0


def test_catches_a_tensor_without_the_main_game_totals() -> None:
    n = 3
    without_totals = blanking(lambda state: [(n + 1, n)])
    positions = _positions(n, spoon=False, games=2)
    assert infostate_tensor_faults(positions, without_totals, seed=3).merged > 0


def test_catches_a_tensor_that_reads_hidden_doses() -> None:
    def leaking(state: State, seat: int) -> list[float]:
        assert isinstance(state, TeaSconesArsenicState)
        values = state.information_state_tensor(seat)
        values[-1] = sum(state.totals) / 1000  # every total, seen or not
        return values

    positions = _positions(3, spoon=False, games=1)
    assert infostate_tensor_faults(positions, leaking, seed=3).split > 0


def test_catches_an_observation_outside_its_bounds() -> None:
    def unscaled_total(state: State, seat: int) -> list[float]:
        assert isinstance(state, TeaSconesArsenicState)
        values = state.observation_tensor(seat)
        values[seat * _seat_width(state) + tsa._TOTAL] = state.totals[seat]
        return values

    positions = _positions(2, spoon=False, games=1, stride=9)
    assert observation_bound_faults(positions, unscaled_total) > 0


def _seat_width(state: State) -> int:
    game = state.game
    assert isinstance(game, TeaSconesArsenic)
    return tsa._SEAT_FLAGS + tsa.KINDS + game.longest_cup * tsa._SCONE_WIDTH


def test_catches_values_outside_the_bounds() -> None:
    positions = _positions(2, spoon=False, games=1, stride=9)
    assert infostate_tensor_faults(positions, with_move_count).out_of_bounds > 0


def _after_deaths() -> list[State]:
    """Positions of the main game after a death, and twins of them (one dose
    changed, the rest replayed): often the same death at another public total,
    the only difference another seat can see."""
    rng = random.Random(0)
    game = apothecary.load("tea-scones-arsenic", players=4)
    every = sample_positions(game, 6, seed=4, children_every=10**6, twins=0)
    chosen = [
        state
        for state in every
        if isinstance(state, TeaSconesArsenicState)
        and not all(state.alive)
        and not state.main_game_over
    ][::5]
    return chosen + [twin(state, rng) for state in chosen for _ in range(8)]


def test_the_totals_at_death_are_kept() -> None:
    positions = _after_deaths()
    assert infostate_tensor_faults(positions, seed=1).faults == 0

    without_deaths = _in_every_turn(lambda n: 4 + 2 * n, lambda n: 3)
    assert infostate_tensor_faults(positions, without_deaths, seed=1).merged > 0
