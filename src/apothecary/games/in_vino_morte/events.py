"""In Vino Morte actions as events: what each viewer may read of one
(:meth:`apothecary.core.game.State.describe_action`).

What is secret (rules.md, "What each seat sees"): only the dealer sees the
covered glasses, their own included, so only the dealer reads what they poured.
Everything else about an action is public: which seat a glass is dealt to
and whether Cheese (face up) comes with it, who drinks and what the glass
held, who swaps with whom, who steals whose Cheese, and the reveal that ends
a round. A spectator reads what a non-dealer reads.

Every event has ``actor``, ``notation`` and ``text`` (with ``words``, its seats
as data: :mod:`apothecary.core.words`), a ``kind`` and the keys of its kind,
the schema the observation's own ``events`` (this round's turns) use too:

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
empty for most actions, with their words in ``then_words``.
"""

from __future__ import annotations

from apothecary.core.events import add_then, after_action, new_event, say, seat, seats
from apothecary.core.game import JSON, Action, Player
from apothecary.core.words import Words
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
            text = say(
                "{who} deals a glass of {glass} to {whom}{c}",
                who=who,
                glass=glass,
                whom=whom,
                c=with_cheese,
            )
            return _event(actor, "deal", notation, text, to=to, cheese=cheese, glass=glass)
        text = say("{who} deals a covered glass to {whom}{c}", who=who, whom=whom, c=with_cheese)
        return _event(actor, "deal", None, text, to=to, cheese=cheese, glass=None)
    assert state.phase == TURN_PHASE
    if action == DRINK:
        glass = CARD_NAMES[state.card[actor]]
        held = state.cheese[actor]
        died = state._dies(actor, on_reveal=False)
        event = _event(
            actor,
            "drink",
            notation,
            say(
                "{who}{holding} drinks {glass} and {fate}",
                who=who,
                holding=", holding cheese," if held else "",
                glass=glass,
                fate="dies" if died else "lives",
            ),
            glass=glass,
            cheese=held,
            died=died,
        )
    elif action < state.game.steal_base:
        other = action - SWAP_BASE
        text = say("{who} swaps glasses with {other}", who=who, other=seat(other))
        event = _event(actor, "swap", notation, text, **{"with": other})
    else:
        other = action - state.game.steal_base
        text = say("{who} steals the cheese of {other}", who=who, other=seat(other))
        event = _event(actor, "steal", notation, text, **{"from": other})
    if state.step + 1 == len(state.order) - 1:
        _add_reveal(state, action, event)
    return event


def _event(
    actor: Player, kind: str, notation: str | None, text: Words, **args: JSON
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
    glasses = Words(", ").join(
        say(
            "{who} {glass}{c}",
            who=seat(s),
            glass=CARD_NAMES[cards[s]],
            c=" with cheese" if cheese[s] else "",
        )
        for s in revealed
    )
    dead = sorted(s for s in revealed if s in died)
    fate = (
        say("nobody dies")
        if not dead
        else say("{dead} {verb}", dead=seats(dead), verb="dies" if len(dead) == 1 else "die")
    )
    then: list[str | Words] = [say("the glasses are turned over: {glasses}", glasses=glasses), fate]
    outcome = after.outcome()
    if outcome is not None:
        then.append(outcome.words if outcome.words is not None else outcome.reason)
    add_then(event, then)


__all__ = ["describe"]
