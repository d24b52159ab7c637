"""In Vino Morte: equilibrium strategies, keyed round by round, and the ``cfr``
bot that plays them.

There is no chance in the game and, at the end of every round, every glass is
turned over (and Cheese is dealt face up): whatever anyone knew privately in a
round is public once it ends. So a whole game splits into *round subgames*
whose start is common knowledge, and a round depends only on how many players
are in it (seats counted clockwise from its dealer; the deck never runs short
at five or fewer). The stored profile is keyed on the round's information
(relative seats, the dealer's glasses, the round's public events), which a
player always has, so it is the same in every round of k players: a
*stationary* strategy for the whole game at 2 to 5 players.

This module builds each round's tree through the public protocol (``clone``,
``apply_action``, ``legal_actions``, ``observation``; never the rules module),
evaluates a table exactly in pure Python (:class:`RoundSolver`: values and best
responses of the whole game, bottom-up over the rounds, see docs/solvers.md for
why that is the whole game's NashConv) and plays the table (:class:`CFRBot`).
The numpy solver that computes the table is :mod:`.ivm_solve` (offline; the bot
needs neither numpy nor SciPy). Without Cheese every round kills someone; with
Cheese a round may kill nobody and lead to a round of the same size, which
:mod:`.ivm_solve` handles as a fixed point (:class:`RoundSolver` does not).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from apothecary.core.bot import Bot, register_bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import Action, Game, Player, State
from apothecary.core.registry import load

GAME = "in-vino-morte"
MAX_PLAYERS = 5
DATA_FILE = "cfr.json.gz"


def round_order(obs: dict[str, Any]) -> list[int]:
    """The seats in this round, dealer first, then clockwise (seat + 1 is left)."""
    n = obs["players"]
    dealer = obs["dealer"]
    in_round = obs["in_round"]
    return [(dealer + j) % n for j in range(n) if in_round[(dealer + j) % n]]


def info_key(obs: dict[str, Any], seat: int) -> str:
    """The seat's information in the current round, in seats relative to the dealer.

    Deal: ``"k|D|"`` and the glasses poured so far in relative order. Turns:
    ``"k|T|r|"`` (r = the mover's relative seat) and the round's public events.
    With Cheese the key starts ``"C"``; a glass poured with Cheese is written in
    capitals, and a turn's key adds who holds Cheese now (face up: everyone
    sees it) and the steals (``cJF``: J stole from F).
    """
    order = round_order(obs)
    rel = {s: i for i, s in enumerate(order)}
    k = len(order)
    cheese = bool(obs.get("cheese_rule"))
    prefix = "C" if cheese else ""
    if obs["phase"] == "deal":
        marks = []
        for s in order:
            glass = obs["glasses"][s]
            mark = "-" if glass in (None, "covered") else glass[0]
            marks.append(mark.upper() if cheese and obs["cheese"][s] else mark)
        return f"{prefix}{k}|D|{''.join(marks)}"
    events = []
    for event in obs["events"]:
        if event["kind"] == "swap":
            events.append(f"s{rel[event['actor']]}{rel[event['with']]}")
        elif event["kind"] == "steal":
            events.append(f"c{rel[event['actor']]}{rel[event['from']]}")
        else:
            events.append(f"d{rel[event['actor']]}{event['glass'][0]}")
    held = ""
    if cheese:
        held = "".join(str(rel[s]) for s in order if obs["cheese"][s]) + "|"
    return f"{prefix}{k}|T|{rel[seat]}|{held}{','.join(events)}"


def relative_action(text: str, rel: dict[int, int]) -> str:
    """Notation in relative seats: ``w``/``p`` (deal; ``wc``/``pc`` with Cheese),
    ``d`` (drink), ``sJ`` (swap with J), ``cJ`` (steal J's Cheese)."""
    words = text.split()
    if words[0] == "deal":
        kind = words[2]
        return kind[0] + ("c" if kind.endswith("+cheese") else "")
    if words[0] == "drink":
        return "d"
    if words[0] == "swap":
        return f"s{rel[int(words[1])]}"
    if words[0] == "steal":
        return f"c{rel[int(words[1])]}"
    raise BadOptionError(f"in-vino-morte cfr: cannot read the action {text!r}")


@dataclass
class RoundTree:
    """One round of k players as explicit arrays (built through the protocol)."""

    k: int
    player: list[int] = field(default_factory=list)
    """Relative seat to move, or -1 at a leaf."""
    info: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    labels: list[list[str]] = field(default_factory=list)
    leaf: list[tuple[int, list[int]] | None] = field(default_factory=list)
    """At a leaf: (players in the next round or 0 if the game ended, and per
    relative seat its relative seat in the next round, -1 dead, -2 winner; the
    winners share the win, and only with Cheese can there be more than one)."""
    keys: list[str] = field(default_factory=list)
    """Information-set keys, by index."""
    actions: list[list[str]] = field(default_factory=list)
    """Each information set's relative action labels."""


def build_round(k: int, cheese: bool = False) -> RoundTree:
    """Walk the first round of a k-player game completely (with Caseus Vitae if
    ``cheese``: then a round may kill nobody, and its leaves may lead to a round
    of k players again, dealt by the next dealer)."""
    game = load(GAME, players=k, cheese=cheese)
    tree = RoundTree(k)
    index: dict[str, int] = {}

    def walk(state: State) -> int:
        node = len(tree.player)
        tree.player.append(-1)
        tree.info.append(-1)
        tree.children.append([])
        tree.labels.append([])
        tree.leaf.append(None)
        public = state.observation(None)
        if state.is_terminal() or public["round"] != 1:
            if state.is_terminal():
                # the winners share the win (with Cheese all may die together)
                returns = state.returns()
                tree.leaf[node] = (0, [-2 if returns[s] > 0 else -1 for s in range(k)])
            else:
                order = round_order(public)
                newrel = {s: i for i, s in enumerate(order)}
                tree.leaf[node] = (len(order), [newrel.get(s, -1) for s in range(k)])
            return node
        mover = state.current_player()
        obs = state.observation(mover)
        key = info_key(obs, mover)
        order = round_order(obs)
        rel = {s: i for i, s in enumerate(order)}
        legal = state.legal_actions()
        labels = [relative_action(state.action_to_string(a), rel) for a in legal]
        if key not in index:
            index[key] = len(tree.keys)
            tree.keys.append(key)
            tree.actions.append(labels)
        elif tree.actions[index[key]] != labels:
            raise AssertionError(f"information set {key} with two action lists")
        tree.player[node] = rel[mover]
        tree.info[node] = index[key]
        for action, label in zip(legal, labels, strict=True):
            child = state.clone()
            child.apply_action(action)
            tree.children[node].append(walk(child))
            tree.labels[node].append(label)
        return node

    walk(game.new_initial_state())
    return tree


class RoundSolver:
    """One round in pure Python, its leaves valued by the rounds below: exact
    values and best responses of the whole game from the round's start (the
    reference that checks :mod:`.ivm_solve`), and plain CFR+ (kept for the
    comparison in docs/solvers.md; :mod:`.ivm_solve` solves far better). No
    Cheese: its leaves never lead to a round of the same size."""

    def __init__(self, tree: RoundTree, below: dict[int, RoundSolver]) -> None:
        self.tree = tree
        self.k = tree.k
        self.below = below
        sizes = [len(a) for a in tree.actions]
        self.regret = [[0.0] * n for n in sizes]
        self.total = [[0.0] * n for n in sizes]
        self.iterations = 0
        self.leaf_value = [self._leaf(n) for n in range(len(tree.player))]
        self._avg: list[list[float]] | None = None

    def _leaf(self, node: int) -> list[float] | None:
        leaf = self.tree.leaf[node]
        if leaf is None:
            return None
        k2, rel = leaf
        if k2 == 0:
            return [1.0 / rel.count(-2) if r == -2 else 0.0 for r in rel]
        value = self.below[k2].value()
        return [0.0 if r < 0 else value[r] for r in rel]

    def _br_leaf(self, node: int, seat: int) -> float:
        leaf = self.tree.leaf[node]
        assert leaf is not None
        k2, rel = leaf
        r = rel[seat]
        if k2 == 0:
            return 1.0 / rel.count(-2) if r == -2 else 0.0
        return 0.0 if r < 0 else self.below[k2].best_response(r)

    # -- CFR+ -----------------------------------------------------------------

    def _current(self) -> list[list[float]]:
        out = []
        for reg in self.regret:
            pos = sum(reg)
            out.append([r / pos for r in reg] if pos > 0 else [1.0 / len(reg)] * len(reg))
        return out

    def iterate(self, count: int = 1) -> None:
        """Run ``count`` CFR+ iterations (simultaneous updates, linear averaging)."""
        for _ in range(count):
            self.iterations += 1
            sigma = self._current()
            delta = [[0.0] * len(r) for r in self.regret]
            self._walk(0, [1.0] * self.k, sigma, delta, float(self.iterations))
            for reg, d in zip(self.regret, delta, strict=True):
                for a in range(len(reg)):
                    reg[a] = max(reg[a] + d[a], 0.0)
        self._avg = None
        self.value.cache_clear()
        self.best_response.cache_clear()

    def _walk(
        self,
        node: int,
        reach: list[float],
        sigma: list[list[float]],
        delta: list[list[float]],
        weight: float,
    ) -> list[float]:
        value = self.leaf_value[node]
        if value is not None:
            return value
        tree = self.tree
        k = self.k
        p = tree.player[node]
        i = tree.info[node]
        strat = sigma[i]
        result = [0.0] * k
        kids = []
        for a, child in enumerate(tree.children[node]):
            pa = strat[a]
            r2 = reach.copy()
            r2[p] *= pa
            # nobody reaches the child: it changes no regret and no average
            v = self._walk(child, r2, sigma, delta, weight) if max(r2) > 0.0 else [0.0] * k
            kids.append(v)
            for q in range(k):
                result[q] += pa * v[q]
        others = 1.0
        for q in range(k):
            if q != p:
                others *= reach[q]
        d = delta[i]
        tot = self.total[i]
        for a, v in enumerate(kids):
            d[a] += others * (v[p] - result[p])
            tot[a] += weight * reach[p] * strat[a]
        return result

    def keep_average(self, totals: list[list[float]]) -> None:
        """Replace the accumulated average with ``totals`` (a copy of :attr:`total`
        taken earlier), e.g. to keep the checkpoint with the lowest NashConv."""
        self.total = [list(t) for t in totals]
        self._avg = None
        self.value.cache_clear()
        self.best_response.cache_clear()

    def average(self) -> list[list[float]]:
        """The average strategy per information set."""
        if self._avg is None:
            out = []
            for tot in self.total:
                s = sum(tot)
                out.append([t / s for t in tot] if s > 0 else [1.0 / len(tot)] * len(tot))
            self._avg = out
        return self._avg

    # -- evaluation -----------------------------------------------------------

    @cache  # noqa: B019 - one solver per round size, kept for the whole run
    def value(self) -> list[float]:
        """Each relative seat's value of the whole game from this round's start,
        everyone playing the average strategies."""
        return self.evaluate(self.average())

    def evaluate(self, strategy: list[list[float]]) -> list[float]:
        """Each relative seat's value from this round's start when this round is
        played by ``strategy`` (per information set) and the rounds below by
        their average strategies."""
        tree = self.tree

        def walk(node: int) -> list[float]:
            value = self.leaf_value[node]
            if value is not None:
                return value
            strat = strategy[tree.info[node]]
            result = [0.0] * self.k
            for a, child in enumerate(tree.children[node]):
                if strat[a]:
                    v = walk(child)
                    for q in range(self.k):
                        result[q] += strat[a] * v[q]
            return result

        return walk(0)

    @cache  # noqa: B019
    def best_response(self, seat: int) -> float:
        """Relative seat ``seat``'s best-response value of the whole game from this
        round's start against everyone else's average strategies (also in the
        rounds below)."""
        tree = self.tree
        avg = self.average()
        # Each non-dealer moves once per round and the dealer only in the deal
        # (where it sees the whole history), so one pass gathers, per
        # information set of the seat, every action's counterfactual value;
        # a second pass plays the best ones.
        q_values: dict[int, list[float]] = {}

        def gather(node: int, reach: float) -> float:
            # value to `seat` below node if `seat` plays its best at deal nodes
            # and (second pass) its chosen actions at turn nodes
            if tree.leaf[node] is not None:
                return self._br_leaf(node, seat)
            p = tree.player[node]
            i = tree.info[node]
            kids = tree.children[node]
            if p != seat:
                strat = avg[i]
                return sum(
                    strat[a] * gather(c, reach * strat[a]) for a, c in enumerate(kids) if strat[a]
                )
            values = [gather(c, reach) for c in kids]
            if seat == 0:  # the dealer: perfect information during the deal
                return max(values)
            q = q_values.setdefault(i, [0.0] * len(kids))
            for a, v in enumerate(values):
                q[a] += reach * v
            return 0.0  # placeholder: replaced in the second pass

        gather(0, 1.0)
        choice = {i: max(range(len(q)), key=q.__getitem__) for i, q in q_values.items()}

        def play(node: int) -> float:
            if tree.leaf[node] is not None:
                return self._br_leaf(node, seat)
            p = tree.player[node]
            i = tree.info[node]
            kids = tree.children[node]
            if p != seat:
                strat = avg[i]
                return sum(strat[a] * play(c) for a, c in enumerate(kids) if strat[a])
            if seat == 0:
                return max(play(c) for c in kids)
            return play(kids[choice[i]])

        return play(0)

    def nash_conv(self) -> float:
        """Sum over seats of best-response value minus value, whole game from here."""
        value = self.value()
        return sum(self.best_response(s) - value[s] for s in range(self.k))

    def table(self, digits: int = 4) -> dict[str, dict[str, float]]:
        """The average strategy, rounded, keyed on information then relative action."""
        out: dict[str, dict[str, float]] = {}
        for key, labels, strat in zip(
            self.tree.keys, self.tree.actions, self.average(), strict=True
        ):
            out[key] = {label: round(p, digits) for label, p in zip(labels, strat, strict=True)}
        return out


def table_solvers(table: dict[str, dict[str, float]], players: int) -> dict[int, RoundSolver]:
    """Rounds of 2 to ``players`` playing ``table``, each over the ones below:
    ``[players].nash_conv()`` is the whole game's NashConv of the table, and
    ``[players].value()`` every seat's value (pure Python, independent of the
    numpy solver in :mod:`.ivm_solve`)."""
    below: dict[int, RoundSolver] = {}
    for k in range(2, players + 1):
        solver = RoundSolver(build_round(k), below)
        solver.keep_average(
            [
                [float(table[key].get(label, 0.0)) for label in labels]
                for key, labels in zip(solver.tree.keys, solver.tree.actions, strict=True)
            ]
        )
        below[k] = solver
    return below


@cache
def load_data() -> dict[str, Any]:
    """The stored solution file: per table a summary, the convergence and the
    strategies (loaded once)."""
    data = (
        resources.files("apothecary.games.in_vino_morte").joinpath("data", DATA_FILE).read_bytes()
    )
    parsed: dict[str, Any] = json.loads(gzip.decompress(data))
    return parsed


def load_table() -> dict[str, dict[str, float]]:
    """The stored average strategies, every round of every table (keys of the
    Cheese rounds start with ``C``)."""
    return dict(load_data()["strategy"])


def supported() -> dict[bool, list[int]]:
    """The stored tables: per Cheese or not, the numbers of players solved."""
    out: dict[bool, list[int]] = {False: [], True: []}
    for key in load_data()["summary"]:
        out[key.startswith("C")].append(int(key.lstrip("C")))
    return {cheese: sorted(sizes) for cheese, sizes in out.items()}


def _sizes(sizes: list[int]) -> str:
    if not sizes:
        return "none"
    if sizes == list(range(sizes[0], sizes[-1] + 1)) and len(sizes) > 2:
        return f"{sizes[0]} to {sizes[-1]} players"
    return " and ".join(str(n) for n in sizes) + " players"


def supported_text() -> str:
    """The stored tables, in words (for error messages and the docs)."""
    tables = supported()
    text = (
        f"{_sizes(tables[False])} without Cheese (cheese=false; either deck; "
        "round_limit=0, or one of at least players - 1, which never stops a game "
        "without Cheese)"
    )
    if tables[True]:
        text += f", and {_sizes(tables[True])} with Cheese (cheese_on_reveal=true, round_limit=0)"
    return text


def check_supported(game: Game) -> None:
    """Raise BadOptionError, naming the tables that have a stored equilibrium,
    unless ``game`` is one of them.

    The deck does not matter: with 5 or fewer players either deck allows every
    pour with at least one Wine and one Poison, so both give the same game. A
    round limit of players - 1 or more never ends a game without Cheese early
    (every round kills at least one player); with Cheese any limit changes it."""
    n = game.num_players
    cheese = bool(game.options.get("cheese"))
    limit = int(game.options.get("round_limit", 0) or 0)
    problems = []
    if game.name != GAME:
        problems.append(f"game {game.name!r}")
    if cheese and not game.options.get("cheese_on_reveal", True):
        problems.append("cheese_on_reveal=false")
    if n not in supported()[cheese]:
        problems.append(f"{n} players")
    if limit and (cheese or limit < n - 1):
        problems.append(f"round_limit={limit}")
    if problems:
        table = ", ".join((["cheese=true"] if cheese else []) + problems)
        raise BadOptionError(
            f"in-vino-morte bot 'cfr' has no equilibrium for this table "
            f"({table}); it has ones for {supported_text()}"
        )


def action_weights(
    state: State, seat: Player, table: dict[str, dict[str, float]]
) -> tuple[list[Action], list[float]]:
    """The legal actions and the table's probabilities of them, read from the
    seat's own observation only (uniform if the stored ones add up to 0)."""
    obs = state.observation(seat)
    key = info_key(obs, seat)
    rel = {s: i for i, s in enumerate(round_order(obs))}
    legal = state.legal_actions()
    labels = [relative_action(state.action_to_string(a), rel) for a in legal]
    strategy = table.get(key)
    if strategy is None:
        raise BadOptionError(f"in-vino-morte cfr: no strategy stored for {key!r}")
    weights = [float(strategy.get(label, 0.0)) for label in labels]
    total = sum(weights)
    if total <= 0:
        return legal, [1.0 / len(legal)] * len(legal)
    return legal, [w / total for w in weights]


class CFRBot(Bot):
    """Plays the stored equilibrium of In Vino Morte (every table in
    :func:`supported`; any other raises BadOptionError naming them)."""

    def __init__(self, game: Game, seat: Player, seed: int | None = None) -> None:
        check_supported(game)
        super().__init__(game, seat, seed)
        self.table = load_table()

    def _choose(self, state: State) -> Action:
        legal, weights = action_weights(state, self.seat, self.table)
        return self.rng.choices(legal, weights=weights)[0]


register_bot(
    GAME, "cfr", CFRBot, "equilibrium strategy (NashConv < 1e-3; 2-5 players, with Cheese 2-4)"
)
