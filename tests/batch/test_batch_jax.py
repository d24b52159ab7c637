"""The JAX backend (``apothecary.batch.jax``) against the scalar and numpy engines.

Two comparisons, every step: ``drive`` (tests/support/batch_differential.py)
plays the same actions and chance outcomes in the JAX engine and the scalar
engine (chance supplied from the scalar game) and compares current player,
legal mask, every seat's observation tensor, rewards and terminated; and
:func:`lockstep` plays the same actions in the JAX and numpy engines with
chance drawn inside from each game's key, and compares every field of the
state (dtype and value) and the observation, so the JAX draws are the numpy
draws. Planted rule changes on the JAX side are caught. Skips without JAX
(the README's test command installs ``[test]`` only; .ci/run installs
``[pgx]``, which brings JAX, and runs this file).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from batch_differential import Mismatch, drive  # noqa: E402

import apothecary  # noqa: E402
from apothecary import batch  # noqa: E402
from apothecary.batch import jax as batch_jax  # noqa: E402
from apothecary.core.registry import manifest  # noqa: E402
from apothecary.games.in_vino_morte.batch_jax import InVinoMorteJax  # noqa: E402
from apothecary.games.poison_pot.batch_jax import PoisonPotJax  # noqa: E402
from apothecary.games.tea_scones_arsenic.batch_jax import TeaSconesArsenicJax  # noqa: E402
from apothecary.games.tea_scones_arsenic.facts import BACK, DECIDE, EAT, STOP  # noqa: E402

# drive() reads the JAX state outside the backend's x64 scope (astype(int64)
# of an int8 field gives int32 there, with this warning; the values are equal).
pytestmark = pytest.mark.filterwarnings("ignore:Explicitly requested dtype int64:UserWarning")

# (game, players, options, games, steps): every player-count edge and option
# of the games with a JAX program, small enough for seconds a case.
CONFIGURATIONS: list[tuple[str, int, dict[str, Any], int, int]] = [
    ("in-vino-morte", 2, {}, 128, 12),
    ("in-vino-morte", 4, {}, 128, 32),
    ("in-vino-morte", 9, {}, 32, 84),
    ("in-vino-morte", 6, {"deck": "9+9"}, 64, 40),
    ("in-vino-morte", 4, {"cheese": True}, 128, 40),
    ("in-vino-morte", 5, {"cheese": True, "cheese_on_reveal": False}, 64, 48),
    ("in-vino-morte", 3, {"cheese": True, "round_limit": 1}, 128, 12),
    ("in-vino-morte", 7, {"round_limit": 3, "deck": "9+9"}, 32, 50),
    ("poison-pot", 2, {"radius": 1}, 128, 40),
    ("poison-pot", 3, {"radius": 2}, 128, 76),
    ("poison-pot", 2, {}, 64, 76),
    ("poison-pot", 3, {"radius": 4}, 16, 125),
    ("tea-scones-arsenic", 1, {}, 32, 100),
    ("tea-scones-arsenic", 2, {"little_spoon": True}, 32, 100),
    ("tea-scones-arsenic", 3, {}, 24, 110),
    ("tea-scones-arsenic", 4, {"little_spoon": True}, 16, 130),
    ("tea-scones-arsenic", 6, {"little_spoon": True}, 12, 150),
]


@pytest.mark.parametrize(("name", "players", "options", "games", "steps"), CONFIGURATIONS)
def test_jax_plays_the_scalar_rules(
    name: str, players: int, options: dict[str, Any], games: int, steps: int
) -> None:
    engine = batch_jax.load(name, players=players, **options)
    result = drive(engine, games, steps, seed=players * 7 + len(options))  # type: ignore[arg-type]
    if name != "poison-pot" or options.get("radius", 3) <= 2:
        assert result.finished >= games  # every slot ended a game and restarted


def careful(world: Any, rng: Any) -> int:
    """Tea, Scones and Arsenic's long games: eat what does not kill, put back
    what would while a cube is left, seldom stop (marked scones, honour
    rounds, empty boxes and eat-offs, which uniform play rarely reaches)."""
    if world.phase == DECIDE:
        seat = world.turn_player
        safe = world.totals[seat] + world.hand_dose < world.lethal_dose or world.eat_off
        return EAT if safe or not world.cubes[seat] else BACK
    legal = list(world.legal_actions())
    if STOP in legal and len(legal) > 1 and rng.random() < 0.95:
        legal.remove(STOP)
    action: int = rng.choice(legal)
    return action


@pytest.mark.parametrize(("players", "spoon"), [(1, True), (2, False), (4, True), (5, False)])
def test_jax_plays_tea_scones_arsenics_long_games(players: int, spoon: bool) -> None:
    engine = batch_jax.load("tea-scones-arsenic", players=players, little_spoon=spoon)
    result = drive(engine, 16, 150, seed=players, policy=careful)  # type: ignore[arg-type]
    assert result.finished >= 16


def lockstep(name: str, players: int, options: dict[str, Any], games: int, steps: int) -> int:
    """Play numpy and JAX engines side by side with chance from the keys;
    raise Mismatch at the first field that differs. Returns games finished."""
    numpy_engine = batch.load(name, players, **options)
    jax_engine = batch_jax.load(name, players, **options)
    a, b = numpy_engine.init(11, games), jax_engine.init(11, games)
    rng = np.random.default_rng(5)
    for step in range(steps + 1):
        for field in dataclasses.fields(a):
            want, have = getattr(a, field.name), np.asarray(getattr(b, field.name))
            if have.dtype != want.dtype or not np.array_equal(have, want):
                raise Mismatch(f"step {step}: {field.name}: jax {have!r}, numpy {want!r}")
        if not np.array_equal(numpy_engine.observation(a), jax_engine.observation(b)):
            raise Mismatch(f"step {step}: observation")
        actions = batch.random_legal_actions(a.legal_action_mask, rng)
        a, b = numpy_engine.step(a, actions), jax_engine.step(b, actions)
    return int(a.episode.sum())


@pytest.mark.parametrize(
    ("name", "players", "options"),
    [
        ("in-vino-morte", 4, {"cheese": True}),
        ("poison-pot", 2, {"radius": 2}),
        ("tea-scones-arsenic", 3, {"little_spoon": True}),
    ],
)
def test_jax_draws_and_states_are_the_numpy_engines(
    name: str, players: int, options: dict[str, Any]
) -> None:
    # Tea, Scones and Arsenic's games run longer: more steps for every slot to end one.
    steps = 100 if name == "tea-scones-arsenic" else 60
    assert lockstep(name, players, options, 128, steps) >= 128


def test_a_jax_deal_that_ignores_the_deck_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted: any deal may finish (the deck's limits forgotten).
    monkeypatch.setattr(
        InVinoMorteJax, "_deal_can_finish", lambda self, wine, poison, left: left >= 0
    )
    engine = batch_jax.load("in-vino-morte", players=4)
    with pytest.raises(Mismatch, match="legal_action_mask"):
        drive(engine, 64, 20, seed=1)  # type: ignore[arg-type]


def test_a_jax_pot_without_the_tie_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = batch_jax.load("poison-pot", players=2, radius=2)
    monkeypatch.setattr(engine.engine, "_last_placer", engine.engine._placer_before)
    engine = PoisonPotJax(engine.engine)  # compiled with the planted tables
    with pytest.raises(Mismatch, match="rewards"):
        drive(engine, 128, 76, seed=2)  # type: ignore[arg-type]


def test_a_jax_draw_off_by_one_is_caught_against_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    original = PoisonPotJax._advance_one

    def shifted(self: PoisonPotJax, s: Any, a: Any, chance: Any) -> Any:
        return original(self, dataclasses.replace(s, draws=s.draws + 1), a, chance)

    monkeypatch.setattr(PoisonPotJax, "_advance_one", shifted)
    with pytest.raises(Mismatch):
        lockstep("poison-pot", 2, {"radius": 1}, 32, 4)


def test_a_jax_spoon_never_offered_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted: nobody is ever asked whether to send the scone back.
    monkeypatch.setattr(
        TeaSconesArsenicJax, "_spoon_holder", lambda self, after, eater, s: jax.numpy.asarray(-1)
    )
    engine = batch_jax.load("tea-scones-arsenic", players=4, little_spoon=True)
    with pytest.raises(Mismatch, match=r"current_player|legal_action_mask"):
        drive(engine, 32, 40, seed=2)  # type: ignore[arg-type]


def test_a_jax_dose_not_left_is_refused() -> None:
    engine = batch_jax.load("tea-scones-arsenic", players=2)
    state = engine.init(0, 2)
    draw = 6  # a draw by the first kind; its pool holds two 0s, two 1s, a 2 and a 3
    for doses in ([3, 0], [2, 0]):
        state = engine.step(state, np.array([draw, draw]), chance=np.array(doses))
        state = engine.step(state, np.array([EAT, EAT]))
    with pytest.raises(apothecary.IllegalActionError, match="game 0: chance 2 is not a dose"):
        engine.step(state, np.array([draw, draw]), chance=np.array([2, 0]))


def test_games_without_a_program_are_refused_by_name() -> None:
    missing = {
        name: reason
        for name in apothecary.games()
        if (reason := manifest(name).batch_jax_missing) is not None
    }
    assert sorted(missing) == ["little-drop-of-poison"]
    for name, reason in missing.items():
        with pytest.raises(batch.NoBatchEngineError, match=f"{name} has no JAX batch engine"):
            batch_jax.load(name)
        assert "not written yet" in reason
    assert batch_jax.engines() == ["in-vino-morte", "poison-pot", "tea-scones-arsenic"]
    with pytest.raises(apothecary.UnknownGameError):
        batch_jax.load("no-such-game")
    with pytest.raises(apothecary.PlayerCountError):
        batch_jax.load("in-vino-morte", players=10)


def test_bad_actions_and_chance_get_the_numpy_engines_errors() -> None:
    engine = batch_jax.load("in-vino-morte", players=4)
    state = engine.init(0, 3)
    with pytest.raises(apothecary.IllegalActionError, match="game 1: action 4 is not legal"):
        engine.step(state, np.array([0, 4, 0]))
    with pytest.raises(apothecary.MalformedActionError, match="game 2: action 99"):
        engine.step(state, np.array([0, 0, 99]))
    pot = batch_jax.load("poison-pot", players=2, radius=1)
    start = pot.init(0, 2)
    slide = np.flatnonzero(np.asarray(start.legal_action_mask[0]))[0]
    with pytest.raises(apothecary.IllegalActionError, match="game 1: chance 3 is not a colour"):
        pot.step(start, np.array([slide, slide]), chance=np.array([-1, 3]))


def test_unchecked_steps_are_the_checked_ones() -> None:
    engine = batch_jax.load("poison-pot", players=3, radius=1)
    state = engine.init(4, 16)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = batch.random_legal_actions(np.asarray(state.legal_action_mask), rng)
        checked = engine.step(state, actions)
        state = engine.step(state, actions, check=False)
        for field in dataclasses.fields(state):
            assert np.array_equal(getattr(checked, field.name), getattr(state, field.name))


def test_x64_stays_inside_the_backend() -> None:
    engine = batch_jax.load("in-vino-morte", players=3)
    state = engine.init(1, 4)
    engine.step(state, np.asarray(state.legal_action_mask).argmax(axis=1))
    assert state.key.dtype == np.uint64  # the backend's own arrays keep 64 bits
    assert jax.numpy.arange(3).dtype == np.int32  # the caller's JAX does not


IMPORTS = "import sys, apothecary, apothecary.batch\n"
IMPORTS += "".join(f"apothecary.batch.load({name!r})\n" for name in ("in-vino-morte", "poison-pot"))


def imports_jax(code: str) -> bool:
    """Whether running ``code`` in a fresh interpreter leaves JAX imported."""
    probe = code + "print('jax' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.strip().endswith("True")


def test_the_core_and_the_numpy_backend_do_not_import_jax() -> None:
    assert not imports_jax(IMPORTS)
    # The guard catches an import of the backend (a planted violation).
    assert imports_jax(IMPORTS + "import apothecary.batch.jax\n")


def test_the_package_doctest_runs() -> None:
    import doctest

    result = doctest.testmod(batch_jax)
    assert result.attempted > 0 and result.failed == 0
