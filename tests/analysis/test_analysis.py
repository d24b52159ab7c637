"""Analysis (issue 20): honest values from the mover's information, exact where
solved, bad records refused with one clear error, and ``analyse --json``."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from apothecary import analysis, bots
from apothecary.cli import app
from apothecary.core.errors import RecordError
from apothecary.core.game import State, sample_chance
from apothecary.core.records import Record
from apothecary.core.registry import load
from apothecary.games.poison_pot import bot as pp_bot
from apothecary.games.tea_scones_arsenic import exact as tsa_exact
from apothecary.games.tea_scones_arsenic.solo import SoloSolver, position

runner = CliRunner()


def play(name: str, players: int, seed: int, until: Any = None, **options: Any) -> State:
    """A game by the medium bots, chance from ``seed``; stops early where ``until(state)``."""
    game = load(name, players, **options)
    state = game.new_initial_state()
    rng = random.Random(seed)
    seated = [bots.load("medium", game, p, seed=seed + p) for p in range(players)]
    while not state.is_terminal():
        if until is not None and not state.is_chance_node() and until(state):
            break
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        else:
            state.apply_action(seated[state.current_player()].step(state))
    return state


def other_world(state: State, seat: int) -> State:
    """A world ``seat`` cannot tell from ``state`` that differs from it in hidden facts."""
    rng = random.Random(7)
    for _ in range(200):
        world = state.resample_from_infostate(seat, rng)
        if str(world) != str(state):
            assert world.observation(seat) == state.observation(seat)
            return world
    raise AssertionError("no different world drawn")


# (game, players, options, which decision): decisions where the mover does not know everything
HIDDEN = [
    ("in-vino-morte", 4, {}, lambda s: s.observation(None)["phase"] == "turns"),
    ("in-vino-morte", 4, {"cheese": True}, lambda s: s.observation(None)["phase"] == "turns"),
    ("tea-scones-arsenic", 3, {}, lambda s: s.move_number() > 12),
    ("little-drop-of-poison", 3, {}, lambda s: s.move_number() > 20),
]
HIDDEN_IDS = ["in-vino-morte-solved", "in-vino-morte-cheese", "tea-scones-arsenic", "little-drop"]


def values(state: State, plan: analysis.Plan) -> dict[str, Any]:
    return analysis.evaluate(state, plan, seed=11).to_json()


@pytest.mark.parametrize(("name", "players", "options", "until"), HIDDEN, ids=HIDDEN_IDS)
def test_a_moves_analysis_is_the_same_in_worlds_its_seat_cannot_tell_apart(
    name: str, players: int, options: dict[str, Any], until: Any
) -> None:
    state = play(name, players, 3, until, **options)
    seat = state.current_player()
    assert seat >= 0
    plan = analysis.plan(state.game, "hard", playouts=3)
    world = other_world(state, seat)
    assert values(state, plan) == values(world, plan)


def test_the_honesty_check_catches_an_analysis_that_reads_the_true_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Planted leak: "drawing" a world returns the true position itself, so the
    # playouts see the hidden glasses. The same check as above must see a difference.
    pairs = []
    for seed in range(6):
        state = play("in-vino-morte", 4, seed, HIDDEN[0][3])
        pairs.append((state, other_world(state, state.current_player())))
    # Playouts only (the exact values read no world at all).
    plan = replace(analysis.plan(pairs[0][0].game, "rules", playouts=3), exact=False)
    assert all(values(s, plan) == values(w, plan) for s, w in pairs)
    cls = type(pairs[0][0])
    monkeypatch.setattr(cls, "resample_from_infostate", lambda self, _seat, _rng: self.clone())
    assert any(values(s, plan) != values(w, plan) for s, w in pairs)


def solo_position(seed: int) -> State | None:
    """A solo Tea, Scones and Arsenic position with at most 10 unmarked scones, alive."""
    state = play(
        "tea-scones-arsenic",
        1,
        seed,
        lambda s: sum(s.observation(0)["box"]["unmarked"]) <= tsa_exact.EXACT_UNMARKED,
    )
    return None if state.is_terminal() else state


def solver_values(state: State) -> dict[str, float]:
    """The solver's own values of every legal move, by notation, read off it here."""
    solver = SoloSolver(shuffles=True)
    obs = state.observation(0)
    box, cubes = position(obs, solver)
    key = solver.key(box, cubes)
    if obs["phase"] == "decide":
        hand = obs["hand"]
        index = solver.values.index(hand["dose"])
        return dict(solver.hand_options(key, box[hand["kind"] - 1], index))
    out: dict[str, float] = {}
    for choice, value in solver.options(key, after_shuffle=not obs["stopping_allowed"]):
        if choice[0] in ("stop", "shuffle"):
            out[choice[0]] = value
        elif choice[0] == "draw":
            out.update({f"d{k + 1}": value for k, r in enumerate(box) if r == choice[1]})
        else:
            for i, m in enumerate(obs["box"]["marked"]):
                if box[m["kind"] - 1] == choice[1] and m["dose"] == choice[2]:
                    out[f"m{i + 1}"] = value
    return out


def test_solved_tea_scones_arsenic_solo_positions_get_the_solvers_exact_values() -> None:
    checked = 0
    for seed in range(40):
        state = solo_position(seed)
        if state is None:
            continue
        plan = analysis.plan(state.game, "hard", playouts=1)
        decision = analysis.evaluate(state, plan, seed=0)
        assert decision.method == "solver"
        expected = solver_values(state)
        got = {state.action_to_string(m["action"]): m["value"] for m in decision.moves}
        assert {state.string_to_action(k) for k in expected} == set(state.legal_actions())
        assert got == {
            state.action_to_string(state.string_to_action(k)): v for k, v in expected.items()
        }
        # The best move is the solver's best, and nothing beats it.
        assert decision.best["value"] == max(expected.values())
        checked += 1
        if checked == 3:
            break
    assert checked >= 1


def test_more_than_ten_unmarked_scones_are_estimated_not_solved() -> None:
    state = play("tea-scones-arsenic", 1, 0, lambda s: s.move_number() > 0)
    plan = analysis.plan(state.game, "hard", playouts=1)
    assert analysis.evaluate(state, plan, seed=0).method == "playouts"


@pytest.mark.parametrize("players", [3, 4, 5])
def test_in_vino_morte_without_cheese_gets_the_equilibriums_exact_values(players: int) -> None:
    from apothecary.games.in_vino_morte import cfr as ivm_cfr
    from apothecary.games.in_vino_morte import exact as ivm

    # The solver's own evaluation of the stored strategy, round by round from the
    # 2-player round up: the value of the whole game from a round's start.
    table = ivm_cfr.load_table()
    below: dict[int, ivm_cfr.RoundSolver] = {}
    for k in range(2, players + 1):
        solver = ivm_cfr.RoundSolver(ivm_cfr.build_round(k), below)
        solver.total = [
            [table.get(key, {}).get(label, 0.0) for label in labels]
            for key, labels in zip(solver.tree.keys, solver.tree.actions, strict=True)
        ]
        below[k] = solver
    start_values = below[players].value()
    state = load("in-vino-morte", players).new_initial_state()
    decision = analysis.evaluate(state, analysis.plan(state.game, "hard", playouts=1), seed=0)
    assert decision.method == "solver"
    # The dealer's first pour: the equilibrium mixes its moves, and the mix is worth
    # exactly the solver's value of the game (every seat's, seat by seat).
    obs = state.observation(0)
    key = ivm_cfr.info_key(obs, 0)
    rel = {s: i for i, s in enumerate(ivm_cfr.round_order(obs))}
    mix = table[key]
    total = [0.0] * players
    for move in decision.moves:
        label = ivm_cfr.relative_action(str(move["notation"]), rel)
        weight = mix.get(label, 0.0) / sum(mix.values())
        for q, v in enumerate(decision.outlooks[int(move["action"])]):
            total[q] += weight * v
    assert total == pytest.approx(start_values, abs=1e-12)
    assert ivm.rounds(players)[players].start_value == pytest.approx(start_values, abs=1e-12)


def test_in_vino_morte_with_cheese_is_estimated() -> None:
    state = load("in-vino-morte", 3, cheese=True).new_initial_state()
    plan = analysis.plan(state.game, "hard", playouts=1)
    assert analysis.evaluate(state, plan, seed=0).method == "playouts"


def test_a_budget_spreads_a_decisions_playouts_over_its_moves() -> None:
    state = play("poison-pot", 2, 1, lambda s: s.move_number() > 4, radius=2)
    legal = len(state.legal_actions())
    assert legal > 4
    budgeted = replace(analysis.plan(state.game, "random", playouts=4), budget=legal * 2)
    assert budgeted.per_move(legal) == 2 and budgeted.per_move(1) == 4
    assert replace(budgeted, budget=1).per_move(legal) == 1
    # Two playouts a move: the same values as asking for two without a budget.
    two = analysis.plan(state.game, "random", playouts=2)
    assert values(state, budgeted)["moves"] == values(state, two)["moves"]


# -- bad records ------------------------------------------------------------------------


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    state = play("poison-pot", 2, 2, radius=2)  # the small board: quick playouts
    path = tmp_path / "game.json"
    Record.from_state(state).save(path)
    return path


def edited(path: Path, change: Any) -> Path:
    data = json.loads(path.read_text())
    change(data)
    out = path.with_name("edited.json")
    out.write_text(json.dumps(data))
    return out


def one_error(path: Path) -> str:
    result = runner.invoke(app, ["analyse", str(path), "--playouts", "1"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_a_tampered_record_names_its_first_bad_action(record_file: Path) -> None:
    def tamper(data: dict[str, Any]) -> None:
        data["actions"][9] = "g9"
        data["actions"][12] = "zz"

    message = one_error(edited(record_file, tamper))
    assert message.startswith("error: action 9 ('g9'):")
    with pytest.raises(RecordError) as caught:
        analysis.checked_states(Record.load(edited(record_file, tamper)))
    assert caught.value.index == 9


def test_a_malformed_action_is_named(record_file: Path) -> None:
    message = one_error(edited(record_file, lambda d: d["actions"].__setitem__(4, 17)))
    assert message.startswith("error: action 4: expected notation text")


def test_a_truncated_record_is_refused(record_file: Path) -> None:
    # Cut short as text: not JSON any more.
    cut = record_file.with_name("cut.json")
    cut.write_text(record_file.read_text()[:300])
    assert "not valid JSON" in one_error(cut)
    # Cut short as a list: its stated outcome no longer follows.
    message = one_error(edited(record_file, lambda d: d.__setitem__("actions", d["actions"][:30])))
    assert "outcome" in message and "not over" in message


# -- the command ----------------------------------------------------------------------


def test_analyse_json_values_every_decision_of_the_seat_asked(record_file: Path) -> None:
    result = runner.invoke(
        app, ["analyse", str(record_file), "--seat", "1", "--playouts", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    record = Record.load(record_file)
    positions = analysis.checked_states(record)
    expected_steps = [i for i, s in enumerate(positions[:-1]) if s.current_player() == 1]
    assert [d["step"] for d in data["decisions"]] == expected_steps
    assert data["plan"] == {
        "bot": "hard",
        "policy": "rules",
        "playouts": 1,
        "exact": True,
        "budget": None,
    }
    assert data["unit"] == "win share" and data["outcome"] == record.outcome
    for d in data["decisions"]:
        state = positions[d["step"]]
        assert d["seat"] == 1
        assert sorted(m["action"] for m in d["moves"]) == state.legal_actions()
        assert d["played"]["notation"] == record.actions[d["step"]]
        assert d["best"] == d["moves"][0]
        assert d["gap"] == pytest.approx(d["best"]["value"] - d["played"]["value"])
        assert d["gap"] >= 0
        assert len(d["outlook"]) == 2 and len(d["after"]) == 2


def test_analyse_prints_one_line_per_decision(tmp_path: Path) -> None:
    state = play("in-vino-morte", 3, 5)
    path = tmp_path / "ivm.json"
    Record.from_state(state).save(path)
    result = runner.invoke(app, ["analyse", str(path), "--playouts", "2"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    decisions = [
        i
        for i, s in enumerate(analysis.checked_states(Record.load(path))[:-1])
        if s.current_player() >= 0
    ]
    assert "exact (=) where solved" in lines[0] and "cfr playouts" in lines[0]
    assert len(lines) == 2 + len(decisions) + 1
    assert lines[-1].startswith(f"{len(decisions)} decisions; total gap")


def test_an_unknown_bot_or_seat_is_one_clear_error(record_file: Path) -> None:
    bad_bot = runner.invoke(app, ["analyse", str(record_file), "--bot", "oracle"])
    assert bad_bot.exit_code == 2 and "unknown bot 'oracle'" in bad_bot.stderr
    bad_seat = runner.invoke(app, ["analyse", str(record_file), "--seat", "5"])
    assert bad_seat.exit_code == 2 and "--seat 5" in bad_seat.stderr


# Poison Pot's playout bot remembers work across moves, searches and bots (its
# endgame values, and within one decision the values of colours a move leaves
# in place). An analysis must not depend on what it remembers: the values with
# the memory warm from other positions equal those worked out with none.


def pp_empty_circles(state: State) -> int:
    """How many circles of the board are empty."""
    return sum(1 for piece in state.observation(None)["board"] if not piece)


def pp_values(state: State, seed: int) -> dict[str, Any]:
    """One decision valued by the default plan, three playouts a move."""
    return analysis.evaluate(state, analysis.plan(state.game, "hard", 3), seed).to_json()


def test_poison_pot_values_do_not_depend_on_what_the_bot_remembers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The small board, a few cauldrons before the end: the playouts reach the
    # bot's endgame search, yet too many are left for the exact solver.
    late = play("poison-pot", 2, 3, lambda s: pp_empty_circles(s) <= 8, radius=2)
    earlier = play("poison-pot", 2, 4, lambda s: pp_empty_circles(s) <= 9, radius=2)
    assert late.current_player() >= 0
    pp_bot._ENDGAMES.clear()
    pp_values(earlier, 5)  # fills the shared memory with other positions' values
    warm = pp_values(late, 11)
    assert warm["method"] == "playouts"
    remembered = sum(len(search._turns) for search in pp_bot._ENDGAMES.values())
    assert remembered > 0, "the playouts never searched an endgame: the test checks nothing"

    # No memory: nothing is kept between or within searches, nor across candidates.
    original = pp_bot.position_value

    def forgetful_value(*args: Any, **_: Any) -> float:
        return original(*args[:5])

    monkeypatch.setattr(pp_bot.Endgame, "_remember", lambda self, memo, key, value: value)
    monkeypatch.setattr(pp_bot, "position_value", forgetful_value)
    pp_bot._ENDGAMES.clear()
    assert pp_values(late, 11) == warm
