"""Little Drop of Poison's hard level, the reveal search (search.py): legal,
reproducible, and acting on its seat's information alone.

Its strength against the rules bot is measured by benchmarks/ldop_hard.py
(docs/bots.md), not here.
"""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary import bots
from apothecary.core.errors import BadOptionError
from apothecary.core.game import JSON, Action, State, sample_chance
from apothecary.games.little_drop_of_poison.bot import RuleBot
from apothecary.games.little_drop_of_poison.search import Play, RevealBot, _Search

GAME = "little-drop-of-poison"


def play_game(players: int, seed: int, hero: int) -> list[Action]:
    """A short game (target 3) of the hard level in seat ``hero`` and rules bots,
    every action of the hard level checked legal; returns the history."""
    game = apothecary.load(GAME, players=players, target=3)
    rng = random.Random(seed)
    seats = [
        bots.load("hard" if seat == hero else "rules", game, seat, seed=seed * 10 + seat)
        for seat in range(players)
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        player = state.current_player()
        action = seats[player].step(state)
        assert action in state.legal_actions(), state.history_notation()
        state.apply_action(action)
    return state.history()


def test_hard_is_the_reveal_search_and_medium_is_unchanged() -> None:
    levels = bots.levels(GAME)
    assert levels["hard"].bot == "reveal"
    assert (levels["medium"].bot, levels["medium"].budget) == ("careless", {"mistakes": 0.2})


@pytest.mark.parametrize("players", [3, 4, 6])
def test_plays_legal_moves_to_the_end(players: int) -> None:
    for seed in range(3):
        play_game(players, seed, hero=seed % players)


def test_a_seed_gives_the_same_game() -> None:
    assert play_game(4, 7, hero=2) == play_game(4, 7, hero=2)


def test_bad_budgets_are_refused() -> None:
    game = apothecary.load(GAME, players=4)
    with pytest.raises(BadOptionError, match="worlds"):
        bots.load("reveal:worlds=0", game, 0)
    with pytest.raises(BadOptionError, match="card_cost"):
        bots.load("reveal", game, 0, card_cost=-1)
    with pytest.raises(BadOptionError, match="plays little-drop-of-poison"):
        RevealBot(apothecary.load("poison-pot", players=2), 0)


class PeekingBot(RevealBot):
    """A planted leak: its worlds are the rivals' true face-down plays, read from
    their own observations. The fairness check below must catch it."""

    truth: State

    def _choose(self, state: State) -> Action:
        self.truth = state
        return super()._choose(state)

    def _plan(self, obs: dict[str, JSON]) -> tuple[str, dict[str, int]]:
        base = RuleBot._plan(self, obs)
        search = _Search(self, obs)
        world: dict[str, list[Play]] = {}
        for seat in range(self.game.num_players):
            seen = self.truth.observation(seat)
            target = seen["seats"][seat]["played_on"]
            if seat != self.seat and seen["my_play"] and target is not None:
                cards = tuple(c for c, n in seen["my_play"].items() for _ in range(n))
                world.setdefault(target, []).append((seat, cards))
        search.worlds = [world] * len(search.worlds)
        return search.best(base)


def positions(players: int, count: int) -> list[State]:
    """Decisions with more than one legal move from seeded rules-bot games, where
    some rival has already played face down this poison round."""
    game = apothecary.load(GAME, players=players)
    rng = random.Random(f"ldop-hard:{players}")
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        seats = [RuleBot(game, seat, seed=rng.getrandbits(32)) for seat in range(players)]
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            seat = state.current_player()
            obs = state.observation(seat)
            rivals = any(s["played"] and s["seat"] != seat for s in obs["seats"])
            if rivals and obs["seats"][seat]["played_on"] is None:
                found.append(state.clone())
            state.apply_action(seats[seat].step(state))
    return found


def disagreements(bot_class: type[RevealBot], players: int, count: int) -> int:
    """How often the bot, seeded alike, moves differently in the true state and in
    a world its seat cannot tell from it (resampled for that seat)."""
    game = apothecary.load(GAME, players=players)
    differ = 0
    for index, state in enumerate(positions(players, count)):
        seat = state.current_player()
        twin = state.resample_from_infostate(seat, random.Random(index))
        here = bot_class(game, seat, seed=index).step(state)
        there = bot_class(game, seat, seed=index).step(twin)
        differ += here != there
    return differ


@pytest.mark.parametrize("players", [4, 6])
def test_same_move_in_worlds_the_seat_cannot_tell_apart(players: int) -> None:
    assert disagreements(RevealBot, players, 60) == 0


def test_the_check_catches_a_bot_that_peeks_at_the_rivals_cards() -> None:
    assert disagreements(PeekingBot, 4, 60) > 0
