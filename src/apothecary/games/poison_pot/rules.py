"""Poison Pot: slide one piece, draw a cauldron, place it; keep your biggest
group of your own colour away from the poison pot.

The rules as apothecary reads the rulebook (see ``rules.md``):

- The board is a hexagon of circles (37 on the published board, see
  :mod:`.board`); the pot starts on the centre. There are ``r(r+1)`` cauldrons
  of each of red, blue and yellow for a board of radius ``r`` (12 each on the
  published board), so the last placement fills the board.
- A turn: the player slides one piece (the pot or any cauldron) one or more
  circles in a straight line through empty circles; then draws a cauldron at
  random from those left (a chance event weighted by the counts) and places it
  on any empty circle. Seat 0 is red, seat 1 blue, seat 2 yellow; with two
  players yellow is neutral. Seat 0 starts.
- When every cauldron is placed, a player's score is the size of their largest
  one-colour group none of whose cauldrons is next to the pot. Highest wins.
  Only when two or more share the highest score, the seat that made the last
  placement adds 1/2 and the seat that made the one before takes 1/2 away.

A turn is three actions in one id space (``n`` circles):

- slide ``from * n + to`` (ids ``0 .. n*n-1``; only true slides are ever legal),
- the chance draw of a colour (``n*n + colour``: red, blue, yellow),
- the placement on a circle (``n*n + 3 + circle``).
"""

from __future__ import annotations

import random
import re
from bisect import insort
from collections.abc import Hashable, Sequence
from typing import ClassVar

from apothecary.core.events import add_then, after_action, new_event
from apothecary.core.game import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    OptionSpec,
    Outcome,
    Player,
    State,
)
from apothecary.core.registry import register
from apothecary.core.words import Words, say, say_in, seat
from apothecary.games.poison_pot.board import Board, Circle, board

COLOURS: tuple[str, ...] = ("red", "blue", "yellow")
"""The cauldron colours; seat ``i`` plays ``COLOURS[i]``."""

_COLOUR_SAID = {
    "red": lambda: say_in("colour", "red"),
    "blue": lambda: say_in("colour", "blue"),
    "yellow": lambda: say_in("colour", "yellow"),
}
"""Each colour as a literal message (the catalogs' tools extract literals only)."""


def colour_words(colour: int) -> Words:
    """The colour ``COLOURS[colour]`` said in a sentence, in the reader's language."""
    return _COLOUR_SAID[COLOURS[colour]]()


EMPTY = 0
POT = 4
# A circle holds EMPTY, POT, or 1 + a colour's index (1 red, 2 blue, 3 yellow).
PIECE_NAMES: tuple[str, ...] = ("", "red", "blue", "yellow", "pot")

SLIDE, DRAW, PLACE, OVER = 0, 1, 2, 3
PHASE_NAMES: tuple[str, ...] = ("slide", "draw", "place", "over")


_DIRECTION_WORDS: dict[str, str] = {
    "e": "e",
    "east": "e",
    "w": "w",
    "west": "w",
    "ne": "ne",
    "northeast": "ne",
    "north-east": "ne",
    "nw": "nw",
    "northwest": "nw",
    "north-west": "nw",
    "se": "se",
    "southeast": "se",
    "south-east": "se",
    "sw": "sw",
    "southwest": "sw",
    "south-west": "sw",
}
_COLOUR_WORDS: dict[str, int] = {"r": 0, "red": 0, "b": 1, "blue": 1, "y": 2, "yellow": 2}
_CIRCLE = r"[a-i][1-9]"
# ASCII only (re.ASCII), and a distance of a few digits: a board is at most 9 wide.
_SLIDE_TO = re.compile(rf"^({_CIRCLE})\s*(?:-|>|\s)?\s*({_CIRCLE})$", re.ASCII)
_SLIDE_DIRECTION = re.compile(
    rf"^({_CIRCLE})\s*(?:-|>|\s)?\s*([0-9]{{0,3}})\s*([a-z-]+)$", re.ASCII
)


def _piece_words(piece: str) -> str:
    """``the pot`` or ``the red cauldron``: a piece as the labels and events name it."""
    return "the pot" if piece == "pot" else f"the {piece} cauldron"


def largest_groups(
    cells: Sequence[int], pot: Circle, geometry: Board, pieces: range
) -> tuple[list[int], list[int]]:
    """For each piece of ``pieces`` (1 + colour index, in order): the size of its
    largest group with no cauldron next to the pot, and of its largest group
    next to it (0 if none), all from one pass over the board."""
    neighbours = geometry.neighbours
    first, last = pieces.start, pieces.stop - 1
    group = [-1] * len(cells)  # per circle, its group's number (-1: none yet, or no piece of those)
    sizes: list[int] = []
    owners: list[int] = []
    for start, piece in enumerate(cells):
        if group[start] >= 0 or not first <= piece <= last:
            continue
        number = len(sizes)
        group[start] = number
        stack = [start]
        size = 0
        while stack:
            circle = stack.pop()
            size += 1
            for other in neighbours[circle]:
                if group[other] < 0 and cells[other] == piece:
                    group[other] = number
                    stack.append(other)
        sizes.append(size)
        owners.append(piece - first)
    # A group is poisoned when one of its cauldrons is next to the pot.
    poisoned = {group[circle] for circle in neighbours[pot]}
    safe = [0] * len(pieces)
    unsafe = [0] * len(pieces)
    for number, size in enumerate(sizes):
        best = unsafe if number in poisoned else safe
        owner = owners[number]
        if size > best[owner]:
            best[owner] = size
    return safe, unsafe


def circle_group_sizes(
    cells: Sequence[int], pot: Circle, geometry: Board, piece: int
) -> tuple[int, int]:
    """For the cauldrons of ``piece`` (1 + colour index): the size of the largest
    group not next to the pot, and of the largest group next to it (0 if none)."""
    safe, unsafe = largest_groups(cells, pot, geometry, range(piece, piece + 1))
    return safe[0], unsafe[0]


def placers_of_last_two(players: int, cauldrons: int) -> tuple[Player, Player]:
    """The seats that make the last placement and the one before it: placements
    go round the table from seat 0, one per turn."""
    return (cauldrons - 1) % players, (cauldrons - 2) % players


def tie_broken_scores(groups: Sequence[int], cauldrons: int) -> list[float]:
    """Final scores from each seat's best unpoisoned group: only when two or more
    share the highest, the last placer adds 1/2 and the one before takes 1/2 away."""
    scores = [float(group) for group in groups]
    best = max(groups)
    if sum(1 for group in groups if group == best) > 1:
        last, before = placers_of_last_two(len(groups), cauldrons)
        scores[last] += 0.5
        scores[before] -= 0.5
    return scores


Counts = tuple[int, int, int]
"""Face-down cauldrons left per colour: red, blue, yellow."""


class DrawTable(dict[Counts, tuple[tuple[tuple[Action, float], ...], tuple[Counts, ...]]]):
    """Per face-down counts: the draw's outcomes, ``(action, probability)`` for
    each colour left with probability its count over the cauldrons left; and
    per colour, the counts once it is drawn (a colour with none left is never
    drawn, so its entry is never read).

    An entry is worked out the first time its counts come up and kept; a
    game's states share the table, so a draw in a playout is a dict look-up
    and its probabilities are the same floats every time.
    """

    def __init__(self, draw_base: Action) -> None:
        super().__init__()
        self.draw_base = draw_base

    def __missing__(
        self, remaining: Counts
    ) -> tuple[tuple[tuple[Action, float], ...], tuple[Counts, ...]]:
        left = sum(remaining)
        outcomes = tuple(
            (self.draw_base + colour, count / left)
            for colour, count in enumerate(remaining)
            if count
        )
        red, blue, yellow = remaining
        after = ((red - 1, blue, yellow), (red, blue - 1, yellow), (red, blue, yellow - 1))
        self[remaining] = entry = (outcomes, after)
        return entry


@register
class PoisonPotGame(Game):
    """Poison Pot for 2 or 3 players."""

    info: ClassVar[GameInfo] = GameInfo(
        name="poison-pot",
        title="Poison Pot",
        min_players=2,
        max_players=3,
        default_players=2,
        has_chance=True,
        has_hidden_information=False,
        summary="Slide a piece, draw a cauldron, place it: grow your colour away from the pot.",
    )
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "radius",
            int,
            3,
            "board radius: 3 is the published 37-circle board (12 cauldrons per "
            "colour); smaller boards hold r*(r+1) per colour",
            minimum=1,
            maximum=4,
        ),
    )

    def _configure(self) -> None:
        self.board: Board = board(int(self.options["radius"]))
        n = self.board.size
        self.per_colour: int = (n - 1) // 3
        """Cauldrons of each colour (12 on the published board)."""
        self.cauldrons: int = 3 * self.per_colour
        self.draw_base: int = n * n
        self.place_base: int = n * n + 3
        names = self.board.names
        notation = [f"{names[a // n]}-{names[a % n]}" for a in range(n * n)]
        notation += list(COLOURS)
        notation += list(names)
        self.notation: tuple[str, ...] = tuple(notation)
        """Every action's notation: it does not depend on the position."""
        self.draws: DrawTable = DrawTable(self.draw_base)
        """The draw at every count of face-down cauldrons (see :class:`DrawTable`)."""

    def num_distinct_actions(self) -> int:
        """Slides (from x to), 3 colours drawn, and a placement per circle."""
        return self.place_base + self.board.size

    def max_game_length(self) -> int:
        """Every turn is a slide, a draw and a placement; one turn per cauldron."""
        return 3 * self.cauldrons

    def observation_tensor_size(self) -> int:
        """Per circle 5 planes, then draw pile, phase, drawn colour, mover, viewer,
        and per circle 3 more: the last slide's origin and target, the last placement."""
        return 8 * self.board.size + 3 + 4 + 3 + 2 * self.num_players

    def observation_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Every number is a mark (0 or 1) or a fraction of a colour's cauldrons
        left, from 0 to 1: all in [0, 1]."""
        size = self.observation_tensor_size()
        return [0.0] * size, [1.0] * size

    def information_state_tensor_size(self) -> int:
        """The viewer, then per turn (one per cauldron) the slide's origin and
        target, the colour drawn and the placement: ``players + cauldrons * (3n + 3)``
        for ``n`` circles."""
        return self.num_players + self.cauldrons * (3 * self.board.size + 3)

    def information_state_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """One-hot marks: every number is 0 or 1."""
        size = self.information_state_tensor_size()
        return [0.0] * size, [1.0] * size

    def new_initial_state(self) -> PoisonPotState:
        """The pot on the centre, every cauldron face down, seat 0 to slide."""
        return PoisonPotState(self)


class PoisonPotState(State):
    """A Poison Pot position: the circles, the draw pile's counts, whose turn."""

    __slots__ = (
        "_outcome",
        "_public",
        "board",
        "drawn",
        "last_placement",
        "last_slide",
        "lines",
        "phase",
        "placeable",
        "placed",
        "player",
        "pot",
        "remaining",
    )

    game: PoisonPotGame

    def __init__(self, game: PoisonPotGame) -> None:
        super().__init__(game)
        self.board: list[int] = [EMPTY] * game.board.size
        """What stands on each circle: EMPTY, POT or 1 + colour index."""
        self.pot: Circle = game.board.centre
        self.board[self.pot] = POT
        self.lines: list[int] = [0] * len(game.board.lines)
        """Per straight line, which of its circles hold a piece (a bit each): the
        legal slides along a line are looked up by this pattern."""
        for number, bit in game.board.line_bits[self.pot]:
            self.lines[number] |= bit
        self.placeable: list[Action] = [
            game.place_base + circle for circle in range(game.board.size) if circle != self.pot
        ]
        """The placement of each empty circle, ascending: the legal placements
        whenever one is due. Slides and placements keep it up to date, so
        listing them is a copy, not a scan of the board."""
        self.remaining: tuple[int, int, int] = (game.per_colour,) * 3
        """Face-down cauldrons left, per colour."""
        self.phase: int = SLIDE
        self.player: Player = 0
        """The seat whose turn it is (also during its draw)."""
        self.drawn: int = -1
        """The colour index just drawn, waiting to be placed, or -1."""
        self.placed: int = 0
        self.last_slide: Action = -1
        self.last_placement: Circle = -1
        self._outcome: Outcome | None = None
        self._public: tuple[int, dict[str, JSON]] | None = None
        """(move number, the observation but its viewer) of the last
        observation: the position it was made in, which every action leaves."""

    # -- the rules -------------------------------------------------------------

    def current_player(self) -> Player:
        """The seat to slide or place, CHANCE for the draw, TERMINAL at the end."""
        phase = self.phase
        if phase == DRAW:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return self.player

    def _legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase == SLIDE:
            # Each line's slides are looked up by which of its circles hold a
            # piece. A board always has an empty circle next to some piece while
            # cauldrons remain (the board is connected and the pot is on it), so
            # this is never empty and the rule "if no piece can move, skip the
            # move" never bites.
            # (Not zip(strict=True): the board makes one table per line, and the
            # check would cost a tenth of this method.)
            slides: list[Action] = []
            for table, pattern in zip(self.game.board.line_slides, self.lines, strict=False):
                slides += table[pattern]
            slides.sort()
            return slides
        if phase == PLACE:
            return self.placeable.copy()
        if phase == DRAW:
            return [action for action, _ in self.game.draws[self.remaining][0]]
        return []

    def _apply(self, action: Action) -> None:
        phase = self.phase
        if phase == SLIDE:
            self._slide(action)
        elif phase == DRAW:
            self._draw(action - self.game.draw_base)
        else:
            self._place(action - self.game.place_base)

    def _slide(self, action: Action) -> None:
        """Slide a piece (the pot or a cauldron) along its line; the draw follows."""
        board = self.board
        origin, target = divmod(action, len(board))
        piece = board[origin]
        board[target] = piece
        board[origin] = EMPTY
        if piece == POT:
            self.pot = target
        game = self.game
        lines = self.lines
        for number, flip in game.board.slide_flips[action]:
            lines[number] ^= flip
        placeable = self.placeable
        placeable.remove(game.place_base + target)
        insort(placeable, game.place_base + origin)
        self.last_slide = action
        self.phase = DRAW

    def _draw(self, colour: int) -> None:
        """Turn up a cauldron of ``colour``; its placement follows."""
        self.remaining = self.game.draws[self.remaining][1][colour]
        self.drawn = colour
        self.phase = PLACE

    def _place(self, circle: Circle) -> None:
        """Place the drawn cauldron on the empty ``circle``; the last one ends the game."""
        game = self.game
        self.board[circle] = self.drawn + 1
        lines = self.lines
        for number, bit in game.board.line_bits[circle]:
            lines[number] |= bit
        self.placeable.remove(game.place_base + circle)
        self.drawn = -1
        self.last_placement = circle
        self.placed += 1
        if self.placed == game.cauldrons:
            self.phase = OVER
            self._outcome = self._final_outcome()
        else:
            self.player = (self.player + 1) % game.num_players
            self.phase = SLIDE

    # -- fast paths ----------------------------------------------------------------
    #
    # A random playout asks, per action, is_terminal(), is_chance_node(), then
    # chance_outcomes() or legal_actions(), and applies one (benchmarks/playout.py
    # times that loop against OpenSpiel's C++ games; search bots do much the
    # same). These overrides give the base class's answers with fewer calls and
    # copies: each phase's legality is a direct test, so nothing is cached.

    def is_chance_node(self) -> bool:
        """Whether a cauldron is to be drawn (the base asks current_player())."""
        return self.phase == DRAW

    def legal_actions(self) -> list[Action]:
        """The sorted legal actions; at the draw, the colours left."""
        # Not cached, unlike the base's: apply_action tests each phase's
        # legality directly, so a cache would be only copies to pay for.
        return self._legal_actions()

    def apply_action(self, action: Action | str) -> None:
        """Play ``action`` (an id or notation). Bad input raises and leaves the state as it was."""
        # A legal id is recognised by its phase's own rule, without the list of
        # legal actions the base builds first: a slide by its line's occupancy
        # (the piece on the origin, nothing up to the target), a draw by the
        # colours left, a placement by its circle being empty. Notation, and
        # every refusal, take the base's path, which checks and explains.
        if type(action) is int:
            phase = self.phase
            game = self.game
            if phase == SLIDE:
                if 0 <= action < game.draw_base:
                    line, mask, bit = game.board.slide_checks[action]
                    legal = self.lines[line] & mask == bit
                else:
                    legal = False
                if legal:
                    self._slide(action)
            elif phase == PLACE:
                circle = action - game.place_base
                legal = 0 <= circle < len(self.board) and self.board[circle] == EMPTY
                if legal:
                    self._place(circle)
            else:
                colour = action - game.draw_base
                legal = phase == DRAW and 0 <= colour < 3 and self.remaining[colour] > 0
                if legal:
                    self._draw(colour)
            if legal:
                # What the base does after applying: the history (a plain list,
                # or a History shared with clones: either appends alone), and
                # the legal actions of the new position are not known yet.
                self._history.append(action)
                self._legal = None
                return
        self._refuse_or_apply(action)

    def _clone_into(self, other: State) -> None:
        assert isinstance(other, PoisonPotState)
        other.board = self.board.copy()
        other.lines = self.lines.copy()
        other.placeable = self.placeable.copy()
        other.pot = self.pot
        other.remaining = self.remaining
        other.phase = self.phase
        other.player = self.player
        other.drawn = self.drawn
        other.placed = self.placed
        other.last_slide = self.last_slide
        other.last_placement = self.last_placement
        other._outcome = self._outcome
        other._public = None  # a copy may be changed by hand (a test's board): made afresh

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """The colour drawn, each with probability (its count left) / (cauldrons left)."""
        if self.phase != DRAW:
            return []
        return list(self.game.draws[self.remaining][0])

    # -- scoring ---------------------------------------------------------------

    def group_scores(self) -> list[int]:
        """Per seat, the largest group of its colour with no cauldron next to the pot."""
        seats = range(1, self.game.num_players + 1)  # the seats' pieces: 1 + colour index
        return largest_groups(self.board, self.pot, self.game.board, seats)[0]

    def _final_outcome(self) -> Outcome:
        players = self.game.num_players
        cauldrons = self.game.cauldrons
        groups = self.group_scores()
        scores = tie_broken_scores(groups, cauldrons)
        best = max(groups)
        leaders = [n for n in range(players) if groups[n] == best]
        if len(leaders) == 1:
            winner = leaders[0]
            reason = say(
                "all {cauldrons} cauldrons placed; {winner} wins with "
                "an unpoisoned {colour} group of {best}",
                cauldrons=cauldrons,
                winner=seat(winner),
                colour=colour_words(winner),
                best=best,
            )
            return Outcome.told((winner,), tuple(scores), reason)
        top = max(scores)
        winners = tuple(n for n in range(players) if scores[n] == top)
        # Seats as "seat N (colour)": a client names the seat (data in the
        # words), the colour says which pieces.
        names = [
            say("{who} ({colour})", who=seat(n), colour=colour_words(n)) for n in range(players)
        ]
        last, before = placers_of_last_two(players, cauldrons)
        verdict = (
            say("so {who} wins", who=names[winners[0]])
            if len(winners) == 1
            else say("a shared win")
        )
        reason = say(
            "all {cauldrons} cauldrons placed; {tied} tie with {best}; "
            "{last} placed last (+1/2) and {before} placed before (-1/2), {verdict}",
            cauldrons=cauldrons,
            tied=say_in(
                "names of a list",
                "{names} and {last}",
                names=Words(", ").join(names[n] for n in leaders[:-1]),
                last=names[leaders[-1]],
            ),
            best=best,
            last=names[last],
            before=names[before],
            verdict=Words.of(verdict),
        )
        return Outcome.told(winners, tuple(scores), reason)

    def is_terminal(self) -> bool:
        """Whether every cauldron has been placed."""
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        """Winners and scores (with any tie-break half points), or None while playing."""
        return self._outcome

    # -- notation --------------------------------------------------------------

    def action_to_string(self, action: Action) -> str:
        """``d4-d1`` slides d4's piece to d1; ``red`` is a draw; ``c3`` places on c3."""
        return self.game.notation[action]

    def _parse_action(self, text: str) -> Action | None:
        game = self.game
        geometry = game.board
        n = geometry.size
        text = text.lower()
        if text in _COLOUR_WORDS:
            return game.draw_base + _COLOUR_WORDS[text]
        circle = geometry.parse(text)
        if circle is not None:
            return game.place_base + circle
        match = _SLIDE_TO.match(text)
        if match:
            origin = geometry.parse(match.group(1))
            target = geometry.parse(match.group(2))
            if origin is None or target is None:
                return None
            return origin * n + target
        match = _SLIDE_DIRECTION.match(text)
        if match:
            origin = geometry.parse(match.group(1))
            direction = _DIRECTION_WORDS.get(match.group(3))
            distance = int(match.group(2)) if match.group(2) else 1
            if origin is None or direction is None:
                return None
            target = geometry.along(origin, direction, distance)
            return None if target is None else origin * n + target
        return None

    def action_label(self, action: Action) -> str:
        """``Slide the pot from d4 to a1``, ``Slide the red cauldron from c2 to b2``,
        ``Place the blue cauldron on c3``; a draw (chance, never offered to a
        seat) reads as its notation. No label names a seat."""
        game = self.game
        names = game.board.names
        if action < game.draw_base:
            origin, target = divmod(action, len(self.board))
            piece = self.board[origin]
            # An empty origin is not a legal slide: there is nothing to move.
            what = "a piece" if piece == EMPTY else _piece_words(PIECE_NAMES[piece])
            return f"Slide {what} from {names[origin]} to {names[target]}"
        if action < game.place_base:
            return game.notation[action]
        what = f"the {COLOURS[self.drawn]} cauldron" if self.drawn >= 0 else "a cauldron"
        return f"Place {what} on {names[action - game.place_base]}"

    def action_move(self, action: Action) -> dict[str, JSON]:
        """The action as data (rules.md, "What the server sends"): circles by
        their names (the observation's ``circles``), pieces and colours by
        their words (the observation's ``board``):

        - ``{"kind": "slide", "from": "d4", "to": "a1", "piece": "pot"}``
          (``piece``: ``"pot"``, ``"red"``, ``"blue"`` or ``"yellow"``);
        - ``{"kind": "place", "on": "c3", "colour": "red"}`` (the colour drawn);
        - ``{"kind": "draw", "colour": "red"}`` (chance: never offered to a seat).
        """
        game = self.game
        names = game.board.names
        if action < game.draw_base:
            origin, target = divmod(action, len(self.board))
            return {
                "kind": "slide",
                "from": names[origin],
                "to": names[target],
                "piece": PIECE_NAMES[self.board[origin]],
            }
        if action < game.place_base:
            return {"kind": "draw", "colour": COLOURS[action - game.draw_base]}
        return {
            "kind": "place",
            "on": names[action - game.place_base],
            "colour": COLOURS[self.drawn] if self.drawn >= 0 else None,
        }

    def event_audience(self, action: Action, viewer: Player | None) -> Hashable:
        """Nothing is hidden: every viewer reads the same event."""
        return None

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        """The event of :meth:`describe_action`. Nothing is hidden (the rulebook
        turns the drawn cauldron "color-side up"), so every viewer reads the same.

        Keys besides ``actor``, ``notation``, ``text`` and its ``words`` (the
        seat it names as data, :func:`apothecary.core.events.new_event`): ``kind`` and, for
        ``"slide"``, ``piece`` (``"pot"`` or a colour), ``from`` and ``to`` (circle
        names); for ``"draw"`` (a chance event), ``seat`` (who draws) and
        ``colour``; for ``"place"``, ``colour`` and ``on`` (a circle name). The
        placement that fills the board also tells how the game ended (its
        ``then`` and ``then_words``, empty for every other action). The seats
        an event concerns are data: ``actor``, and the draw's ``seat``.
        """
        names = self.game.board.names
        notation = self.action_to_string(action)
        then: list[Words] = []
        if self.phase == SLIDE:
            origin, target = divmod(action, len(self.board))
            piece = PIECE_NAMES[self.board[origin]]
            text = say(
                "{who} slides {what} from {origin} to {target}",
                who=seat(actor),
                what=_piece_words(piece),
                origin=names[origin],
                target=names[target],
            )
            args: dict[str, JSON] = {"piece": piece, "from": names[origin], "to": names[target]}
            kind = "slide"
        elif self.phase == DRAW:
            drawn = action - self.game.draw_base
            colour = COLOURS[drawn]
            text = say(
                "{who} turns up a {colour} cauldron",
                who=seat(self.player),
                colour=colour_words(drawn),
            )
            args = {"seat": self.player, "colour": colour}
            kind = "draw"
        else:
            colour = COLOURS[self.drawn]
            circle = names[action - self.game.place_base]
            text = say(
                "{who} places the {colour} cauldron on {circle}",
                who=seat(actor),
                colour=colour_words(self.drawn),
                circle=circle,
            )
            if self.placed + 1 == self.game.cauldrons:
                outcome = after_action(self, action).outcome()
                assert outcome is not None and outcome.words is not None
                then = [outcome.words]
            args = {"colour": colour, "on": circle}
            kind = "place"
        event = new_event(actor, kind, notation, text, args)
        add_then(event, then)
        return event

    # -- what each seat sees -----------------------------------------------------

    def observation(self, player: Player | None) -> dict[str, JSON]:
        """The whole board is public; only the order of the face-down pile is not.

        Every viewer reads the same but for ``viewer``: the rest is made once per
        position (its group sizes are a search of the board) and its values are
        shared by every observation of it: read them, never change them."""
        moves = self.move_number()
        cached = self._public
        if cached is None or cached[0] != moves:
            cached = self._public = (moves, self._public_observation())
        return {"viewer": player, **cached[1]}

    def _public_observation(self) -> dict[str, JSON]:
        game = self.game
        geometry = game.board
        players = game.num_players
        outcome = self._outcome
        last_slide = None
        if self.last_slide >= 0:
            origin, target = divmod(self.last_slide, geometry.size)
            last_slide = [geometry.names[origin], geometry.names[target]]
        return {
            "players": players,
            "radius": geometry.radius,
            "colours": [COLOURS[n] for n in range(players)],
            "neutral": COLOURS[2] if players == 2 else None,
            "circles": list(geometry.names),
            "board": [PIECE_NAMES[piece] for piece in self.board],
            "pot": geometry.names[self.pot],
            "remaining": {COLOURS[c]: self.remaining[c] for c in range(3)},
            "phase": PHASE_NAMES[self.phase],
            "to_move": None if self.phase == OVER else self.player,
            "drawn": COLOURS[self.drawn] if self.drawn >= 0 else None,
            "placed": self.placed,
            "last_slide": last_slide,
            "last_placement": (
                geometry.names[self.last_placement] if self.last_placement >= 0 else None
            ),
            "groups": self.group_scores(),
            "outcome": None if outcome is None else outcome.to_json(),
        }

    def information_state_string(self, player: Player) -> str:
        """Everything is public, so a seat's history is the game's history."""
        notation = self.game.notation
        return f"seat {player}: " + " ".join(notation[a] for a in self._history)

    def observation_tensor(self, player: Player) -> list[float]:
        """Per circle one-hot (empty, red, blue, yellow, pot); draw pile fractions;
        phase; colour drawn; seat to move; the viewing seat; then one-hot over
        the circles: the last slide's origin, its target, and the last placement
        (all 0 before the first). Everything else the observation says (the
        cauldrons placed, the groups, the outcome) follows from the board."""
        game = self.game
        tensor = [0.0] * game.observation_tensor_size()
        for circle, piece in enumerate(self.board):
            tensor[5 * circle + piece] = 1.0
        at = 5 * len(self.board)
        for c in range(3):
            tensor[at + c] = self.remaining[c] / game.per_colour
        at += 3
        tensor[at + self.phase] = 1.0
        at += 4
        if self.drawn >= 0:
            tensor[at + self.drawn] = 1.0
        at += 3
        if self.phase != OVER:
            tensor[at + self.player] = 1.0
        at += game.num_players
        if 0 <= player < game.num_players:
            tensor[at + player] = 1.0
        at += game.num_players
        n = len(self.board)
        if self.last_slide >= 0:
            origin, target = divmod(self.last_slide, n)
            tensor[at + origin] = 1.0
            tensor[at + n + target] = 1.0
        if self.last_placement >= 0:
            tensor[at + 2 * n + self.last_placement] = 1.0
        return tensor

    def information_state_tensor(self, player: Player) -> list[float]:
        """The whole history (everything is public), one-hot: the viewer (one per
        seat), then per turn in order (one per cauldron, all 0 until played)
        the circle slid from, the circle slid to, the colour drawn and the circle
        placed on, ``3n + 3`` numbers for ``n`` circles. A turn's three actions
        are a slide, a draw and a placement, so this is the history itself,
        as :meth:`information_state_string` is."""
        game = self.game
        n = game.board.size
        draw_base = game.draw_base
        place_base = game.place_base
        turn_size = 3 * n + 3
        tensor = [0.0] * game.information_state_tensor_size()
        tensor[player] = 1.0
        at = game.num_players
        for index, action in enumerate(self._history):
            turn = at + (index // 3) * turn_size
            if action < draw_base:
                origin, target = divmod(action, n)
                tensor[turn + origin] = 1.0
                tensor[turn + n + target] = 1.0
            elif action < place_base:
                tensor[turn + 2 * n + action - draw_base] = 1.0
            else:
                tensor[turn + 2 * n + 3 + action - place_base] = 1.0
        return tensor

    def resample_from_infostate(self, player: Player, rng: random.Random) -> State:
        """Nothing that has happened is hidden, so the only consistent state is this one."""
        return self.clone()

    # -- text views ------------------------------------------------------------

    def __str__(self) -> str:
        geometry = self.game.board
        marks = {EMPTY: ".", 1: "R", 2: "B", 3: "Y", POT: "@"}
        lines = geometry.picture([marks[piece] for piece in self.board], width=1)
        drawn = COLOURS[self.drawn] if self.drawn >= 0 else "-"
        lines.append(
            f"phase={PHASE_NAMES[self.phase]} player={self.player} drawn={drawn} "
            f"remaining={','.join(map(str, self.remaining))} placed={self.placed} "
            f"pot={geometry.names[self.pot]}"
        )
        return "\n".join(lines)

    def render(self, player: Player | None) -> str:
        """The board twice side by side: circle names, and what stands on them."""
        view = self.observation(player)
        names: list[str] = view["circles"]
        marks = {"": ".", "red": "R", "blue": "B", "yellow": "Y", "pot": "@"}
        pieces = [marks[piece] for piece in view["board"]]
        geometry = board(view["radius"])
        left = geometry.picture(names, width=3)
        right = geometry.picture(pieces, width=3)
        span = max(len(line) for line in left) + 6
        lines = [f"{a.ljust(span)}{b}" for a, b in zip(left, right, strict=True)]
        remaining = ", ".join(f"{c} {k}" for c, k in view["remaining"].items())
        seats = ", ".join(f"seat {s} {c}" for s, c in enumerate(view["colours"]))
        if view["neutral"]:
            seats += f"; {view['neutral']} neutral"
        lines.append("")
        lines.append(f"R red, B blue, Y yellow, @ the pot (on {view['pot']}); {seats}")
        lines.append(f"face down: {remaining}; placed {view['placed']}")
        if view["last_slide"]:
            lines.append(f"last slide: {view['last_slide'][0]}-{view['last_slide'][1]}")
        if view["last_placement"]:
            lines.append(f"last placement: {view['last_placement']}")
        groups = ", ".join(f"{view['colours'][s]} {g}" for s, g in enumerate(view["groups"]))
        lines.append(f"unpoisoned groups now: {groups}")
        outcome = view["outcome"]
        if outcome is not None:
            lines.append(f"game over: {outcome['reason']}")
        else:
            mover = view["to_move"]
            colour = view["colours"][mover]
            if view["phase"] == "slide":
                lines.append(f"seat {mover} ({colour}) to slide a piece (from-to, e.g. d4-d1)")
            elif view["phase"] == "draw":
                lines.append(f"seat {mover} ({colour}) draws a cauldron")
            else:
                lines.append(f"seat {mover} ({colour}) to place the {view['drawn']} cauldron")
        return "\n".join(lines)


__all__ = [
    "COLOURS",
    "PoisonPotGame",
    "PoisonPotState",
    "circle_group_sizes",
    "largest_groups",
    "placers_of_last_two",
    "tie_broken_scores",
]
