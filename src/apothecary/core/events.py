"""Words the games share when they tell an action as an event
(:meth:`apothecary.core.game.State.describe_action`).

Events name seats ``seat N`` and never ``you``: a front end knows who reads
the event and puts in a name, ``you`` or a highlight itself. The games' events
carry a ``then`` list: the clauses that end their ``text`` and tell what the
action set off (see :func:`add_then`). :func:`new_event` lays out the keys
every game's event starts with, and :func:`after_action` gives the position
an action leads to, for telling what it set off.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from apothecary.core.game import JSON, Action, Player, State

_S = TypeVar("_S", bound=State)


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


def add_then(event: dict[str, Any], sentences: Sequence[str]) -> None:
    """Add to ``event`` what its action set off that its viewer sees (a reveal, a
    death, the end): the clauses go to its ``then`` list and, after ``"; "``,
    to the end of its ``text``, so a front end can show the action's own words
    (``text`` without the ``then`` part) apart from them."""
    if not sentences:
        return
    event["then"] = [*event.get("then", []), *sentences]
    event["text"] = "; ".join([str(event["text"]), *sentences])


def new_event(
    actor: Player, kind: str, notation: str | None, text: str, args: Mapping[str, JSON]
) -> dict[str, JSON]:
    """An event with no consequences yet: ``actor``, ``kind``, ``notation`` and
    ``text``, then ``args`` (the keys of its kind, then those the game adds to
    every event, in that order), and an empty ``then`` for :func:`add_then`."""
    return {"actor": actor, "kind": kind, "notation": notation, "text": text, **args, "then": []}


def after_action(state: _S, action: Action) -> _S:
    """A copy of ``state`` with ``action`` (legal there) applied; ``state`` is left
    as it was."""
    after = state.clone()
    assert isinstance(after, type(state))
    after.apply_action(action)
    return after
