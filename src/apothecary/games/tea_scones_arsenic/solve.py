"""``apothecary solve tea-scones-arsenic``: the solo game solved exactly, layer
by layer (:mod:`.solo_table`), and its policy table saved for ``solo-optimal``."""

from __future__ import annotations

import time

from apothecary.core.errors import BadOptionError
from apothecary.games.tea_scones_arsenic import solo_table as table
from apothecary.games.tea_scones_arsenic.solo_table import SoloBox

BOX: SoloBox | None = None
"""The box ``solve tea-scones-arsenic`` solves (None: the real one); tests set a small one."""


def solve(players: int | None) -> str:
    """Check the table, solve it and say what was found (the manifest's ``solve``)."""
    # Imported here: the command's module imports the registry, which imports this package.
    from apothecary.bots.solvers.cli import memory_available

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
