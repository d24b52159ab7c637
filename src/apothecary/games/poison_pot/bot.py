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
"""

from __future__ import annotations

from typing import Any

from apothecary.core.bot import Bot, register_bot
from apothecary.core.game import Action, State
from apothecary.games.poison_pot.board import Board, Circle, board
from apothecary.games.poison_pot.rules import circle_group_sizes, tie_broken_scores

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


def colour_value(
    cells: list[int], pot: Circle, geometry: Board, piece: int, reach: set[Circle]
) -> float:
    """How good the groups of ``piece`` look: the best of its groups, each worth
    its size, less if the pot touches it or can be slid to touch it."""
    neighbours = geometry.neighbours
    touching = neighbours[pot]
    seen: set[Circle] = set()
    best = 0.0
    for start, here in enumerate(cells):
        if here != piece or start in seen:
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
        if value > best:
            best = value
    return best


def position_value(
    cells: list[int], pot: Circle, geometry: Board, seat: int, players: int
) -> float:
    """The seat's best group value minus the best opponent's."""
    reach = _pot_reach(cells, pot, geometry)
    mine = colour_value(cells, pot, geometry, seat + 1, reach)
    theirs = max(
        colour_value(cells, pot, geometry, other + 1, reach)
        for other in range(players)
        if other != seat
    )
    return mine - theirs


class Endgame:
    """Exact expectimax over the rest of the game, on the bot's own copy of the
    board. Values are per seat: the share of the win, plus a tiny bonus for the
    final lead so that equal chances are split by margin."""

    def __init__(self, geometry: Board, players: int) -> None:
        self.geometry = geometry
        self.players = players
        self.cauldrons = geometry.size - 1

    def final(self, cells: list[int], pot: Circle) -> list[float]:
        """The value of a full board to every seat."""
        groups = [
            circle_group_sizes(cells, pot, self.geometry, seat + 1)[0]
            for seat in range(self.players)
        ]
        scores = tie_broken_scores(groups, self.cauldrons)
        top = max(scores)
        winners = [seat for seat in range(self.players) if scores[seat] == top]
        values = []
        for seat in range(self.players):
            share = 1.0 / len(winners) if seat in winners else 0.0
            lead = scores[seat] - max(s for other, s in enumerate(scores) if other != seat)
            values.append(share + MARGIN_WEIGHT * lead)
        return values

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
        best: list[float] | None = None
        for origin, target in self.slides(cells):
            piece = cells[origin]
            cells[target], cells[origin] = piece, 0
            value = self.draw(cells, target if piece == _POT else pot, remaining, mover)
            cells[origin], cells[target] = piece, 0
            if best is None or value[mover] > best[mover]:
                best = value
        assert best is not None  # a board with a cauldron to place always has a slide
        return best

    def draw(
        self, cells: list[int], pot: Circle, remaining: tuple[int, ...], mover: int
    ) -> list[float]:
        """The value after ``mover``'s slide: the draw's expectation."""
        left = sum(remaining)
        expected = [0.0] * self.players
        for colour, count in enumerate(remaining):
            if not count:
                continue
            after = tuple(n - (c == colour) for c, n in enumerate(remaining))
            value = self.place(cells, pot, after, mover, colour + 1)
            for seat in range(self.players):
                expected[seat] += count / left * value[seat]
        return expected

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
        if view["phase"] == "slide":
            for action in legal:
                origin_name, target_name = state.action_to_string(action).split("-")
                origin = geometry.by_name[origin_name]
                target = geometry.by_name[target_name]
                piece = cells[origin]
                cells[target], cells[origin] = piece, 0
                after_pot = target if piece == _POT else pot
                value = position_value(cells, after_pot, geometry, self.seat, players)
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
                value = position_value(cells, pot, geometry, self.seat, players)
                cells[circle] = 0
                if value > best_value:
                    best_value, best = value, [action]
                elif value == best_value:
                    best.append(action)
        return self.rng.choice(best)

    def _search_slide(
        self, state: State, view: dict[str, Any], cells: list[int], pot: Circle, geometry: Board
    ) -> Action:
        endgame = Endgame(geometry, view["players"])
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
        endgame = Endgame(geometry, view["players"])
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
)
