"""``apothecary solve GAME --players N``: solve a game exactly where a solver
exists, and say what it found and how long it took.

Every refusal (a game or table with no solver, a table too big for this
machine's memory) is one line on stderr and exit code 2, given before any long
computation starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from apothecary.cli_common import user_errors
from apothecary.core.errors import BadOptionError, PlayerCountError
from apothecary.core.manifest import resolve
from apothecary.core.registry import game_class, games, manifest
from apothecary.i18n.terminal import T_, _

Solver = Callable[[int | None], str]
"""A manifest's ``solve``: checks the table (raising the project's errors at
once), solves it, and returns the lines to print."""


def solvable() -> list[str]:
    """The games whose manifest names a solver for ``solve``, sorted."""
    return [name for name in games() if manifest(name).solve is not None]


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


SOLVE_HELP = T_("Solve a game exactly where a solver exists; print the value and the time taken.")
"""``solve``'s help (its docstring's words, marked for the catalogs)."""


def solve_command(
    game: Annotated[str, typer.Argument(help=T_("A game name (see 'games')."))],
    players: Annotated[
        int | None, typer.Option("--players", "-p", help=T_("Players at the table."))
    ] = None,
) -> None:
    """Solve a game exactly where a solver exists; print the value and the time taken."""
    info = game_class(game).info
    if players is not None and not info.min_players <= players <= info.max_players:
        raise PlayerCountError(
            _(
                "{game}: {players} players; it plays with {least} to {most}",
                game=game,
                players=players,
                least=info.min_players,
                most=info.max_players,
            )
        )
    where = manifest(game).solve
    if where is None:
        known = ", ".join(solvable())
        raise BadOptionError(
            _("solve: no exact solver for {game}; solve knows: {known}", game=game, known=known)
        )
    solver: Solver = resolve(where)
    typer.echo(solver(players))


def register(app: typer.Typer) -> None:
    """Add ``solve`` to the ``apothecary`` command line."""
    app.command("solve", help=SOLVE_HELP)(user_errors(solve_command))
