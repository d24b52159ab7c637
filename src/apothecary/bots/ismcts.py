"""Information-set Monte Carlo tree search, generic over the game protocol.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012) for any number
of seats: each iteration draws a world with ``resample_from_infostate`` for
the bot's own seat, walks a tree whose nodes are the acting seat's
information states, expands one node, plays randomly to the end and backs up
every seat's return to the nodes where that seat acted. Selection is UCB1 over
the actions available in the current world, with availability counts (an
action unavailable in some worlds is not penalised for it).

The bot only ever touches the state it is given through
``resample_from_infostate(seat, rng)`` and ``legal_actions()``, both of which
depend on nothing but what its seat knows, so two states the seat cannot
tell apart give the same choice for the same seed.
"""

from __future__ import annotations

import math
import time

from apothecary.bots.rollout import policy_bots
from apothecary.core.bot import Bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import CHANCE, Action, Game, Player, State, sample_chance

MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 600.0


class _Node:
    """Statistics of one information state of the seat to act there."""

    __slots__ = ("available", "totals", "visits")

    def __init__(self) -> None:
        self.visits: dict[Action, int] = {}
        self.totals: dict[Action, float] = {}
        self.available: dict[Action, int] = {}


class ISMCTSBot(Bot):
    """ISMCTS with an iteration or time budget (iterations win when both are given).

    ``rollout`` names the bot that plays the playouts (default: uniformly random).
    """

    searches = True

    def __init__(
        self,
        game: Game,
        seat: Player,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        exploration: float = 0.7,
        rollout: str = "random",
    ) -> None:
        super().__init__(game, seat, seed)
        if iterations is None and seconds is None:
            iterations = 500
        if iterations is not None and (
            not isinstance(iterations, int) or not 1 <= iterations <= MAX_ITERATIONS
        ):
            raise BadOptionError(
                f"ismcts iterations={iterations!r}: expected 1 to {MAX_ITERATIONS}"
            )
        if seconds is not None and (
            not isinstance(seconds, int | float) or not 0 < seconds <= MAX_SECONDS
        ):
            raise BadOptionError(f"ismcts seconds={seconds!r}: expected > 0 and <= {MAX_SECONDS}")
        if not isinstance(exploration, int | float) or not 0 <= exploration <= 10:
            raise BadOptionError(f"ismcts exploration={exploration!r}: expected 0 to 10")
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = float(exploration)
        self.rollout = rollout
        # Playouts by a bot of the registry (a game's rules bot, say) instead of
        # uniformly random moves: each seat's playout bot reads only that seat's
        # view of the drawn world, so the search stays fair.
        self._rollout_bots = None if rollout == "random" else policy_bots(game, rollout, self.rng)
        self.last_iterations = 0
        """How many iterations the last decision ran (for measurement)."""

    def _choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        tree: dict[tuple[Player, str], _Node] = {}
        # Every world drawn is one the seat cannot tell from this state, so the
        # root's key is known without asking each world for its information state.
        root_key = self._key(state, self.seat)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        count = 0
        while True:
            if self.iterations is not None and count >= self.iterations:
                break
            if self.iterations is None and deadline is not None and time.perf_counter() >= deadline:
                break
            self._iterate(state.resample_from_infostate(self.seat, self.rng), tree, root_key)
            count += 1
        self.last_iterations = count
        root = tree.get(root_key)
        if root is None:
            return self.rng.choice(legal)
        # The most visited action is the robust choice; ties go to the lowest id.
        return max(legal, key=lambda a: (root.visits.get(a, 0), -a))

    @staticmethod
    def _key(state: State, player: Player) -> tuple[Player, str]:
        # A tuple rather than one joined string: the information state string's
        # hash is computed once (and cached by games that keep the string),
        # where a new joined string would be hashed afresh on every lookup.
        return (player, state.information_state_string(player))

    def _iterate(
        self, world: State, tree: dict[tuple[Player, str], _Node], root_key: tuple[Player, str]
    ) -> None:
        rng = self.rng
        path: list[tuple[_Node, Action, Player]] = []
        key: tuple[Player, str] | None = root_key
        # The tree walk: select down the stored nodes until one is added.
        while not world.is_terminal():
            player = world.current_player()
            if player == CHANCE:
                world.apply_action(sample_chance(world, rng))
                continue
            legal = world.legal_actions()
            if key is None:
                key = (player, world.information_state_string(player))
            node = tree.get(key)
            if node is None:
                node = tree[key] = _Node()
                action = self._select(node, legal)
                path.append((node, action, player))
                world.apply_action(action)
                break
            action = self._select(node, legal)
            path.append((node, action, player))
            world.apply_action(action)
            key = None
        # The playout, with the world's methods bound once: this loop is most of
        # the time of an iteration in long games.
        is_terminal, current_player = world.is_terminal, world.current_player
        apply_action, legal_actions = world.apply_action, world.legal_actions
        playout = self._rollout_bots
        if playout is None:
            choice = rng.choice
            while not is_terminal():
                if current_player() == CHANCE:
                    apply_action(sample_chance(world, rng))
                else:
                    apply_action(choice(legal_actions()))
        else:
            while not is_terminal():
                player = current_player()
                if player == CHANCE:
                    apply_action(sample_chance(world, rng))
                else:
                    apply_action(playout[player].step(world))
        returns = world.returns()
        for node, action, player in path:
            visits = node.visits
            visits[action] = visits.get(action, 0) + 1
            totals = node.totals
            totals[action] = totals.get(action, 0.0) + returns[player]

    def _select(self, node: _Node, legal: list[Action]) -> Action:
        available = node.available
        visits = node.visits
        untried = None
        for action in legal:
            available[action] = available.get(action, 0) + 1
            if action not in visits:
                if untried is None:
                    untried = [action]
                else:
                    untried.append(action)
        if untried is not None:
            return self.rng.choice(untried)
        c = self.exploration
        totals = node.totals
        log = math.log
        best, best_score = legal[0], -math.inf
        for action in legal:
            n = visits[action]
            score = totals[action] / n + c * math.sqrt(log(available[action]) / n)
            if score > best_score:
                best, best_score = action, score
        return best
