"""The exact solo solver: the reduced bottom-up program against the unreduced
expectimax on small boxes, in exact fractions (the opening, every position, and
the policy it stores), and the solo-optimal bot on real late positions."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

import apothecary
from apothecary.core.game import State, sample_chance
from apothecary.games.tea_scones_arsenic import solo_table as table
from apothecary.games.tea_scones_arsenic.solo import SoloOptimalBot, SoloSolver, position
from apothecary.games.tea_scones_arsenic.solo_table import (
    Layout,
    SoloBox,
    SoloSolution,
    load,
    save,
    solve,
)

BOXES = [
    SoloBox(2, (0, 1, 3), 1, 4),
    SoloBox(2, (0, 1, 2, 3), 1, 6),
    SoloBox(3, (0, 1, 3), 1, 5),
    SoloBox(2, (0, 0, 1, 3), 2, 4),
    SoloBox(3, (0, 1, 2, 3), 2, 7),
    SoloBox(2, (0, 0, 1, 1, 2, 3), 3, 8),
]


@pytest.fixture(scope="module", params=BOXES, ids=str)
def solved(request: pytest.FixtureRequest) -> tuple[SoloBox, SoloSolution, SoloSolver]:
    box: SoloBox = request.param
    solution = solve(box, exact=True, keep_values=True)
    # the unreduced game: shuffles, marked scones taken any time, 0s put back
    reference = SoloSolver(box.kinds, box.doses, box.cubes, box.lethal, exact=True)
    return box, solution, reference


def test_opening_value_equals_unreduced_expectimax(
    solved: tuple[SoloBox, SoloSolution, SoloSolver],
) -> None:
    box, solution, reference = solved
    exact = reference.solve()
    assert isinstance(solution.value, Fraction) and solution.value == exact
    # a real gamble: neither all the scones nor nothing for sure
    assert 0 < exact < box.kinds * len(box.doses)


def _reference_key(
    layout: Layout, row_pool: tuple[int, ...], mark: int, rng: random.Random
) -> tuple[tuple[tuple[int, ...], ...], int] | None:
    """The unreduced solver's key for a reduced position, its marked scones
    given to kinds at random (any kind missing that dose will do), or None if
    the position cannot happen."""
    cubes, marked = layout.marks[mark]
    full = [layout.box.doses.count(v) for v in layout.values]
    width = len(layout.values)
    kinds = [list(layout.records[r]) + [0] * width for r in row_pool]
    for dose in marked:
        v = layout.values.index(dose)
        room = [k for k in kinds if k[v] + k[width + v] < full[v]]
        if not room:
            return None
        rng.choice(room)[width + v] += 1
    return tuple(sorted(tuple(k) for k in kinds)), cubes


def test_every_position_equals_unreduced_expectimax(
    solved: tuple[SoloBox, SoloSolution, SoloSolver],
) -> None:
    # every reachable position, marked scones of any kind, fewer marks than
    # cubes spent included (a marked scone eaten before the end)
    box, solution, reference = solved
    layout = solution.layout
    rng = random.Random(1)
    pools = {layout.rank(p): p for p in _all_pools(layout)}
    checked = 0
    total_dose = box.kinds * sum(box.doses)
    for (row, mark), value in solution.values.items():
        key = _reference_key(layout, pools[row], mark, rng)
        if key is None:
            continue
        if total_dose - _dose_left(layout, key[0]) >= box.lethal:
            continue  # dead: never a position to play
        assert value == reference.turn_value(key), (pools[row], layout.marks[mark])
        checked += 1
    assert checked > 50


def _dose_left(layout: Layout, kinds: tuple[tuple[int, ...], ...]) -> int:
    """The dose still in the box (unmarked and marked) of the reference's records."""
    width = len(layout.values)
    return sum(v * (k[i] + k[width + i]) for k in kinds for i, v in enumerate(layout.values))


def _all_pools(layout: Layout) -> list[tuple[int, ...]]:
    import itertools

    records = range(len(layout.records))
    return list(itertools.combinations_with_replacement(records, layout.box.kinds))


def _policy_value(solution: SoloSolution) -> Fraction:
    """The exact expected score of playing the stored policy bytes from the
    opening, in the reduced game, with no search at all."""
    layout = solution.layout
    box = solution.box
    values = layout.values
    total_dose = box.kinds * sum(box.doses)
    scones = box.kinds * len(box.doses)

    def turn(kinds: tuple[tuple[int, ...], ...], mark: int) -> Fraction:
        pool, order = layout.pool_of(list(kinds))
        byte = int(solution.policy[layout.rank(pool), mark])
        marked = layout.marks[mark][1]
        left = sum(v * n for k in kinds for v, n in zip(values, k, strict=True))
        eaten_dose = total_dose - left - sum(marked)
        eaten = scones - sum(map(sum, kinds)) - len(marked)
        draw = byte & table.POSITION_MASK
        if byte & table.STOP_BIT or draw == table.NO_DRAW:
            return Fraction(eaten + layout.greedy(marked, box.lethal - eaten_dose))
        k = order[draw]
        record = kinds[k]
        total = Fraction(0)
        for v, count in enumerate(record):
            if not count:
                continue
            after = list(kinds)
            after[k] = (*record[:v], count - 1, *record[v + 1 :])
            rest = tuple(after)
            pool_after, _ = layout.pool_of(list(rest))
            back_bit = (
                int(solution.policy[layout.rank(pool_after), mark]) >> (table.BACK_SHIFT + v) & 1
            )
            if back_bit:
                result = turn(rest, layout.with_mark(mark, values[v]))
            elif eaten_dose + values[v] >= box.lethal:
                result = Fraction(0)
            else:
                result = turn(rest, mark)
            total += Fraction(count, sum(record)) * result
        return total

    full = tuple(tuple(box.doses.count(v) for v in values) for _ in range(box.kinds))
    return turn(full, layout.mark_id[(box.cubes, ())])


def test_stored_policy_reaches_the_optimum(
    solved: tuple[SoloBox, SoloSolution, SoloSolver],
) -> None:
    _, solution, reference = solved
    assert _policy_value(solution) == reference.solve()


def test_a_planted_bad_policy_byte_is_caught() -> None:
    # the policy check can fail: flip the opening's stop bit (stop at once)
    box = BOXES[4]
    solution = solve(box, exact=True)
    layout = solution.layout
    full = layout.rank((len(layout.records) - 1,) * box.kinds)
    solution.policy[full, layout.mark_id[(box.cubes, ())]] |= table.STOP_BIT
    assert _policy_value(solution) == 0 != solution.value


def test_float_solve_matches_fractions() -> None:
    for box in BOXES[:3]:
        assert solve(box).value == pytest.approx(float(solve(box, exact=True).value), abs=1e-12)


def test_saved_table_loads(tmp_path: pytest.TempPathFactory) -> None:
    box = BOXES[2]
    solution = solve(box)
    path = save(solution, tmp_path / "t.npz")  # type: ignore[operator]
    again = load(box, path)
    assert again is not None and again.value == solution.value
    assert (again.policy == solution.policy).all()
    assert load(BOXES[3], path) is None  # another box's shape: refused


# -- the bot on the real box, from late positions ---------------------------------

LATE = 7


@pytest.fixture(scope="module")
def late_table() -> SoloSolution:
    # the real box, solved for positions with at most LATE unmarked scones
    return solve(SoloBox(), up_to=LATE)


def _late_positions(count: int, seed: int) -> list[State]:
    game = apothecary.load("tea-scones-arsenic", players=1)
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            unmarked = sum(state.observation(0)["box"]["unmarked"])
            if unmarked <= LATE and rng.random() < 0.3:
                break
            legal = state.legal_actions()
            names = {state.action_to_string(a): a for a in legal}
            if "stop" in names and len(legal) > 1:
                del names["stop"]
            # eat light scones, put heavy ones back, sometimes shuffle
            if "eat" in names and state.observation(0)["hand"]["dose"] >= 2 and "back" in names:
                state.apply_action(names["back"])
            elif "eat" in names:
                state.apply_action(names["eat"])
            else:
                state.apply_action(rng.choice(list(names.values())))
        if not state.is_terminal() and not state.is_chance_node():
            found.append(state)
    return found


def test_bot_move_is_best_in_late_positions(late_table: SoloSolution) -> None:
    # against the unreduced expectimax (shuffles included) on the real box
    reference = SoloSolver(shuffles=True)
    game = apothecary.load("tea-scones-arsenic", players=1)
    bot = SoloOptimalBot(game, 0, solution=late_table)
    phases = set()
    for state in _late_positions(40, seed=5):
        obs = state.observation(0)
        box, cubes = position(obs, reference)
        key = reference.key(box, cubes)
        move = bot.choice(obs)
        if obs["phase"] == "decide":
            hand = obs["hand"]
            dose_index = reference.values.index(hand["dose"])
            options = dict(reference.hand_options(key, box[hand["kind"] - 1], dose_index))
            chosen = options["back" if move == "back" else "eat"]
        else:
            options = {}
            for choice, value in reference.options(key, after_shuffle=not obs["stopping_allowed"]):
                options[_notation(choice)] = value
            chosen = options[_move_key(move, obs, box)]
        phases.add(obs["phase"])
        assert chosen == pytest.approx(max(options.values()), abs=1e-9), (move, options)
    assert phases == {"turn", "decide"}


def _notation(choice: tuple[object, ...]) -> str:
    if choice[0] in ("stop", "shuffle"):
        return str(choice[0])
    if choice[0] == "draw":
        return f"draw {choice[1]}"
    return f"marked {choice[1]} {choice[2]}"


def _move_key(move: str, obs: dict[str, Any], box: list[tuple[int, ...]]) -> str:
    if move == "stop":
        return "stop"
    if move.startswith("m"):
        marked = obs["box"]["marked"][int(move[1:]) - 1]
        return f"marked {box[marked['kind'] - 1]} {marked['dose']}"
    return f"draw {box[int(move[1:]) - 1]}"


def test_bot_finishes_late_games_legally(late_table: SoloSolution) -> None:
    game = apothecary.load("tea-scones-arsenic", players=1)
    bot = SoloOptimalBot(game, 0, solution=late_table)
    rng = random.Random(3)
    for state in _late_positions(10, seed=9):
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(bot.step(state))
        # every move was legal (apply_action refuses others) and the game ended
        assert state.outcome() is not None
