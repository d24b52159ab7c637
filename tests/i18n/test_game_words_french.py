"""Little Drop of Poison's cards and reveal said whole in French (issue #32):
no English fragment is glued into the sentences a French table reads."""

from __future__ import annotations

import gettext
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import apothecary
from apothecary.core.game import sample_chance
from apothecary.core.words import read, render
from apothecary.games.little_drop_of_poison.events import card_words
from apothecary.i18n.terminal import choose, chosen, game_words

ENGLISH_LEFT = (
    "poison of",
    "drop",
    "each",
    " an ",
    "blue",
    "green",
    "purple",
    "yellow",
    "universal antidote",
    "turned over",
    " dies",
    "poisoned",
    "no points",
    "points:",
    " and ",
    "is done",
    "face down",
    "shuffled",
    "round ends",
    "game is over",
    "wins",
)
"""English words none of the French sentences below may hold (French shares
``antidote``, ``poison`` and ``orange``, so those alone are not in the list)."""

DECKS = (
    "default",
    "orange:5x1,3x2;yellow:5x1,2x3;orange+yellow:2x1;antidote(orange):2;universal:1",
)
"""The published deck's reconstruction and one whose cards read "an orange ..."."""


@pytest.fixture
def in_french() -> Iterator[Callable[[object], str]]:
    """The terminal's reading of a message in French (seats named ``S<n>``,
    not English's "seat", and a list of seats joined in French), the
    language chosen before put back after."""
    before = chosen()
    choose("fr")
    try:
        yield lambda message: game_words(message, [], lambda n: f"S{n}")
    finally:
        choose(before)


def in_english(message: object) -> str:
    """A message said in English, from its templates (no catalog)."""
    return read(render(message, gettext.NullTranslations()), lambda n: f"S{n}")


def english_in(text: str) -> list[str]:
    """The words of :data:`ENGLISH_LEFT` that ``text`` holds."""
    return [word for word in ENGLISH_LEFT if word in text.lower()]


def reveal_messages(seeds: range) -> list[Any]:
    """The messages of every reveal's clauses (and what followed them) a
    spectator reads in seeded random 4-player games."""
    game = apothecary.load("little-drop-of-poison", players=4)
    found: list[Any] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                action = sample_chance(state, rng)
            else:
                action = rng.choice(state.legal_actions())
            event = state.describe_action(action, None)
            if event["reveal"] is not None or event["kind"] == "done":
                found.append(event["msg"])
                found.extend(event["then_msg"])
            state.apply_action(action)
    return found


def test_every_card_of_both_decks_is_said_whole_in_french(
    in_french: Callable[[object], str],
) -> None:
    """A card's words in French hold no English word, and still tell the kinds
    of card apart as the English does (rulebook: "6 cards of 1 drop, 4 of 2
    drops", "multi-coloured cards", "one-colour antidotes", "universal
    antidotes")."""
    for deck in DECKS:
        types = apothecary.load("little-drop-of-poison", players=4, deck=deck).deck.types
        texts = [in_french(card_words(card).message()) for card in types]
        assert [(t, english_in(t)) for t in texts if english_in(t)] == []
        assert len(set(texts)) == len(types), texts
    (pair,) = [c for c in apothecary.load("little-drop-of-poison").deck.types if c.code == "g+p1"]
    assert in_french(card_words(pair).message()) == "un poison vert et violet de 1 goutte chacun"


def test_a_reveal_and_what_follows_it_are_said_whole_in_french(
    in_french: Callable[[object], str],
) -> None:
    """Rulebook: "turn over all of the played poison cards at once", then
    deaths and points: the reveal line, a death, the points (or none), the
    refill, the end of an assassination round and of the game, all in French."""
    texts = [in_french(m) for m in reveal_messages(range(2))]
    assert any(t.startswith("les cartes sont retournées") for t in texts), texts
    assert any("meurt, empoisonné par" in t for t in texts), texts
    assert any("la partie est finie" in t for t in texts), texts
    assert [(t, english_in(t)) for t in texts if english_in(t)] == []


def test_the_english_of_the_same_messages_is_caught() -> None:
    """Planted: the same messages said in English (no catalog) are full of the
    words the check looks for, so it would catch a fragment left in English."""
    texts = [in_english(m) for m in reveal_messages(range(1))]
    assert any("turned over" in english_in(t) for t in texts)
    types = apothecary.load("little-drop-of-poison", players=4).deck.types
    assert all(english_in(in_english(card_words(c).message())) for c in types)
