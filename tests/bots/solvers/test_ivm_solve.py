"""In Vino Morte's numpy solver: its passes against the pure-Python round
solver, a from-scratch solve of the 3-player game to an exact equilibrium, the
shipped profile's whole-game NashConv, and OpenSpiel's own ``nash_conv`` over
the whole game tree agreeing with ours."""

from __future__ import annotations

import numpy as np
import pytest

import apothecary
from apothecary.bots import load as load_bot
from apothecary.core.errors import BadOptionError
from apothecary.games.in_vino_morte.cfr import build_round, load_table, table_solvers
from apothecary.games.in_vino_morte.cfr_solve import (
    Solved,
    VecRound,
    evaluate,
    from_table,
    nash_map_residual,
    solve,
    to_table,
)


def random_table(players: int, seed: int) -> dict[str, dict[str, float]]:
    """A random profile for every round of 2 to ``players`` players."""
    rng = np.random.default_rng(seed)
    table: dict[str, dict[str, float]] = {}
    for k in range(2, players + 1):
        vec = VecRound(build_round(k))
        table.update(to_table(vec, vec.normalise(rng.random(vec.slots) ** 3)))
    return table


def solved_from(table: dict[str, dict[str, float]], players: int) -> dict[int, Solved]:
    """The numpy evaluation of ``table``, round by round from 2 players up."""
    out: dict[int, Solved] = {}
    for k in range(2, players + 1):
        vec = VecRound(build_round(k))
        sigma = from_table(vec, table)
        values, best = evaluate(vec, sigma, out)
        out[k] = Solved(k, sigma, values, best, [], 0.0)
    return out


@pytest.mark.parametrize("players", [3, 4])
def test_numpy_passes_match_the_pure_python_solver(players: int) -> None:
    table = random_table(players, seed=players)
    ours = solved_from(table, players)[players]
    reference = table_solvers(table, players)[players]
    assert ours.values == pytest.approx(reference.value(), abs=1e-12)
    assert ours.best == pytest.approx(
        [reference.best_response(s) for s in range(players)], abs=1e-12
    )
    assert ours.nash_conv > 0.01  # a random profile is far from equilibrium


def test_three_players_solved_from_scratch_to_an_exact_equilibrium() -> None:
    below: dict[int, Solved] = {}
    for k in (2, 3):
        below[k] = solve(k, VecRound(build_round(k)), below, 300)
    three = below[3]
    cfr_only = next(row for row in three.curve if row["iterations"] == 300)["nashconv"]
    assert cfr_only > 1e-3  # 300 CFR iterations alone are not enough
    assert three.nash_conv < 1e-9  # Newton's step finishes the job
    # checked by the independent pure-Python best response, on the table
    table = {**to_table(VecRound(build_round(2)), below[2].sigma)}
    table.update(to_table(VecRound(build_round(3)), three.sigma))
    assert table_solvers(table, 3)[3].nash_conv() < 1e-7
    assert three.values == pytest.approx([1 / 3] * 3, abs=1e-7)


def test_nash_map_residual_vanishes_only_at_an_equilibrium() -> None:
    vec = VecRound(build_round(3))
    two = solved_from(load_table(), 2)
    leaf = vec.leaf_values({2: two[2].values})
    stored = from_table(vec, load_table())
    assert np.abs(nash_map_residual(vec, stored, leaf)).max() < 1e-6
    assert np.abs(nash_map_residual(vec, vec.uniform(), leaf)).max() > 0.01


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_shipped_profile_is_within_1e_3_of_equilibrium(players: int) -> None:
    # NashConv of the whole game from the stored, rounded table, by the
    # pure-Python best response (every round's leaves worth the deviator's
    # best-response values of the rounds after it)
    rounds = table_solvers(load_table(), players)
    assert rounds[players].nash_conv() < 1e-3
    assert sum(rounds[players].value()) == pytest.approx(1.0, abs=1e-9)


def per_round_nash_conv(table: dict[str, dict[str, float]], players: int) -> float:
    """A planted mistake: NashConv of the first round alone, its leaves worth the
    profile's values of the rounds after it instead of the deviator's best."""
    rounds = solved_from(table, players)
    vec = VecRound(build_round(players))
    leaf = vec.leaf_values({k: s.values for k, s in rounds.items() if k < players})
    sigma = rounds[players].sigma
    values = vec.values(sigma, leaf)[0]
    return sum(vec.best_response(sigma, q, leaf) - values[q] for q in range(players))


@pytest.mark.parametrize("seed", [0, 1, 2, None])
def test_nash_conv_agrees_with_openspiel_on_the_whole_3_player_game(seed: int | None) -> None:
    pytest.importorskip("pyspiel")
    from apothecary.games.in_vino_morte.cfr_solve import openspiel_nash_conv

    # the shipped table (seed None) and random ones: OpenSpiel walks all 271
    # histories of the 3-player game with the game's own information sets
    table = load_table() if seed is None else random_table(3, seed)
    theirs = openspiel_nash_conv(3, table)
    assert solved_from(table, 3)[3].nash_conv == pytest.approx(theirs, abs=1e-9)
    assert table_solvers(table, 3)[3].nash_conv() == pytest.approx(theirs, abs=1e-9)
    if seed is not None:
        # the check would catch a NashConv of one round only
        assert abs(per_round_nash_conv(table, 3) - theirs) > 1e-4


def test_cfr_bot_names_its_tables_where_it_has_none() -> None:
    with pytest.raises(BadOptionError, match=r"round_limit=1\).*2 to 5 players without Cheese"):
        load_bot("cfr", apothecary.load("in-vino-morte", players=3, round_limit=1), 0)
    with pytest.raises(BadOptionError, match=r"cheese=true, 6 players"):
        load_bot("cfr", apothecary.load("in-vino-morte", players=6, cheese=True), 0)
    # the same game: either deck, a round limit that never bites
    for options in ({"deck": "9+9"}, {"round_limit": 2}):
        load_bot("cfr", apothecary.load("in-vino-morte", players=3, **options), 0)


def test_cheese_rounds_loop_and_their_keys_cover_real_games() -> None:
    # Caseus Vitae: a round may kill nobody (Cheese reverses the reveal), so some
    # leaves start another round of the same size, and every decision of real
    # games lands on a stored information set with the same relative actions
    from apothecary.games.in_vino_morte.cfr import info_key, relative_action, round_order

    tree = build_round(3, cheese=True)
    assert any(leaf is not None and leaf[0] == 3 for leaf in tree.leaf)
    assert any(key.startswith("C3|T|") and "c" in key.split("|")[-1] for key in tree.keys)
    keys = {key: labels for key, labels in zip(tree.keys, tree.actions, strict=True)}
    two = build_round(2, cheese=True)
    keys.update(zip(two.keys, two.actions, strict=True))
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(30):
        state = apothecary.load("in-vino-morte", players=3, cheese=True).new_initial_state()
        while not state.is_terminal() and state.observation(None)["round"] <= 6:
            seat = state.current_player()
            obs = state.observation(seat)
            rel = {s: i for i, s in enumerate(round_order(obs))}
            labels = [
                relative_action(state.action_to_string(a), rel) for a in state.legal_actions()
            ]
            assert sorted(keys[info_key(obs, seat)]) == sorted(labels)
            seen += 1
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert seen > 100


def test_the_shipped_cheese_profile_is_an_approximate_equilibrium() -> None:
    from apothecary.games.in_vino_morte.cfr import supported

    sizes = supported()[True]
    assert 3 in sizes
    table = load_table()
    rounds: dict[int, Solved] = {}
    for k in range(2, max(sizes) + 1):
        vec = VecRound(build_round(k, cheese=True))
        sigma = from_table(vec, table)
        values, best = evaluate(vec, sigma, rounds)
        rounds[k] = Solved(k, sigma, values, best, [], 0.0)
        assert sum(values) == pytest.approx(1.0, abs=1e-9)  # someone wins, or all share
        assert rounds[k].nash_conv < 1e-3
        assert (best >= values - 1e-12).all()


def test_cfr_bot_plays_cheese_games() -> None:
    game = apothecary.load("in-vino-morte", players=3, cheese=True)
    for seed in range(3):
        bots = [load_bot("cfr", game, seat, seed=seed * 10 + seat) for seat in range(3)]
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        assert sum(state.returns()) == pytest.approx(1.0)
    with pytest.raises(BadOptionError, match="round_limit=5"):
        load_bot("cfr", apothecary.load("in-vino-morte", players=3, cheese=True, round_limit=5), 0)


def test_an_information_set_across_two_depths_is_refused() -> None:
    # the best response resolves each information set within one depth; a tree
    # breaking that (planted: a turn node given a deal node's set) is refused
    import copy

    tree = copy.deepcopy(build_round(3))
    deal = tree.info[0]  # the dealer's first pour, depth 0
    turn = next(n for n in range(len(tree.player)) if tree.player[n] == 1)
    tree.info[turn] = deal
    tree.children[turn] = tree.children[turn][: len(tree.actions[deal])]
    with pytest.raises(AssertionError, match="two depths"):
        VecRound(tree)
    VecRound(build_round(3))  # the real tree passes
