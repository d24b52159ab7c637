"""Planted work for the thinking pool's tests: calls that wait for a file, and
a bot that never ends. They live in a module on the tests' path (not in a test
module) so that a spawned worker process can import them by name."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from apothecary.core.bot import Bot, register_bot
from apothecary.core.game import Action, State


def wait_for(gate: str, label: str) -> str:
    """``label``, once the file ``gate`` exists."""
    while not Path(gate).exists():
        time.sleep(0.01)
    return label


def endless() -> None:
    """Never returns (the pool must end its worker)."""
    while True:
        time.sleep(1)


def worker_pid() -> int:
    """The process id of the worker running the call."""
    import os

    return os.getpid()


class EndlessBot(Bot):
    """A bot that thinks for ever, as a named search bot on a huge table looks
    to the server (Poison Pot radius 4 ``rollout``: 66 s a move)."""

    def _choose(self, state: State) -> Action:
        endless()
        raise AssertionError("unreachable")


def register(game: str) -> None:
    """Offer ``endless`` as a bot of ``game``."""
    register_bot(game, "endless", EndlessBot, "thinks for ever (tests)")


def slow_replay_work(stored: Any, *args: Any) -> Any:
    """The replay pool's call, planted: a game with a seat named "slow" never
    finishes rebuilding (as a replay past the server's limit looks to it);
    every other game replays as the server's own call does."""
    from apothecary.server import replays

    if any(seat.get("name") == "slow" for seat in stored.row["seats"]):
        endless()
    return replays.replay_work(stored, *args)
