"""In Vino Morte actions as events: what each viewer may read of one
(:meth:`apothecary.core.game.State.describe_action`).

What is secret (rules.md, "What each seat sees"): only the dealer sees the
covered glasses, their own included, so only the dealer reads what they poured.
Everything else about an action is public: which seat a glass is dealt to
and whether Cheese (face up) comes with it, who drinks and what the glass
held, who swaps with whom, who steals whose Cheese, and the reveal that ends
a round. A spectator reads what a non-dealer reads.

Every event has ``actor``, ``notation`` and ``text``, a ``kind`` and the keys
of its kind:

- ``"deal"``: ``to`` (the seat given the glass), ``cheese`` (whether Cheese
  comes with it), ``glass`` (``"wine"`` or ``"poison"`` for the dealer, None
  for everyone else, whose ``notation`` is None too);
- ``"drink"``: ``glass`` (what the drinker turned up), ``cheese`` (whether it
  held Cheese, which reverses the result), ``died``;
- ``"swap"``: ``with`` (the other seat);
- ``"steal"``: ``from`` (the seat whose Cheese was taken).

Every event also has ``reveal``: None, except for the turn that ends a round,
where it lists each seat that turned their glass over as ``{"seat", "glass",
"cheese", "died"}``; and ``then``: the clauses that end the text and tell
what the action set off (the reveal, who died and, when the game ends, how),
empty for most actions.
"""

from __future__ import annotations

from apothecary.core.events import add_then, after_action, new_event, seat, seats
from apothecary.core.game import JSON, Action, Player
from apothecary.games.in_vino_morte.rules import (
    CARD_NAMES,
    DEAL_PHASE,
    DEAL_WINE_CHEESE,
    DRINK,
    SWAP_BASE,
    TURN_PHASE,
    InVinoMorteState,
)


def describe(
    state: InVinoMorteState, action: Action, actor: Player, viewer: Player | None
) -> dict[str, JSON]:
    """The event ``viewer`` reads of ``action`` (legal in ``state``, played by ``actor``)."""
    who = seat(actor)
    notation = state.action_to_string(action)
    if state.phase == DEAL_PHASE:
        to = state.order[state.step]
        cheese = action >= DEAL_WINE_CHEESE
        whom = "themselves" if to == actor else seat(to)  # a seat is a person: singular they
        with_cheese = ", with cheese" if cheese else ""
        if viewer == state.dealer:
            glass = CARD_NAMES[action & 1]
            text = f"{who} deals a glass of {glass} to {whom}{with_cheese}"
            return _event(actor, "deal", notation, text, to=to, cheese=cheese, glass=glass)
        text = f"{who} deals a covered glass to {whom}{with_cheese}"
        return _event(actor, "deal", None, text, to=to, cheese=cheese, glass=None)
    assert state.phase == TURN_PHASE
    if action == DRINK:
        glass = CARD_NAMES[state.card[actor]]
        held = state.cheese[actor]
        died = state._dies(actor, on_reveal=False)
        holding = ", holding cheese," if held else ""
        fate = "dies" if died else "lives"
        event = _event(
            actor,
            "drink",
            notation,
            f"{who}{holding} drinks {glass} and {fate}",
            glass=glass,
            cheese=held,
            died=died,
        )
    elif action < state.game.steal_base:
        other = action - SWAP_BASE
        event = _event(
            actor, "swap", notation, f"{who} swaps glasses with {seat(other)}", **{"with": other}
        )
    else:
        other = action - state.game.steal_base
        event = _event(
            actor,
            "steal",
            notation,
            f"{who} steals the cheese of {seat(other)}",
            **{"from": other},
        )
    if state.step + 1 == len(state.order) - 1:
        _add_reveal(state, action, event)
    return event


def _event(
    actor: Player, kind: str, notation: str | None, text: str, **args: JSON
) -> dict[str, JSON]:
    return new_event(actor, kind, notation, text, {**args, "reveal": None})


def _add_reveal(state: InVinoMorteState, action: Action, event: dict[str, JSON]) -> None:
    """The last turn of a round: every glass not drunk is turned over, for all to see."""
    after = after_action(state, action)
    assert after.last_round is not None
    _number, _dealer, cards, cheese, revealed, died = after.last_round
    shown = [
        {"seat": s, "glass": CARD_NAMES[cards[s]], "cheese": cheese[s], "died": s in died}
        for s in revealed
    ]
    event["reveal"] = shown
    glasses = ", ".join(
        f"{seat(g['seat'])} {g['glass']}" + (" with cheese" if g["cheese"] else "") for g in shown
    )
    dead = [g["seat"] for g in shown if g["died"]]
    fate = (
        "nobody dies"
        if not dead
        else f"{seats(sorted(dead))} {'dies' if len(dead) == 1 else 'die'}"
    )
    then = [f"the glasses are turned over: {glasses}", fate]
    outcome = after.outcome()
    if outcome is not None:
        then.append(outcome.reason)
    add_then(event, then)


__all__ = ["describe"]
