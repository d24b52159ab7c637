"""Tea, Scones and Arsenic hardening: the tensor holds every fact of the
observation, a seat's own total is live in the eat-off, numbers in notation are
ASCII digits only, and the rules, the redraw and the events import no circle."""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

import apothecary
from apothecary import MalformedActionError, Record
from apothecary.core.game import State, sample_chance
from apothecary.games.tea_scones_arsenic import rules as tsa
from apothecary.games.tea_scones_arsenic.bot import RuleBot
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenicState

Tensor = Callable[[State, int], list[float]]


def _play(players: int, actions: list[str]) -> TeaSconesArsenicState:
    state = Record(game="tea-scones-arsenic", players=players, actions=actions).replay()
    assert isinstance(state, TeaSconesArsenicState)
    return state


def _random_positions(players: int, games: int, seed: int, **options: bool) -> list[State]:
    game = apothecary.load("tea-scones-arsenic", players=players, **options)
    rng = random.Random(seed)
    found: list[State] = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            found.append(state.clone())
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                legal = state.legal_actions()
                # stop rarely, so that games run long and cups fill up
                moves = [a for a in legal if a != tsa.STOP] or legal
                state.apply_action(rng.choice(moves))
        found.append(state)
    return found


def tensor_collisions(positions: list[State], tensor: Tensor, seed: int) -> int:
    """Pairs (a position, a world another seat could be in) whose observations
    differ for a seat while that seat's tensors are equal. The worlds come from
    another seat's resample, so they agree on everything public and differ in
    exactly what the first seat may or may not know."""
    rng = random.Random(seed)
    players = positions[0].game.num_players
    found = 0
    for state in positions:
        for seat in range(players):
            for other in range(players):
                if other == seat and players > 1:
                    continue
                world = state.resample_from_infostate(other, rng)
                mine = json.dumps(state.observation(seat), sort_keys=True)
                theirs = json.dumps(world.observation(seat), sort_keys=True)
                if mine != theirs and tensor(state, seat) == tensor(world, seat):
                    found += 1
    return found


def _real(state: State, seat: int) -> list[float]:
    return state.observation_tensor(seat)


@pytest.mark.parametrize(("players", "spoon"), [(2, False), (3, True), (4, False), (6, True)])
def test_tensors_differ_where_observations_differ(players: int, spoon: bool) -> None:
    positions = _random_positions(players, games=2, seed=players, little_spoon=spoon)[::3]
    assert tensor_collisions(positions, _real, seed=1) == 0


def test_same_observation_same_tensor() -> None:
    # the other direction: the tensor reads nothing the seat cannot see
    positions = _random_positions(3, games=2, seed=5)[::4]
    rng = random.Random(2)
    for state in positions:
        for seat in range(3):
            world = state.resample_from_infostate(seat, rng)
            assert world.observation(seat) == state.observation(seat)
            assert world.observation_tensor(seat) == state.observation_tensor(seat)


def test_the_collision_check_catches_a_tensor_without_the_cups() -> None:
    # Planted bug: the tensor as it was, with each cup's kinds counted but no
    # dose in it (the doses a seat saw in others' cups, and its own, lost).
    def without_cup_doses(state: State, seat: int) -> list[float]:
        assert isinstance(state, TeaSconesArsenicState)
        blanked = state.clone()
        assert isinstance(blanked, TeaSconesArsenicState)
        # every cup's doses unknown to all; the totals (which the old tensor
        # had) are kept, they live apart from the cups
        blanked.eaten = tuple((e, k, 0, 0) for e, k, _d, _known in blanked.eaten)
        return blanked.observation_tensor(seat)

    positions = _random_positions(3, games=2, seed=3)[::3]
    assert tensor_collisions(positions, without_cup_doses, seed=1) > 0


# -- the eat-off: a seat always knows its own total ------------------------------

EAT_OFF = [
    "stop",
    "d5",
    "dose2",
    "back+shuffle",
    "d1",
    "dose0",
    "back",
    "stop",
    "d4",
    "dose2",
    "eat",
    "d1@1",
    "eat",
]


def test_own_total_counts_the_eat_off() -> None:
    """Rulebook: "A player can look at his Scones at any time." In this 2-player
    game both end the main game with no scone and total 0; in the eat-off seat 0
    eats a 2. Seat 0 knows its total is 2 (observation, tensor and rendering);
    seat 1 still sees only the total turned over at the end of the main game."""
    state = _play(2, EAT_OFF)
    assert state.eat_off and state.current_player() == 0
    mine = state.observation(0)["seats"][0]
    assert mine["cup"] == [{"kind": 4, "dose": 2}] and mine["total"] == 2
    tensor = state.observation_tensor(0)
    assert tensor[6] == pytest.approx(2 / 15)  # seat 0's total, as seat 0 knows it
    assert "Seat 0 (you): stopped, 1 scones, total 2," in state.render(0)
    theirs = state.observation(1)["seats"][0]
    assert theirs["cup"] == [{"kind": 4, "dose": None}] and theirs["total"] == 0
    assert "total 0 at the end of the main game" in state.render(1)
    assert state.observation(1)["seats"][1]["total"] == 0  # seat 1 ate a 0


def _eat(kind: int, dose: int) -> list[str]:
    return [f"d{kind}", f"dose{dose}", "eat"]


def test_rules_bot_ranks_eat_off_draws_by_its_real_total() -> None:
    """Rulebook: "A player can look at his Scones at any time." The bot's risk of
    a draw is the chance it reaches the lethal dose from its own total. Both
    players end the main game with nothing; in the eat-off seat 0 eats kind 1's
    1, 1, 2, kind 2's 0, 0, 3, the 1s of kinds 3 and 4 and one 1 of kind 5
    (total 12, 3 from death at 15); seat 1 eats all of kind 6 and zeros. Kind 1
    holds 0, 0, 3 (the lightest on average, but a 3 kills one time in three);
    kind 2 holds 1, 1, 2 (heavier, never lethal). From the real total the bot
    takes kind 2; from the total frozen at 0 it would take kind 1."""
    seat0 = [(1, 1), (1, 1), (1, 2), (2, 0), (2, 0), (2, 3), (3, 1), (3, 1), (4, 1), (4, 1)]
    seat0 += [(5, 1)]
    seat1 = [(6, 0), (6, 0), (6, 1), (6, 1), (6, 2), (6, 3), (3, 0), (3, 0), (4, 0), (4, 0)]
    seat1 += [(5, 0)]
    actions = ["stop", "d6", "dose0", "back+shuffle", "d6", "dose0", "back+shuffle", "stop"]
    for mine, theirs in zip(seat0, seat1, strict=True):
        actions += _eat(*mine) + _eat(*theirs)
    state = _play(2, actions)
    assert state.eat_off and state.current_player() == 0 and state.totals[0] == 12
    assert state.observation(0)["seats"][0]["total"] == 12
    bot = RuleBot(state.game, 0, seed=1)
    assert state.action_to_string(bot.step(state)) == "d2"


# -- numbers in notation ---------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "dose²",
        "=³",
        "dose٣",  # an Arabic-Indic 3
        "m١",  # an Arabic-Indic 1
        "m¹",
        "dose" + "9" * 5000,
        "=" + "9" * 5000,
        "m" + "9" * 5000,
        "d4 " + "9" * 5000,
        "d3@" + "1" * 5000,
        "d3@0." + "9" * 5000,
        "m0",
        "dose4",
    ],
)
def test_numbers_in_notation_are_ascii_digits_only(text: str) -> None:
    state = _play(2, ["d3", "dose1", "back"])
    # both the position where marked scones and draws are named, and the one
    # where a dose is
    with pytest.raises(MalformedActionError) as refused:
        state.string_to_action(text)
    assert len(str(refused.value)) < 300  # the input is quoted shortened
    state.apply_action("d1")
    with pytest.raises(MalformedActionError):
        state.string_to_action(text)
    # the game's own parser, past the core's checks, names nothing either
    assert state._parse_action("".join(text.split())) is None


def test_ascii_numbers_still_read() -> None:
    state = _play(2, ["d3", "dose1", "back"])
    assert state.action_to_string(state.string_to_action("m1")) == "d3@0"
    assert state.action_to_string(state.string_to_action("d3@0")) == "d3@0"
    state.apply_action("d2")
    assert state.string_to_action("dose3") == state.string_to_action("=3") == 3


# -- imports ---------------------------------------------------------------------

PACKAGE = Path(tsa.__file__).parent


def _imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_redraw_and_the_facts_do_not_import_the_rules() -> None:
    # rules.py imports resample.py; resample.py (and facts.py, which both read)
    # must not import rules.py back, not even for a type
    rules = "apothecary.games.tea_scones_arsenic.rules"
    assert "apothecary.games.tea_scones_arsenic.resample" in _imports("rules")
    assert rules not in _imports("resample")
    assert not any(name.startswith("apothecary.games") for name in _imports("facts"))
