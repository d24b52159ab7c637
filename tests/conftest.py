"""Shared fixtures: a toy game that can be registered for the length of a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toy_high_card.game import ToyGame

from apothecary.core import registry


@pytest.fixture
def toy_registered() -> Iterator[type[ToyGame]]:
    """Register the toy game under its name, and remove it afterwards."""
    registry.register(ToyGame)
    try:
        yield ToyGame
    finally:
        registry._GAMES.pop(ToyGame.info.name, None)


# --- real services (PostgreSQL, Redis, Chromium) --------------------------------------------
# The fixtures postgres_url, postgres_db_url, redis_url and chromium_path live in
# tests/support/services.py (on the path through pyproject's pythonpath); loading it as a plugin
# here makes them available to every test without an import in each test module.
pytest_plugins = ["services"]


@pytest.fixture(autouse=True)
def _english_terminal() -> Iterator[None]:
    """Each test starts and ends with the terminal's words in English: a test
    that runs the command line in process with ``--lang de`` chooses German for
    the whole process (as the command line does), which must not reach the
    next test on the same worker."""
    from apothecary.i18n.terminal import DEFAULT, choose

    choose(DEFAULT)
    yield
    choose(DEFAULT)
