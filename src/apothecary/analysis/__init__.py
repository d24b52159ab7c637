"""Move-by-move analysis of a game: for each decision, the value of every legal
move to the seat that made it, as the strongest bot estimates it from that
seat's information alone.

The estimate is the bots' own method (docs/bots.md): draw worlds the seat
cannot tell from the real one (``resample_from_infostate``), play each legal
move in every drawn world with the same chance and playout randomness
(common random numbers), and let a playout policy (the game's ``rules`` bot,
by default, or the one its manifest's ``analysis_policy`` prefers, such as a
stored equilibrium) play every seat to the end. Where a solver knows the
answer the value is exact instead: a game's manifest may name an
``exact_values`` function (:class:`~apothecary.core.manifest.GameManifest`),
which says for which positions it has one (docs/analysis.md lists them).

A value is a win share (1/k for each of k winners) except in one-player
games, where it is the game's score: that is what a solo solver maximises.
Nothing here reads the true state of a decision beyond what its seat
observes, so two worlds the seat cannot tell apart give the same analysis for
the same seed (tests/analysis checks that).
See docs/analysis.md.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from apothecary import bots as bot_registry
from apothecary.bots.rollout import RolloutBot, play_out, policy_bots
from apothecary.core.bot import Bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import CHANCE, JSON, Action, Game, Player, State
from apothecary.core.manifest import resolve
from apothecary.core.records import Record
from apothecary.core.registry import manifest

DEFAULT_BOT = "hard"
"""The level whose playout policy analyses a game unless told otherwise."""

DEFAULT_PLAYOUTS = 8
"""Playouts per legal move of a decision (each in its own drawn world)."""

MAX_PLAYOUTS = 10_000

ExactValues = Callable[
    [State, Player], tuple[dict[Action, float], dict[Action, list[float]]] | None
]
"""A manifest's ``exact_values``: each legal move's value for the seat and every
seat's outlook, or None where the solver cannot say."""


@dataclass(frozen=True)
class Plan:
    """How decisions are valued: the playout policy, the playouts per move,
    and whether solvers may give exact values."""

    bot: str
    """What was asked for (a level or a bot name), for the report."""
    policy: str
    """The bot that plays every seat in the playouts (never one that searches)."""
    playouts: int
    exact: bool = True
    budget: int | None = None
    """At most this many playouts a decision in all (a server's bound: a move
    with many legal moves gets fewer playouts each, but at least one)."""

    def per_move(self, moves: int) -> int:
        """Playouts for each of ``moves`` legal moves."""
        if self.budget is None:
            return self.playouts
        return max(1, min(self.playouts, self.budget // max(1, moves)))

    def to_json(self) -> dict[str, JSON]:
        """JSON-ready."""
        return {
            "bot": self.bot,
            "policy": self.policy,
            "playouts": self.playouts,
            "exact": self.exact,
            "budget": self.budget,
        }


def plan(game: Game, bot: str = DEFAULT_BOT, playouts: int | None = None) -> Plan:
    """The plan for analysing ``game`` with bot or level ``bot``.

    A level resolves to its bot. A rollout bot's policy plays out; a search
    of another kind (ISMCTS, an endgame search) plays out with the game's
    rules bot (uniformly random where there is none); a bot that does not
    search is itself the policy. Where the game's manifest names a stronger
    policy for the configuration (its ``analysis_policy``, such as a stored
    equilibrium), the default plays out with it.
    """
    if playouts is not None and (
        not isinstance(playouts, int)
        or isinstance(playouts, bool)
        or not 1 <= playouts <= MAX_PLAYOUTS
    ):
        raise BadOptionError(f"playouts={playouts!r}: expected 1 to {MAX_PLAYOUTS}")
    name, budget = bot_registry.parse_spec(bot)
    if name in bot_registry.LEVEL_NAMES:
        level = bot_registry.levels(game.name)[name]
        name, budget = level.bot, {**level.budget, **budget}
    available = bot_registry.entries(game.name)
    if name not in available:
        raise BadOptionError(
            f"unknown bot {name!r} for {game.name}; available: "
            f"{', '.join([*available, *bot_registry.LEVEL_NAMES])}"
        )
    fallback = "rules" if "rules" in available else "random"
    if name == "rollout":
        policy = str(budget.get("policy", "rules"))
    elif getattr(available[name].factory, "searches", False):
        # A search (ISMCTS, a game's endgame search) is no playout policy itself.
        policy = fallback
    else:
        policy = bot if ":" in bot else name
        # A bot made by a function can be a search for one configuration only (In Vino
        # Morte's ``equilibrium``: the stored equilibrium where there is one, else a
        # rollout), which the registry entry cannot say: ask the bot made for this game.
        made = bot_registry.load(name, game, 0, seed=0, **budget)
        if isinstance(made, RolloutBot):
            policy = made.policy
        elif made.searches:
            policy = fallback
    own = _own_policy(game) if bot == DEFAULT_BOT else None
    if own is not None:
        policy = own
    # Made once here so a bad policy is refused before any work, not in a worker.
    policy_bots(game, policy, random.Random(0))
    return Plan(bot, policy, DEFAULT_PLAYOUTS if playouts is None else playouts)


def _own_policy(game: Game) -> str | None:
    """The playout policy the game's manifest prefers for this configuration, if
    it names one and the game has that bot."""
    where = manifest(game.name).analysis_policy
    if where is None:
        return None
    choose: Callable[[Game], str | None] = resolve(where)
    policy = choose(game)
    return policy if policy in bot_registry.entries(game.name) else None


# -- values of one decision ------------------------------------------------------------


@dataclass
class Decision:
    """One decision of a game, valued: every legal move for the seat that moved."""

    step: int
    """The action's index in the game (chance included)."""
    seat: Player
    method: str
    """``playouts`` (estimated) or ``solver`` (exact)."""
    moves: list[dict[str, JSON]]
    """Every legal move: ``action``, ``notation``, ``label``, ``value``; best first."""
    outlook: list[float]
    """Each seat's expected value if the best move is played, as this seat reckons it."""
    played: dict[str, JSON] | None = None
    """The move played (one of :attr:`moves`), once known."""
    after: list[float] | None = None
    """Each seat's expected value after the move played, as this seat reckons it."""
    outlooks: dict[Action, list[float]] = field(default_factory=dict, repr=False)
    """Each legal move's :attr:`outlook` (kept to fill :attr:`after` in)."""

    @property
    def best(self) -> dict[str, JSON]:
        """The move valued highest (ties: the lowest action id)."""
        return self.moves[0]

    @property
    def gap(self) -> float | None:
        """How much less the move played is worth than the best."""
        if self.played is None:
            return None
        return float(self.best["value"]) - float(self.played["value"])

    def to_json(self) -> dict[str, JSON]:
        """JSON-ready."""
        return {
            "step": self.step,
            "seat": self.seat,
            "method": self.method,
            "moves": self.moves,
            "best": self.best,
            "played": self.played,
            "gap": self.gap,
            "outlook": self.outlook,
            "after": self.after,
        }


def derived_seed(*parts: object) -> int:
    """A 64-bit seed from public parts (a base seed, a step number)."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def values_of(world: State) -> list[float]:
    """What a finished game is worth to each seat: its win share, or alone its score."""
    if world.game.num_players == 1:
        outcome = world.outcome()
        return [0.0 if outcome is None else float(outcome.scores[0])]
    return world.returns()


def evaluate(state: State, the_plan: Plan, seed: int) -> Decision:
    """Value every legal move of the seat to move in ``state``, from its information only.

    Reads ``state`` through the protocol only: ``current_player``,
    ``legal_actions``, notation, ``observation(seat)`` and
    ``resample_from_infostate(seat, ...)``; so it gives the same answer in
    every world the seat cannot tell from this one.
    """
    seat = state.current_player()
    if seat < 0:
        raise BadOptionError("a decision is valued where a seat is to move")
    exact = _exact_values(state, seat) if the_plan.exact else None
    if exact is not None:
        values, outlooks = exact
        method = "solver"
    else:
        values, outlooks = _playout_values(state, seat, the_plan, seed)
        method = "playouts"
    legal = state.legal_actions()
    order = sorted(legal, key=lambda a: (-values[a], a))
    moves: list[dict[str, JSON]] = [
        {
            "action": a,
            "notation": state.action_to_string(a),
            "label": state.action_label(a),
            "value": values[a],
        }
        for a in order
    ]
    return Decision(state.move_number(), seat, method, moves, outlooks[order[0]], outlooks=outlooks)


def _playout_values(
    state: State, seat: Player, the_plan: Plan, seed: int
) -> tuple[dict[Action, float], dict[Action, list[float]]]:
    rng = random.Random(seed)
    players = policy_bots(state.game, the_plan.policy, rng)
    legal = state.legal_actions()
    n = state.game.num_players
    totals = {a: [0.0] * n for a in legal}
    count = the_plan.per_move(len(legal))
    for _ in range(count):
        world = state.resample_from_infostate(seat, rng)
        common = rng.getrandbits(64)
        for action in legal:
            playout = world.clone()
            playout.apply_action(action)
            for player, bot in enumerate(players):
                bot.rng.seed(common + player)
            play_out(playout, players, random.Random(common))
            for q, v in enumerate(values_of(playout)):
                totals[action][q] += v
    outlooks = {a: [t / count for t in totals[a]] for a in legal}
    return {a: outlooks[a][seat] for a in legal}, outlooks


def _exact_values(
    state: State, seat: Player
) -> tuple[dict[Action, float], dict[Action, list[float]]] | None:
    """Exact values where the game's manifest names a solver that has them, else None."""
    where = manifest(state.game.name).exact_values
    if where is None:
        return None
    values: ExactValues = resolve(where)
    return values(state, seat)


class Analyst(Bot):
    """A bot that values its seat's moves (:func:`evaluate`) and plays the best,
    so that the server's bot pool (:class:`~apothecary.bots.pool.ThinkingPool`)
    can run an analysis: the pool hands the bot back, :attr:`decision` filled in."""

    searches = True

    def __init__(
        self, game: Game, seat: Player, seed: int | None = None, *, the_plan: Plan
    ) -> None:
        super().__init__(game, seat, seed)
        self.the_plan = the_plan
        self.seed = 0 if seed is None else seed
        self.decision: dict[str, JSON] | None = None
        """The last decision valued, JSON-ready (with ``outlooks`` per move)."""

    def _choose(self, state: State) -> Action:
        decision = evaluate(state, self.the_plan, self.seed)
        data = decision.to_json()
        data["outlooks"] = {str(a): v for a, v in decision.outlooks.items()}
        self.decision = data
        best = decision.best["action"]
        assert isinstance(best, int)
        return best


# -- a whole game --------------------------------------------------------------------


@dataclass
class Analysis:
    """A game's decisions, valued."""

    game: str
    players: int
    seats: list[str]
    plan: Plan
    unit: str
    decisions: list[Decision] = field(default_factory=list)
    outcome: dict[str, JSON] | None = None

    def to_json(self) -> dict[str, JSON]:
        """JSON-ready (what ``apothecary analyse --json`` prints)."""
        return {
            "game": self.game,
            "players": self.players,
            "seats": list(self.seats),
            "plan": self.plan.to_json(),
            "unit": self.unit,
            "outcome": self.outcome,
            "decisions": [d.to_json() for d in self.decisions],
        }


def unit_of(game: Game) -> str:
    """What a value counts: ``win share``, or alone the game's score."""
    return "score" if game.num_players == 1 else "win share"


def checked_states(record: Record) -> list[State]:
    """Every position of ``record`` (clones), from the start to after its last action.

    Raises one RecordError naming the first bad action of a malformed,
    truncated or tampered record (or the outcome that does not match).
    """
    positions = [state.clone() for state in record.states()]
    if record.outcome is not None:
        record.replay()  # checks the stated outcome against the replay
    return positions


def decisions(positions: list[State], seat: Player | None = None) -> Iterator[tuple[int, State]]:
    """``(index, position)`` of every decision (a seat to move, or ``seat`` only)."""
    for index, state in enumerate(positions[:-1]):
        mover = state.current_player()
        if mover == CHANCE or mover < 0:
            continue
        if seat is None or mover == seat:
            yield index, state


def complete(decision: Decision, played: Action) -> Decision:
    """Mark the move played in a valued decision, and each seat's outlook after it."""
    for move in decision.moves:
        if move["action"] == played:
            decision.played = move
    if played in decision.outlooks:
        decision.after = decision.outlooks[played]
    return decision


def from_json(data: dict[str, Any], played: Action) -> Decision:
    """A decision from an :class:`Analyst`'s JSON, completed with the move played."""
    decision = Decision(
        step=data["step"],
        seat=data["seat"],
        method=data["method"],
        moves=data["moves"],
        outlook=data["outlook"],
        outlooks={int(a): v for a, v in data["outlooks"].items()},
    )
    return complete(decision, played)


def analyse(
    record: Record,
    bot: str = DEFAULT_BOT,
    seat: Player | None = None,
    playouts: int | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    budget: int | None = None,
) -> Analysis:
    """Value every decision of ``record`` (or only ``seat``'s), in this process.

    Decision ``k`` is valued with the seed ``derived_seed(seed, k)``, which
    depends on nothing hidden; ``progress(done, total)`` is called after each.
    ``budget`` bounds a decision's playouts in all (:attr:`Plan.budget`).
    """
    positions = checked_states(record)
    game = positions[0].game
    if seat is not None and not 0 <= seat < game.num_players:
        raise BadOptionError(f"--seat {seat}: the game has seats 0 to {game.num_players - 1}")
    if budget is not None and (not isinstance(budget, int) or not 1 <= budget <= MAX_PLAYOUTS):
        raise BadOptionError(f"budget={budget!r}: expected 1 to {MAX_PLAYOUTS}")
    the_plan = replace(plan(game, bot, playouts), budget=budget)
    history = positions[-1].history()
    todo = list(decisions(positions, seat))
    outcome = positions[-1].outcome()
    result = Analysis(
        game.name,
        game.num_players,
        list(record.seats),
        the_plan,
        unit_of(game),
        outcome=None if outcome is None else outcome.to_json(),
    )
    for done, (index, state) in enumerate(todo, 1):
        decision = evaluate(state, the_plan, derived_seed(seed, index))
        result.decisions.append(complete(decision, history[index]))
        if progress is not None:
            progress(done, len(todo))
    return result


__all__ = [
    "Analysis",
    "Analyst",
    "Decision",
    "Plan",
    "analyse",
    "checked_states",
    "decisions",
    "derived_seed",
    "evaluate",
    "plan",
]
