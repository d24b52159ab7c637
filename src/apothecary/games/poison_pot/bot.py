"""A rule-based Poison Pot bot: greedy one-ply look-ahead on group sizes.

It reads only its seat's observation and the legal actions' notation. For a
slide it tries every legal slide and keeps the one after which its own best
group, minus the best opponent's, is largest; for a placement it does the same
over the empty circles with the drawn cauldron. Groups next to the pot count a
little (the pot may leave), groups the pot can reach in one slide count a
little less (the next player may bring it), ties are broken at random.
"""

from __future__ import annotations

from apothecary.core.bot import Bot, register_bot
from apothecary.core.game import Action, State
from apothecary.games.poison_pot.board import Board, Circle, board

_PIECES: dict[str, int] = {"": 0, "red": 1, "blue": 2, "yellow": 3, "pot": 4}
_POT = 4

POISONED_WEIGHT = 0.3
"""What a group next to the pot is worth per cauldron: the pot may still move away."""
THREATENED_WEIGHT = 0.7
"""What a safe group is worth per cauldron when the pot can reach it in one slide."""


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


class RuleBot(Bot):
    """Greedy one-ply: the slide or placement that leaves the best group balance."""

    def _choose(self, state: State) -> Action:
        view = state.observation(self.seat)
        legal = state.legal_actions()
        geometry = board(view["radius"])
        cells = [_PIECES[piece] for piece in view["board"]]
        pot = geometry.by_name[view["pot"]]
        players: int = view["players"]
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


register_bot("poison-pot", "rules", RuleBot, "greedy one-ply look-ahead on unpoisoned groups")
