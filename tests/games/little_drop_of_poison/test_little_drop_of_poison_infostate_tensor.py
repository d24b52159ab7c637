"""Little Drop of Poison: the information-state tensor has perfect recall (over
random short games, their children, twins and resampled worlds: one tensor per
information state string, one string per tensor), a fixed length and its
bounds at the default limits too; the observation tensor keeps its bounds.
Planted tensors (a fact dropped, a hidden hand read, the seat's card order lost,
an unscaled number) are caught."""

from __future__ import annotations

import random
from typing import Any

import pytest
from infostate_tensor_checks import (
    blanking,
    infostate_tensor_faults,
    observation_bound_faults,
    sample_positions,
    with_move_count,
)

import apothecary
from apothecary.core.game import State, sample_chance
from apothecary.games.little_drop_of_poison import rules
from apothecary.games.little_drop_of_poison.facts import E_REVEAL
from apothecary.games.little_drop_of_poison.rules import (
    LittleDropOfPoisonGame,
    LittleDropOfPoisonState,
)

# Short games (few rounds, a low target) keep the tensor small and still play
# several assassination rounds, refills and deaths.
SHORT = {"max_poison_rounds": 6, "max_assassination_rounds": 3, "target": 4}


def _game(players: int) -> LittleDropOfPoisonGame:
    game = apothecary.load("little-drop-of-poison", players=players, **SHORT)
    assert isinstance(game, LittleDropOfPoisonGame)
    return game


def _positions(players: int, games: int = 2, stride: int = 5) -> list[State]:
    return sample_positions(_game(players), games, seed=players, stride=stride, children_every=23)


@pytest.mark.parametrize(("players", "stride"), [(3, 5), (4, 5), (6, 11)])
def test_information_state_tensor_has_perfect_recall(players: int, stride: int) -> None:
    positions = _positions(players, stride=stride)
    found = infostate_tensor_faults(positions, seed=players)
    assert found.faults == 0, found
    # the "same string, same tensor" half had material to look at
    assert found.repeated_strings > found.records // 5
    assert observation_bound_faults(positions) == 0


@pytest.mark.parametrize("players", [3, 8])
def test_default_options_fixed_length_within_bounds(players: int) -> None:
    game = apothecary.load("little-drop-of-poison", players=players)
    size = game.information_state_tensor_size()
    low, high = game.information_state_tensor_bounds()
    assert len(low) == len(high) == size
    obs_low, obs_high = game.observation_tensor_bounds()
    assert len(obs_low) == len(obs_high) == game.observation_tensor_size()
    rng = random.Random(players)
    state = game.new_initial_state()
    for step in range(400):
        if state.is_terminal():
            break
        if step % 100 == 0:
            values = state.information_state_tensor(step % players)
            assert len(values) == size
            assert all(0.0 <= v <= 1.0 for v in values)
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(list(state.legal_actions())))
    assert observation_bound_faults([state]) == 0


# -- planted bugs: each check catches a tensor that is wrong in one way ------------


def _slots(state: State) -> list[int]:
    """Where every poison round's slot starts."""
    game = state.game
    assert isinstance(game, LittleDropOfPoisonGame)
    width = game.slot_width()
    return [game.num_players + 1 + k * width for k in range(game.infostate_slots())]


def test_catches_a_tensor_without_the_seats_own_deals() -> None:
    t = _game(3).num_types
    deals = _game(3).slot_layout().deals
    without_own_deals = blanking(lambda state: [(at + deals + 1, 2 * t) for at in _slots(state)])
    positions = _positions(3, games=1)
    assert infostate_tensor_faults(positions, without_own_deals, seed=3).merged > 0


def test_catches_a_tensor_without_the_characters_chosen() -> None:
    n, turns = 3, _game(3).slot_layout().turns
    without_targets = blanking(
        lambda state: [(at + turns + q * (n + 3), n + 1) for at in _slots(state) for q in range(n)]
    )
    positions = sample_positions(_game(n), 1, seed=3, stride=7, children_every=3)
    assert infostate_tensor_faults(positions, without_targets, seed=3).merged > 0


def test_catches_a_tensor_that_reads_other_hands() -> None:
    def leaking(state: State, seat: int) -> list[float]:
        assert isinstance(state, LittleDropOfPoisonState)
        values = state.information_state_tensor(seat)
        values[-1] = sum(i * c for i, c in enumerate(state.hands)) / 10_000  # every hand
        return values

    positions = _positions(3, games=1)
    assert infostate_tensor_faults(positions, leaking, seed=3).split > 0


def test_catches_values_outside_the_bounds() -> None:
    positions = _positions(3, games=1, stride=20)
    assert infostate_tensor_faults(positions, with_move_count).out_of_bounds > 0


def test_catches_a_tensor_without_the_hands_of_the_killed() -> None:
    game = _game(4)
    n, t, hands = game.num_players, game.num_types, game.slot_layout().hands
    without_hands = blanking(lambda state: [(at + hands, n * t) for at in _slots(state)])

    # twins of each game's end: one card dealt otherwise and the rest replayed, so
    # that a killed seat may hold another hand and nothing public differs before
    positions = sample_positions(game, 6, seed=4, stride=1000, children_every=1000, twins=25)
    assert infostate_tensor_faults(positions, without_hands, seed=4).merged > 0


def _two_orders() -> tuple[State, State, int]:
    """Two positions where a seat added the same two cards of different types in
    the two orders (nothing else differs), and that seat."""
    game = _game(3)
    rng = random.Random(7)
    state = game.new_initial_state()
    while not state.is_terminal():
        seat = state.current_player()
        if not state.is_chance_node():
            adds = [a for a in state.legal_actions() if game.ADD <= a < game.DONE]
            if len(adds) >= 2:
                first, second = state.clone(), state.clone()
                for action in adds[:2]:
                    first.apply_action(action)
                for action in reversed(adds[:2]):
                    second.apply_action(action)
                return first, second, seat
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(rng.choice(list(state.legal_actions())))
    raise AssertionError("no turn with two types of card to add")


def test_the_order_of_the_seats_own_cards_is_kept() -> None:
    """The information state string lists a seat's own cards in the order it
    added them, so the tensor tells the two orders apart; a tensor with the
    seat's cards in type order (the planted bug) does not."""
    first, second, seat = _two_orders()
    assert first.information_state_string(seat) != second.information_state_string(seat)
    assert first.information_state_tensor(seat) != second.information_state_tensor(seat)
    for other in range(3):
        if other != seat:  # the others saw two face-down cards either way
            assert first.information_state_tensor(other) == second.information_state_tensor(other)

    def in_type_order(state: State, player: int) -> list[float]:
        values = state.information_state_tensor(player)
        game = state.game
        assert isinstance(game, LittleDropOfPoisonGame)
        mine, most = game.slot_layout().own_added, game.most_added()
        for at in _slots(state):
            added = [v for v in values[at + mine : at + mine + most] if v]
            values[at + mine : at + mine + len(added)] = sorted(added)
        return values

    assert in_type_order(first, seat) == in_type_order(second, seat)


# -- the compact layout: a size cap at every player count, exact within it --------


@pytest.mark.parametrize("players", range(3, 9))
def test_default_tensor_fits_the_limit_at_every_player_count(players: int) -> None:
    game = apothecary.load("little-drop-of-poison", players=players)
    assert isinstance(game, LittleDropOfPoisonGame)
    size = game.information_state_tensor_size()
    assert size <= rules.INFOSTATE_LIMIT
    assert size == players + 1 + game.infostate_slots() * game.slot_width()
    # the slots are cut by the limit, not by the round limits, at default options
    assert size + game.slot_width() > rules.INFOSTATE_LIMIT


@pytest.mark.parametrize("players", [3])
def test_default_options_perfect_recall_over_seeded_games(players: int) -> None:
    """Whole games at default options stay within the slots (nothing overflows)
    and one string gives one tensor and back (3 seats only: at 8 a whole game's
    check takes minutes, since each call walks the whole history)."""
    game = apothecary.load("little-drop-of-poison", players=players)
    positions = sample_positions(game, 1, seed=players, stride=401, children_every=1000)
    assert all(state.information_state_tensor(0)[players] == 0.0 for state in positions)
    found = infostate_tensor_faults(positions, seed=players)
    assert found.faults == 0, found


def test_past_the_slots_the_last_slot_is_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for three slots only, a longer game sets the overflow flag,
    keeps the tensor's length and bounds, and merges information states (the
    documented loss of perfect recall past the bound), which the check sees."""
    game = _game(3)
    slot = game.slot_width()
    monkeypatch.setattr(rules, "INFOSTATE_LIMIT", 3 + 1 + 3 * slot)
    assert game.infostate_slots() == 3
    positions = _positions(3, games=1, stride=3)
    late = [state for state in positions if state.information_state_tensor(0)[3] == 1.0]
    assert late, "no sampled position played past three poison rounds"
    for state in late:
        values = state.information_state_tensor(1)
        assert len(values) == game.information_state_tensor_size() == 4 + 3 * slot
        assert all(0.0 <= v <= 1.0 for v in values)
    assert infostate_tensor_faults(positions, seed=3).merged > 0


# -- the kept stretches: the same tensor as one scan of the whole log -------------


def _one_scan(state: State, seat: int) -> list[float]:
    """The tensor from one pass of the scanner over the whole log into one dict
    (no stretches kept at reveals, none joined)."""
    assert isinstance(state, LittleDropOfPoisonState)
    writes = {seat: 1.0}
    state._scan_infostate(state._entries(), seat, -1, 0, writes)
    values = [0.0] * state.game.information_state_tensor_size()
    for at, value in writes.items():
        values[at] = value
    return values


def _stretch_faults(positions: list[State]) -> int:
    """Seats of ``positions`` whose tensor differs from one scan of the log, each
    asked in the list form and written into an array, in a shuffled order (so
    that stretches kept by later positions serve earlier ones too)."""
    np = pytest.importorskip("numpy")
    asked = [(state, seat) for state in positions for seat in range(state.game.num_players)]
    random.Random(5).shuffle(asked)
    faults = 0
    for state, seat in asked:
        want = _one_scan(state, seat)
        written = np.full(len(want), 0.5, np.float32)
        state.write_information_state_tensor(seat, written)
        listed = state.information_state_tensor(seat)
        faults += listed != want or not np.array_equal(written, np.array(want, np.float32))
    return faults


@pytest.fixture
def few_slots(monkeypatch: pytest.MonkeyPatch) -> LittleDropOfPoisonGame:
    """Default games at 3 players (a hundred poison rounds or so) with room for
    5 slots only: every game overflows, past several joined stretches (one
    every 16)."""
    game = apothecary.load("little-drop-of-poison", players=3)
    assert isinstance(game, LittleDropOfPoisonGame)
    monkeypatch.setattr(rules, "INFOSTATE_LIMIT", 3 + 1 + 5 * game.slot_width())
    assert game.infostate_slots() == 5
    return game


def _long_game_positions(game: LittleDropOfPoisonGame) -> list[State]:
    positions = sample_positions(game, 1, seed=8, stride=23, children_every=200)
    reveals = max(sum(e[0] == E_REVEAL for e in s._entries()) for s in positions)  # type: ignore[attr-defined]
    assert reveals > 2 * rules._JOIN_EVERY, "no game long enough to join stretches twice"
    return positions


def test_kept_stretches_give_the_tensor_of_one_scan() -> None:
    game = apothecary.load("little-drop-of-poison", players=3)
    assert isinstance(game, LittleDropOfPoisonGame)
    positions = _long_game_positions(game)
    assert all(_one_scan(s, 0)[3] == 0.0 for s in positions)  # within the slots
    assert _stretch_faults(positions) == 0


def test_kept_stretches_give_the_tensor_of_one_scan_past_the_slots(
    few_slots: LittleDropOfPoisonGame,
) -> None:
    positions = _long_game_positions(few_slots)
    late = [s for s in positions if _one_scan(s, 0)[3] == 1.0]
    assert len(late) > len(positions) // 3, "too few positions past the slots"
    assert _stretch_faults(positions) == 0


def test_the_stretch_check_catches_a_join_that_keeps_void_entries(
    few_slots: LittleDropOfPoisonGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    join = rules._join_stretches

    def keeping_void(
        indices: list[Any], values: list[Any], kept: Any, void: bool, last: int, width: int
    ) -> Any:
        return join(indices, values, kept, False, last, width)

    monkeypatch.setattr(rules, "_join_stretches", keeping_void)
    positions = sample_positions(few_slots, 1, seed=8, stride=23, children_every=200)
    assert _stretch_faults(positions) > 0
