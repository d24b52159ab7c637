"""Little Drop of Poison scenarios, written as records (chance included) and replayed.

Default deck codes: b1 b2 b3 g1 g2 g3 p1 p2 p3 (colour and drops), g+p1 (the
multi-coloured card), b! g! p! (one-colour antidotes), u! (universal).
Seat 0 starts the first assassination round; the king is drawn first, then a
peasant for each seat in seat order, then 2 cards each, one at a time clockwise
from the starting seat.
"""

from __future__ import annotations

from typing import Any

import pytest

from apothecary import BadOptionError, IllegalActionError, MalformedActionError, Record, load
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState

GAME = "little-drop-of-poison"


def opening(king: str, kinds: list[str], hands: dict[int, list[str]], first: int = 0) -> list[str]:
    """The chance actions that start an assassination round."""
    return [
        f"{king} king",
        *(f"{kind} to {s}" for s, kind in enumerate(kinds)),
        *deal(hands, first),
    ]


def deal(hands: dict[int, list[str]], first: int = 0) -> list[str]:
    """Deal each seat its cards, one at a time clockwise from ``first``."""
    seats = sorted(hands, key=lambda s: (s - first) % 100)
    return [f"{hands[s][i]} to {s}" for i in range(2) for s in seats if i < len(hands[s])]


def turn(target: object, *cards: str) -> list[str]:
    """One turn: the character, the cards, done."""
    return [f"on {target}", *cards, "done"]


def replay(players: int, actions: list[str], **options: Any) -> LittleDropOfPoisonState:
    state = Record(game=GAME, players=players, options=options, actions=actions).replay()
    assert isinstance(state, LittleDropOfPoisonState)
    return state


RWW = ["rat", "weasel", "weasel"]

# (players, seat 0's blue cards on the king, seat 1's blue card or None, blue drops, kill?)
KING_THRESHOLDS = [
    (3, ["b3", "b2"], None, 5, True),
    (3, ["b3", "b1"], None, 4, False),
    (4, ["b3", "b2"], None, 5, True),
    (4, ["b3", "b1"], None, 4, False),
    (5, ["b3", "b3"], None, 6, True),
    (5, ["b3", "b2"], None, 5, False),
    (6, ["b3", "b3"], "b1", 7, True),
    (6, ["b3", "b3"], None, 6, False),
    (7, ["b3", "b3"], "b2", 8, True),
    (7, ["b3", "b3"], "b1", 7, False),
    (8, ["b3", "b3"], "b2", 8, True),
    (8, ["b3", "b3"], "b1", 7, False),
]


@pytest.mark.parametrize(("players", "first", "second", "drops", "kill"), KING_THRESHOLDS)
def test_king_dies_at_the_lethal_number_for_the_player_count(
    players: int, first: list[str], second: str | None, drops: int, kill: bool
) -> None:
    """'In a 3 or 4-player game, it takes 5 drops of any one poison type to kill a
    king. In a 5-player game 6, in a 6-player game 7, in a 7 or 8-player game 8.'"""
    hands = {0: first, 1: [second or "b1", "g2"]}
    for s in range(2, players):
        hands[s] = ["p1", "g1"]
    kinds = (["rat", "weasel"] * 4)[:players]
    actions = opening("weasel", kinds, hands)
    actions += turn("king", *first) + turn("king", second or "g2")
    for _ in range(2, players):
        actions += turn("king", "p1")
    state = replay(players, actions)
    assert (
        sum(3 if c == "b3" else 2 if c == "b2" else 1 for c in first)
        + (int(second[1]) if second else 0)
        == drops
    )
    if kill:
        # Seat 0 (rat) killed the weasel king: 3 points; seat 1 (weasel) 2 if it helped.
        assert state.assassination_round == 2
        assert state.scores[:2] == [3, 2 if second else 0]
        assert not any(state.scores[2:])
    else:
        assert state.king_alive and state.assassination_round == 1
        assert not any(state.scores)


def test_peasant_dies_at_three_drops_not_two() -> None:
    """'It takes three drops of any one poison type to kill a peasant.'"""
    hands = {0: ["b2", "g1"], 1: ["b1", "g1"], 2: ["p1", "p1"], 3: ["p1", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel", "weasel"], hands)
    actions += turn(2, "b2") + turn(3, "b1") + turn("king", "p1") + turn("king", "p1")
    state = replay(4, actions)
    assert state.alive == [True, True, True, True]
    assert state.observation(None)["table"]["2"]["cards"] == {"b2": 1}


def test_two_colours_lethal_at_once_credit_both_killers() -> None:
    """'If enough of two or more types of poison are played, all are considered the
    type of poison that triggered the killing.'"""
    hands = {0: ["b3", "g1"], 1: ["g3", "b1"], 2: ["p1", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel"], hands)
    actions += turn(2, "b3") + turn(2, "g3") + turn("king", "p1")
    state = replay(3, actions)
    assert not state.alive[2]
    assert state.scores == [1, 1, 0]
    assert state.last_reveal is not None
    assert state.last_reveal[0].deaths == ((2, (0, 1)),)


def test_multi_coloured_card_completes_a_kill() -> None:
    """'Multi-colored poisons count as one drop of green poison and one drop of
    purple poison.' g2 from an earlier round plus g+p1 now make 3 green."""
    hands = {0: ["g2", "b1"], 1: ["g+p1", "b1"], 2: ["p1", "g1"], 3: ["p1", "g1"]}
    actions = opening("rat", ["rat", "rat", "weasel", "weasel"], hands)
    actions += turn(2, "g2") + turn("king", "b1") + turn("king", "p1") + turn("king", "p1")
    actions += deal({0: ["b1", "g1"], 1: ["p2", "g1"], 2: ["b2", "p2"], 3: ["b2", "g3"]})
    actions += turn("king", "b1") + turn(2, "g+p1") + turn("king", "b2") + turn("king", "g1")
    state = replay(4, actions)
    assert not state.alive[2]
    # Credit only for this poison round's drops: seat 0's earlier g2 earns nothing.
    assert state.scores == [0, 1, 0, 0]


def test_credit_only_for_this_poison_rounds_drops() -> None:
    """'Poison played in previous poison rounds is not credited to any assassin.'"""
    hands = {0: ["b2", "g1"], 1: ["g1", "b1"], 2: ["p1", "p1"], 3: ["p1", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel", "weasel"], hands)
    actions += turn(2, "b2") + turn("king", "g1") + turn("king", "p1") + turn("king", "p1")
    actions += deal({0: ["g1", "g1"], 1: ["g1", "g1"], 2: ["p1", "p2"], 3: ["p1", "p2"]})
    actions += turn("king", "g1") + turn(2, "b1") + turn("king", "p1") + turn(0, "p2")
    state = replay(4, actions)
    assert not state.alive[2]
    assert state.scores == [0, 1, 0, 0]


def test_one_colour_antidote_wipes_earlier_rounds_and_blocks_later_drops() -> None:
    """'This antidote card will counteract any blue poison previously played during
    the current assassination round ... Any further blue poison will have no effect
    on that character.' (rules.md: "later cards with that colour stay on the
    character but count zero drops of it".)"""
    hands = {0: ["b2", "b3"], 1: ["b1", "g1"], 2: ["p1", "p1"], 3: ["b!", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel", "weasel"], hands)
    actions += turn(3, "b2") + turn("king", "g1") + turn("king", "p1") + turn("king", "p1")
    actions += deal({0: ["g1", "g1"], 1: ["g1", "g1"], 2: ["p1", "p2"], 3: ["p2", "p2"]})
    actions += turn("king", "g1") + turn(3, "b1") + turn("king", "p1") + turn(3, "b!")
    state = replay(4, actions)
    obs = state.observation(None)
    assert obs["table"]["3"] == {"cards": {"b!": 1}, "blocked": ["blue"]}
    assert obs["discard"] == {"b1": 1, "b2": 1}
    actions += deal({0: ["g1", "g2"], 1: ["g2", "g2"], 2: ["p!", "p2"], 3: ["g!", "g3"]})
    actions += turn(3, "b3") + turn("king", "g2") + turn("king", "p!") + turn(3, "g!")
    state = replay(4, actions)
    assert state.alive[3]  # 3 blue drops, but blue is blocked on seat 3
    assert state.observation(None)["table"]["3"] == {
        "cards": {"b3": 1, "b!": 1, "g!": 1},
        "blocked": ["blue", "green"],
    }


def test_universal_antidote_discards_everything_and_ends_blocks() -> None:
    """'This antidote wipes out all poison played on the current poison round and all
    previous poison rounds for one character. It and all other poison is then
    discarded.' (rules.md: "a universal antidote also discards the one-colour
    antidotes there, so their blocks end".)"""
    hands = {0: ["g2", "g1"], 1: ["b!", "b3"], 2: ["p1", "p1"], 3: ["u!", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel", "weasel"], hands)
    actions += turn(3, "g2") + turn(3, "b!") + turn("king", "p1") + turn("king", "p1")
    state = replay(4, actions)
    assert state.observation(None)["table"]["3"]["blocked"] == ["blue"]
    actions += deal({0: ["b1", "b1"], 1: ["b1", "b1"], 2: ["p1", "p2"], 3: ["p2", "p2"]})
    actions += turn(3, "g1") + turn("king", "b1") + turn("king", "p1") + turn(3, "u!")
    state = replay(4, actions)
    obs = state.observation(None)
    assert state.alive[3]  # g2 + g1 would have been 3 green
    assert obs["table"]["3"] == {"cards": {}, "blocked": []}
    assert obs["discard"] == {"g1": 1, "g2": 1, "b!": 1, "u!": 1}
    actions += deal({0: ["b1", "b1"], 1: ["b2", "b2"], 2: ["p2", "p3"], 3: ["p3", "g3"]})
    actions += turn("king", "b1") + turn(3, "b3") + turn(0, "p2") + turn("king", "g3")
    state = replay(4, actions)
    assert not state.alive[3]  # blue is no longer blocked
    assert state.scores == [0, 1, 0, 0]


@pytest.mark.parametrize(
    ("killer", "king", "points"),
    [("rat", "weasel", 3), ("rat", "rat", 2), ("weasel", "rat", 3), ("weasel", "weasel", 2)],
)
def test_king_scoring_by_the_killers_kind(killer: str, king: str, points: int) -> None:
    """'As a rat: killing the weasel king is worth 3 points, the rat king 2.
    As a weasel: the rat king 3, the weasel king 2.'"""
    hands = {0: ["b3", "b2"], 1: ["p1", "p1"], 2: ["p1", "p1"]}
    actions = opening(king, [killer, "rat", "weasel"], hands)
    actions += turn("king", "b3", "b2") + turn("king", "p1") + turn("king", "p1")
    state = replay(3, actions)
    assert not state.king_alive or state.assassination_round == 2
    assert state.scores == [points, 0, 0]


@pytest.mark.parametrize(
    ("killer", "victim", "points"),
    [("rat", "weasel", 1), ("rat", "rat", 0), ("weasel", "rat", 1), ("weasel", "weasel", 0)],
)
def test_peasant_scoring_by_kind(killer: str, victim: str, points: int) -> None:
    """'Killing a rat/weasel is worth 1 point; killing another of your own kind is
    worth no points.'"""
    hands = {0: ["b3", "p1"], 1: ["p1", "g1"], 2: ["p1", "g1"], 3: ["p1", "g1"]}
    actions = opening("rat", [killer, victim, "rat", "weasel"], hands)
    actions += turn(1, "b3") + turn("king", "p1") + turn("king", "p1") + turn("king", "p1")
    state = replay(4, actions)
    assert not state.alive[1]
    assert state.scores == [points, 0, 0, 0]


def test_self_kill_scores_as_own_kind() -> None:
    """'You may play poison on yourself.' (rules.md: "Self-kills score as killing
    one's own kind (0 points)".)"""
    hands = {0: ["b3", "p1"], 1: ["p1", "g1"], 2: ["p1", "g1"], 3: ["p1", "g1"]}
    actions = opening("rat", ["weasel", "rat", "rat", "weasel"], hands)
    actions += turn(0, "b3") + turn("king", "p1") + turn("king", "p1") + turn("king", "p1")
    state = replay(4, actions)
    assert not state.alive[0]
    assert state.scores == [0, 0, 0, 0]
    assert state.current_player() == -1  # dealing the next poison round: the round goes on


def test_killed_player_still_scores_in_the_same_reveal() -> None:
    """'Peasants that are killed still get points for killing.'"""
    hands = {0: ["b3", "p1"], 1: ["g3", "p1"], 2: ["p1", "p1"], 3: ["p1", "p1"]}
    actions = opening("rat", ["rat", "weasel", "rat", "weasel"], hands)
    actions += turn(1, "b3") + turn(0, "g3") + turn("king", "p1") + turn("king", "p1")
    state = replay(4, actions)
    assert state.alive == [False, False, True, True]
    assert state.scores == [1, 1, 0, 0]


def test_dead_peasant_sits_out_and_its_hand_is_discarded_face_up() -> None:
    """rules.md: "Dead peasants sit out the rest of the assassination round: no
    turns, no cards, and they cannot be targeted. They keep their points." and
    "a killed peasant's hand, turned face up, and the cards on it go to the
    discard pile"."""
    hands = {0: ["b3", "p1"], 1: ["p1", "p1"], 2: ["g1", "u!"], 3: ["p1", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel", "weasel"], hands)
    actions += turn(2, "b3") + turn("king", "p1") + turn("king", "g1") + turn("king", "p1")
    state = replay(4, actions)
    assert state.last_reveal is not None
    hands_shown = state.observation(3)["last_reveal"]["discarded_hands"]
    assert hands_shown == [{"seat": 2, "cards": {"u!": 1}}]
    assert state.observation(None)["discard"] == {"b3": 1, "u!": 1}
    actions += deal({0: ["b1", "b1"], 1: ["b1", "b1"], 3: ["g1", "g1"]})
    state = replay(4, actions)
    assert state.hand_size[2] == 0
    assert state.current_player() == 0
    with pytest.raises(IllegalActionError):
        state.apply_action("on 2")
    actions += turn("king", "b1") + turn("king", "b1")
    state = replay(4, actions)
    assert state.current_player() == 3  # seat 2 is skipped


def test_round_ends_when_at_most_one_peasant_is_alive() -> None:
    """'Each assassination round ends when the king is killed or there are one or fewer
    peasants remaining.' Then the starting seat moves one place clockwise."""
    hands = {0: ["b3", "p1"], 1: ["g3", "p1"], 2: ["p1", "p1"]}
    actions = opening("rat", ["rat", "weasel", "weasel"], hands)
    actions += turn(1, "b3") + turn(2, "g3") + turn("king", "p1")
    state = replay(3, actions)
    assert state.assassination_round == 2
    assert state.start_seat == 1
    assert state.scores == [1, 0, 0]  # weasel killing weasel: 0
    # The new round reshuffles everything: the whole deck, everyone alive.
    assert state.deck_size == 48 and all(state.alive)


def test_deck_refills_from_the_discards_with_a_custom_deck() -> None:
    """rules.md: "When the deck runs out during a deal, the discard pile is shuffled
    into a new deck; if that is empty too, the deal stops and the players get what
    there was." (deck spec: 6 blue 1-drop cards, 2 green
    3-drop cards and 2 blue antidotes: 10 cards)."""
    spec = "blue:6x1; green:2x3; antidote(blue):2"
    hands = {0: ["b1", "b1"], 1: ["b!", "b1"], 2: ["b1", "g3"]}
    actions = opening("rat", ["rat", "weasel", "weasel"], hands)
    actions += turn(1, "b1") + turn(1, "b!") + turn(1, "b1")
    state = replay(3, actions, deck=spec)
    assert state.observation(None)["discard"] == {"b1": 2}
    assert state.deck_size == 4
    actions += [
        "b1 to 0",
        "b! to 1",
        "g3 to 2",
        "b1 to 0",
        "b1 to 1",  # the deck ran out: the two discarded b1 became the deck
        "b1 to 2",
    ]
    state = replay(3, actions, deck=spec)
    assert state.deck_size == 0 and state.discard_size == 0
    assert "refill b1 b1" in state.information_state_string(0)
    assert state.hand_size == [3, 3, 3]


def test_short_deck_deals_what_there_is_and_a_player_without_cards_passes() -> None:
    """'A player with no cards passes' and 'if still short, deal what there is'."""
    hands = {0: ["b1", "b1"], 1: ["b1", "b1"], 2: ["b1", "b1"]}
    actions = opening("rat", ["rat", "weasel", "weasel"], hands)
    actions += turn("king", "b1", "b1") + turn("king", "b1", "b1") + turn(0, "b1")
    actions += ["b1 to 0"]
    state = replay(3, actions, deck="blue:7x1")
    assert state.current_player() == 0
    actions += turn("king", "b1")
    state = replay(3, actions, deck="blue:7x1")
    assert state.current_player() == 1
    assert state.legal_actions() == [state.string_to_action("pass")]
    with pytest.raises(IllegalActionError):
        state.apply_action("done")


def test_stalemate_when_every_colour_is_blocked_everywhere() -> None:
    """rules.md: "if no kill can ever happen again in an assassination round, it
    ends at once, with no further points. That is the case ... in a deck without
    a universal antidote, when every colour that could kill a living character is
    blocked on it"."""
    spec = "blue:6x1;antidote(blue):6"
    hands = {0: ["b!", "b!"], 1: ["b!", "b1"], 2: ["b!", "b1"]}
    actions = opening("rat", ["rat", "weasel", "weasel"], hands, 0)
    actions += turn(0, "b!") + turn(1, "b!") + turn(2, "b!")
    actions += deal({0: ["b1", "b1"], 1: ["b1", "b1"], 2: ["b!", "b!"]})
    actions += turn("king", "b!") + turn(0, "b1") + turn(0, "b1")
    state = replay(3, actions, deck=spec)
    assert state.assassination_round == 2
    assert "every colour that could kill a living character is blocked" in (
        state.information_state_string(1)
    )


NO_KILL_RULE = (
    "rules.md: 'if no kill can ever happen again in an assassination round, it ends"
    " at once, with no further points. That is the case ... when the deck's"
    " composition rules every kill out'"
)


def test_a_deck_that_can_kill_nobody_ends_each_round_before_the_deal() -> None:
    """rules.md: "a deck with fewer than 3 drops of every colour can kill nobody,
    and its assassination rounds end as soon as the peasants are dealt, before any
    card is (the game then ends after `max_assassination_rounds` of them, everyone
    at 0 points, sharing the win)". Here: two blue 1-drop cards and a blue
    antidote, never 3 drops of anything."""
    spec = "blue:2x1;antidote(blue):1"
    state = replay(3, ["rat king", "rat to 0", "rat to 1", "weasel to 2"], deck=spec)
    assert state.assassination_round == 2, NO_KILL_RULE
    assert state.is_chance_node() and state.poison_round == 0
    assert "no kill can ever happen" in state.information_state_string(0)
    state = replay(
        3,
        ["rat king", "rat to 0", "rat to 1", "weasel to 2"] * 2,
        deck=spec,
        max_assassination_rounds=2,
    )
    assert state.is_terminal() and state.scores == [0, 0, 0]
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0, 1, 2)


def test_a_king_no_colour_can_kill_does_not_keep_the_round_going() -> None:
    """rules.md: "a colour with fewer drops in the whole deck than a character's
    lethal number can never kill it" and "in a deck without a universal antidote,
    when every colour that could kill a living character is blocked on it" the
    round ends. Four blue drops in the deck can kill a peasant (3) but never the
    king (5 at 3 players): once every peasant has blocked blue, the round is over,
    although blue is not blocked on the king."""
    spec = "blue:4x1;antidote(blue):3"
    hands = {0: ["b!", "b1"], 1: ["b!", "b1"], 2: ["b!", "b1"]}
    actions = opening("rat", ["rat", "weasel", "weasel"], hands)
    actions += turn(0, "b!") + turn(1, "b!") + turn(2, "b!")
    state = replay(3, actions, deck=spec)
    assert state.assassination_round == 2, NO_KILL_RULE
    assert state.scores == [0, 0, 0]
    assert "every colour that could kill a living character is blocked" in (
        state.information_state_string(2)
    )


def test_a_deck_that_can_kill_plays_on() -> None:
    """The other side of the rule: three blue drops in the deck can kill a
    peasant, so the round is played."""
    state = replay(3, ["rat king", "rat to 0", "rat to 1", "weasel to 2"], deck="blue:3x1")
    assert state.assassination_round == 1 and state.poison_round == 1


def test_game_ends_only_after_the_assassination_round_completes() -> None:
    """'Once a player reaches 10 points or more, the game ends at the end of that
    complete assassination round.' (target 1 here)."""
    hands = {0: ["b3", "g3"], 1: ["p1", "p1"], 2: ["p1", "p1"]}
    actions = opening("rat", ["rat", "rat", "weasel"], hands)
    actions += turn(2, "b3") + turn("king", "p1") + turn("king", "p1")
    state = replay(3, actions, target=1)
    assert state.scores == [1, 0, 0] and not state.is_terminal()
    actions += deal({0: ["p2", "p2"], 1: ["p2", "p2"]})
    actions += turn(1, "g3") + turn("king", "p2")
    state = replay(3, actions, target=1)
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert outcome.scores == (1.0, 0.0, 0.0)
    # The reason names who won, not only the score ("highest score (1)" said nobody).
    assert outcome.reason == "seat 0 has the highest score (1)"


def test_tie_broken_by_most_points_in_the_last_assassination_round() -> None:
    """'If there is a tie, the player who gained the most points in the last
    assassination round is the winner.'"""
    # Round 1 (seat 0 starts): seat 0 (rat) kills seat 1 (weasel): 1 point; seat 1
    # (weasel) kills seat 2 (weasel): 0. One peasant left: the round ends.
    hands = {0: ["b3", "p1"], 1: ["g3", "p1"], 2: ["p1", "p1"]}
    actions = opening("weasel", ["rat", "weasel", "weasel"], hands)
    actions += turn(1, "b3") + turn(2, "g3") + turn("king", "p1")
    # Round 2 (seat 1 starts): seat 1 (rat) kills the rat king: 2; seat 0 (rat) kills
    # seat 2 (weasel): 1. Both end on 2.
    actions += opening(
        "rat",
        ["rat", "rat", "weasel"],
        {1: ["b3", "b2"], 2: ["g1", "p1"], 0: ["b3", "p1"]},
        first=1,
    )
    actions += turn("king", "b3", "b2") + turn(0, "g1") + turn(2, "b3")
    state = replay(3, actions, target=2)
    assert state.is_terminal()
    assert state.scores == [2, 2, 0]
    assert state.round_points == [1, 2, 0]
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (1,)
    assert state.returns() == [0.0, 1.0, 0.0]


def test_tie_in_total_and_in_the_last_round_is_a_shared_win() -> None:
    """'If there is still a tie, there is more than one winner.'"""
    hands = {0: ["b3", "p1"], 1: ["b2", "p1"], 2: ["p1", "p1"]}
    actions = opening("weasel", ["rat", "rat", "weasel"], hands)
    actions += turn("king", "b3") + turn("king", "b2") + turn("king", "p1")
    state = replay(3, actions, target=3)
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0, 1)
    assert state.returns() == [0.5, 0.5, 0.0]


def test_face_down_cards_are_hidden_but_who_played_on_whom_is_public() -> None:
    """rules.md: "Who played on whom is public, and how many cards; the cards stay
    face down until the reveal"."""
    hands = {0: ["b3", "p1"], 1: ["p1", "p2"], 2: ["p1", "p1"]}
    actions = opening("weasel", ["rat", "rat", "weasel"], hands)
    actions += turn(2, "b3")
    state = replay(3, actions)
    mine, theirs = state.observation(0), state.observation(1)
    assert mine["my_play"] == {"b3": 1} and mine["hand"] == {"p1": 1}
    assert theirs["hand"] == {"p1": 1, "p2": 1} and theirs["my_play"] == {}
    assert theirs["seats"][0]["played_on"] == "2" and theirs["seats"][0]["played"] == 1
    assert "b3" not in state.information_state_string(1)
    assert "my_play" not in state.observation(None)
    resampled = state.resample_from_infostate(1, __import__("random").Random(5))
    assert resampled.observation(1) == theirs


def test_notation_errors_and_the_deck_option() -> None:
    """Notation names an action or raises; a bad deck spec is a bad option."""
    state = replay(3, opening("rat", RWW, {0: ["b1", "b2"], 1: ["b1", "b1"], 2: ["g1", "g1"]}))
    assert state.string_to_action("@k") == state.string_to_action("on king")
    with pytest.raises(MalformedActionError):
        state.apply_action("on the moon")
    with pytest.raises(MalformedActionError):
        state.apply_action("on 9")  # no seat 9 at a 3-player table
    with pytest.raises(IllegalActionError):
        state.apply_action("done")  # no card added yet
    with pytest.raises(BadOptionError):
        load(GAME, players=3, deck="blue:6x1;antidote(red):2")
    with pytest.raises(BadOptionError):
        load(GAME, players=3, deck="blue:6x1;black:2x1")
    game = load(GAME, players=3, deck="Red:5x1, 3x2; Yellow:5x1; red+yellow:2x2; universal:1")
    assert [card.code for card in game.deck.types] == ["r1", "r2", "y1", "r+y2", "u!"]  # type: ignore[attr-defined]


def test_round_limits_end_a_stuck_assassination_round_and_game() -> None:
    """Options max_poison_rounds and max_assassination_rounds (our addition: without
    them a game could last for ever): an assassination round ends without more
    points after the limit, and the game after the last allowed one."""
    hands = {0: ["b2", "p1"], 1: ["p1", "g1"], 2: ["p1", "g1"]}
    actions = opening("rat", ["rat", "rat", "weasel"], hands)
    actions += turn(2, "b2") + turn("king", "p1") + turn("king", "p1")
    state = replay(3, actions, max_poison_rounds=1)
    assert state.assassination_round == 2 and state.start_seat == 1
    state = replay(3, actions, max_poison_rounds=1, max_assassination_rounds=1)
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0, 1, 2)
    assert "nobody reached 10" in outcome.reason


def test_an_action_limit_ends_the_game_with_its_assassination_round() -> None:
    """Option max_actions (our addition: a game server's bound on a room): "the game
    ends at the end of the assassination round in which this many actions (chance's
    included) have been played, even if nobody reached the target"."""
    hands = {0: ["b2", "p1"], 1: ["p1", "g1"], 2: ["p1", "g1"]}
    actions = opening("rat", ["rat", "rat", "weasel"], hands)
    actions += turn(2, "b2") + turn("king", "p1") + turn("king", "p1")
    # Past the limit mid-round: the round is played to its end, then the game ends.
    state = replay(3, actions, max_poison_rounds=1, max_actions=5)
    assert state.is_terminal() and state.assassination_round == 1
    outcome = state.outcome()
    assert outcome is not None and "nobody reached 10 within 5 actions" in outcome.reason
    # A limit the round does not reach: the next assassination round starts.
    state = replay(3, actions, max_poison_rounds=1, max_actions=len(actions) + 1)
    assert not state.is_terminal() and state.assassination_round == 2
    # The longest game is bounded by the limit, whatever the round limits allow.
    game = load(GAME, players=8, max_actions=1000)
    assert game.max_game_length() < load(GAME, players=8).max_game_length()


def test_default_deck_is_the_reconstruction() -> None:
    """rules.md: "three colours (blue, green, purple), each with 6 cards of 1 drop,
    4 of 2 drops and 2 of 3 drops; 4 multi-coloured cards of 1 green + 1 purple
    drop; 2 one-colour antidotes per colour; 2 universal antidotes; 48 cards in
    all"."""
    from apothecary.games.little_drop_of_poison.deck import DEFAULT_DECK, parse_deck

    deck = parse_deck("default")
    assert deck.size == 48 and deck.colours == ("blue", "green", "purple")
    counts = dict(zip((card.code for card in deck.types), deck.counts, strict=True))
    assert counts == {
        **{f"{c}{d}": n for c in "bgp" for d, n in ((1, 6), (2, 4), (3, 2))},
        "g+p1": 4,
        "b!": 2,
        "g!": 2,
        "p!": 2,
        "u!": 2,
    }
    assert deck.spec() == DEFAULT_DECK
    assert (
        parse_deck(" Blue : 6x1 , 4x2 ; purple+green:1x2 ").spec()
        == "blue:6x1,4x2;purple+green:1x2"
    )
