"""In Vino Morte's levels: hard is the equilibrium where one is stored (and a
rollout bot elsewhere, without an error), medium mixes the rules bot with the
equilibrium so that its pour and swap cannot be read, and no seat wins every
game in self-play any more."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary import bots
from apothecary.arena import run_match
from apothecary.bots.rollout import RolloutBot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import CHANCE, State
from apothecary.games.in_vino_morte.cfr import CFRBot, action_weights, load_table
from apothecary.games.in_vino_morte.levels import MEDIUM_MIX, MixedBot

GAME = "in-vino-morte"


def positions(players: int, count: int, seed: int, **options: object) -> list[State]:
    """Decision positions from seeded random play."""
    game = apothecary.load(GAME, players=players, **options)
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(out) < count:
            assert state.current_player() != CHANCE  # the game has no chance
            out.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize(("players", "options"), [(2, {}), (3, {}), (5, {}), (3, {"cheese": True})])
def test_hard_is_the_equilibrium_wherever_one_is_stored(
    players: int, options: dict[str, object]
) -> None:
    game = apothecary.load(GAME, players=players, **options)
    assert isinstance(bots.load("hard", game, 0, seed=1), CFRBot)


@pytest.mark.parametrize(
    ("players", "options"),
    [(6, {}), (5, {"cheese": True}), (3, {"cheese": True, "cheese_on_reveal": False})],
)
def test_hard_falls_back_to_rollout_without_an_error(
    players: int, options: dict[str, object]
) -> None:
    """The cfr bot refuses these tables; the level plays them anyway."""
    game = apothecary.load(GAME, players=players, **options)
    with pytest.raises(BadOptionError, match="no equilibrium"):
        bots.load("cfr", game, 0)
    bot = bots.load("hard", game, 0, seed=1)
    assert isinstance(bot, RolloutBot) and bot.policy == "mixed"
    state = game.new_initial_state()
    assert bot.step(state) in state.legal_actions()


def test_hard_is_a_playout_policy_only_where_it_does_not_search() -> None:
    """As the equilibrium it is a table look-up; as the fallback, a search."""
    three = apothecary.load(GAME, players=3)
    assert not bots.load("hard", three, 0).searches
    assert isinstance(bots.load("rollout:policy=hard", three, 0), RolloutBot)
    with pytest.raises(BadOptionError, match="searches itself"):
        bots.load("rollout:policy=hard", apothecary.load(GAME, players=6), 0)


def test_medium_is_the_exact_mixture_of_rules_and_the_equilibrium() -> None:
    game = apothecary.load(GAME, players=3)
    table = load_table()
    for state in positions(3, 40, seed=3):
        seat = state.current_player()
        mixed = MixedBot(game, seat).probabilities(state)
        rules = bots.load("rules", game, seat).step(state.clone())
        actions, weights = action_weights(state, seat, table)
        expected = dict.fromkeys(state.legal_actions(), 0.0)
        for action, weight in zip(actions, weights, strict=True):
            expected[action] += MEDIUM_MIX * weight
        expected[rules] += 1 - MEDIUM_MIX
        assert mixed == pytest.approx(expected)
        assert sum(mixed.values()) == pytest.approx(1.0)


def test_mix_zero_is_the_rules_bot_and_mix_one_the_equilibrium() -> None:
    game = apothecary.load(GAME, players=4)
    table = load_table()
    for state in positions(4, 30, seed=4):
        seat = state.current_player()
        rules = bots.load("rules", game, seat).step(state.clone())
        assert MixedBot(game, seat, mix=0).probabilities(state)[rules] == 1.0
        actions, weights = action_weights(state, seat, table)
        one = MixedBot(game, seat, mix=1).probabilities(state)
        assert [one[a] for a in actions] == pytest.approx(weights)


def test_a_round_without_a_stored_strategy_mixes_the_pour_only() -> None:
    """Six players: the first round has no stored strategy, so the pour is
    drawn uniformly with probability mix, and the drinkers play the rules bot."""
    game = apothecary.load(GAME, players=6)
    state = game.new_initial_state()
    dealer = state.current_player()
    probs = MixedBot(game, dealer, mix=0.4).probabilities(state)
    rules = bots.load("rules", game, dealer).step(state.clone())
    legal = state.legal_actions()
    assert probs[rules] == pytest.approx(0.6 + 0.4 / len(legal))
    assert all(probs[a] == pytest.approx(0.4 / len(legal)) for a in legal if a != rules)
    while state.observation(None)["phase"] == "deal":
        state.apply_action(bots.load("rules", game, state.current_player()).step(state))
    drinker = state.current_player()
    rules = bots.load("rules", game, drinker).step(state.clone())
    assert MixedBot(game, drinker, mix=0.4).probabilities(state)[rules] == 1.0


def test_medium_pours_both_kinds_where_rules_always_pours_poison() -> None:
    game = apothecary.load(GAME, players=3)
    state = game.new_initial_state()
    dealer = state.current_player()
    pours = {bots.load("medium", game, dealer, seed=s).step(state.clone()) for s in range(60)}
    assert len(pours) == 2
    rules = {bots.load("rules", game, dealer, seed=s).step(state.clone()) for s in range(60)}
    assert len(rules) == 1


def test_medium_is_seeded() -> None:
    game = apothecary.load(GAME, players=4)
    states = positions(4, 30, seed=5)
    first = [bots.load("medium", game, s.current_player(), seed=7).step(s) for s in states]
    again = [bots.load("medium", game, s.current_player(), seed=7).step(s) for s in states]
    assert first == again


def test_medium_reads_only_its_own_information() -> None:
    """A drinker cannot see the covered glasses: two deals that look alike to
    it give it the same probabilities."""
    game = apothecary.load(GAME, players=3)
    looks: dict[str, dict[int, float]] = {}
    for first in range(2):
        for second in range(2):
            state = game.new_initial_state()
            for choice in (first, second):
                state.apply_action(state.legal_actions()[choice])
            while state.observation(None)["phase"] == "deal":
                state.apply_action(state.legal_actions()[0])
            seat = state.current_player()
            key = state.information_state_string(seat)
            probs = MixedBot(game, seat).probabilities(state)
            assert looks.setdefault(key, probs) == probs
    assert len(looks) < 4  # some deals did look alike to the first drinker


def test_a_bad_mix_is_refused() -> None:
    game = apothecary.load(GAME, players=3)
    with pytest.raises(BadOptionError, match="mix"):
        bots.load("mixed:mix=2", game, 0)
    with pytest.raises(BadOptionError, match="mix"):
        bots.load("mixed:mix=often", game, 0)


def right_hand_share(level: str, players: int, games: int) -> float:
    """The share of self-play games won by the first dealer's right-hand seat."""
    result = run_match(GAME, players, [level], games=games, seed=1)
    return result.by_seat[players - 1].win_rate()[0]


@pytest.mark.parametrize("players", [3, 5])
def test_no_seat_wins_every_game_in_self_play(players: int) -> None:
    """The rules bot's right-hand seat wins every game (the check catches it);
    no level's does."""
    assert right_hand_share("rules", players, 60) == 1.0
    for level in ("easy", "medium", "hard"):
        assert right_hand_share(level, players, 60) < 0.9
