"""The rule-based bot beats the random bot (seeded, so the figures never change)."""

from __future__ import annotations

import pytest

import apothecary
from apothecary import Record
from apothecary.arena import run_match
from apothecary.bots import names


def test_rules_bot_is_registered() -> None:
    assert "rules" in names("poison-pot")


@pytest.mark.parametrize(("players", "floor"), [(2, 0.85), (3, 0.75)])
def test_rules_bot_beats_random(players: int, floor: float) -> None:
    # Measured over 2,000 games: 0.995 at 2 players and 0.954 at 3 (rules.md).
    # 100 games put the lower end of a 95% interval well above these floors.
    result = run_match("poison-pot", players=players, bots=["rules", "random"], games=100, seed=7)
    rate, low, _ = result.by_bot["rules"].win_rate()
    assert rate >= floor, result.table()
    assert low > 1 / players


def test_rules_bot_grows_its_own_group() -> None:
    """Holding a red cauldron, red places it next to its pair a1 a2."""
    record = Record(
        game="poison-pot",
        players=2,
        actions=["d4-d5", "red", "a1", "d5-d4", "red", "a2", "d4-d5", "red"],
    )
    state = record.replay()
    for seed in range(5):
        bot = apothecary.bots.load("rules", state.game, 0, seed=seed)
        assert state.action_to_string(bot.step(state)) in {"a3", "b1", "b2", "b3"}


def test_rules_bot_slides_the_pot_next_to_the_opponents_group() -> None:
    """Blue has g1 g2 and the pot can reach them: red's slide poisons the pair."""
    record = Record(
        game="poison-pot",
        players=2,
        actions=["d4-d5", "blue", "g1", "d5-d4", "blue", "g2"],
    )
    for seed in range(5):
        state = record.replay()
        bot = apothecary.bots.load("rules", state.game, 0, seed=seed)
        state.apply_action(bot.step(state))
        assert state.observation(0)["groups"] == [0, 0]
