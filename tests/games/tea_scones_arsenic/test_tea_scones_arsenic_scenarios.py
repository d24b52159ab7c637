"""Tea, Scones and Arsenic scenarios, written as records and checked against the rules.

Seats play clockwise from seat 0. Kinds are numbered 1 to 6; a turn is written
``d<kind>`` (or ``d<kind>@<seat>`` for a marked scone), the chance outcome
``dose<n>``, then ``eat``, ``back`` or ``back+shuffle``. Each test quotes the
rule it checks: the rulebook, or where the rulebook leaves a point open, the
reading settled in ``rules.md``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from apothecary import IllegalActionError, MalformedActionError, Record
from apothecary.core.game import CHANCE, TERMINAL, State
from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenicState


def play(players: int, actions: list[str], **options: Any) -> TeaSconesArsenicState:
    record = Record(game="tea-scones-arsenic", players=players, options=options, actions=actions)
    state = record.replay()
    assert isinstance(state, TeaSconesArsenicState)
    return state


def notation(state: State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def eat(kind: int, dose: int) -> list[str]:
    return [f"d{kind}", f"dose{dose}", "eat"]


def back(kind: int, dose: int) -> list[str]:
    return [f"d{kind}", f"dose{dose}", "back"]


def scripted(players: int, plans: dict[int, list[int]], **options: Any) -> list[str]:
    """The notation of a game where each seat in turn eats the next dose of its
    plan (from the first kind that still has that dose unmarked) and stops when
    its plan runs out (eating a dose-0 scone while honour turns forbid it). Only
    used to write long records briefly."""
    game_state = play(players, [], **options)
    todo = {seat: list(doses) for seat, doses in plans.items()}
    actions: list[str] = []
    while not game_state.is_terminal() and game_state.current_player() != CHANCE:
        seat = game_state.current_player()
        if not todo.get(seat) and "stop" in notation(game_state):
            turn = ["stop"]
        else:
            dose = todo[seat].pop(0) if todo.get(seat) else 0
            kind = next(k for k in range(KINDS) if game_state.pool[k * 4 + dose] > 0)
            turn = eat(kind + 1, dose)
        for action in turn:
            game_state.apply_action(action)
        actions += turn
    return actions


KINDS = 6


# -- honour rounds ---------------------------------------------------------------


def test_two_players_owe_two_honour_turns_after_a_stop() -> None:
    """rules.md: "When a player stops, every other player who is alive and has
    not stopped owes 2 honour turns"; "While anyone still playing owes honour
    turns, nobody may stop. When nobody owes anything, stopping is allowed
    again". With 2 players, seat 1 plays twice without the right to stop."""
    state = play(2, ["stop"])
    assert state.current_player() == 1
    assert state.observation(1)["seats"][1]["honour_turns_left"] == 2
    assert "stop" not in notation(state)
    with pytest.raises(IllegalActionError):
        state.apply_action("stop")
    state = play(2, ["stop", *eat(1, 0)])
    assert state.current_player() == 1 and "stop" not in notation(state)
    state = play(2, ["stop", *eat(1, 0), *eat(1, 0)])
    assert state.observation(None)["seats"][1]["honour_turns_left"] == 0
    assert "stop" in notation(state)
    state = play(2, ["stop", *eat(1, 0), *eat(1, 0), "stop"])
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (1,) and outcome.scores == (0.0, 2.0)


def test_six_players_owe_a_single_honour_turn() -> None:
    """Rulebook: "With 6 players, there is only one Honor Round." Once each other
    player has had one turn after the stop, the next one may stop."""
    state = play(6, ["stop"])
    owed = [s["honour_turns_left"] for s in state.observation(None)["seats"]]
    assert owed == [0, 1, 1, 1, 1, 1]
    turns: list[str] = ["stop"]
    for kind in range(1, 6):
        turns += back(kind, 0)
        state = play(6, turns)
        if kind < 5:
            assert not state.observation(None)["stopping_allowed"]
    assert state.current_player() == 1
    assert "stop" in notation(state)


def test_a_stop_after_the_honour_rounds_starts_new_ones() -> None:
    """Rulebook: "Once the 2 Honor Rounds have been completed, one of the surviving
    players (if any) may in round choose to stop. The remaining players therefore
    set off for 2 additional Honor Rounds." With 3 players: seat 0 stops, seats 1
    and 2 play twice each, then seat 1 stops and seat 2 owes two more turns."""
    honour = ["stop", *eat(1, 0), *eat(1, 0), *eat(2, 0), *eat(2, 0)]
    state = play(3, honour)
    assert state.current_player() == 1 and "stop" in notation(state)
    state = play(3, [*honour, "stop"])
    assert state.current_player() == 2
    assert state.observation(2)["seats"][2]["honour_turns_left"] == 2
    assert "stop" not in notation(state)
    state = play(3, [*honour, "stop", *eat(3, 0)])
    assert state.current_player() == 2 and "stop" not in notation(state)
    state = play(3, [*honour, "stop", *eat(3, 0), *eat(3, 1)])
    assert "stop" in notation(state)
    state = play(3, [*honour, "stop", *eat(3, 0), *eat(3, 1), "stop"])
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (2,) and outcome.scores == (0.0, 2.0, 4.0)


def test_stop_only_at_the_start_of_a_turn() -> None:
    """rules.md: the player "may stop (only as the very first thing in the turn,
    and never while honour turns are owed"; "Otherwise, may shuffle the box (only
    when some scone in it is marked"; then "Takes a scone". After shuffling, it is
    too late to stop; shuffling needs a marked scone to mix back in."""
    state = play(2, [])
    assert "shuffle" not in notation(state)
    state = play(2, [*back(1, 2), *eat(2, 0), "shuffle"])
    assert "stop" not in notation(state) and "shuffle" not in notation(state)


# -- sugar cubes and put-back scones ---------------------------------------------


def test_no_cube_left_means_eat() -> None:
    """Rulebook: "When a player runs out of Sugar Cube, he is forced to eat the
    Scone." Seat 0 puts back three times, then must eat whatever it draws."""
    actions = [
        *back(1, 3), *eat(2, 0),
        *back(1, 2), *eat(2, 0),
        *back(1, 1), *eat(3, 0),
        "d4", "dose3",
    ]  # fmt: skip
    state = play(2, actions)
    assert state.observation(0)["seats"][0]["cubes"] == 0
    assert notation(state) == ["eat"]
    with pytest.raises(IllegalActionError):
        state.apply_action("back")
    state.apply_action("eat")
    assert state.observation(0)["seats"][0]["total"] == 3


def test_a_put_back_scone_stays_marked_until_a_shuffle() -> None:
    """rules.md: the scone goes back "marked "put back by" that player. Everyone
    can follow a marked scone; only those who have seen its dose know it." Seat 1
    sees the mark but not the dose; drawing the marked scone needs no chance (its
    dose is fixed); a shuffle clears marks."""
    state = play(2, back(3, 2))
    assert state.observation(0)["box"]["marked"] == [{"kind": 3, "by": 0, "dose": 2}]
    assert state.observation(1)["box"]["marked"] == [{"kind": 3, "by": 0, "dose": None}]
    assert state.observation(None)["box"]["unmarked"][2] == 5
    assert "d3@0" in notation(state)
    state.apply_action("d3@0")
    assert state.current_player() == 1
    assert state.observation(1)["hand"] == {"kind": 3, "dose": 2}
    state.apply_action("back")
    # Seat 0 still knows which scone it is: it was put back by seat 1 now.
    assert state.observation(0)["box"]["marked"] == [{"kind": 3, "by": 1, "dose": 2}]
    state.apply_action("shuffle")
    assert state.observation(0)["box"]["marked"] == []
    assert state.observation(0)["box"]["unmarked"][2] == 6
    with pytest.raises(MalformedActionError):
        state.apply_action("d3@1")


def test_put_back_and_shuffle_hides_the_scone_at_once() -> None:
    """rules.md: "the player pays one sugar cube (...) The player may shuffle the
    box at once (`back+shuffle`), which removes every mark"."""
    state = play(2, [*back(3, 2)[:2], "back+shuffle"])
    assert state.observation(None)["box"]["marked"] == []
    assert state.observation(None)["seats"][0]["cubes"] == 2
    assert state.current_player() == 1


def test_two_alike_marked_scones_are_told_apart() -> None:
    """Two kind-1 scones put back by seat 0 are both marked; the notation tells
    them apart in the order they went back (``d1@0`` then ``d1@0.2``). Seat 1
    takes the second: it sees dose 0, and so does seat 0, who put it back."""
    state = play(2, [*back(1, 3), *back(2, 0), *back(1, 0)])
    assert "d1@0" in notation(state) and "d1@0.2" in notation(state)
    state.apply_action("d1@0.2")
    assert state.observation(1)["hand"] == {"kind": 1, "dose": 0}
    assert state.observation(0)["hand"] == {"kind": 1, "dose": 0}
    assert state.observation(None)["hand"] == {"kind": 1, "dose": None}
    assert state.observation(1)["box"]["marked"][0] == {"kind": 1, "by": 0, "dose": None}


# -- death, scoring and the tie-breaks --------------------------------------------


def test_death_at_exactly_the_lethal_dose() -> None:
    """Rulebook: "when a player reaches 8, he's dead" (4 players). rules.md: "A
    player whose total dose reaches the lethal dose or more dies at once: they are
    out, their total becomes public". A total of 7 is survived, 8 is not."""
    zeros = [*eat(6, 0), *eat(6, 0), *eat(5, 0)]
    first = [*eat(1, 3), *zeros, *eat(2, 3), *eat(4, 0), *eat(4, 0), *eat(5, 0)]
    state = play(4, [*first, *eat(3, 1)])
    assert state.alive[0] and state.observation(1)["seats"][0]["total"] is None
    state = play(4, [*first, *eat(3, 2)])
    assert not state.alive[0]
    assert state.observation(1)["seats"][0]["total"] == 8
    assert state.observation(None)["seats"][0]["alive"] is False
    assert state.current_player() == 1


def test_dead_players_scones_do_not_count() -> None:
    """Rulebook: "he dies (he is eliminated and his Scones are not counted)". Seat 0
    eats five scones and dies; seat 1 wins with four."""
    actions = scripted(2, {0: [3, 3, 3, 3, 3], 1: [0, 0, 0, 0]})
    state = play(2, actions)
    outcome = state.outcome()
    assert outcome is not None
    assert state.scones == (5, 4)
    assert outcome.winners == (1,)
    assert outcome.scores == (0.0, 4.0)


def test_tie_on_scones_goes_to_the_most_arsenic() -> None:
    """Rulebook: "In case of a draw, the player who accumulated the greater amount
    of arsenic wins." One scone each; seat 0's dose 2 beats seat 1's dose 1."""
    actions = [*eat(1, 2), *eat(2, 1), "stop", *back(3, 3), *back(4, 3), "stop"]
    state = play(2, actions)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert "most arsenic" in outcome.reason
    assert state.observation(1)["seats"][0]["total"] == 2


# Both eat one dose-1 scone; seat 0 stops; seat 1 spends its honour turns on
# put-backs (marking a kind-4 dose-3 scone) and stops: a full tie.
FULL_TIE = [*eat(1, 1), *eat(2, 1), "stop", *back(3, 2), *back(4, 3), "stop"]


def test_full_tie_goes_to_an_eat_off() -> None:
    """rules.md: "there is an eat-off: the tied players take turns, starting with
    the first of them clockwise after the player who moved last, each taking a
    scone and having to eat it (no cubes, no stopping, no spoons; shuffling is
    allowed (...)). Whoever dies is out; the last one alive wins"."""
    state = play(2, FULL_TIE)
    assert state.observation(None)["eat_off"] == [0, 1]
    assert state.current_player() == 0  # seat 1 moved last
    assert "stop" not in notation(state)
    assert "shuffle" in notation(state) and "d4@1" in notation(state)
    state.apply_action("d1")
    state.apply_action("dose3")
    assert notation(state) == ["eat"]
    eat_off = ["dose3", "eat", *eat(1, 0), *eat(2, 3), *eat(2, 0), *eat(3, 3), *eat(3, 0)]
    eat_off += [*eat(5, 3), *eat(5, 0), *eat(6, 3)]
    state = play(2, [*FULL_TIE, "d1", *eat_off])
    outcome = state.outcome()
    assert outcome is not None
    assert not state.alive[0] and state.public_totals[0] == 16
    assert outcome.winners == (1,) and outcome.scores == (0.0, 5.0)


def test_no_spoon_in_the_eat_off() -> None:
    """rules.md: the spoon is offered "Right after a player chooses to eat (a
    forced eat included, never in the eat-off)"."""
    tie = [*eat(1, 1), "pass", *eat(2, 1), "pass", "stop", *back(3, 2), *back(4, 3), "stop"]
    state = play(2, tie, little_spoon=True)
    assert state.observation(None)["eat_off"] == [0, 1]
    state = play(2, [*tie, *eat(1, 0)], little_spoon=True)
    assert state.current_player() == 1 and state.phase == 0  # straight to seat 1's turn


def test_nobody_survives_nobody_wins() -> None:
    """rules.md: scores are "scones eaten for a survivor (...), 0 for a dead
    player"; "If nobody survives, nobody wins.\""""
    actions = scripted(3, {0: [3, 3, 3, 3], 1: [3, 3, 2, 2, 2], 2: [2, 2, 2, 1, 1, 1, 1]})
    state = play(3, actions)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == () and outcome.scores == (0.0, 0.0, 0.0)
    assert state.returns() == [0.0, 0.0, 0.0]


def test_the_game_ends_at_once_when_the_box_is_empty() -> None:
    """rules.md: "The main game ends as soon as nobody is both alive and still
    playing, or the box is empty (even in the middle of honour rounds)". Six players: five eat
    their way to death (8, 8, 8, 8, 8), seat 5 eats everything else (total 2)
    and wins when it takes the last scone."""
    plans = {
        0: [2, 2, 1, 3],
        1: [2, 2, 1, 3],
        2: [2, 2, 1, 3],
        3: [1, 1, 3, 3],
        4: [1, 1, 1, 1, 1, 3],
        5: [0] * 12 + [1, 1],
    }
    actions = scripted(6, plans)
    state = play(6, actions)
    outcome = state.outcome()
    assert outcome is not None
    assert state.box_count == 0 and sum(state.scones) == 36
    assert outcome.winners == (5,) and outcome.scores == (0.0, 0.0, 0.0, 0.0, 0.0, 14.0)
    assert "box is empty" in outcome.reason


def test_the_box_empties_during_honour_rounds() -> None:
    """rules.md: the main game ends as soon as "the box is empty (even in the
    middle of honour rounds)". Seats 0-3 die; seat 5 stops with one scone left, and seat 4
    takes it in its honour turn: the game is over, seat 4 wins on scones."""
    dying = {0: [2, 2, 1, 3], 1: [2, 2, 1, 3], 2: [2, 2, 1, 3], 3: [1, 1, 3, 3]}
    plans = {**dying, 4: [0] * 6 + [1] * 5, 5: [0] * 6 + [1, 1, 3]}
    actions = scripted(6, plans)
    assert actions[-4] == "stop"
    before_last = play(6, actions[:-3])
    assert before_last.box_count == 1 and before_last.honour[4] == 1
    state = play(6, actions)
    outcome = state.outcome()
    assert outcome is not None and state.box_count == 0
    assert outcome.winners == (4,) and outcome.scores == (0.0, 0.0, 0.0, 0.0, 11.0, 9.0)


def test_an_empty_box_with_a_full_tie_is_a_shared_win() -> None:
    """rules.md: "Still tied: if the box is empty, the tied players share the
    win". Seats 4 and 5 end the main game with 10 scones and dose 5 each,
    the box empty: no eat-off can happen, both win."""
    dying = {0: [2, 2, 1, 3], 1: [2, 2, 1, 3], 2: [2, 2, 1, 3], 3: [1, 1, 3, 3]}
    plans = {**dying, 4: [0] * 5 + [1] * 5, 5: [0] * 7 + [1, 1, 3]}
    state = play(6, scripted(6, plans))
    outcome = state.outcome()
    assert outcome is not None and state.box_count == 0
    assert outcome.winners == (4, 5) and "shared win" in outcome.reason
    assert state.returns() == [0.0, 0.0, 0.0, 0.0, 0.5, 0.5]


# -- the little spoon --------------------------------------------------------------


def test_the_spoon_sends_the_scone_back() -> None:
    """rules.md: "Right after a player chooses to eat (...) the spoon is offered
    to each living player who still holds one, clockwise from the eater's left";
    "A spooned scone goes back into the box marked as put back by the eater; the
    eater's turn ends with nothing eaten and no cube spent"."""
    state = play(3, eat(1, 3), little_spoon=True)
    assert state.current_player() == 1 and notation(state) == ["spoon", "pass"]
    state.apply_action("pass")
    assert state.current_player() == 2
    state.apply_action("spoon")
    seat0 = state.observation(0)["seats"][0]
    assert seat0["scones"] == 0 and seat0["cubes"] == 3
    assert state.observation(2)["seats"][2]["spoon"] is False
    assert state.observation(0)["box"]["marked"] == [{"kind": 1, "by": 0, "dose": 3}]
    assert state.observation(2)["box"]["marked"] == [{"kind": 1, "by": 0, "dose": None}]
    assert state.current_player() == 1
    # Seat 2 spent its spoon: seat 0 is the only one asked after seat 1 eats.
    state.apply_action("d2")
    state.apply_action("dose0")
    state.apply_action("eat")
    assert state.current_player() == 0
    state.apply_action("pass")
    assert state.scones == (0, 1, 0) and state.current_player() == 2


def test_a_stopped_player_may_still_spoon_and_a_spooned_turn_is_an_honour_turn() -> None:
    """rules.md: the spoon is offered "to each living player who still holds one
    (...) (stopped players included)"; "Every turn a player plays counts against
    what they owe (a put-back turn, or a turn whose scone was spooned, counts
    too)"."""
    state = play(3, ["stop", *eat(1, 0), "pass", "spoon"], little_spoon=True)
    assert state.spoons == (0, 1, 1)
    assert state.honour == (0, 1, 2) and state.current_player() == 2


def test_death_waits_for_the_spoon_window() -> None:
    """rules.md: "The eater's death is checked only once every holder has
    passed". Seat 0
    would reach 6 of 6 with a second 3, but seat 1 spoons it away."""
    actions = [*eat(1, 3), *["pass"] * 5]
    actions += [*back(2, 0), *back(3, 0), *back(4, 0), *back(5, 0), *back(6, 0)]
    actions += [*eat(2, 3)]
    state = play(6, actions, little_spoon=True)
    assert state.current_player() == 1 and state.alive[0]
    state.apply_action("spoon")
    assert state.alive[0] and state.totals[0] == 3
    state = play(6, [*actions, *["pass"] * 5], little_spoon=True)
    assert not state.alive[0] and state.public_totals[0] == 6


def test_forced_eats_can_be_spooned_too() -> None:
    """rules.md: the spoon is offered "Right after a player chooses to eat (a
    forced eat included (...))"."""
    actions = [*back(1, 3), *back(2, 3), *back(3, 3), *back(4, 3), *back(5, 3), *back(6, 3)]
    state = play(2, [*actions, "d1", "dose2"], little_spoon=True)
    assert notation(state) == ["eat"]
    state.apply_action("eat")
    assert notation(state) == ["spoon", "pass"] and state.current_player() == 1


# -- solo --------------------------------------------------------------------------


def test_solo_score_is_scones_eaten_if_alive() -> None:
    """rules.md: "Solo (1 player, lethal dose 30): the score is the number of
    scones eaten if alive, 0 if dead"."""
    state = play(1, [*eat(1, 3), *eat(2, 2), *eat(3, 0), "stop"])
    outcome = state.outcome()
    assert outcome is not None and outcome.scores == (3.0,) and outcome.winners == (0,)
    assert state.observation(0)["lethal_dose"] == 30
    # Rulebook: "The aim of the game is to consume as many Scones as possible
    # before passing away": alone, nobody is beaten, so the reason says what was eaten.
    assert outcome.reason == "seat 0 stopped and lived, with 3 scones"


def test_solo_death_scores_zero() -> None:
    """Rulebook: "If you die, Uncle's jackpot will end up in charity. In single
    player mode, the lethal dose is 30." Six 3s and six 2s make 30."""
    actions = scripted(1, {0: [3] * 6 + [2] * 6})
    state = play(1, actions)
    outcome = state.outcome()
    assert outcome is not None and outcome.scores == (0.0,) and outcome.winners == ()
    assert state.public_totals == (30,) and state.current_player() == TERMINAL
    assert outcome.reason == "seat 0 reached the lethal dose"


# -- notation and hidden information -------------------------------------------------


def test_notation_aliases_and_errors() -> None:
    """Notation is short and case-insensitive: ``D3``, ``Eat``, ``back shuffle``."""
    state = play(2, [])
    state.apply_action("D3")
    state.apply_action("=1")
    assert notation(state) == ["eat", "back", "back+shuffle"]
    assert state.string_to_action("Back Shuffle") == state.string_to_action("bs")
    with pytest.raises(MalformedActionError):
        state.apply_action("d7")
    with pytest.raises(IllegalActionError):
        state.apply_action("spoon")


def test_others_doses_stay_hidden_until_death() -> None:
    """rules.md: "Eat: the scone goes on the player's cup. Everyone sees its kind
    and that it was eaten; only the eater knows its dose"; a total becomes public
    at death."""
    state = play(2, [*eat(1, 3), *eat(2, 1)])
    assert state.observation(1)["seats"][0]["cup"] == [{"kind": 1, "dose": None}]
    assert state.observation(0)["seats"][0]["cup"] == [{"kind": 1, "dose": 3}]
    assert state.observation(None)["seats"][1]["total"] is None
    assert "dose3" not in state.information_state_string(1)
    assert "dose3" in state.information_state_string(0)


def test_resampling_keeps_deaths_totals_and_own_doses() -> None:
    """The resampled worlds respect what the seat can infer: the dead player's
    exact total, every living player below the lethal dose, each kind's doses
    {0, 0, 1, 1, 2, 3}, and the seat's own doses."""
    actions = scripted(4, {0: [3, 3, 1, 1], 1: [0, 1, 2, 1], 2: [2, 2, 0, 3]})
    state = play(4, actions[:-3])  # before the last main-game stop
    assert not state.alive[0]
    rng = random.Random(5)
    seen = set()
    for _ in range(60):
        world = state.resample_from_infostate(3, rng)
        assert isinstance(world, TeaSconesArsenicState)
        assert world.public_totals[0] == 8 and not world.alive[0]
        assert all(world.totals[q] < 8 for q in (1, 2, 3))
        assert world.observation(3) == state.observation(3)
        counts = [0] * 24
        for _eater, kind, dose, _known in world.eaten:
            counts[kind * 4 + dose] += 1
        assert all(c <= limit for c, limit in zip(counts, [2, 2, 1, 1] * 6, strict=True))
        seen.add(tuple(world.totals))
    assert len(seen) > 1


def test_resampling_follows_the_chance_odds() -> None:
    """A scone another player ate is redrawn with the box's odds: a kind holds
    two 0s, two 1s, a 2 and a 3, and seat 0 saw none of them leave."""
    state = play(2, [*eat(1, 3), *eat(2, 2)])
    rng = random.Random(9)
    counts = [0, 0, 0, 0]
    draws = 3000
    for _ in range(draws):
        world = state.resample_from_infostate(0, rng)
        assert isinstance(world, TeaSconesArsenicState)
        counts[world.totals[1]] += 1
    for dose, expected in enumerate([2 / 6, 2 / 6, 1 / 6, 1 / 6]):
        assert abs(counts[dose] / draws - expected) < 0.03


def test_resampling_sees_what_a_death_forces() -> None:
    """A dead player's public total is kept exactly. At 6 players (lethal 6), seat
    1 dies at 6 after three kind-1 scones: only 1, 2 and 3 make 6 from the doses
    0, 0, 1, 1, 2, 3, so every redraw gives seat 1 those three, in any order."""
    others = [*back(3, 0), *back(4, 0), *back(5, 0), *back(6, 0)]
    actions = [*back(2, 0), *eat(1, 1), *others, *back(2, 1), *eat(1, 2)]
    actions += [*back(3, 1), *back(4, 1), *back(5, 1), *back(6, 1), *back(2, 2), *eat(1, 3)]
    state = play(6, actions)
    assert not state.alive[1] and state.observation(0)["seats"][1]["total"] == 6
    rng = random.Random(3)
    orders = set()
    for _ in range(300):
        world = state.resample_from_infostate(0, rng)
        assert isinstance(world, TeaSconesArsenicState)
        doses = tuple(dose for eater, _kind, dose, _known in world.eaten if eater == 1)
        assert sorted(doses) == [1, 2, 3]
        orders.add(doses)
    assert len(orders) == 6


def test_resampling_through_an_eat_off() -> None:
    """The totals shown when the main game ends, and the eat-off's deaths, hold in
    every redraw, at every step of the eat-off record above."""
    eat_off = ["d1", "dose3", "eat", *eat(1, 0), *eat(2, 3), *eat(2, 0), *eat(3, 3)]
    eat_off += [*eat(3, 0), *eat(5, 3), *eat(5, 0), *eat(6, 3)]
    actions = [*FULL_TIE, *eat_off]
    rng = random.Random(4)
    for upto in range(len(FULL_TIE) - 1, len(actions) + 1):
        state = play(2, actions[:upto])
        for seat in (0, 1):
            world = state.resample_from_infostate(seat, rng)
            assert world.observation(seat) == state.observation(seat)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.outcome() == state.outcome()
