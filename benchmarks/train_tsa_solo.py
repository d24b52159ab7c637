"""Train a tiny tabular policy on Tea, Scones and Arsenic solo through the
Gymnasium environment, then compare its mean score with the game's ``rules``
bot, a random player and the solver's value.

    .venv/bin/python benchmarks/train_tsa_solo.py [--seconds 150] [--games 1000] [--no-solver]

A benchmark, not a test: the figures go into docs/interop.md. Needs the ``rl``
extra. The learner is one-step Q-learning, a table and NumPy only:

- the env is ``apothecary/TeaSconesArsenic-v0`` with ``players=1`` and
  ``reward="score"`` (scones eaten, 0 if dead: the solo score; the default win
  share would be 1 for stopping at once);
- the table's key is a few facts of the seat's own observation
  (``state.observation(seat)``, the view the tensor encodes): the phase, the
  dose total, the dose of the scone in hand, cubes, scones eaten, whether
  stopping is allowed and how many marked scones are in the box; the actions
  are the env's action ids, restricted to ``info["action_mask"]``;
- rewards are shaped by the scones eaten as a potential (Ng, Harada and
  Russell 1999: +1 a scone, minus the scones eaten at the end), which leaves the
  best policy unchanged and gives the table a signal at every eat;
- exploration is epsilon-greedy; evaluation plays greedily.

Every policy is evaluated on the same episode seeds (episode i: ``reset(seed=
10**6 + i)``), so they meet the same chance streams.
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
from apothecary.bots.solvers import tsa_solo

Key = tuple[Any, ...]
Policy = Callable[[Any, dict[str, Any]], int]

EVAL_SEED = 10**6


def key(env: Any) -> tuple[Key, int]:
    """The table's key for the seat's current view, and its scones eaten (the potential)."""
    view = env.state.observation(env.seat)
    me = view["seats"][0]
    hand = view["hand"]
    dose = -1 if hand is None or hand["dose"] is None else hand["dose"]
    eaten = int(me["scones"])
    return (
        view["phase"],
        me["total"],
        dose,
        me["cubes"],
        eaten,
        view["stopping_allowed"],
        len(view["box"]["marked"]),
    ), eaten


class TabularQ:
    """One-step Q-learning over :func:`key`, with scone-count reward shaping."""

    def __init__(self, actions: int, epsilon: float, seed: int) -> None:
        self.actions = actions
        self.epsilon = epsilon
        self.rng = np.random.default_rng(seed)
        # A small optimistic start: with zeros every tie would go to "stop"
        # (the lowest legal id), which ends the episodes before they teach.
        self.initial = 2.0
        self.q: dict[Key, np.ndarray[Any, Any]] = {}
        self.n: dict[Key, np.ndarray[Any, Any]] = {}

    def values(self, k: Key) -> np.ndarray[Any, Any]:
        """The row of ``k``, made on first sight."""
        row = self.q.get(k)
        if row is None:
            row = self.q[k] = np.full(self.actions, self.initial)
            self.n[k] = np.zeros(self.actions)
        return row

    def greedy(self, k: Key, legal: np.ndarray[Any, Any]) -> int:
        """The legal action of highest value."""
        row = self.values(k)
        return int(legal[np.argmax(row[legal])])

    def update(self, k: Key, action: int, target: float) -> None:
        """Move the value of ``(k, action)`` towards ``target`` (step 1/n, at least 0.05)."""
        self.n[k][action] += 1
        step = max(0.05, 1.0 / self.n[k][action])
        self.q[k][action] += step * (target - self.q[k][action])

    def episode(self, env: Any, seed: int) -> float:
        """Play and learn one episode; returns its score."""
        _, info = env.reset(seed=seed)
        previous: tuple[Key, int, int] | None = None
        terminated = False
        reward = 0.0
        while not terminated:
            k, eaten = key(env.unwrapped)
            legal = np.flatnonzero(info["action_mask"])
            row = self.values(k)
            if previous is not None:
                pk, pa, p_eaten = previous
                # shaped reward: the scones eaten since, plus the best value from here
                self.update(pk, pa, eaten - p_eaten + float(row[legal].max()))
            if self.rng.random() < self.epsilon:
                action = int(self.rng.choice(legal))
            else:
                action = int(legal[np.argmax(row[legal])])
            previous = (k, action, eaten)
            _, reward, terminated, _, info = env.step(action)
        assert previous is not None
        pk, pa, p_eaten = previous
        # the potential is 0 at the end: the score, minus the scones already counted
        self.update(pk, pa, float(reward) - p_eaten)
        return float(reward)

    def policy(self, env: Any, info: dict[str, Any]) -> int:
        """Greedy play (unseen keys: the first legal action, as a tie would)."""
        return self.greedy(key(env.unwrapped)[0], np.flatnonzero(info["action_mask"]))


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
    """The solver's value of solo play: exact when the solver module offers it,
    else its proven upper bound (the clairvoyant player, about 80 s)."""
    exact = getattr(tsa_solo, "solo_value", None)
    if callable(exact):
        return "optimal value (exact)", float(exact())
    return "upper bound (clairvoyant)", tsa_solo.clairvoyant_bound()


def main() -> None:
    """Train, evaluate and print the table rows for docs/interop.md."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=150.0, help="training budget")
    parser.add_argument("--games", type=int, default=1000, help="evaluation episodes")
    parser.add_argument("--epsilon", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-solver", action="store_true", help="skip the solver's value")
    args = parser.parse_args()

    env = gymnasium.make("apothecary/TeaSconesArsenic-v0", players=1, reward="score")
    learner = TabularQ(env.action_space.n, args.epsilon, args.seed)
    episode_seeds = np.random.default_rng(args.seed)
    start = time.perf_counter()
    episodes = 0
    recent: list[float] = []
    while time.perf_counter() - start < args.seconds:
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
