"""A rule-based Poison Pot bot: greedy one-ply look-ahead on group sizes, and
an exact search of the last two turns.

It reads only its seat's observation and the legal actions' notation. For a
slide it tries every legal slide and keeps the one after which its own best
group, minus the best opponent's, is largest; for a placement it does the same
over the empty circles with the drawn cauldron. Groups next to the pot count a
little (the pot may leave), groups the pot can reach in one slide count a
little less (the next player may bring it), ties are broken at random.

When at most two circles are left empty for its slide (three for its
placement), the rest of the game is small enough to search exactly: every
slide, every draw with its probability, every placement, each player choosing
what maximises their own chance of winning under the real scoring, tie-break
included.

Both remember work they would otherwise repeat, which changes no choice: the
greedy look-ahead the values of the colours a candidate leaves in place, the
endgame search the values of positions, kept across searches and bots.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.bot import Bot, register_bot, register_room_budget
from apothecary.core.errors import BadOptionError
from apothecary.core.game import Action, Game, State
from apothecary.games.poison_pot.board import Board, Circle, board
from apothecary.games.poison_pot.rules import largest_groups, tie_broken_scores

_PIECES: dict[str, int] = {"": 0, "red": 1, "blue": 2, "yellow": 3, "pot": 4}
_POT = 4

POISONED_WEIGHT = 0.3
"""What a group next to the pot is worth per cauldron: the pot may still move away."""
THREATENED_WEIGHT = 0.7
"""What a safe group is worth per cauldron when the pot can reach it in one slide."""
ENDGAME_EMPTY_CIRCLES = 2
"""Search exactly once a slide has at most this many empty circles to go to."""
MARGIN_WEIGHT = 0.001
"""Among equal chances to win, prefer the larger lead (small enough never to
outweigh a difference in winning chances, which is at least 1/6)."""


def _pot_reach(cells: list[int], pot: Circle, geometry: Board) -> set[Circle]:
    """The circles next to the pot now or after any one slide of the pot."""
    reach = set(geometry.neighbours[pot])
    for ray in geometry.rays[pot]:
        for target in ray:
            if cells[target]:
                break
            reach.update(geometry.neighbours[target])
    return reach


def colour_values(
    cells: list[int], pot: Circle, geometry: Board, reach: set[Circle], wanted: list[bool]
) -> list[float]:
    """How good the groups of each piece with ``wanted[piece]`` look, from one
    pass over the board (indexed by piece; 0.0 for the others): the best of its
    groups, each worth its size, less if the pot touches it or can be slid to
    touch it."""
    neighbours = geometry.neighbours
    touching = neighbours[pot]
    seen: set[Circle] = set()
    best = [0.0] * len(wanted)
    for start, piece in enumerate(cells):
        if not wanted[piece] or start in seen:
            continue
        seen.add(start)
        stack = [start]
        size = 0
        poisoned = threatened = False
        while stack:
            circle = stack.pop()
            size += 1
            if circle in reach:
                threatened = True
                if circle in touching:
                    poisoned = True
            for other in neighbours[circle]:
                if cells[other] == piece and other not in seen:
                    seen.add(other)
                    stack.append(other)
        if poisoned:
            value = POISONED_WEIGHT * size
        elif threatened:
            value = THREATENED_WEIGHT * size
        else:
            value = float(size)
        if value > best[piece]:
            best[piece] = value
    return best


Known = dict[tuple[int, Circle, frozenset[Circle]], float]
"""Colour values remembered across one decision's candidate moves: (piece, pot, reach) -> value."""


def position_value(
    cells: list[int],
    pot: Circle,
    geometry: Board,
    seat: int,
    players: int,
    moved: int = 0,
    known: Known | None = None,
) -> float:
    """The seat's best group value minus the best opponent's.

    With ``known``, the board is one candidate of a decision whose every
    candidate leaves all pieces but ``moved`` (the piece placed or slid) where
    they were; the value of such a colour then depends only on the pot and its
    reach, so it is looked up in ``known`` or, once worked out, kept there.
    """
    reach = _pot_reach(cells, pot, geometry)
    memo: Known = {} if known is None else known
    shape = frozenset(reach) if known is not None else frozenset()
    values = [0.0] * len(_PIECES)
    wanted = [False] * len(_PIECES)
    for piece in range(1, players + 1):
        value = memo.get((piece, pot, shape)) if piece != moved else None
        if value is None:
            wanted[piece] = True
        else:
            values[piece] = value
    fresh = colour_values(cells, pot, geometry, reach, wanted)
    for piece in range(1, players + 1):
        if wanted[piece]:
            values[piece] = fresh[piece]
            if piece != moved:
                memo[(piece, pot, shape)] = fresh[piece]
    mine = values[seat + 1]
    return mine - max(values[other + 1] for other in range(players) if other != seat)


ENDGAME_MEMO = 10_000
"""At most this many values of each kind an endgame search remembers before it
forgets them all: a few megabytes. The overlap that pays is between the
searches of one game, a few thousand values; a larger memory measured no faster."""


class Endgame:
    """Exact expectimax over the rest of the game, on the bot's own copy of the
    board. Values are per seat: the share of the win, plus a tiny bonus for the
    final lead so that equal chances are split by margin.

    The values of full boards, turns and draws are remembered (a value depends
    on the position only), because the searches of one game overlap: a
    placement searched with three circles empty has already valued every slide
    of the next player's search and every placement after it, and different
    orders of the same moves reach the same boards. One instance serves
    every bot of a board and player count (:func:`shared_endgame`); the values
    handed out are shared, so callers only read them.
    """

    def __init__(self, geometry: Board, players: int) -> None:
        self.geometry = geometry
        self.players = players
        self.cauldrons = geometry.size - 1
        self._finals: dict[tuple[Any, ...], list[float]] = {}
        self._turns: dict[tuple[Any, ...], list[float]] = {}
        self._draws: dict[tuple[Any, ...], list[float]] = {}

    def _remember(
        self, memo: dict[tuple[Any, ...], list[float]], key: tuple[Any, ...], value: list[float]
    ) -> list[float]:
        if len(memo) >= ENDGAME_MEMO:
            memo.clear()  # a bound on memory; forgetting only costs time
        memo[key] = value
        return value

    def final(self, cells: list[int], pot: Circle) -> list[float]:
        """The value of a full board to every seat."""
        key = (bytes(cells), pot)
        known = self._finals.get(key)
        if known is not None:
            return known
        groups = largest_groups(cells, pot, self.geometry, range(1, self.players + 1))[0]
        scores = tie_broken_scores(groups, self.cauldrons)
        top = max(scores)
        winners = [seat for seat in range(self.players) if scores[seat] == top]
        values = []
        for seat in range(self.players):
            share = 1.0 / len(winners) if seat in winners else 0.0
            lead = scores[seat] - max(s for other, s in enumerate(scores) if other != seat)
            values.append(share + MARGIN_WEIGHT * lead)
        return self._remember(self._finals, key, values)

    def slides(self, cells: list[int]) -> list[tuple[Circle, Circle]]:
        """Every (from, to) slide: walk out from each empty circle to the first piece."""
        found = []
        for target, piece in enumerate(cells):
            if piece:
                continue
            for ray in self.geometry.rays[target]:
                for origin in ray:
                    if cells[origin]:
                        found.append((origin, target))
                        break
        return found

    def turn(
        self, cells: list[int], pot: Circle, remaining: tuple[int, ...], mover: int
    ) -> list[float]:
        """The value of ``mover`` being about to slide (or of the end of the game)."""
        if not sum(remaining):
            return self.final(cells, pot)
        key = (bytes(cells), pot, remaining, mover)
        known = self._turns.get(key)
        if known is not None:
            return known
        best: list[float] | None = None
        for origin, target in self.slides(cells):
            piece = cells[origin]
            cells[target], cells[origin] = piece, 0
            value = self.draw(cells, target if piece == _POT else pot, remaining, mover)
            cells[origin], cells[target] = piece, 0
            if best is None or value[mover] > best[mover]:
                best = value
        assert best is not None  # a board with a cauldron to place always has a slide
        return self._remember(self._turns, key, best)

    def draw(
        self, cells: list[int], pot: Circle, remaining: tuple[int, ...], mover: int
    ) -> list[float]:
        """The value after ``mover``'s slide: the draw's expectation."""
        key = (bytes(cells), pot, remaining, mover)
        known = self._draws.get(key)
        if known is not None:
            return known
        left = sum(remaining)
        expected = [0.0] * self.players
        for colour, count in enumerate(remaining):
            if not count:
                continue
            after = tuple(n - (c == colour) for c, n in enumerate(remaining))
            value = self.place(cells, pot, after, mover, colour + 1)
            for seat in range(self.players):
                expected[seat] += count / left * value[seat]
        return self._remember(self._draws, key, expected)

    def place(
        self, cells: list[int], pot: Circle, remaining: tuple[int, ...], mover: int, piece: int
    ) -> list[float]:
        """The value of ``mover`` holding ``piece``: its best placement."""
        best: list[float] | None = None
        for circle, here in enumerate(cells):
            if here:
                continue
            cells[circle] = piece
            value = self.turn(cells, pot, remaining, (mover + 1) % self.players)
            cells[circle] = 0
            if best is None or value[mover] > best[mover]:
                best = value
        assert best is not None
        return best


_ENDGAMES: dict[tuple[int, int], Endgame] = {}


def shared_endgame(geometry: Board, players: int) -> Endgame:
    """The search (and its memory) every bot shares for a board and a number of players."""
    key = (geometry.size, players)  # the size fixes the board
    search = _ENDGAMES.get(key)
    if search is None:
        search = _ENDGAMES[key] = Endgame(geometry, players)
    return search


class RuleBot(Bot):
    """Greedy one-ply: the slide or placement that leaves the best group balance."""

    def _choose(self, state: State) -> Action:
        view = state.observation(self.seat)
        legal = state.legal_actions()
        geometry = board(view["radius"])
        cells = [_PIECES[piece] for piece in view["board"]]
        pot = geometry.by_name[view["pot"]]
        players: int = view["players"]
        empty = cells.count(0)
        if view["phase"] == "slide" and empty <= ENDGAME_EMPTY_CIRCLES:
            return self._search_slide(state, view, cells, pot, geometry)
        if view["phase"] == "place" and empty <= ENDGAME_EMPTY_CIRCLES + 1:
            return self._search_placement(state, view, cells, pot, geometry)
        best_value = float("-inf")
        best: list[Action] = []
        known: Known = {}
        if view["phase"] == "slide":
            for action in legal:
                origin_name, target_name = state.action_to_string(action).split("-")
                origin = geometry.by_name[origin_name]
                target = geometry.by_name[target_name]
                piece = cells[origin]
                cells[target], cells[origin] = piece, 0
                after_pot = target if piece == _POT else pot
                value = position_value(cells, after_pot, geometry, self.seat, players, piece, known)
                cells[origin], cells[target] = piece, 0
                if value > best_value:
                    best_value, best = value, [action]
                elif value == best_value:
                    best.append(action)
        else:
            piece = _PIECES[view["drawn"]]
            for action in legal:
                circle = geometry.by_name[state.action_to_string(action)]
                cells[circle] = piece
                value = position_value(cells, pot, geometry, self.seat, players, piece, known)
                cells[circle] = 0
                if value > best_value:
                    best_value, best = value, [action]
                elif value == best_value:
                    best.append(action)
        return self.rng.choice(best)

    def _search_slide(
        self, state: State, view: dict[str, Any], cells: list[int], pot: Circle, geometry: Board
    ) -> Action:
        endgame = shared_endgame(geometry, view["players"])
        remaining = tuple(view["remaining"][colour] for colour in ("red", "blue", "yellow"))
        scored = []
        for action in state.legal_actions():
            origin_name, target_name = state.action_to_string(action).split("-")
            origin = geometry.by_name[origin_name]
            target = geometry.by_name[target_name]
            piece = cells[origin]
            cells[target], cells[origin] = piece, 0
            after_pot = target if piece == _POT else pot
            value = endgame.draw(cells, after_pot, remaining, self.seat)
            cells[origin], cells[target] = piece, 0
            scored.append((value[self.seat], action))
        return self._pick_best(scored)

    def _search_placement(
        self, state: State, view: dict[str, Any], cells: list[int], pot: Circle, geometry: Board
    ) -> Action:
        endgame = shared_endgame(geometry, view["players"])
        remaining = tuple(view["remaining"][colour] for colour in ("red", "blue", "yellow"))
        piece = _PIECES[view["drawn"]]
        scored = []
        for action in state.legal_actions():
            circle = geometry.by_name[state.action_to_string(action)]
            cells[circle] = piece
            value = endgame.turn(cells, pot, remaining, (self.seat + 1) % view["players"])
            cells[circle] = 0
            scored.append((value[self.seat], action))
        return self._pick_best(scored)

    def _pick_best(self, scored: list[tuple[float, Action]]) -> Action:
        top = max(value for value, _ in scored)
        # Expectations are sums of float products; treat near-equal as equal.
        return self.rng.choice([action for value, action in scored if value >= top - 1e-9])


register_bot(
    "poison-pot",
    "rules",
    RuleBot,
    "greedy one-ply look-ahead on unpoisoned groups; exact search of the last two turns",
    quick=True,
)

ROOM_ROLLOUT_RADIUS = 4
"""The largest board a room's ``rollout`` bot plays: its cost grows with the
square of the circles (each rollout plays the board out, for each circle)."""


def room_rollout_budget(game: Game) -> dict[str, int | float | str]:
    """``rollout`` in a room: the hard level's 60 rollouts on the published
    37-circle board, scaled by (37 / circles)², between 10 and the bot's own 200;
    refused past :data:`ROOM_ROLLOUT_RADIUS` (its own 200 took 66 s a move at radius 4)."""
    radius = int(game.options["radius"])
    if radius > ROOM_ROLLOUT_RADIUS:
        raise BadOptionError(
            f"the rollout bot plays boards of radius {ROOM_ROLLOUT_RADIUS} at most in a room "
            f"(this one is {radius}); choose a level"
        )
    circles = 3 * radius * (radius + 1) + 1
    return {"rollouts": max(10, min(200, round(60 * (37 / circles) ** 2)))}


register_room_budget("poison-pot", "rollout", room_rollout_budget)
