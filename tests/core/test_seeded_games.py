"""The same seed gives the same game: seeded random games of every game, every
player count and every main option, digested step by step and compared with
the digests committed in ``seeded_games.json``.

This is the guard for speed work on the engines: a rewrite of a game's rules
for speed must leave every digest unchanged. A digest covers, at every step,
whose turn it is, the legal actions (or the chance outcomes with their exact
probabilities), the action drawn, every viewer's observation, every seat's
information-state string and observation tensor; and at the end the returns
and every seat's information-state tensor.

After a change that is meant to alter games (a rules fix), rewrite the file::

    APOTHECARY_REFRESH_SEEDED_GAMES=1 .venv/bin/python -m pytest -q tests/core/test_seeded_games.py
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.option_sets import configurations

import apothecary
from apothecary.core.game import sample_chance

GOLDEN = Path(__file__).with_name("seeded_games.json")
GAMES_PER_CONFIGURATION = 2
REFRESH = os.environ.get("APOTHECARY_REFRESH_SEEDED_GAMES") == "1"


def _floats(values: list[float]) -> bytes:
    return array("d", values).tobytes()


def seeded_digest(name: str, players: int, options: dict[str, Any], seed: int) -> str:
    """The digest of one random game drawn with ``seed`` (the benchmark's driver:
    chance by cumulative probability (``sample_chance``), seats uniformly among legal actions)."""
    game = apothecary.load(name, players=players, **options)
    rng = random.Random(seed)
    digest = hashlib.sha256()
    state = game.new_initial_state()
    viewers = [*range(players), None]
    while not state.is_terminal():
        player = state.current_player()
        step: dict[str, Any] = {"player": player}
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            step["chance"] = [[a, p.hex()] for a, p in outcomes]
            action = sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            step["legal"] = legal
            action = rng.choice(legal)
        step["action"] = action
        step["views"] = [state.observation(v) for v in viewers]
        step["infostates"] = [state.information_state_string(p) for p in range(players)]
        digest.update(json.dumps(step, sort_keys=True).encode())
        for p in range(players):
            digest.update(_floats(state.observation_tensor(p)))
        state.apply_action(action)
    digest.update(json.dumps(state.returns()).encode())
    for p in range(players):
        digest.update(_floats(state.information_state_tensor(p)))
    return digest.hexdigest()


def _playable(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """In Vino Morte with Cheese has no longest game without a round limit, and
    so no information-state tensor: it is digested under a limit."""
    if name == "in-vino-morte" and options.get("cheese"):
        return {**options, "round_limit": 30}
    return options


def _key(name: str, players: int, options: dict[str, Any]) -> str:
    settings = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{name}/{players}/{settings}"


def _digests(name: str, players: int, options: dict[str, Any]) -> list[str]:
    return [seeded_digest(name, players, options, seed) for seed in range(GAMES_PER_CONFIGURATION)]


@pytest.fixture(scope="module")
def golden() -> dict[str, list[str]]:
    if not GOLDEN.exists():
        return {}
    data: dict[str, list[str]] = json.loads(GOLDEN.read_text())
    return data


@pytest.fixture(scope="module")
def refreshed() -> Iterator[dict[str, list[str]]]:
    """Digests written by this run (refresh mode only); saved at the end."""
    fresh: dict[str, list[str]] = {}
    yield fresh
    if REFRESH and fresh:
        GOLDEN.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize(("name", "players", "options"), configurations())
def test_a_seed_gives_the_same_game_as_before(
    name: str,
    players: int,
    options: dict[str, Any],
    golden: dict[str, list[str]],
    refreshed: dict[str, list[str]],
) -> None:
    options = _playable(name, options)
    key = _key(name, players, options)
    digests = _digests(name, players, options)
    if REFRESH:
        refreshed[key] = digests
        return
    assert key in golden, f"no committed digest for {key}: refresh seeded_games.json"
    assert digests == golden[key], (
        f"{key}: seeded games differ from the committed ones; a speed-up must not "
        "change any game (refresh seeded_games.json only for a deliberate rules change)"
    )


def test_every_committed_digest_has_a_configuration(golden: dict[str, list[str]]) -> None:
    """A configuration dropped from the list would silently stop being checked."""
    if REFRESH:
        pytest.skip("rewriting the digests")
    keys = {
        _key(name, players, _playable(name, options))
        for name, players, options in (param.values for param in configurations())
    }
    assert set(golden) == keys


def test_a_changed_rule_changes_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: Poison Pot's legal moves listed in another order (the same set)
    draws different games from the same seed, and the digest tells."""
    before = seeded_digest("poison-pot", 2, {}, 0)
    state_class = type(apothecary.load("poison-pot", players=2).new_initial_state())
    original = state_class._legal_actions

    def reordered(self: Any) -> list[int]:
        return sorted(original(self), reverse=True)

    monkeypatch.setattr(state_class, "_legal_actions", reordered)
    assert seeded_digest("poison-pot", 2, {}, 0) != before


def test_a_changed_probability_changes_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: one ulp off a chance probability (what a rewrite of c / size as
    c * (1 / size) can do) is caught even where the same outcome is drawn."""
    before = seeded_digest("tea-scones-arsenic", 2, {}, 0)
    state_class = type(apothecary.load("tea-scones-arsenic", players=2).new_initial_state())
    original = state_class.chance_outcomes

    def nudged(self: Any) -> list[tuple[int, float]]:
        return [(a, p if i else math.nextafter(p, 1.0)) for i, (a, p) in enumerate(original(self))]

    monkeypatch.setattr(state_class, "chance_outcomes", nudged)
    assert seeded_digest("tea-scones-arsenic", 2, {}, 0) != before
