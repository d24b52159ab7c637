"""In Vino Morte CFR+: convergence on the 3-player game, exact best responses
against brute force over pure strategies, and the cfr bot with its tables."""

from __future__ import annotations

import itertools
import random

import pytest

import apothecary
from apothecary.bots import load as load_bot
from apothecary.core.errors import BadOptionError
from apothecary.games.in_vino_morte.cfr import RoundSolver, build_round, load_table


@pytest.fixture(scope="module")
def two() -> RoundSolver:
    solver = RoundSolver(build_round(2), {})
    solver.iterate(50)
    return solver


def test_two_player_round_is_a_coin_flip(two: RoundSolver) -> None:
    assert two.value() == pytest.approx([0.5, 0.5], abs=1e-9)
    assert two.nash_conv() == pytest.approx(0.0, abs=1e-9)


def test_cfr_converges_on_three_players(two: RoundSolver) -> None:
    solver = RoundSolver(build_round(3), {2: two})
    solver.iterate(10)
    early = solver.nash_conv()
    solver.iterate(290)
    late = solver.nash_conv()
    assert late < early
    assert late < 0.08
    assert sum(solver.value()) == pytest.approx(1.0, abs=1e-9)  # one winner, always


def test_best_response_equals_best_pure_strategy(two: RoundSolver) -> None:
    solver = RoundSolver(build_round(3), {2: two})
    solver.iterate(30)
    avg = solver.average()
    tree = solver.tree
    for seat in range(3):
        mine = sorted({tree.info[n] for n in range(len(tree.player)) if tree.player[n] == seat})
        best = float("-inf")
        for choice in itertools.product(*(range(len(tree.actions[i])) for i in mine)):
            strategy = [list(s) for s in avg]
            for i, a in zip(mine, choice, strict=True):
                strategy[i] = [1.0 if b == a else 0.0 for b in range(len(avg[i]))]
            best = max(best, solver.evaluate(strategy)[seat])
        assert solver.best_response(seat) == pytest.approx(best, abs=1e-9)
        assert best >= solver.value()[seat] - 1e-9


def test_stored_table_covers_every_information_set() -> None:
    table = load_table()
    for k in (2, 3, 4):
        tree = build_round(k)
        for key, labels in zip(tree.keys, tree.actions, strict=True):
            assert sorted(table[key]) == sorted(labels)
            assert sum(table[key].values()) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_cfr_bot_plays_complete_games(players: int) -> None:
    game = apothecary.load("in-vino-morte", players=players)
    for seed in range(3):
        bots = [load_bot("cfr", game, seat, seed=seed * 10 + seat) for seat in range(players)]
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        assert sum(state.returns()) == pytest.approx(1.0)


def test_cfr_bot_is_seeded() -> None:
    game = apothecary.load("in-vino-morte", players=4)

    def play(seed: int) -> list[int]:
        bots = [load_bot("cfr", game, seat, seed=seed + seat) for seat in range(4)]
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        return state.history()

    assert play(7) == play(7)
    assert len({tuple(play(s)) for s in range(6)}) > 1  # it does mix


def test_cfr_bot_refuses_unsolved_games() -> None:
    # Cheese is solved up to 4 players only, and only as the rulebook plays it
    with pytest.raises(BadOptionError, match=r"cheese=true, 5 players.*2 to 4 players with Cheese"):
        load_bot("cfr", apothecary.load("in-vino-morte", players=5, cheese=True), 0)
    with pytest.raises(BadOptionError, match="cheese_on_reveal=false"):
        game = apothecary.load("in-vino-morte", players=3, cheese=True, cheese_on_reveal=False)
        load_bot("cfr", game, 0)
    with pytest.raises(BadOptionError, match="2 to 5 players"):
        load_bot("cfr", apothecary.load("in-vino-morte", players=6), 0)


def test_cfr_bot_uses_only_its_information() -> None:
    # two states the seat cannot tell apart (another deal of the same round,
    # drawn by resampling) get the same action from the same seed
    game = apothecary.load("in-vino-morte", players=4)
    rng = random.Random(2)
    checked = 0
    for trial in range(30):
        state = game.new_initial_state()
        for _ in range(rng.randrange(4, 9)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        seat = state.current_player()
        other = state.resample_from_infostate(seat, random.Random(trial))
        a = load_bot("cfr", game, seat, seed=trial).step(state)
        b = load_bot("cfr", game, seat, seed=trial).step(other)
        assert a == b
        checked += 1
    assert checked > 10


def test_later_rounds_map_onto_the_solved_rounds() -> None:
    # in rounds after deaths, seats are renumbered from the new dealer; every
    # decision must land on a stored information set with the same relative
    # actions, and the mover must be the one the solved round expects
    from apothecary.games.in_vino_morte.cfr import info_key, relative_action, round_order

    table = load_table()
    rng = random.Random(4)
    later = 0
    for _ in range(40):
        game = apothecary.load("in-vino-morte", players=5)
        state = game.new_initial_state()
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            key = info_key(obs, seat)
            rel = {s: i for i, s in enumerate(round_order(obs))}
            labels = [
                relative_action(state.action_to_string(a), rel) for a in state.legal_actions()
            ]
            assert sorted(table[key]) == sorted(labels), key
            if obs["phase"] == "turns":
                assert rel[seat] == len(obs["events"]) + 1
            if obs["round"] > 1:
                later += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert later > 50
