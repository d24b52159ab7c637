"""Words the games share when they tell an action as an event
(:meth:`apothecary.core.game.State.describe_action`).

Events name seats ``seat N`` and never ``you``: a front end knows who reads
the event and puts in a name, ``you`` or a highlight itself, from the event's
``words`` (:mod:`apothecary.core.words`: the text with its seats as data), never
by reading the text. The games' events carry a ``then`` list: the clauses that
end their ``text`` and tell what the action set off (see :func:`add_then`), with
their words in ``then_words``. :func:`new_event` lays out the keys
every game's event starts with, and :func:`after_action` gives the position
an action leads to, for telling what it set off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from apothecary.core.game import JSON, Action, Player, State
from apothecary.core.words import Words, message_of, runs_of, say, seat, seats

__all__ = ["add_then", "after_action", "new_event", "say", "seat", "seats"]

_S = TypeVar("_S", bound=State)


def add_then(event: dict[str, Any], sentences: Sequence[str | Words]) -> None:
    """Add to ``event`` what its action set off that its viewer sees (a reveal, a
    death, the end): the clauses go to its ``then`` list and, after ``"; "``,
    to the end of its ``text``, so a front end can show the action's own words
    (``text`` without the ``then`` part) apart from them."""
    if not sentences:
        return
    texts = [str(s) for s in sentences]
    event["then"] = [*event.get("then", []), *texts]
    event["then_words"] = [*event.get("then_words", []), *(runs_of(s) for s in sentences)]
    event["then_msg"] = [*event.get("then_msg", []), *(message_of(s) for s in sentences)]
    event["text"] = "; ".join([str(event["text"]), *texts])


def new_event(
    actor: Player,
    kind: str,
    notation: str | None,
    text: str | Words,
    args: Mapping[str, JSON],
) -> dict[str, JSON]:
    """An event with no consequences yet: ``actor``, ``kind``, ``notation``,
    ``text``, its ``words`` and their ``msg`` (to say in another language), then
    ``args`` (the keys of its kind, then those the game adds to every event, in
    that order), and an empty ``then`` (and
    ``then_words``, ``then_msg``) for :func:`add_then`."""
    return {
        "actor": actor,
        "kind": kind,
        "notation": notation,
        "text": str(text),
        "words": runs_of(text),
        "msg": message_of(text),
        **args,
        "then": [],
        "then_words": [],
        "then_msg": [],
    }


def after_action(state: _S, action: Action) -> _S:
    """A copy of ``state`` with ``action`` (legal there) applied; ``state`` is left
    as it was."""
    after = state.clone()
    assert isinstance(after, type(state))
    after.apply_action(action)
    return after
