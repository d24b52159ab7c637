"""Poison Pot scenarios, written as records and replayed.

Whole games are written from a final layout by :func:`layout_record`: every turn
but the last slides the pot between two neighbouring circles ``via`` and the
pot's final circle, draws the colour the layout puts on the next circle in
reading order, and places it there; the last turn slides the pot home and fills
``via``. The record is ordinary notation, so each test replays it from scratch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apothecary import (
    TERMINAL,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    Record,
    State,
)
from apothecary.bots import load as load_bot
from apothecary.games.poison_pot import rules as poison_pot_rules
from apothecary.games.poison_pot.board import board

BOARD = board(3)
_COLOUR_OF = {"R": "red", "B": "blue", "Y": "yellow"}


def layout_record(layout: str, players: int, via: str | None = None) -> Record:
    """A complete game of ``players`` ending in ``layout`` (R, B, Y and @ for the
    pot, circles in reading order a1..g4, whitespace ignored)."""
    marks = [mark for mark in layout if not mark.isspace()]
    assert len(marks) == BOARD.size, len(marks)
    assert all(marks.count(mark) == 12 for mark in "RBY")
    home = marks.index("@")
    if via is None:
        via_circle = next(
            c
            for c in BOARD.neighbours[home]
            if c != BOARD.centre and (BOARD.centre, c) in BOARD.line
        )
    else:
        via_circle = BOARD.by_name[via]
    assert via_circle in BOARD.neighbours[home] and via_circle != BOARD.centre
    order = [c for c in range(BOARD.size) if c not in (home, via_circle)]
    names = BOARD.names
    actions = []
    pot = BOARD.centre
    for turn, circle in enumerate([*order, via_circle]):
        # After an odd number of slides the pot stands on via, after an even on home.
        target = via_circle if turn % 2 == 0 else home
        actions += [f"{names[pot]}-{names[target]}", _COLOUR_OF[marks[circle]], names[circle]]
        pot = target
    return Record(game="poison-pot", players=players, actions=actions)


def final_picture(state: State) -> list[str]:
    """The final board as the layouts are written (one string per row)."""
    marks = {"red": "R", "blue": "B", "yellow": "Y", "pot": "@", "": "."}
    view = state.observation(None)
    return [" ".join(marks[view["board"][c]] for c in row) for row in BOARD.rows]


def rows_of(layout: str) -> list[str]:
    return [line.strip() for line in layout.strip().splitlines()]


# -- the rulebook's scoring examples -------------------------------------------------

RULEBOOK_FIRST_EXAMPLE = """
   R R B B
  R R Y B R
 B B B Y Y R
Y Y Y @ B B B
 B R R Y Y Y
  B R R R B
   Y Y R Y
"""


def test_groups_touching_the_pot_do_not_count() -> None:
    """Rulebook: "the Cauldrons are in three groups: A) 4 Cauldrons in the upper
    left, B) 2 Cauldrons in the upper right, and C) 6 Cauldrons in the front. The
    six Cauldrons (C) in the front also touch the dark POISON POT, so they do not
    count. Therefore the largest counted group of Cauldrons for this player is 4."
    """
    state = layout_record(RULEBOOK_FIRST_EXAMPLE, players=2).replay()
    assert final_picture(state) == rows_of(RULEBOOK_FIRST_EXAMPLE)
    outcome = state.outcome()
    assert outcome is not None
    # Red: 4 (a1 a2 b1 b2), 2 (b5 c6), 6 touching the pot (e2 e3 f2 f3 f4 g3).
    # Blue's best group away from the pot is a3 a4 b4.
    assert outcome.scores == (4.0, 3.0)
    assert outcome.winners == (0,)
    # The reason names the seat (front ends put the person's name in), then its colour.
    assert outcome.reason.endswith("; seat 0 wins with an unpoisoned red group of 4")


RULEBOOK_SECOND_EXAMPLE = """
   R R Y Y
  R R B B B
 B B Y Y Y Y
R R Y Y Y Y Y
 R R B B R B
  R @ B B Y
   R B B R
"""


def test_the_largest_counted_group_wins_and_neutral_groups_count_for_nobody() -> None:
    """Rulebook: "The group of 4 in the upper left wins. The group of 9 across the
    center is neutral. Both groups of 6 in the lower left touch the POISON POT."
    Our rules page: "With two players yellow is neutral: yellow cauldrons are
    placed like any other, but count for nobody."
    """
    state = layout_record(RULEBOOK_SECOND_EXAMPLE, players=2, via="e3").replay()
    outcome = state.outcome()
    assert outcome is not None
    assert state.observation(0)["pot"] == "f2"
    assert outcome.scores == (4.0, 3.0)  # yellow's 9 is nobody's
    assert outcome.winners == (0,)
    assert len(outcome.scores) == 2


RULEBOOK_POT_IN_THE_MIDDLE = """
   R Y B Y
  R B R R B
 Y Y R R B R
R B B @ Y Y R
 Y R B Y Y B
  B Y R R B
   Y B Y B
"""


def test_with_the_pot_in_the_middle_a_group_of_three_wins() -> None:
    """Rulebook: "Example with the POISON POT in the middle. In this case the group
    of 3 in the lower right is the largest that does not touch the POISON POT."
    (Here with 3 players: red's 4 and yellow's 4 touch the pot; blue's 3 wins.)
    """
    state = layout_record(RULEBOOK_POT_IN_THE_MIDDLE, players=3).replay()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == (2.0, 3.0, 2.0)
    assert outcome.winners == (1,)


# -- moving the pot ----------------------------------------------------------------

POT_SLID_INTO_RED = """
   R R Y Y
  R R R B R
 Y B @ B Y Y
B Y R Y R B B
 R B B R Y Y
  Y R Y B B
   R Y B B
"""


def test_sliding_the_pot_next_to_a_group_on_the_last_turn_voids_it() -> None:
    """Rulebook: "At the end of the game, groups of cauldrons that touch the
    POISON POT do not count." The last slide (d3-c3) brings the pot next to red's
    five (a1 a2 b1 b2 b3), so blue's four wins."""
    record = layout_record(POT_SLID_INTO_RED, players=2, via="d3")
    before = record.replay(upto=len(record.actions) - 3)
    assert before.observation(0)["groups"] == [5, 4]
    assert record.actions[-3:] == ["d3-c3", "red", "d3"]
    state = record.replay()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.winners == (1,)
    assert outcome.scores[1] == 4.0
    assert outcome.scores[0] < 4.0


def test_moving_the_pot_into_a_group_voids_it_until_it_moves_away() -> None:
    """Our rules page: "Move one piece, the pot or any cauldron of any colour,
    one or more circles in a straight line"; a group counts only while no
    cauldron of it is next to the pot."""
    record = Record(
        game="poison-pot",
        players=2,
        actions=["d4-d5", "red", "a1", "d5-d4", "red", "a2", "d4-d5", "red", "b1"],
    )
    state = record.replay()
    assert state.observation(1)["groups"] == [3, 0]
    state.apply_action("d5-b3")  # blue slides the pot up next to a2
    assert state.observation(1)["pot"] == "b3"
    assert state.observation(1)["groups"] == [0, 0]
    state.apply_action("blue")
    state.apply_action("g1")
    state.apply_action("b3-d5")  # red slides it back down
    assert state.observation(0)["groups"] == [3, 1]


# One turn (slide, draw, placement) per line.
LAST_TURNS = [
    "d4-e3 yellow c5",
    "c5-d6 blue c6",
    "d6-d7 red a2",
    "e3-e1 yellow g4",
    "c6-b5 blue e3",
    "d7-d1 blue a4",
    "b5-b2 yellow e6",
    "b2-b4 blue c4",
    "b4-b2 red b3",
    "b2-d4 blue b4",
    "c4-c2 yellow a3",
    "c2-c4 yellow e2",
    "c4-c2 blue a1",
    "c2-c4 blue f3",
    "d4-b2 yellow f5",
    "b2-d4 red g3",
    "a1-c1 blue g2",
    "f3-b5 red f1",
    "c4-c2 red a1",
    "b5-d7 red c5",
    "e2-c3 red c4",
    "g3-c6 blue d3",
    "g2-d2 blue g2",
    "c4-d5 red f2",
    "g4-e4 yellow e2",
    "g2-g3 yellow c4",
    "c5-b5 red c5",
    "d5-e5 yellow g4",
    "b3-b1 blue g2",
    "d4-d6 yellow d5",
    "e3-d4 red b2",
    "d3-f3 yellow b3",
    "g2-g1 yellow d3",
    "g1-g2 red f4",
    "e2-e3 red e2",
]
LAST_TURN_TO_TIE = [action for turn in LAST_TURNS for action in turn.split()]


@pytest.mark.parametrize(("slide", "winners"), [("f1-g1", (0,)), ("f2-g1", (1,)), ("g2-g1", (1,))])
def test_reaching_a_tie_on_the_last_turn_wins_it(slide: str, winners: tuple[int, ...]) -> None:
    """Rulebook, Resolving Ties: "The player who ended the game scores an extra 1/2
    pot." Red leads 4 to 3 before blue's last turn, with one blue cauldron left
    and g1 empty. Sliding f2 or g2 into g1 lets the last blue join g3 f3 into a
    four: the tie goes to blue. Sliding f1 leaves blue on 3."""
    state = Record(game="poison-pot", players=2, actions=LAST_TURN_TO_TIE).replay()
    assert state.observation(1)["groups"] == [4, 3]
    state.apply_action(slide)
    state.apply_action("blue")
    state.apply_action(state.legal_actions()[0])
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == winners


def test_the_rules_bot_searches_the_last_turns_exactly() -> None:
    """In the position above the one-ply heuristic can pick the losing f1-g1; the
    bot's exact search of the last turns always finds a winning slide."""
    state = Record(game="poison-pot", players=2, actions=LAST_TURN_TO_TIE).replay()
    for seed in range(10):
        choice = load_bot("rules", state.game, 1, seed=seed).step(state)
        assert state.action_to_string(choice) in {"f2-g1", "g2-g1"}


# -- slides ----------------------------------------------------------------------


def test_slides_cannot_pass_through_or_land_on_a_piece() -> None:
    """Rulebook: "It cannot pass through a cauldron already on the board, or
    through the POISON POT." """
    state = Record(game="poison-pot", players=2, actions=["d4-d2", "blue", "d5"]).replay()
    before = str(state)
    for blocked in ("d2-d7", "d2-d6", "d2-d5", "d5-d1"):
        with pytest.raises(IllegalActionError):
            state.apply_action(blocked)
        assert str(state) == before
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    assert {"d2-d3", "d2-d4", "d5-d3", "d5-d6", "d5-d7"} <= legal
    assert "d5-d2" not in legal and "d2-d2" not in legal


def test_slides_stop_at_the_edge() -> None:
    """Our rules page: a slide "may only pass over and stop on empty circles: it
    cannot jump a piece, and it stops at the edge at the latest": a piece on a
    corner cannot leave the board."""
    state = Record(game="poison-pot", players=2, actions=["d4-d5", "red", "a1"]).replay()
    from_corner = sorted(
        state.action_to_string(a)
        for a in state.legal_actions()
        if state.action_to_string(a).startswith("a1-")
    )
    # East along row a, south-east through the empty centre to g4, south-west to d1.
    east = ["a1-a2", "a1-a3", "a1-a4"]
    south_east = ["a1-b2", "a1-c3", "a1-d4", "a1-e4", "a1-f4", "a1-g4"]
    south_west = ["a1-b1", "a1-c1", "a1-d1"]
    assert from_corner == sorted(east + south_east + south_west)
    for off_board in ("a1 w", "a1 nw", "a1 ne", "a1 4e", "a1 4sw"):
        with pytest.raises(MalformedActionError):
            state.apply_action(off_board)
    state.apply_action("a1 3e")
    assert state.observation(1)["board"][BOARD.by_name["a4"]] == "red"


def test_any_piece_of_any_colour_may_be_slid_and_the_pot_is_one() -> None:
    """Rulebook: "A player moves the POISON POT, or ANY other cauldron already on
    the playing surface, any number of empty spaces and in a straight line." """
    state = Record(game="poison-pot", players=2).replay()
    first = [state.action_to_string(a) for a in state.legal_actions()]
    assert len(first) == 18 and all(slide.startswith("d4-") for slide in first)
    state.apply_action("d4-a4")
    state.apply_action("blue")
    state.apply_action("g1")
    state.apply_action("g1-d1")  # blue slides its own cauldron
    state.apply_action("red")
    state.apply_action("g4")
    # Red (seat 0) now slides blue's cauldron.
    assert state.current_player() == 0
    state.apply_action("d1-d7")
    assert state.observation(0)["board"][BOARD.by_name["d7"]] == "blue"


def test_the_slide_is_mandatory_and_comes_first() -> None:
    """Rulebook: "A turn has two parts. FIRST A player moves the POISON POT, or ANY
    other cauldron ... SECOND The player turns up one of the face-down cauldrons"."""
    state = Record(game="poison-pot", players=2).replay()
    for not_yet in ("a1", "red"):
        with pytest.raises(IllegalActionError):
            state.apply_action(not_yet)
    with pytest.raises(IllegalActionError):
        state.apply_action("d4-d4")
    state.apply_action("d4-d1")
    assert state.is_chance_node()


# -- the draw and the placement ------------------------------------------------------


def test_the_draw_is_weighted_by_the_cauldrons_left() -> None:
    """Our rules page: "each colour comes up with probability its cauldrons left
    / all cauldrons left", 12 of each colour to begin with."""
    state = Record(game="poison-pot", players=3, actions=["d4-d1"]).replay()
    first = {state.action_to_string(a): p for a, p in state.chance_outcomes()}
    assert first == {colour: pytest.approx(1 / 3) for colour in ("red", "blue", "yellow")}
    state.apply_action("red")
    state.apply_action("a1")
    state.apply_action("d1-b1")
    outcomes = {state.action_to_string(a): p for a, p in state.chance_outcomes()}
    assert outcomes == {
        "red": pytest.approx(11 / 35),
        "blue": pytest.approx(12 / 35),
        "yellow": pytest.approx(12 / 35),
    }


def test_a_colour_that_has_run_out_cannot_be_drawn() -> None:
    """Rulebook: "36 light Cauldrons - 12 Cauldrons topped in each of Red, Blue and
    Yellow": after twelve reds, red is no longer a possible draw."""
    actions: list[str] = []
    pot = "d4"
    for turn in range(12):
        target = "d1" if turn % 2 == 0 else "d4"
        actions += [f"{pot}-{target}", "red", BOARD.names[turn]]
        pot = target
    state = Record(game="poison-pot", players=2, actions=actions).replay()
    state.apply_action(f"{pot}-d4" if pot == "d1" else "d4-d1")
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == ["blue", "yellow"]
    with pytest.raises(IllegalActionError):
        state.apply_action("red")


def test_the_drawn_cauldron_must_be_placed_on_an_empty_circle() -> None:
    """Rulebook: "You must place the cauldron that you take, irrespective of its
    color." The drawn colour goes down, on an empty circle only, and the turn
    then passes."""
    state = Record(game="poison-pot", players=2, actions=["d4-d1", "yellow"]).replay()
    assert state.current_player() == 0
    legal = [state.action_to_string(a) for a in state.legal_actions()]
    assert len(legal) == 36 and "d1" not in legal and "d4" in legal
    with pytest.raises(IllegalActionError):
        state.apply_action("d1")  # the pot is there
    with pytest.raises(IllegalActionError):
        state.apply_action("d4-d5")  # no second slide
    state.apply_action("D4")
    assert state.observation(0)["board"][BOARD.centre] == "yellow"
    assert state.current_player() == 1


def test_the_last_placement_fills_the_board_and_ends_the_game() -> None:
    """Rulebook: "Players take turns performing each of the above actions, in the
    stated order, until all cauldrons have been placed." On 37 circles the 36th
    cauldron fills the last empty circle."""
    record = layout_record(RULEBOOK_FIRST_EXAMPLE, players=2)
    state = record.replay(upto=len(record.actions) - 1)
    assert len(state.legal_actions()) == 1
    state.apply_action(record.actions[-1])
    assert state.current_player() == TERMINAL and state.is_terminal()
    assert "" not in state.observation(None)["board"]
    assert state.move_number() == 108 == state.game.max_game_length()
    with pytest.raises(GameOverError):
        state.apply_action("a1-a2")


# -- ties ------------------------------------------------------------------------

TIE_RED_4_BLUE_4 = """
   R R Y Y
  R R B R R
 B B Y Y B Y
R Y R @ R B Y
 Y B B Y Y R
  R Y R B B
   B Y B B
"""


def test_two_player_tie_goes_to_the_player_who_placed_last() -> None:
    """Rulebook, Resolving Ties: "The player who ended the game scores an extra 1/2
    pot. The second-to-last player deducts 1/2 pot." With 2 players blue (seat 1)
    places the 36th cauldron."""
    state = layout_record(TIE_RED_4_BLUE_4, players=2).replay()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == (3.5, 4.5)
    assert outcome.winners == (1,)
    assert state.returns() == [0.0, 1.0]


LEAD_RED_5_BLUE_4 = """
   R R Y Y
  R R R B R
 Y B B Y Y B
Y R R @ R B Y
 B Y B R Y R
  Y R Y B B
   B Y B B
"""


def test_a_lead_of_one_is_never_overturned_by_the_half_points() -> None:
    """Our rules page: "These half points never change a result without a tie
    for first: 5 beats 4 even if the 4 placed last"."""
    state = layout_record(LEAD_RED_5_BLUE_4, players=2).replay()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == (5.0, 4.0)
    assert outcome.winners == (0,)


TIE_RED_4_BLUE_4_YELLOW_3 = """
   R R Y Y
  R R B R R
 B B Y Y B Y
Y R R @ B Y Y
 Y B B Y R R
  R Y R B B
   B Y B B
"""
TIE_RED_4_YELLOW_4_BLUE_3 = """
   R R Y Y
  R R B R B
 B Y Y R Y Y
R R B @ B Y Y
 B Y B Y R R
  R Y R B B
   B B Y B
"""
TIE_ALL_4 = """
   R R Y Y
  R R B R B
 B Y Y R Y Y
R B R @ B Y Y
 Y R B Y R R
  B Y R B B
   B Y B B
"""


@pytest.mark.parametrize(
    ("layout", "scores", "winners"),
    [
        # Blue placed second to last: it drops to 3.5 and red's 4 stands alone.
        (TIE_RED_4_BLUE_4_YELLOW_3, (4.0, 3.5, 3.5), (0,)),
        # Yellow placed last: 4.5 beats red's 4; blue's 3 - 1/2 trails.
        (TIE_RED_4_YELLOW_4_BLUE_3, (4.0, 2.5, 4.5), (2,)),
        (TIE_ALL_4, (4.0, 3.5, 4.5), (2,)),
    ],
    ids=["red-blue", "red-yellow", "all-three"],
)
def test_three_player_ties_use_the_last_two_placements(
    layout: str, scores: tuple[float, ...], winners: tuple[int, ...]
) -> None:
    """Our rules page: "Only when two or more players share the highest score:
    the player who made the last placement adds 1/2, and the player who made the
    placement before it takes 1/2 away". With 3 players yellow (seat 2) places
    the 36th cauldron and blue (seat 1) the 35th."""
    state = layout_record(layout, players=3).replay()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == scores
    assert outcome.winners == winners


def test_a_tie_for_first_names_the_seats_with_their_colours() -> None:
    """Our rules page: "the player who made the last placement adds 1/2, and the
    player who made the placement before it takes 1/2 away ... with 3 players it
    is yellow's and blue's." The reason names each player as its seat and colour
    (it said only "red and yellow tie ... so yellow wins", and a room's page could
    not tell who yellow was)."""
    outcome = layout_record(TIE_RED_4_YELLOW_4_BLUE_3, players=3).replay().outcome()
    assert outcome is not None
    assert outcome.reason == (
        "all 36 cauldrons placed; seat 0 (red) and seat 2 (yellow) tie with 4; seat 2 (yellow)"
        " placed last (+1/2) and seat 1 (blue) placed before (-1/2), so seat 2 (yellow) wins"
    )


# -- notation --------------------------------------------------------------------


@pytest.mark.parametrize("text", ["d4-d1", "D4-D1", "d4 d1", "d4d1", "d4 3w", "d4-3w", "d4 3west"])
def test_a_slide_can_be_written_from_to_or_by_direction(text: str) -> None:
    """rules.md, Notation: a slide is "from-to" or "from, distance, direction";
    case does not matter."""
    state = Record(game="poison-pot", players=2).replay()
    assert state.action_to_string(state.string_to_action(text)) == "d4-d1"


def test_a_direction_without_a_distance_is_one_step() -> None:
    """rules.md, Notation: "d4 ne" slides one circle north-east."""
    state = Record(game="poison-pot", players=2).replay()
    assert state.action_to_string(state.string_to_action("d4 ne")) == "d4-c4"
    assert state.action_to_string(state.string_to_action("d4 south-west")) == "d4-e3"
    with pytest.raises(MalformedActionError):
        state.string_to_action("d4 up")


def test_the_rules_page_example_record_replays_as_annotated() -> None:
    """rules.md, An annotated record: "They tie for first, so blue (last placement)
    scores 1.5 and red (the placement before) 0.5: blue wins." """
    page = Path(poison_pot_rules.__file__).with_name("rules.md").read_text(encoding="utf-8")
    block = page.split("```json\n", 1)[1].split("```", 1)[0]
    state = Record.from_json(json.loads(block)).replay()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.scores == (0.5, 1.5)
    assert outcome.winners == (1,)
