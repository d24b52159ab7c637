"""Tea, Scones and Arsenic solo: the unreduced expectimax over what the player
knows (:class:`SoloSolver`, the reference the exact table is checked against),
the ``solo-optimal`` bot that plays the solved table of
:mod:`.tsa_solo_table`, and the clairvoyant upper bound.

Alone at the table the player sees every dose it draws, so its observation is
the whole state except the order of the scones still unmarked in the box: the
only thing left to chance is which dose the next draw of a kind shows. The
value of a position is therefore a function of

* for every kind, the doses still unmarked in the box and the doses of the
  marked scones of that kind (the player put them back, so it knows them),
* the sugar cubes left.

The scones eaten and their total dose follow from those (the box starts full).
Kinds are interchangeable, so a position is keyed on the *sorted* tuple of
per-kind records; the memo then holds each position once whatever the kinds'
names. The solver is generic over the box (kinds, doses per kind, cubes,
lethal dose) so that tests can check it on small boxes against brute force;
walking the memo is far too slow for the full box, which the layered program
of :mod:`.tsa_solo_table` solves instead.
"""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import Any

from apothecary.core.bot import Bot, register_bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import Action, Game, Player, State
from apothecary.games.tea_scones_arsenic.solo_table import (
    BACK_SHIFT,
    NO_DRAW,
    POSITION_MASK,
    STOP_BIT,
    SoloBox,
    SoloSolution,
    obtain,
)

# A kind's record: unmarked count of each dose value, then marked count of each.
KindRecord = tuple[int, ...]
Key = tuple[tuple[KindRecord, ...], int]

STOP = ("stop",)
SHUFFLE = ("shuffle",)


class SoloSolver:
    """Exact expectimax for one player over a box of ``kinds`` identical kinds.

    ``doses`` is one kind's doses (``(0, 0, 1, 1, 2, 3)`` in the real game).
    A turn may stop (score: scones eaten), shuffle when something is marked
    (then it must draw), draw an unmarked scone of a kind (chance picks its
    dose among that kind's unmarked doses) or take a marked one (known dose);
    with the scone in hand the player eats it (dying at ``lethal`` or more
    scores 0 and ends the game), or puts it back for a cube (marked), or puts
    it back and shuffles. The game also ends when the box is empty.
    """

    def __init__(
        self,
        kinds: int = 6,
        doses: tuple[int, ...] = (0, 0, 1, 1, 2, 3),
        cubes: int = 3,
        lethal: int = 30,
        shuffles: bool = True,
        exact: bool = False,
    ) -> None:
        self.kinds = kinds
        self.values = tuple(sorted(set(doses)))
        self.width = len(self.values)
        counts = Counter(doses)
        self.full: KindRecord = tuple(counts[v] for v in self.values) + (0,) * self.width
        self.cubes = cubes
        self.lethal = lethal
        self.shuffles = shuffles
        # exact: values in fractions (the tests' reference for the reduced solver)
        self.number: Any = Fraction if exact else float
        self.total_scones = kinds * len(doses)
        self.total_dose = kinds * sum(doses)
        self.turn_value = lru_cache(maxsize=None)(self._turn_value)
        self.hand_value = lru_cache(maxsize=None)(self._hand_value)

    # -- positions ------------------------------------------------------------

    def start(self) -> Key:
        """The key of the opening position."""
        return (tuple([self.full] * self.kinds), self.cubes)

    def eaten(self, box: tuple[KindRecord, ...]) -> tuple[int, int]:
        """Scones eaten and their total dose, from what is left in the box."""
        w = self.width
        left = 0
        dose = 0
        for record in box:
            for i, v in enumerate(self.values):
                n = record[i] + record[w + i]
                left += n
                dose += n * v
        return self.total_scones - left, self.total_dose - dose

    def key(self, box: list[KindRecord], cubes: int) -> Key:
        """The canonical key: kinds sorted, so their names do not matter."""
        return (tuple(sorted(box)), cubes)

    def _shuffled(self, box: list[KindRecord]) -> list[KindRecord]:
        w = self.width
        return [tuple(r[i] + r[w + i] for i in range(w)) + (0,) * w for r in box]

    # -- values ---------------------------------------------------------------

    def _take(self, box: tuple[KindRecord, ...], k: int, slot: int) -> tuple[Key, KindRecord]:
        taken = list(box)
        r = list(box[k])
        r[slot] -= 1
        taken[k] = tuple(r)
        return self.key(taken, 0), taken[k]

    def options(self, key: Key, after_shuffle: bool = False) -> list[tuple[Any, float]]:
        """Every choice at the start of a turn with its expected final score.

        Choices are ``("stop",)``, ``("shuffle",)``, ``("draw", record)`` and
        ``("marked", record, dose)``, where ``record`` is the kind's record in
        ``key`` (kinds with equal records are interchangeable).
        """
        box, cubes = key
        result: list[tuple[Any, float]] = []
        w = self.width
        if not after_shuffle:
            result.append((STOP, self.number(self.eaten(box)[0])))
            if self.shuffles and any(any(r[w:]) for r in box):
                shuffled = self.key(self._shuffled(list(box)), cubes)
                result.append((SHUFFLE, self.draw_value(shuffled)))
        seen: set[KindRecord] = set()
        for k, record in enumerate(box):
            if record in seen:  # an identical kind gives identical values
                continue
            seen.add(record)
            unmarked = sum(record[:w])
            if unmarked:
                total = self.number(0)
                for i in range(w):
                    if record[i]:
                        (rest, _), after = self._take(box, k, i)
                        total += record[i] * self.hand_value((rest, cubes), after, i)
                result.append((("draw", record), total / unmarked))
            for i in range(w):
                if record[w + i]:
                    (rest, _), after = self._take(box, k, w + i)
                    value = self.hand_value((rest, cubes), after, i)
                    result.append((("marked", record, self.values[i]), value))
        return result

    def draw_value(self, key: Key) -> float:
        """Value of a turn that must draw (just after a shuffle)."""
        return max(v for _, v in self.options(key, after_shuffle=True))

    def _turn_value(self, key: Key) -> float:
        return max(v for _, v in self.options(key))

    def hand_options(self, key: Key, kind: KindRecord, dose_index: int) -> list[tuple[str, float]]:
        """With a scone of dose ``values[dose_index]`` in hand, taken from a
        kind whose record is now ``kind`` in the box ``key``: the values of
        ``eat``, ``back`` and ``back+shuffle`` (those allowed)."""
        box, cubes = key
        w = self.width
        eaten, dose = self.eaten(box)
        # eaten() counts the scone in hand as eaten already (it is out of the box)
        result: list[tuple[str, float]] = []
        if dose >= self.lethal:
            result.append(("eat", self.number(0)))
        elif eaten == self.total_scones:
            result.append(("eat", self.number(eaten)))
        else:
            result.append(("eat", self.turn_value(key)))
        if cubes:
            k = box.index(kind)
            back = list(box)
            r = list(kind)
            r[w + dose_index] += 1
            back[k] = tuple(r)
            result.append(("back", self.turn_value(self.key(back, cubes - 1))))
            if self.shuffles:
                shuffled = self.key(self._shuffled(back), cubes - 1)
                result.append(("back+shuffle", self.turn_value(shuffled)))
        return result

    def _hand_value(self, key: Key, kind: KindRecord, dose_index: int) -> float:
        return max(v for _, v in self.hand_options(key, kind, dose_index))

    def solve(self) -> Any:
        """The optimal expected score from the start."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            return self.turn_value(self.start())
        finally:
            sys.setrecursionlimit(limit)

    def positions(self) -> int:
        """How many distinct positions the memo holds (turns plus scones in hand)."""
        return int(self.turn_value.cache_info().currsize + self.hand_value.cache_info().currsize)


GAME = "tea-scones-arsenic"


def position(obs: dict[str, Any], solver: SoloSolver) -> tuple[list[KindRecord], int]:
    """The solver's box (per kind, in kind order) and cubes, from the solo
    observation: a kind's unmarked doses are its six minus those eaten, marked
    or in hand, all of which the lone player has seen."""
    w = solver.width
    slot = {v: i for i, v in enumerate(solver.values)}
    box = [list(solver.full) for _ in range(solver.kinds)]
    seen: list[tuple[int, int]] = [(c["kind"], c["dose"]) for c in obs["seats"][0]["cup"]]
    if obs["hand"] is not None and obs["hand"]["dose"] is not None:
        seen.append((obs["hand"]["kind"], obs["hand"]["dose"]))
    for kind, dose in seen:
        box[kind - 1][slot[dose]] -= 1
    for m in obs["box"]["marked"]:
        box[m["kind"] - 1][slot[m["dose"]]] -= 1
        box[m["kind"] - 1][w + slot[m["dose"]]] += 1
    return [tuple(r) for r in box], int(obs["seats"][0]["cubes"])


class SoloOptimalBot(Bot):
    """Solo Tea, Scones and Arsenic played exactly: the optimal policy of the
    whole game, read from the solved table (:mod:`.tsa_solo_table`), from any
    position. The table is loaded on the first move: from the cache, or solved
    there and then (a few minutes, with a progress bar on a terminal) and cached.
    """

    def __init__(
        self,
        game: Game,
        seat: Player,
        seed: int | None = None,
        solution: SoloSolution | None = None,
    ) -> None:
        if game.name != GAME or game.num_players != 1:
            raise BadOptionError(
                f"tea-scones-arsenic bot 'solo-optimal' plays only the 1-player game, "
                f"not {game.num_players} players"
            )
        if solution is not None and not isinstance(solution, SoloSolution):
            raise BadOptionError(
                f"tea-scones-arsenic bot 'solo-optimal' takes no options, got {solution!r}"
            )
        super().__init__(game, seat, seed)
        # The spoon changes nothing alone (there is nobody else to spoon).
        self._solution = solution

    @property
    def solution(self) -> SoloSolution:
        """The solved table, loaded (or solved and cached) on first use."""
        if self._solution is None:
            self._solution = obtain(SoloBox())
        return self._solution

    def _choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return state.string_to_action(self.choice(state.observation(self.seat)))

    def choice(self, obs: dict[str, Any]) -> str:
        """The optimal move, in notation, in the solo position ``obs``."""
        solution = self.solution
        layout = solution.layout
        box = solution.box
        kinds, order = layout.pool_of(kind_records(obs, layout.values))
        marked = [(m["dose"], i) for i, m in enumerate(obs["box"]["marked"])]
        me = obs["seats"][0]
        cubes, room = int(me["cubes"]), box.lethal - int(me["total"])
        kept = tuple(sorted(d for d, _ in marked if d > 0))
        byte = int(solution.policy[layout.rank(kinds), layout.mark_id[(cubes, kept)]])
        if obs["phase"] == "decide":
            dose = obs["hand"]["dose"]
            if not cubes or dose == 0:
                return "eat"  # a 0 is never worth a cube (docs/solvers.md)
            if dose >= room:
                return "back"
            back = byte >> (BACK_SHIFT + layout.values.index(dose)) & 1
            return "back" if back else "eat"
        zeros = [i for d, i in marked if d == 0]
        if zeros:
            return f"m{zeros[0] + 1}"  # a known 0 is eaten at once: never worse
        draw = byte & POSITION_MASK
        if (byte & STOP_BIT and obs["stopping_allowed"]) or draw == NO_DRAW:
            # done drawing: eat the marked scones that fit, lightest first, then stop
            light = min(marked, default=None)
            if light is not None and light[0] < room:
                return f"m{light[1] + 1}"
            return "stop"
        return f"d{order[draw] + 1}"


def kind_records(obs: dict[str, Any], values: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Per kind (in kind order), how many of each dose value are still unmarked
    in the box: the six minus those eaten, marked or in hand, all of which the
    lone player has seen."""
    full = [FULL_KIND.count(v) for v in values]
    counts = [list(full) for _ in range(6)]
    seen = [(c["kind"], c["dose"]) for c in obs["seats"][0]["cup"]]
    seen += [(m["kind"], m["dose"]) for m in obs["box"]["marked"]]
    hand = obs["hand"]
    if hand is not None and hand["dose"] is not None:
        seen.append((hand["kind"], hand["dose"]))
    for kind, dose in seen:
        counts[kind - 1][values.index(dose)] -= 1
    return [tuple(c) for c in counts]


register_bot(
    GAME,
    "solo-optimal",
    SoloOptimalBot,
    "solo only: the exact optimal policy (solved table, cached; built on first use)",
)


# -- an upper bound: the clairvoyant player ------------------------------------

FULL_KIND = (0, 0, 1, 1, 2, 3)
MAX_SUFFIX = 9
NEED = 6 * sum(FULL_KIND) - 30 + 1  # uneaten dose that keeps the total below 30


def uneaten_needed(best_suffix_dose: tuple[int, ...]) -> int:
    """Fewest uneaten scones for a player who knows every kind's draw order.

    ``best_suffix_dose[s]`` is the largest dose among ways to leave ``s`` scones
    at the ends of kinds' orders undrawn. The rest of the uneaten scones are put
    back (at most 3 cubes); each can be a 3, as at most 5 threes are ever left
    at the ends when it matters (see docs/solvers.md), so ``p`` put-backs add
    ``3p`` to the uneaten dose, which must reach ``NEED`` (13).
    """
    best = 36
    for s, dose in enumerate(best_suffix_dose):
        short = max(0, NEED - dose)
        p = -(-short // 3)
        if p <= 3:
            best = min(best, s + p)
    return best


def _merge(state: tuple[int, ...], suffix: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for s in range(len(state)):
        out.append(
            min(NEED, max(state[s - j] + suffix[j] for j in range(min(s, len(suffix) - 1) + 1)))
        )
    return tuple(out)


def _suffix_doses(order: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sum(order[len(order) - j :]) for j in range(len(order) + 1))


def clairvoyant_bound() -> float:
    """The exact expected score of a solo player told every kind's draw order in
    advance (no cubes wasted, no shuffles): an upper bound on the optimal score.

    A dynamic program over kinds on the distribution of the best undrawn
    suffix dose per suffix size (kinds' orders are independent and uniform).
    """
    from itertools import permutations

    orders = sorted(set(permutations(FULL_KIND)))
    suffixes = Counter(_suffix_doses(o) for o in orders)
    dist: dict[tuple[int, ...], float] = {(0,) + (-99,) * MAX_SUFFIX: 1.0}
    for _ in range(6):
        nxt: dict[tuple[int, ...], float] = {}
        for state, p in dist.items():
            for suffix, count in suffixes.items():
                merged = _merge(state, suffix)
                nxt[merged] = nxt.get(merged, 0.0) + p * count / len(orders)
        dist = nxt
    return sum(p * (36 - uneaten_needed(state)) for state, p in dist.items())
