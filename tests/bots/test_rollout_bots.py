"""The rollout and careless bots, and bot names that carry a budget."""

from __future__ import annotations

import random

import pytest

import apothecary
from apothecary import bots
from apothecary.arena import run_match
from apothecary.core.errors import BadOptionError, UnknownBotError
from apothecary.testing import decision_positions


def test_a_bot_name_can_carry_its_budget() -> None:
    game = apothecary.load("poison-pot", players=2)
    bot = bots.load("ismcts:iterations=12,exploration=1.5", game, 1, seed=3)
    assert isinstance(bot, bots.ISMCTSBot)
    assert (bot.iterations, bot.exploration, bot.seat) == (12, 1.5, 1)
    rollout = bots.load("rollout:rollouts=8,policy=random", game, 0)
    assert isinstance(rollout, bots.RolloutBot)
    assert (rollout.rollouts, rollout.policy) == (8, "random")
    # A keyword argument overrides the budget in the name.
    assert bots.load("ismcts:iterations=12", game, 0, iterations=5).iterations == 5  # type: ignore[attr-defined]
    assert bots.parse_spec("hard") == ("hard", {})


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("ismcts:iterations", BadOptionError, "expected name:key=value"),
        ("ismcts:=4", BadOptionError, "expected name:key=value"),
        ("rollout:rollouts=0", BadOptionError, "rollouts=0: expected 1 to"),
        ("rollout:margin=-1", BadOptionError, "margin=-1"),
        ("careless:mistakes=1.5", BadOptionError, "mistakes=1.5: expected 0 to 1"),
        ("rollout:policy=genius", UnknownBotError, "unknown bot 'genius'"),
        ("rollout:depth=3", BadOptionError, "takes no budget depth"),
    ],
)
def test_bad_bot_specs_are_refused(spec: str, error: type[Exception], message: str) -> None:
    game = apothecary.load("in-vino-morte", players=3)
    with pytest.raises(error, match=message):
        bots.load(spec, game, 0)


def _decisions(game_name: str, players: int, seed: int, count: int) -> list[apothecary.State]:
    """Positions with a choice, from seeded random play."""
    game = apothecary.load(game_name, players=players)
    return decision_positions(game, count, random.Random(seed))


def test_rollout_keeps_the_base_move_unless_a_playout_difference_is_clear() -> None:
    """With a margin no difference can clear it always plays its base bot's move
    (eight paired playouts at most, and the differences lie in [-1, 1], so the
    evidence is at most eight standard errors); with none it sometimes finds a
    better one, so the margin is what holds it back."""
    positions = _decisions("in-vino-morte", 3, seed=2, count=30)
    deviations = 0
    for i, state in enumerate(positions):
        game, seat = state.game, state.current_player()
        cautious = bots.RolloutBot(game, seat, seed=i, rollouts=8, margin=10)
        assert cautious.step(state) == cautious.last_base
        eager = bots.RolloutBot(game, seat, seed=i, rollouts=24, margin=0)
        deviations += eager.step(state) != eager.last_base
        assert eager.last_rollouts >= len(state.legal_actions())
    assert deviations > 0


def test_rollout_improves_on_its_base_bot() -> None:
    """Rollouts over random play beat random play (a bot that chose the worst
    move, or ignored its playouts, would not)."""
    result = run_match(
        "poison-pot",
        players=2,
        bots=["rollout:rollouts=30,policy=random,margin=0", "random"],
        games=16,
        seed=4,
        options={"radius": 1},
    )
    rate, _, _ = result.by_bot["rollout:rollouts=30,policy=random,margin=0"].win_rate()
    assert rate >= 0.75


def test_careless_defers_to_its_base_bot_unless_it_blunders() -> None:
    positions = _decisions("tea-scones-arsenic", 3, seed=5, count=40)
    blunders = 0
    for i, state in enumerate(positions):
        seat = state.current_player()
        # Same seed, same base bot: one asked through the careless bot, one directly.
        never = bots.CarelessBot(state.game, seat, seed=i, mistakes=0.0)
        twin = bots.CarelessBot(state.game, seat, seed=i, mistakes=0.0)
        assert never.step(state) == twin._base.step(state)
        always = bots.CarelessBot(state.game, seat, seed=i, mistakes=1.0)
        other = bots.CarelessBot(state.game, seat, seed=i, mistakes=1.0)
        blunders += always.step(state) != other._base.step(state)
    assert blunders >= 10  # random moves, not the base bot's


@pytest.mark.parametrize(
    ("text", "specs"),
    [
        ("easy,rules", ["easy", "rules"]),
        ("rollout:rollouts=30,margin=1,rules", ["rollout:rollouts=30,margin=1", "rules"]),
        (" random , ismcts:iterations=5 ,", ["random", "ismcts:iterations=5"]),
        ("easy,margin=1", ["easy", "margin=1"]),  # no budget to continue: left to fail as a name
    ],
)
def test_a_list_of_bots_keeps_each_budget_whole(text: str, specs: list[str]) -> None:
    assert bots.split_specs(text) == specs


@pytest.mark.parametrize(
    "spec",
    [
        "rollout:policy=rollout",
        "rollout:policy=ismcts",
        "ismcts:rollout=rollout",
        "ismcts:rollout=careless:policy=ismcts",
    ],
)
def test_a_search_is_never_another_search_s_playout_policy(spec: str) -> None:
    """A search bot as a playout policy has no overall bound (one move took
    minutes), so it is refused with a clear error."""
    game = apothecary.load("in-vino-morte", players=3)
    with pytest.raises(BadOptionError, match="searches itself"):
        bots.load(spec, game, 0)


def test_a_blundering_search_is_still_a_search() -> None:
    game = apothecary.load("in-vino-morte", players=3)
    assert bots.load("careless:policy=rollout:rollouts=5", game, 0).searches
    assert not bots.load("careless", game, 0).searches


def test_fast_bots_remain_good_playout_policies() -> None:
    game = apothecary.load("in-vino-morte", players=3)
    for spec in [
        "rollout:policy=random",
        "rollout:policy=rules",
        "rollout:policy=easy",
        "rollout:policy=medium",
        "ismcts:rollout=rules",
    ]:
        assert bots.load(spec, game, 0).searches
