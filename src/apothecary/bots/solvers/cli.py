"""``apothecary solve GAME --players N``: solve a game exactly where a solver
exists, and say what it found and how long it took.

Every refusal (a game or table with no solver, a table too big for this
machine's memory) is one line on stderr and exit code 2, given before any long
computation starts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated

import typer

from apothecary.bots.solvers.tsa_solo_table import SoloBox
from apothecary.cli_common import user_errors
from apothecary.core.errors import BadOptionError, PlayerCountError
from apothecary.core.registry import game_class

Solver = Callable[[int | None], str]
"""Checks the table (raising the project's errors at once), solves it, and
returns the lines to print."""


def _solve_tea_scones_arsenic(players: int | None) -> str:
    from apothecary.bots.solvers import tsa_solo_table as table

    if players not in (None, 1):
        raise BadOptionError(
            f"solve: tea-scones-arsenic is solved exactly only solo (--players 1), "
            f"not at {players} players"
        )
    box = BOX or SoloBox()
    needed = table.memory_needed(box)
    available = memory_available()
    if available is not None and needed > available:
        raise BadOptionError(
            f"solve: tea-scones-arsenic solo needs about {needed / 1e9:.1f} GB of memory "
            f"and {available / 1e9:.1f} GB is available; nothing was computed"
        )
    start = time.perf_counter()
    with table.progress_bar("solving solo, layer by layer") as update:
        solution = table.solve(box, progress=update)
    seconds = time.perf_counter() - start
    path = table.save(solution)
    return (
        f"tea-scones-arsenic, 1 player: optimal expected score {solution.value:.12g} scones\n"
        f"solved exactly in {seconds:.1f} s ({solution.positions:,} positions); "
        f"the policy table (for the solo-optimal bot) is in {path}"
    )


BOX: SoloBox | None = None
"""The box ``solve tea-scones-arsenic`` solves (None: the real one); tests set a small one."""

SOLVERS: dict[str, Solver] = {"tea-scones-arsenic": _solve_tea_scones_arsenic}
"""The games ``solve`` knows, by name."""


def memory_available() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable``), or None if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def solve_command(
    game: Annotated[str, typer.Argument(help="A game name (see 'games').")],
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players at the table.")
    ] = None,
) -> None:
    """Solve a game exactly where a solver exists; print the value and the time taken."""
    info = game_class(game).info
    if players is not None and not info.min_players <= players <= info.max_players:
        raise PlayerCountError(
            f"{game}: {players} players; it plays with {info.min_players} to {info.max_players}"
        )
    solver = SOLVERS.get(game)
    if solver is None:
        known = ", ".join(SOLVERS)
        raise BadOptionError(f"solve: no exact solver for {game}; solve knows: {known}")
    typer.echo(solver(players))


def register(app: typer.Typer) -> None:
    """Add ``solve`` to the ``apothecary`` command line."""
    app.command("solve")(user_errors(solve_command))
