"""The words of every game's event texts (``describe_action``), over seeded random
games of every game, player count and main option, read by every seat and a
spectator.

Seats are people (or bots standing in for people), so an event never calls a
seat "it": a seat acting on themselves reads "themselves" and "their own"
(singular they), as the web client's own status lines do. The check proves it
looks at the right texts by finding the self-referring cases it guards
(In Vino Morte's dealer dealing to themselves, Little Drop of Poison's
poison on a player's own peasant), and catches the old wording planted back.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from option_sets import configurations

import apothecary
from apothecary.core.game import sample_chance

SEEDS = range(3)
MAX_STEPS = 3000
"""A bound on a random game's length (In Vino Morte with Cheese has no other)."""

SEAT_AS_THING = re.compile(r"\b(itself|its own)\b")
"""Words that would make a seat a thing: no event text about things uses them."""

SELF_WORDS = {
    "in-vino-morte": " to themselves",
    "little-drop-of-poison": " their own peasant",
}
"""Per game, the words of a seat acting on themselves that the seeded games reach."""


def event_texts(name: str, players: int, options: dict[str, Any]) -> Iterator[str]:
    """Every event text every viewer reads in the seeded random games of one
    configuration (seats uniformly among legal actions, chance by its odds)."""
    if name == "in-vino-morte" and options.get("cheese"):
        options = {**options, "round_limit": 30}
    game = apothecary.load(name, players=players, **options)
    for seed in SEEDS:
        rng = random.Random(seed)
        state = game.new_initial_state()
        for _ in range(MAX_STEPS):
            if state.is_terminal():
                break
            if state.is_chance_node():
                action = sample_chance(state, rng)
            else:
                action = rng.choice(state.legal_actions())
            for viewer in [*range(players), None]:
                yield str(state.describe_action(action, viewer)["text"])
            state.apply_action(action)


def all_texts() -> dict[str, set[str]]:
    """Per game, the distinct event texts of all its configurations."""
    texts: dict[str, set[str]] = {}
    for param in configurations():
        name, players, options = param.values
        texts.setdefault(name, set()).update(event_texts(name, players, options))
    return texts


def seat_as_thing(texts: dict[str, set[str]]) -> list[str]:
    """The texts that call a seat "it"."""
    return sorted(t for game in texts.values() for t in game if SEAT_AS_THING.search(t))


def test_no_event_calls_a_seat_it() -> None:
    texts = all_texts()
    assert set(texts) == set(apothecary.games())
    assert seat_as_thing(texts) == []
    for name, words in SELF_WORDS.items():
        # The games do reach a seat acting on themselves, so the check above saw it.
        assert any(words in text for text in texts[name]), f"{name}: no text has {words!r}"


def test_the_old_wording_planted_back_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the words from before the fix ("deals a covered glass to itself",
    "adds a card face down on its own peasant") are found in both games."""
    old = {"to themselves": "to itself", "their own peasant": "its own peasant"}
    for name in SELF_WORDS:
        players = apothecary.game_class(name).info.min_players
        state_class = type(apothecary.load(name, players=players).new_initial_state())
        original = state_class._describe_action

        def planted(self: Any, *args: Any, _original: Any = original) -> dict[str, Any]:
            event: dict[str, Any] = _original(self, *args)
            for new, before in old.items():
                event["text"] = event["text"].replace(new, before)
            return event

        monkeypatch.setattr(state_class, "_describe_action", planted)
    found = seat_as_thing(all_texts())
    assert any(" to itself" in text for text in found)
    assert any(" its own peasant" in text for text in found)
