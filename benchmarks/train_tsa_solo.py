"""Train a tiny tabular policy on Tea, Scones and Arsenic solo through the
Gymnasium environment, then compare its mean score with the game's ``rules``
bot, a random player and the solver's value.

    .venv/bin/python benchmarks/train_tsa_solo.py [--episodes 15000] [--seconds 240] [--games 1000]
        [--no-solver]

Training stops after ``--episodes`` episodes (seeded, so the same run gives
the same table whatever the machine's speed) or ``--seconds``, whichever
comes first.

A benchmark, not a test: the figures go into docs/interop.md. Needs the ``rl``
extra. The learner is one-step Q-learning, a table and NumPy only:

- the env is ``apothecary/TeaSconesArsenic-v0`` with ``players=1`` and
  ``reward="score"`` (scones eaten, 0 if dead: the solo score; the default win
  share would be 1 for stopping at once);
- the table holds one value per *action key*: the kind of action and the few
  facts of the seat's own observation (``state.observation(seat)``, the view
  the tensor encodes) that decide its worth. Drawing a kind: dose total,
  cubes, and that kind's unmarked scones and their doses added up (seven less
  the doses seen in the cup and among the marked); with a scone in hand,
  eating or putting back: dose total, the scone's dose, cubes; taking a marked
  scone: total, cubes, its dose; stopping: nothing. The legal ids come from
  ``info["action_mask"]``, and the action layout from the game's ``facts``;
- rewards are shaped by the scones eaten as a potential (Ng, Harada and
  Russell 1999: +1 a scone, minus the scones eaten at the end), which leaves the
  best policy unchanged and gives the table a signal at every eat;
- exploration is epsilon-greedy; evaluation plays greedily.

Every policy is evaluated on the same episode seeds (episode i: ``reset(seed=
10**6 + i)``), so they meet the same chance streams (the same random numbers;
which doses they draw depends on the kinds each policy picks).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import apothecary.bots
import apothecary.interop.gymnasium  # registers the ids
from apothecary.games.tea_scones_arsenic import solo as tsa_solo
from apothecary.games.tea_scones_arsenic.facts import (
    BACK,
    BACK_SHUFFLE,
    DOSE_COUNTS,
    DRAW_BASE,
    EAT,
    MARKED_BASE,
    SHUFFLE,
    STOP,
)

Key = tuple[Any, ...]
Policy = Callable[[Any, dict[str, Any]], int]

EVAL_SEED = 10**6
FULL_KIND_DOSE = sum(dose * count for dose, count in enumerate(DOSE_COUNTS))
"""The doses of one kind added up (7)."""


def action_keys(view: dict[str, Any], legal: np.ndarray[Any, Any]) -> list[Key]:
    """The table's key for each legal action: the action's kind and the few
    facts of the seat's view that decide its worth (see the module docstring)."""
    me = view["seats"][0]
    total, cubes = me["total"], me["cubes"]
    if view["phase"] == "decide":
        dose = view["hand"]["dose"]
        names = {EAT: "eat", BACK: "back", BACK_SHUFFLE: "back+shuffle"}
        return [(names[int(a)], total, dose, cubes) for a in legal]
    # a kind's doses left unmarked in the box: its seven, less those seen
    left = [FULL_KIND_DOSE] * len(view["box"]["unmarked"])
    for scone in [*me["cup"], *view["box"]["marked"]]:
        left[scone["kind"] - 1] -= scone["dose"]
    keys: list[Key] = []
    for a in (int(a) for a in legal):
        if a == STOP:
            keys.append(("stop",))
        elif a == SHUFFLE:
            keys.append(("shuffle", total, cubes))
        elif a >= MARKED_BASE:
            keys.append(("marked", total, cubes, view["box"]["marked"][a - MARKED_BASE]["dose"]))
        else:
            kind = a - DRAW_BASE
            keys.append(("draw", total, cubes, view["box"]["unmarked"][kind], left[kind]))
    return keys


class TabularQ:
    """One-step Q-learning over :func:`action_keys`, with scone-count reward shaping."""

    def __init__(self, epsilon: float, seed: int) -> None:
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)
        # A small optimistic start: with zeros every tie would go to "stop"
        # (the lowest legal id), which ends the episodes before they teach.
        self.initial = 2.0
        self.q: dict[Key, float] = {}
        self.n: dict[Key, int] = {}

    def values(self, keys: list[Key]) -> np.ndarray[Any, Any]:
        """The values of ``keys`` (unseen ones at the optimistic start)."""
        return np.array([self.q.get(k, self.initial) for k in keys])

    def update(self, k: Key, target: float) -> None:
        """Move the value of ``k`` towards ``target`` (step 1/n, at least 0.05)."""
        n = self.n[k] = self.n.get(k, 0) + 1
        value = self.q.get(k, self.initial)
        self.q[k] = value + max(0.05, 1.0 / n) * (target - value)

    def episode(self, env: Any, seed: int) -> float:
        """Play and learn one episode; returns its score."""
        _, info = env.reset(seed=seed)
        previous: tuple[Key, int] | None = None
        terminated = False
        reward = 0.0
        while not terminated:
            view = env.unwrapped.state.observation(env.unwrapped.seat)
            eaten = int(view["seats"][0]["scones"])
            legal = np.flatnonzero(info["action_mask"])
            keys = action_keys(view, legal)
            values = self.values(keys)
            if previous is not None:
                # shaped reward: the scones eaten since, plus the best value from here
                self.update(previous[0], eaten - previous[1] + float(values.max()))
            choice = (
                int(self.rng.integers(len(legal)))
                if self.rng.random() < self.epsilon
                else int(np.argmax(values))
            )
            previous = (keys[choice], eaten)
            _, reward, terminated, _, info = env.step(legal[choice])
        assert previous is not None
        # the potential is 0 at the end: the score, minus the scones already counted
        self.update(previous[0], float(reward) - previous[1])
        return float(reward)

    def policy(self, env: Any, info: dict[str, Any]) -> int:
        """Greedy play."""
        view = env.unwrapped.state.observation(env.unwrapped.seat)
        legal = np.flatnonzero(info["action_mask"])
        return int(legal[np.argmax(self.values(action_keys(view, legal)))])


def evaluate(env: Any, policy: Policy, games: int) -> list[float]:
    """Scores of ``policy`` over episodes ``EVAL_SEED + i``."""
    scores = []
    for i in range(games):
        _, info = env.reset(seed=EVAL_SEED + i)
        terminated = False
        reward = 0.0
        while not terminated:
            _, reward, terminated, _, info = env.step(policy(env, info))
        scores.append(float(reward))
    return scores


def rules_policy(seed: int) -> Policy:
    """The game's ``rules`` bot acting through the env, a new bot each episode."""
    current: list[Any] = [None, None]  # the episode's state (held, so never reused) and bot

    def act(env: Any, info: dict[str, Any]) -> int:
        inner = env.unwrapped
        if current[0] is not inner.state:
            current[:] = [inner.state, apothecary.bots.load("rules", inner.game, 0, seed=seed)]
        return int(current[1].step(inner.state))

    return act


def random_policy(seed: int) -> Policy:
    """Uniform over the mask."""
    rng = np.random.default_rng(seed)
    return lambda env, info: int(rng.choice(np.flatnonzero(info["action_mask"])))


def summary(scores: list[float]) -> str:
    """Mean with a 95% normal interval, and deaths."""
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))
    deaths = sum(1 for s in scores if s == 0)
    return f"{mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] | {deaths}"


def solver_value() -> tuple[str, float]:
    """The solver's value of solo play: exact from the solved table when it is
    cached (``tsa_solo_table.load()``; ``apothecary`` builds it on first use of
    the ``solo-optimal`` bot), else the proven upper bound (the clairvoyant
    player, about 80 s)."""
    try:
        from apothecary.games.tea_scones_arsenic import solo_table as tsa_solo_table
    except ImportError:
        tsa_solo_table = None
    solution = None if tsa_solo_table is None else tsa_solo_table.load()
    if solution is not None:
        return "optimal value (exact, cached table)", float(solution.value)
    return "upper bound (clairvoyant player)", tsa_solo.clairvoyant_bound()


def main() -> None:
    """Train, evaluate and print the table rows for docs/interop.md."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--episodes", type=int, default=15000, help="training episodes")
    parser.add_argument("--seconds", type=float, default=240.0, help="training time, at most")
    parser.add_argument("--games", type=int, default=1000, help="evaluation episodes")
    parser.add_argument("--epsilon", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-solver", action="store_true", help="skip the solver's value")
    args = parser.parse_args()

    env = gymnasium.make("apothecary/TeaSconesArsenic-v0", players=1, reward="score")
    learner = TabularQ(args.epsilon, args.seed)
    episode_seeds = np.random.default_rng(args.seed)
    start = time.perf_counter()
    episodes = 0
    recent: list[float] = []
    while episodes < args.episodes and time.perf_counter() - start < args.seconds:
        recent.append(learner.episode(env, int(episode_seeds.integers(EVAL_SEED))))
        episodes += 1
        if episodes % 5000 == 0:
            print(
                f"  {episodes} episodes, {time.perf_counter() - start:.0f} s: "
                f"training mean of the last 5000 {statistics.fmean(recent[-5000:]):.3f}",
                flush=True,
            )
    trained = time.perf_counter() - start
    print(
        f"trained {episodes} episodes in {trained:.0f} s ({episodes / trained:.0f}/s), "
        f"{len(learner.q)} keys in the table",
        flush=True,
    )
    print()
    print("| policy | games | mean score (95% CI) | deaths |")
    print("|---|---|---|---|")
    for name, policy in [
        ("tabular Q (greedy)", learner.policy),
        ("`rules` bot", rules_policy(args.seed)),
        ("random legal actions", random_policy(args.seed)),
    ]:
        print(
            f"| {name} | {args.games} | {summary(evaluate(env, policy, args.games))} |", flush=True
        )
    if not args.no_solver:
        label, value = solver_value()
        print(f"\nsolver, {label}: {value:.4f}")


if __name__ == "__main__":
    main()
