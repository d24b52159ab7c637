"""Random-playout speed and clone cost for every game, next to OpenSpiel's Kuhn poker.

    python benchmarks/playout.py [--seconds S] [--players all|common]
        [--games NAME[,NAME...]] [--write docs/performance.md] [--no-adapters]

The same Python driver loop runs over every game here, at every player count
it takes (``--players common``: its usual tables only), and over OpenSpiel's
C++ ``kuhn_poker`` (the floor the Python driver itself sets) and its Python
``python_kuhn_poker``, in one run, so the ratios compare like with like on
whatever the machine is doing. ``kuhn_poker`` is measured before the games
and again after them, and the ratios are to the mean of the two: a shared
machine that got busier or quieter during the run shows as two rates apart.
``--games`` measures only the games named. Needs ``pip install open_spiel``
for the reference rows; without them there are no ratios.

A second table measures random playouts through the interop adapters
(``apothecary.interop``), each next to the native loop measured just before it
on the same game: the PettingZoo env as a mask-only agent (``last(observe=False)``
and the mask from the info), the PettingZoo env as an observing agent (``last()``,
which builds the observation tensor every step), and the OpenSpiel game under
the same driver loop as above. Needs ``pip install -e '.[rl]'``.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
import timeit
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import apothecary

# Player counts measured with ``--players common`` (each game's usual tables).
COMMON_PLAYERS = {
    "in-vino-morte": (3, 5, 9),
    "little-drop-of-poison": (3, 5, 8),
    "poison-pot": (2, 3),
    "tea-scones-arsenic": (1, 2, 4, 6),
}


def playout_rate(
    new_state: Callable[[], Any],
    seconds: float,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Actions per second (chance included) of uniformly random playouts, on
    ``clock`` (wall time by default; benchmarks/batch.py passes CPU time)."""
    rng = random.Random(seed)
    actions = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                r = rng.random()
                total = 0.0
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    total += probability
                    if r < total:
                        action = outcome
                        break
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
            actions += 1
    return actions / (clock() - start)


def mid_game(new_state: Callable[[], Any], seed: int = 1) -> Any:
    """A state about half-way through a random game."""
    rng = random.Random(seed)
    trajectory = []
    state = new_state()
    while not state.is_terminal():
        trajectory.append(state.clone())
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return trajectory[len(trajectory) // 2]


def clone_microseconds(state: Any) -> float:
    """Best-of-5 mean time of one ``clone()``, in microseconds."""
    timer = timeit.Timer(state.clone)
    number, _ = timer.autorange()
    return min(timer.repeat(5, number)) / number * 1e6


KUHN = "OpenSpiel kuhn_poker"


def player_counts(name: str, which: str) -> tuple[int, ...]:
    """The player counts of game ``name`` to measure: ``"all"`` it takes, or
    its ``"common"`` ones (its default alone for a game not listed)."""
    info = apothecary.game_class(name).info
    if which == "all":
        return tuple(range(info.min_players, info.max_players + 1))
    return COMMON_PLAYERS.get(name, (info.default_players,))


def _reference_row(pyspiel: Any, name: str, seconds: float, label: str = "") -> dict[str, Any]:
    game = pyspiel.load_game(name)
    return {
        "game": f"OpenSpiel {name}{label}",
        "players": 2,
        "rate": playout_rate(game.new_initial_state, seconds),
        "clone": clone_microseconds(mid_game(game.new_initial_state)),
    }


def measure(seconds: float, games: list[str], players: str = "all") -> list[dict[str, Any]]:
    """One row per game configuration and reference game: ``kuhn_poker``
    first and last (see :func:`floor`), the Python one after the first."""
    rows: list[dict[str, Any]] = []
    try:
        import pyspiel  # type: ignore[import-not-found]
        from open_spiel.python.games import kuhn_poker  # type: ignore[import-untyped]  # noqa: F401  (registers it)
    except ImportError:
        pyspiel = None
    if pyspiel is not None:
        rows.append(_reference_row(pyspiel, "kuhn_poker", seconds, " (before)"))
        rows.append(_reference_row(pyspiel, "python_kuhn_poker", seconds))
    for name in games:
        for count in player_counts(name, players):
            game = apothecary.load(name, players=count)
            rows.append(
                {
                    "game": name,
                    "players": count,
                    "rate": playout_rate(game.new_initial_state, seconds),
                    "clone": clone_microseconds(mid_game(game.new_initial_state)),
                }
            )
    if pyspiel is not None:
        rows.append(_reference_row(pyspiel, "kuhn_poker", seconds, " (after)"))
    return rows


def floor(rows: list[dict[str, Any]]) -> float | None:
    """The C++ ``kuhn_poker`` loop's rate the ratios are to: the mean of its
    runs before and after the games (None without OpenSpiel)."""
    rates = [row["rate"] for row in rows if row["game"].startswith(KUHN)]
    return sum(rates) / len(rates) if rates else None


def pettingzoo_rate(name: str, players: int, seconds: float, observe: bool, seed: int = 0) -> float:
    """Actions per second (chance included) of random agents through the PettingZoo env."""
    from apothecary.interop.pettingzoo import env

    table = env(name, players=players)
    rng = random.Random(seed)
    table.reset(seed=seed)
    actions = 0
    observation: Any  # the observation dict, or None when not observing
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _agent in table.agent_iter():
            observation, _reward, terminated, truncated, info = table.last(observe)
            if terminated or truncated:
                table.step(None)
                continue
            mask = observation["action_mask"] if observe else info["action_mask"]
            legal = mask.nonzero()[0]
            table.step(int(legal[rng.randrange(len(legal))]))
        actions += table.state.move_number()
        table.reset()
    return actions / (time.perf_counter() - start)


def measure_adapters(seconds: float, games: list[str]) -> list[dict[str, Any]]:
    """One row per game at its default player count: native and adapter rates."""
    try:
        from apothecary.interop import openspiel
    except ImportError:
        return []
    rows: list[dict[str, Any]] = []
    for name in games:
        game = apothecary.load(name)
        players = game.num_players
        spiel_game = openspiel.load(name, players)
        rows.append(
            {
                "game": name,
                "players": players,
                "native": playout_rate(game.new_initial_state, seconds),
                "pettingzoo_mask": pettingzoo_rate(name, players, seconds, observe=False),
                "pettingzoo_observe": pettingzoo_rate(name, players, seconds, observe=True),
                "openspiel": playout_rate(spiel_game.new_initial_state, seconds),
            }
        )
    return rows


def adapters_table(rows: list[dict[str, Any]]) -> str:
    """Markdown table of adapter rates with their ratio to the native rate."""
    lines = [
        "| game | players | native actions/s | PettingZoo, mask only | PettingZoo, observing "
        "| OpenSpiel |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        native = row["native"]
        cells = [
            f"{row[key]:,.0f} ({row[key] / native:.2f})"
            for key in ("pettingzoo_mask", "pettingzoo_observe", "openspiel")
        ]
        lines.append(
            f"| {row['game']} | {row['players']} | {native:,.0f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def replace_between(page: str, begin: str, end: str, text: str) -> str:
    """``page`` with the text between two markers replaced (appended if they are missing)."""
    if begin not in page:
        return f"{page.rstrip()}\n\n{begin}\n{text}\n{end}\n"
    head, _, rest = page.partition(begin)
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{text}\n{end}{tail}"


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown table with ratios to OpenSpiel's C++ Kuhn poker loop (the
    mean of its two runs, given under the table)."""
    reference = floor(rows)
    lines = [
        "| game | players | actions/s | vs C++ kuhn_poker loop | clone (µs) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        ratio = f"{row['rate'] / reference:.2f}" if reference else "n/a"
        lines.append(
            f"| {row['game']} | {row['players']} | {row['rate']:,.0f} | {ratio} | "
            f"{row['clone']:.2f} |"
        )
    if reference:
        lines.append("")
        lines.append(
            f"Ratios are to {reference:,.0f} actions/s, the mean of the C++ "
            "kuhn_poker loop's runs before and after the games."
        )
    return "\n".join(lines)


def main() -> None:
    """Measure, print, and optionally write the figures into a docs page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration")
    parser.add_argument(
        "--players",
        choices=("all", "common"),
        default="all",
        help="every player count of each game (the default), or its usual tables only",
    )
    parser.add_argument(
        "--games",
        type=lambda text: text.split(","),
        help="measure only these games (comma-separated registry names)",
    )
    parser.add_argument("--write", type=Path, help="replace the figures in this markdown file")
    parser.add_argument(
        "--no-adapters", action="store_true", help="skip the PettingZoo and OpenSpiel rows"
    )
    args = parser.parse_args()
    known = apothecary.games()
    games = known if args.games is None else args.games
    unknown = [name for name in games if name not in known]
    if unknown:
        parser.error(f"unknown game {unknown[0]!r}; the games are: {', '.join(known)}")
    if args.write and args.games is not None:
        # The page's tables are of every game; a partial run would drop rows.
        parser.error("--write measures every game: leave out --games")
    rows = measure(args.seconds, games, args.players)
    text = table(rows)
    machine = (
        f"{date.today()}, Python {platform.python_version()}, {platform.machine()}, "
        f"{platform.processor() or 'cpu'}; {args.seconds:g} s per configuration"
    )
    print(machine)
    print(text)
    adapter_text = ""
    if not args.no_adapters:
        adapter_rows = measure_adapters(args.seconds, games)
        if adapter_rows:
            adapter_text = adapters_table(adapter_rows)
            print()
            print(adapter_text)
    if args.write:
        page = args.write.read_text(encoding="utf-8")
        page = replace_between(
            page, "<!-- playout:begin -->", "<!-- playout:end -->", f"{machine}\n\n{text}"
        )
        if adapter_text:
            page = replace_between(
                page,
                "<!-- adapters:begin -->",
                "<!-- adapters:end -->",
                f"{machine}\n\n{adapter_text}",
            )
        args.write.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
