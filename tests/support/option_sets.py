"""Option sets worth testing for any game, from its option descriptions."""

from __future__ import annotations

from typing import Any

import apothecary


def main_options(name: str) -> list[dict[str, Any]]:
    """Each option with a short list of values (bools, choices) changed alone.

    Free-form values (numbers, deck specs) are left to the game's own tests.
    """
    changed: list[dict[str, Any]] = []
    for spec in apothecary.game_class(name).option_specs:
        if spec.choices is not None:
            values = [c for c in spec.choices if c != spec.default]
        elif spec.type is bool:
            values = [not spec.default]
        else:
            values = []
        changed += [{spec.name: value} for value in values]
    return changed


BAD_LOADS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("no-such-game",), {}),
    (("poison-pot",), {"colour": "red"}),
    (("poison-pot", 9), {}),
]
"""Arguments to ``apothecary.load`` that must fail: an adapter must fail alike."""


SHORT_INFORMATION_STATES: dict[str, dict[str, Any]] = {
    # Little Drop of Poison's information-state tensor has a slot for every
    # poison round the options allow (1.3 million numbers at 8 seats by default):
    # adapter checks that read it at every step use short round limits (the
    # default length and bounds are checked in the game's own tests).
    "little-drop-of-poison": {"max_assassination_rounds": 3, "max_poison_rounds": 6},
}


def configurations() -> list[Any]:
    """``pytest.param(name, players, options)`` for every game at every player
    count, then at its default count with each of :func:`main_options` alone:
    the configurations an adapter is checked over."""
    import pytest

    params = []
    for name in apothecary.games():
        info = apothecary.game_class(name).info
        params += [
            pytest.param(name, players, {}, id=f"{name}-{players}p")
            for players in range(info.min_players, info.max_players + 1)
        ]
    for name in apothecary.games():
        info = apothecary.game_class(name).info
        params += [
            pytest.param(
                name,
                info.default_players,
                options,
                id=f"{name}-" + ",".join(f"{k}={v}" for k, v in options.items()),
            )
            for options in main_options(name)
        ]
    return params
