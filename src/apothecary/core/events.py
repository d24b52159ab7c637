"""Words the games share when they tell an action as an event
(:meth:`apothecary.core.game.State.describe_action`).

Events name seats ``seat N`` and never ``you``: a front end knows who reads
the event and puts in a name, ``you`` or a highlight itself.
"""

from __future__ import annotations

from collections.abc import Iterable


def seat(number: int) -> str:
    """``seat 3``."""
    return f"seat {number}"


def seats(numbers: Iterable[int]) -> str:
    """``seat 0``, ``seat 0 and seat 2``, ``seat 0, seat 1 and seat 2``; ``nobody`` for none."""
    names = [seat(n) for n in numbers]
    if not names:
        return "nobody"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]
