"""Shared fixtures: a toy game that can be registered for the length of a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toy_game import ToyGame

from apothecary.core import registry


@pytest.fixture
def toy_registered() -> Iterator[type[ToyGame]]:
    """Register the toy game under its name, and remove it afterwards."""
    registry.register(ToyGame)
    try:
        yield ToyGame
    finally:
        registry._GAMES.pop(ToyGame.info.name, None)
