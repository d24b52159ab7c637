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
