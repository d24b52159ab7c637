"""The rule-based bot: it plays only legal actions, only from its seat's view, and
beats the random bot by a wide margin (seeded, so the result is fixed)."""

from __future__ import annotations

import random

from apothecary import load
from apothecary.arena import run_match
from apothecary.bots import load as load_bot
from apothecary.core.game import sample_chance

GAME = "little-drop-of-poison"


def test_rule_bot_beats_random() -> None:
    # One rule bot against three random bots would win a quarter of the games by
    # chance; over 60 seeded games it wins nearly all (measured: see rules.md).
    result = run_match(GAME, players=4, bots=["rules", "random"], games=60, seed=7)
    _rate, low, _high = result.by_bot["rules"].win_rate()
    assert low > 0.6, result.table()
    rules_score = result.by_bot["rules"].mean_score()[0]
    random_score = result.by_bot["random"].mean_score()[0]
    assert rules_score > random_score + 4, result.table()


def test_rule_bot_decides_from_its_own_view_only() -> None:
    """Two states a seat cannot tell apart (one is the other's resample) get the same
    action from the bot with the same seed."""
    game = load(GAME, players=5)
    rng = random.Random(11)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 40:
        player = state.current_player()
        if player < 0:
            state.apply_action(sample_chance(state, rng))
            continue
        twin = state.resample_from_infostate(player, random.Random(checked))
        a = load_bot("rules", game, player, seed=1).step(state)
        b = load_bot("rules", game, player, seed=1).step(twin)
        assert a == b
        assert a in state.legal_actions()
        state.apply_action(a)
        checked += 1
    assert checked == 40


def test_rule_bot_breaks_ties_without_favouring_a_seat() -> None:
    """Every peasant has blocked blue, so seat 0's blue drop helps nobody on any
    of them: the three are equally harmless places to wait. A bot that broke the
    tie by seat number would always pick seat 1 (and pile the dumped poison on the
    lowest seats); this one draws the order from its seed."""
    from little_drop_of_poison_records import replay

    deal = ["b!", "b1"], ["b!", "g1"], ["b!", "g1"], ["b!", "g1"]
    actions = ["rat king", "rat to 0", "weasel to 1", "rat to 2", "weasel to 3"]
    actions += [f"{deal[s][i]} to {s}" for i in range(2) for s in range(4)]
    for s in range(4):
        actions += [f"on {s}", "b!", "done"]
    second = ["b1", "b1"], ["g1", "g1"], ["g1", "g1"], ["g1", "g1"]
    actions += [f"{second[s][i]} to {s}" for i in range(2) for s in range(4)]
    state = replay(actions, players=4, deck="blue:10x1;green:10x1;antidote(blue):4")
    assert state.poison_round == 2 and state.current_player() == 0
    game = state.game
    targets = {
        state.action_to_string(load_bot("rules", game, 0, seed=seed).step(state))
        for seed in range(20)
    }
    assert targets == {"on 1", "on 2", "on 3"}
