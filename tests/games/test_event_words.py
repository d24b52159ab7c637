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
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from option_sets import configurations

import apothecary
from apothecary.core.game import sample_chance
from apothecary.games.little_drop_of_poison.deck import CardType
from apothecary.games.little_drop_of_poison.events import card_words

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
    for event in seeded_events(game):
        yield str(event["text"])


def seeded_events(game: Any) -> Iterator[dict[str, Any]]:
    """Every event every viewer (each seat, then a spectator) reads in the
    seeded random games of ``game``: seats uniformly among legal actions,
    chance by its odds."""
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
            for viewer in [*range(game.num_players), None]:
                yield state.describe_action(action, viewer)
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


# -- Little Drop of Poison's cards in words -------------------------------------------------

DECKS = [
    "default",
    "orange:5x1,3x2;yellow:5x1,2x3;orange+yellow:2x1;antidote(orange):2;universal:1",
]
"""The published deck's reconstruction and one with other colours (one that
reads "an orange ...") and a single universal antidote."""


def card_texts(deck: str) -> Iterator[tuple[dict[str, Any], Any]]:
    """Every ``deal`` and ``card`` event that every viewer reads in seeded random
    games of Little Drop of Poison with ``deck``, with the game."""
    game = apothecary.load("little-drop-of-poison", players=4, deck=deck)
    for event in seeded_events(game):
        if event["kind"] in ("deal", "card"):
            yield event, game


def alike(words_of: Callable[[CardType], str], types: Sequence[CardType]) -> list[str]:
    """The words that ``words_of`` gives to more than one kind of card."""
    words = Counter(words_of(card) for card in types)
    return sorted(w for w, n in words.items() if n > 1)


@pytest.mark.parametrize("deck", DECKS)
def test_a_card_in_words_tells_exactly_what_its_code_does(deck: str) -> None:
    """The log names a card in words ("seat 2 is dealt a green poison of 1
    drop") where it used to write its code (``g1``): the words differ for every
    two kinds of card, so they tell no less than the code."""
    types = apothecary.load("little-drop-of-poison", players=4, deck=deck).deck.types
    assert alike(lambda card: str(card_words(card)), types) == []


@pytest.mark.parametrize(
    ("deck", "code", "words"),
    [
        ("default", "b1", "a blue poison of 1 drop"),
        ("default", "p3", "a purple poison of 3 drops"),
        ("default", "g+p1", "a green and purple poison of 1 drop each"),
        ("default", "p!", "a purple antidote"),
        ("default", "u!", "a universal antidote"),
        (DECKS[1], "o2", "an orange poison of 2 drops"),
        (DECKS[1], "o+y1", "an orange and yellow poison of 1 drop each"),
        (DECKS[1], "o!", "an orange antidote"),
    ],
)
def test_a_card_reads_as_the_rules_name_it(deck: str, code: str, words: str) -> None:
    """The rules page's names: "6 cards of 1 drop, 4 of 2 drops", "multi-coloured
    cards of 1 green + 1 purple drop", "one-colour antidotes", "universal
    antidotes"; the web client's buttons say "Add purple antidote"."""
    types = apothecary.load("little-drop-of-poison", players=4, deck=deck).deck.types
    (card,) = [c for c in types if c.code == code]
    assert str(card_words(card)) == words


def test_words_that_lose_the_drops_are_caught() -> None:
    """Planted: words without the drops ("a blue poison") would tell less than
    the code, and the check finds the kinds that read alike."""
    types = apothecary.load("little-drop-of-poison", players=4).deck.types
    assert "a blue poison" in alike(lambda card: str(card_words(card)).split(" of ")[0], types)


@pytest.mark.parametrize("deck", DECKS)
def test_a_card_is_in_the_text_exactly_when_the_viewer_reads_its_code(deck: str) -> None:
    """Rulebook: the poison cards are dealt "face-down" and played face down
    until "turn over all of the played poison cards at once": a seat reads its
    own card (the event's ``card`` code) and nobody else does. The text names
    the card in words for that seat and for no other viewer."""
    seen = {"named": 0, "hidden": 0}
    for event, game in card_texts(deck):
        named = [str(card_words(card)) in event["text"] for card in game.deck.types]
        if event["card"] is None:
            seen["hidden"] += 1
            assert not any(named), event["text"]
            assert " a card face down" in event["text"]
        else:
            seen["named"] += 1
            (card,) = [c for c in game.deck.types if c.code == event["card"]]
            assert str(card_words(card)) in event["text"], event["text"]
    assert seen["named"] and seen["hidden"]
