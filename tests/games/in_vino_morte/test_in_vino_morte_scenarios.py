"""In Vino Morte scenarios, written as records and checked against the rules.

Seats are numbered clockwise; seat 0 deals the first round and deals to its
left first (seat 1), itself last. Each test quotes the rule it checks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from apothecary import BadOptionError, IllegalActionError, MalformedActionError, Record, load
from apothecary.core.game import State
from apothecary.games.in_vino_morte.rules import InVinoMorteState


def play(players: int, actions: list[str], **options: Any) -> InVinoMorteState:
    state = Record(game="in-vino-morte", players=players, options=options, actions=actions).replay()
    assert isinstance(state, InVinoMorteState)
    return state


def notation(state: State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


# A first round of four players that kills seat 1 only: seat 0 deals
# 1 Poison, 2 Wine, 3 Wine and Wine to itself; everyone drinks.
ROUND_KILLING_SEAT_1 = [
    "deal 1 poison",
    "deal 2 wine",
    "deal 3 wine",
    "deal 0 wine",
    "drink",
    "drink",
    "drink",
]


def test_deal_needs_one_wine_and_one_poison() -> None:
    """Rulebook: "The dealer must place at least one Wine card and at least one
    Poison card each round." After three Wines, the dealer's own glass must be
    Poison; after three Poisons, Wine."""
    state = play(4, ["deal 1 wine", "deal 2 wine", "deal 3 wine"])
    assert notation(state) == ["deal 0 poison"]
    with pytest.raises(IllegalActionError):
        state.apply_action("deal 0 wine")
    state = play(4, ["deal 1 poison", "deal 2 poison", "deal 3 poison"])
    assert notation(state) == ["deal 0 wine"]


def test_deal_goes_clockwise_from_the_dealers_left_dealer_last() -> None:
    """Our rules page: "The dealer gives one covered glass to every living
    player, itself included, one seat at a time: first the player to its left,
    then on clockwise, the dealer's own glass last." Naming another seat than
    the next one names no action."""
    state = play(3, [])
    assert state.current_player() == 0
    assert notation(state) == ["deal 1 wine", "deal 1 poison"]
    with pytest.raises(MalformedActionError):
        state.apply_action("deal 2 wine")
    state.apply_action("w")
    state.apply_action("poison")
    assert notation(state) == ["deal 0 wine", "deal 0 poison"]
    state.apply_action("deal 0 wine")
    assert state.current_player() == 1  # the player to the dealer's left goes first


def test_only_the_dealer_sees_the_covered_glasses() -> None:
    """Rulebook: "Players may not look at their own cards." Our rules page:
    "The dealer sees every glass, and follows them through every swap, for the
    whole round.\""""
    state = play(3, ["deal 1 poison", "deal 2 wine", "deal 0 wine", "swap 0"])
    assert state.observation(0)["glasses"] == ["poison", "wine", "wine"]
    for seat in (1, 2, None):
        assert state.observation(seat)["glasses"] == ["covered"] * 3
    assert "poison" not in state.information_state_string(1)
    assert "poison" in state.information_state_string(0)


def test_swap_with_the_dealer_kills_the_dealer_at_the_reveal() -> None:
    """Rulebook: a player may "swap their card with any other player who has a
    face-down card"; our rules page: "any other player who still has a covered
    glass, the dealer included". Then "every player who
    hasn't drunk flips over their own card. Anyone who reveals the Poison dies.\""""
    state = play(3, ["deal 1 poison", "deal 2 wine", "deal 0 wine", "swap 0", "drink"])
    assert state.alive == [False, True, True]
    assert state.is_terminal() is False  # two are left: a new round
    assert state.observation(None)["last_round"]["revealed"] == [1, 0]


def test_no_swap_with_a_glass_already_drunk() -> None:
    """Rulebook: swap "with any other player who has a face-down card": a drunk
    glass is face-up, so it cannot be taken."""
    state = play(4, ["deal 1 wine", "deal 2 poison", "deal 3 wine", "deal 0 wine", "drink"])
    assert "swap 1" not in notation(state)
    with pytest.raises(IllegalActionError):
        state.apply_action("swap 1")
    assert notation(state) == ["drink", "swap 0", "swap 3"]


def test_drinking_poison_kills_at_once_wine_spares() -> None:
    """Rulebook: "If it's a bottle of Wine, they survive ... If it's a bottle of
    Poison, they die and are out of the game.\""""
    state = play(4, ["deal 1 poison", "deal 2 wine", "deal 3 wine", "deal 0 wine", "drink"])
    assert state.alive == [True, False, True, True]
    state.apply_action("drink")
    assert state.alive == [True, False, True, True]
    assert state.observation(3)["events"][0] == {
        "actor": 1,
        "kind": "drink",
        "glass": "poison",
        "cheese": False,
        "died": True,
    }


def test_forced_reveal_includes_the_dealer_who_takes_no_turn() -> None:
    """Rulebook: "Play continues clockwise until every player, except the dealer,
    has taken a turn. When it's the dealer's turn, every player who hasn't drunk
    flips over their own card.\""""
    state = play(3, ["deal 1 wine", "deal 2 wine", "deal 0 poison", "swap 2"])
    assert state.current_player() == 2
    state.apply_action("swap 1")  # the last turn: the reveal follows at once
    assert state.round == 2
    assert state.alive == [False, True, True]  # the dealer revealed its Poison
    assert state.observation(None)["last_round"]["revealed"] == [1, 2, 0]


def test_next_dealer_is_to_the_right_skipping_the_dead() -> None:
    """Rulebook: "The surviving player to the dealer's right becomes the new
    dealer." Seat 0 dealt and seat 3 (its right) died, so seat 2 deals next."""
    state = play(
        4, ["deal 1 wine", "deal 2 wine", "deal 3 poison", "deal 0 wine", "drink", "drink", "drink"]
    )
    assert state.alive == [True, True, True, False]
    assert state.dealer == 2
    assert state.observation(None)["deal_order"] == [0, 1, 2]


def test_next_dealer_when_the_dealer_died() -> None:
    """Our rules page: "The next dealer is the first surviving player to the
    dealer's right (counter-clockwise), whether the dealer lived or died.\""""
    state = play(4, ["deal 1 wine", "deal 2 wine", "deal 3 wine", "deal 0 poison", "d", "d", "d"])
    assert state.alive == [False, True, True, True]
    assert state.dealer == 3


def test_two_player_round_and_the_last_player_alive_wins() -> None:
    """Rulebook: "Keep playing until only one player remains. That player is the
    winner." After seat 1 dies, seats 0 and 2 play a round of two, dealt by seat 2
    (on seat 0's right), who deals to seat 0 first."""
    state = play(3, ["deal 1 poison", "deal 2 wine", "deal 0 wine", "drink", "drink"])
    assert state.alive == [True, False, True] and state.dealer == 2
    assert notation(state) == ["deal 0 wine", "deal 0 poison"]
    for action in ["deal 0 poison", "deal 2 wine", "swap 2"]:
        state.apply_action(action)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert state.returns() == [1.0, 0.0, 0.0]


def test_a_round_is_played_to_its_reveal() -> None:
    """Our rules page: "A round is always played to its reveal, even when only
    one player can still survive it." Seat 1 drinks Poison; seat 2 still plays."""
    state = play(3, ["deal 1 poison", "deal 2 poison", "deal 0 wine", "drink"])
    assert not state.is_terminal() and state.current_player() == 2
    state.apply_action("swap 0")
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (2,)


def test_cheese_reverses_a_drink() -> None:
    """Rulebook (Caseus Vitae): "When you drink, if you have cheese, the results of
    your drink are reversed: the Wine will kill you and the Poison will not.\""""
    state = play(
        5,
        ["deal 1 wine+cheese", "deal 2 poison+cheese", "deal 3 wine", "deal 4 wine", "deal 0 p"],
        cheese=True,
    )
    state.apply_action("drink")
    assert state.alive[1] is False
    state.apply_action("drink")
    assert state.alive[2] is True


def test_cheese_reverses_the_reveal_unless_the_option_is_off() -> None:
    """Our rules page: a drink with Cheese "has the result reversed ... By
    default the same holds at the final reveal (option cheese_on_reveal,
    default true)." Seat 0 reveals Poison with
    Cheese and lives; seat 2 reveals Wine with Cheese and dies."""
    actions = ["deal 1 wine", "deal 2 wine+cheese", "deal 3 wine", "deal 4 wine"]
    actions += ["deal 0 poison+cheese", "drink", "swap 3", "drink", "drink"]
    state = play(5, actions, cheese=True)
    assert state.alive == [True, True, False, True, True]
    state = play(5, actions, cheese=True, cheese_on_reveal=False)
    assert state.alive == [False, True, True, True, True]


def test_cheese_limits_by_table_size() -> None:
    """Rulebook: "3-4 players = 0-1 cheese; 5-6 players = 0-2 cheese; 7+ players =
    0-3 cheese"; "2 players = 0 cheese".\""""
    state = play(4, ["deal 1 wine+cheese"], cheese=True)
    assert notation(state) == ["deal 2 wine", "deal 2 poison"]
    state = play(7, ["w+c", "wc", "deal 3 poison+cheese"], cheese=True)
    assert notation(state) == ["deal 4 wine", "deal 4 poison"]
    state = play(2, [], cheese=True)
    assert notation(state) == ["deal 1 wine", "deal 1 poison"]


def test_one_cheese_at_a_time_and_stealing_from_one_who_drank() -> None:
    """Rulebook: players may "steal the cheese from another player instead" and
    cannot "have more than one cheese at a time"; our rules page: a player may
    "steal the Cheese of any other living player who holds one, including one
    who has already drunk", and "swaps never move it"."""
    deal = ["deal 1 poison+cheese", "deal 2 wine", "deal 3 wine", "deal 4 wine+cheese"]
    deal += ["deal 0 poison"]
    state = play(5, [*deal, "drink"], cheese=True)  # seat 1 drinks Poison with Cheese, lives
    assert state.alive[1] is True
    assert "steal 1" in notation(state) and "steal 4" in notation(state)
    state.apply_action("steal 1")
    assert state.cheese == [False, False, True, False, True]
    state.apply_action("swap 2")  # seat 3 takes seat 2's glass; the cheese stays
    assert state.cheese == [False, False, True, False, True]
    state = play(5, [*deal, "drink", "steal 1"], cheese=True)
    assert state.current_player() == 3
    state.apply_action("steal 2")
    assert "steal" not in " ".join(notation(state))  # seat 4 already holds one


def test_everyone_dying_in_one_round_share_the_win() -> None:
    """Our rules page: "If nobody is left (possible only with Cheese), the
    players who died in that last round share the win." Seat 1 drinks Wine with
    Cheese; seat 0 reveals Poison without it."""
    state = play(
        3,
        ["deal 1 poison", "deal 2 wine+cheese", "deal 0 poison", "drink", "drink"],
        cheese=True,
    )
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == (0, 1, 2)
    assert state.returns() == pytest.approx([1 / 3] * 3)
    assert "share the win" in outcome.reason


def test_resampling_keeps_what_was_drunk_where_it_was_dealt() -> None:
    """Our rules page: everyone sees "who swapped with whom, who stole Cheese
    from whom, and what each drink showed". Seat 1 swapped with seat 3 and then
    seat 3 drank Poison:
    every resample seat 4 imagines dealt that Poison to seat 1."""
    deal = ["deal 1 poison", "deal 2 wine", "deal 3 wine", "deal 4 wine", "deal 0 wine"]
    state = play(5, [*deal, "swap 3", "drink", "drink"])
    assert state.alive == [True, True, True, False, True] and state.current_player() == 4
    seen = set()
    for seed in range(40):
        sample = state.resample_from_infostate(4, random.Random(seed))
        assert isinstance(sample, InVinoMorteState)
        assert sample.history()[0] == state.history()[0]  # seat 1 was dealt Poison
        assert sample.history()[1] == state.history()[1]  # seat 2 drank its own Wine
        seen.add(tuple(sample.history()[:5]))
        assert sample.observation(4) == state.observation(4)
        assert str(sample.resample_from_infostate(0, random.Random(seed))) == str(sample)
    assert len(seen) > 1


def test_notation_aliases() -> None:
    """Our notation: deal as "deal 1 wine", "w", "p", "w+c" or "pc"; "drink" or
    "d"; "swap 2" or "s2"; "steal 2" or "c2"."""
    state = play(5, ["w", "pc", "deal 3 poison", "p", "deal 0 wine+cheese"], cheese=True)
    assert state.string_to_action("s2") == state.string_to_action("swap 2")
    assert state.string_to_action("c2") == state.string_to_action("STEAL 2")
    assert state.string_to_action("D") == state.string_to_action("drink")
    with pytest.raises(MalformedActionError):
        state.apply_action("swap 9")


def test_resampling_uses_only_what_the_seat_knows() -> None:
    """Two deals that seat 2 cannot tell apart (the same public events) give the
    same resample for the same seed; the dealer's resample is the state itself."""
    first = play(5, ["w", "p", "p", "p", "w", "swap 0"])
    second = play(5, ["p", "w", "w", "p", "w", "swap 0"])
    assert first.observation(2) == second.observation(2)
    assert first.information_state_string(2) == second.information_state_string(2)
    for seed in range(5):
        one = first.resample_from_infostate(2, random.Random(seed))
        two = second.resample_from_infostate(2, random.Random(seed))
        assert str(one) == str(two)
    assert str(first.resample_from_infostate(0, random.Random(1))) == str(first)


def test_a_deal_in_progress_is_resampled_as_a_completable_prefix() -> None:
    """The deal must still be able to end with one Wine and one Poison: after
    three glasses at a table of four, any three are possible, and the dealer's
    own glass then follows the rule."""
    state = play(4, ["w", "w", "w"])
    prefixes = set()
    for seed in range(60):
        sample = state.resample_from_infostate(1, random.Random(seed))
        prefixes.add(tuple(sample.history()))
        assert sample.legal_actions()  # the dealer can always finish
    assert len(prefixes) == 8


# A round of three with Cheese that kills nobody: Poison with Cheese for the
# dealer's left (the Cheese reverses the drink), Wine for the others; everyone
# drinks. Its deal goes to whoever deals, so it is written without seats.
ROUND_KILLING_NOBODY = ["poison+cheese", "wine", "wine", "drink", "drink"]


def test_without_a_round_limit_the_game_goes_on_until_one_player_remains() -> None:
    """Rulebook: "Keep playing until only one player remains. That player is
    the winner." By default there is no round limit: 150 rounds that kill
    nobody (more than any cap the game once had) leave the game going, and
    the first round that leaves one player alive ends it."""
    state = play(3, ROUND_KILLING_NOBODY * 150, cheese=True)
    assert not state.is_terminal()
    assert state.round == 151 and state.alive == [True, True, True]
    # Seat 0 deals round 151 (the dealer moves right each round): Poison to
    # seat 1 and seat 2, Wine for itself; both drink Poison and die.
    for action in ["deal 1 poison", "deal 2 poison", "deal 0 wine", "drink", "drink"]:
        state.apply_action(action)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert "last player alive" in outcome.reason


def test_a_round_limit_is_a_cap_for_study_and_interop() -> None:
    """Our rule for study and interop, which need a longest game: with
    ``round_limit=N`` the game stops after round N with the survivors sharing
    the win. Without Cheese every round kills, so the game is bounded anyway;
    with Cheese and no limit nothing bounds it, and asking for its longest
    length says which option gives one."""
    state = play(3, ROUND_KILLING_NOBODY * 5, cheese=True, round_limit=5)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0, 1, 2)
    assert "round limit (5)" in outcome.reason
    assert load("in-vino-morte", 3, cheese=True, round_limit=5).max_game_length() == 25
    assert load("in-vino-morte", 3).max_game_length() == 5 + 3
    with pytest.raises(BadOptionError, match="set round_limit"):
        load("in-vino-morte", 3, cheese=True).max_game_length()


def test_openspiel_needs_a_round_limit_with_cheese() -> None:
    """Our rules page: OpenSpiel "with Cheese ... needs one: round_limit=N in
    the game's parameters, or loading is refused with that BadOptionError"."""
    pytest.importorskip("pyspiel")
    from apothecary.interop import openspiel

    with pytest.raises(BadOptionError, match="set round_limit"):
        openspiel.load("in-vino-morte", 3, cheese=True)
    assert openspiel.load("in-vino-morte", 3, cheese=True, round_limit=5).max_game_length() == 25
    assert openspiel.load("in-vino-morte", 3).max_game_length() == 8
