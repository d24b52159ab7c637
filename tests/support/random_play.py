"""Seeded random play to the end of a game: the one helper the server's bound
and replay tests share (a record of it, or only its length)."""

from __future__ import annotations

import random

from apothecary.core.game import Game, State
from apothecary.core.records import Record


def random_playout(game: Game, seed: int) -> State:
    """``game`` played to its end: chance by its odds, every seat uniformly at
    random, all drawn from ``random.Random(seed)``."""
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def random_length(game: Game, seed: int) -> int:
    """How many actions (chance's included) :func:`random_playout` takes."""
    return len(random_playout(game, seed).history())


def random_record(game: Game, seed: int) -> Record:
    """The record of :func:`random_playout`."""
    return Record.from_state(random_playout(game, seed))
