"""The playout's short roads (see ``LittleDropOfPoisonState.apply_action``) agree
with the rules they stand for.

The state keeps tables beside its hands and piles for speed: the types each
seat holds (``held``), the drops per colour on each character (``venom``), the
living characters (``targets``), the cards each seat played this poison round
(``played``); and it applies deals and a seat's choices without computing the
legal list. Here every one of them is checked against the rules read directly
off the hands, the deck and the table, at every step of random games (small
decks with antidotes of both sorts included, so that cures and universal
antidotes come up often), and every action id is tried at sampled positions:
exactly the legal ones are accepted, and a refusal leaves the state as it was.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from apothecary import load
from apothecary.core.errors import IllegalActionError
from apothecary.core.game import CHANCE, sample_chance
from apothecary.games.little_drop_of_poison.facts import DEAL_PHASE, PLAY_PHASE
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

GAME = "little-drop-of-poison"

SMALL_DECK = "blue:4x1,2x2;green:4x1,2x2;green+blue:2x1;antidote(blue):2;universal:1"

CONFIGURATIONS: list[tuple[int, dict[str, Any]]] = [
    (3, {}),
    (5, {}),
    (8, {}),
    (3, {"deck": SMALL_DECK}),
    (4, {"deck": SMALL_DECK}),
]


def rules_legal(state: LittleDropOfPoisonState) -> list[int]:
    """The legal actions read off the state's hands, deck and characters."""
    game = state.game
    n, t = game.num_players, game.num_types
    if state.phase == DEAL_PHASE:
        return [game.DEAL + k for k in range(t) if state.deck[k] > 0]
    if state.phase == PLAY_PHASE:
        seat = state.player
        hand = state.hands[seat * t : seat * t + t]
        if state.turn_target < 0:
            if not any(hand):
                return [game.PASS]
            return [c for c in range(n) if state.alive[c]] + [game.KING]
        added = any(state.plays[seat * t : seat * t + t])
        return [game.ADD + k for k in range(t) if hand[k]] + ([game.DONE] if added else [])
    return [action for action, _ in state.chance_outcomes()]


def table_problems(state: LittleDropOfPoisonState) -> list[str]:
    """Where the state's kept tables disagree with what they are kept from."""
    game = state.game
    n, t, c = game.num_players, game.num_types, game.num_colours
    problems = []
    for seat in range(n):
        hand = state.hands[seat * t : seat * t + t]
        held = sum(1 << k for k in range(t) if hand[k])
        if state.held[seat] != held:
            problems.append(f"held of seat {seat}: {state.held[seat]:b}, hand says {held:b}")
        played = sorted(state.played[seat])
        plays = [k for k in range(t) for _ in range(state.plays[seat * t + k])]
        if played != plays:
            problems.append(f"played of seat {seat}: {played}, plays say {plays}")
    for character in range(n + 1):
        pile = state.table[character * t : character * t + t]
        venom = [
            sum(pile[k] * game.drops[k] for k in range(t) if game.poison_mask[k] >> colour & 1)
            for colour in range(c)
        ]
        kept = state.venom[character * c : character * c + c]
        if kept != venom:
            problems.append(f"venom of character {character}: {kept}, the table says {venom}")
    living = (*[s for s in range(n) if state.alive[s]], n)
    if state.targets != living:
        problems.append(f"targets {state.targets}, the living say {living}")
    return problems


def step_checks(state: LittleDropOfPoisonState, rng: random.Random) -> None:
    """At one position: the tables, the legal actions and the deal's odds."""
    problems = table_problems(state)
    assert not problems, problems
    assert state.legal_actions() == rules_legal(state)
    if state.phase == DEAL_PHASE:
        size = state.deck_size
        expected = [
            (state.game.DEAL + k, count / size) for k, count in enumerate(state.deck) if count
        ]
        # The same floats as dividing anew, bit for bit.
        assert [(a, p.hex()) for a, p in state.chance_outcomes()] == [
            (a, p.hex()) for a, p in expected
        ]


def every_id_tried(state: LittleDropOfPoisonState) -> None:
    """Every action id: the legal ones applied, the others refused with no change."""
    legal = set(rules_legal(state))
    before = (state.history(), str(state))
    for action in range(state.game.num_distinct_actions()):
        copy = state.clone()
        assert isinstance(copy, LittleDropOfPoisonState)
        if action in legal:
            copy.apply_action(action)
            assert copy.history() == [*before[0], action]
        else:
            with pytest.raises(IllegalActionError):
                copy.apply_action(action)
            assert (copy.history(), str(copy)) == before
    assert (state.history(), str(state)) == before


@pytest.mark.parametrize(("players", "options"), CONFIGURATIONS)
def test_the_kept_tables_and_short_roads_follow_the_rules(
    players: int, options: dict[str, Any]
) -> None:
    game = load(GAME, players=players, **options)
    rng = random.Random(players)
    tried = 0
    for _ in range(3):
        state = game.new_initial_state()
        assert isinstance(state, LittleDropOfPoisonState)
        while not state.is_terminal():
            step_checks(state, rng)
            if rng.random() < 0.05:
                every_id_tried(state)
                tried += 1
            if state.current_player() == CHANCE:
                state.apply_action(sample_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert not table_problems(state)
    assert tried > 10


def test_the_table_check_catches_a_planted_drift() -> None:
    """Each kept table, put out of step with what it is kept from, is reported."""
    game = load(GAME, players=3)
    rng = random.Random(7)
    state = game.new_initial_state()
    assert isinstance(state, LittleDropOfPoisonState)
    while state.phase != PLAY_PHASE:
        state.apply_action(sample_chance(state, rng))
    assert table_problems(state) == []
    plants: dict[str, Callable[[LittleDropOfPoisonState], object]] = {
        "held": lambda s: s.held.__setitem__(0, s.held[0] ^ 1),
        "played": lambda s: s.played.__setitem__(1, (0,)),
        # venom is shared with the clone's original (copy on write): replaced, not changed
        "venom": lambda s: setattr(s, "venom", [s.venom[0] + 1, *s.venom[1:]]),
        "targets": lambda s: setattr(s, "targets", s.targets[1:]),
    }
    for name, plant in plants.items():
        planted = state.clone()
        assert isinstance(planted, LittleDropOfPoisonState)
        plant(planted)
        assert any(problem.startswith(name) for problem in table_problems(planted)), name
