"""Tea, Scones and Arsenic actions as events: what each viewer may read of one
(:meth:`apothecary.core.game.State.describe_action`).

What is secret (the rulebook: the player "turns it over discreetly to know
his dose of poison (the other players should not see anything)", and eaten
scones lie "Poison side hidden"): a scone's dose is read only by those who
have seen it (the drawer, and whoever saw a marked scone before). Public:
every choice (stop, shuffle, which kind or which marked scone is taken, eat,
put back, spoon or pass), a death and the dose it came at, the totals turned
over at the end of the main game, the eat-off and the end. A spectator never
reads a dose.

Every event has ``actor``, ``notation`` and ``text``, a ``kind`` and the keys
of its kind (``scone`` is a kind 1..6; ``dose`` is the dose for a viewer who
knows it, else None):

- ``"stop"``: ``owing`` (the seats that now owe honour turns), ``turns``
  (how many each);
- ``"shuffle"``: no more keys;
- ``"draw"``: ``scone``, ``marked_by`` (the seat that put the taken marked
  scone back, None for a scone taken by kind), ``dose``;
- ``"dose"`` (a chance event): ``seat`` (the drawer), ``scone``, ``dose``
  (for the drawer only, whose ``notation`` alone is not None);
- ``"eat"``: ``scone``, ``dose``, ``spoon_asked`` (whether the spoon holders
  are asked first, so that the scone is not eaten yet);
- ``"back"``: ``scone``, ``dose``, ``shuffle`` (whether the box is shuffled too);
- ``"spoon"`` and ``"pass"``: ``eater``, ``scone``, ``dose``.

Every event also has ``deaths``: the players the action killed, as
``{"seat", "total"}`` (a death and its total are public);
``turned_over``: the totals the action made public by ending the main game (the
living seats') or the eat-off (its seats'), as ``{"seat", "total"}``, empty for
most actions; and ``then``: the
clauses that end the text and tell what the action set off (the scone eaten
after the last ``pass``, honour turns owed, deaths, the end of the main game
with the totals turned over, an eat-off, the end of the game), empty for
most actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apothecary.core.events import add_then, after_action, new_event, say, seat, seats
from apothecary.core.game import CHANCE, JSON, Action, Player
from apothecary.core.words import SeatsRef, Words
from apothecary.games.tea_scones_arsenic.facts import (
    BACK_SHUFFLE,
    DECIDE,
    DOSE,
    DRAW_BASE,
    EAT,
    MARKED_BASE,
    SHUFFLE,
    SPOON,
    STOP,
    TURN,
)

if TYPE_CHECKING:
    # Only a type: rules.py imports this module, never the other way round.
    from apothecary.games.tea_scones_arsenic.rules import TeaSconesArsenicState


def describe(
    state: TeaSconesArsenicState, action: Action, actor: Player, viewer: Player | None
) -> dict[str, JSON]:
    """The event ``viewer`` reads of ``action`` (legal in ``state``, played by ``actor``)."""
    notation = state.action_to_string(action)
    phase = state.phase
    drawer = state.turn_player
    if phase == DOSE:
        assert actor == CHANCE
        scone = state.hand_kind + 1
        if viewer == drawer:
            text = say(
                "{who} sees dose {dose} on the kind-{scone} scone",
                who=seat(drawer),
                dose=action,
                scone=scone,
            )
            return _event(actor, "dose", notation, text, seat=drawer, scone=scone, dose=action)
        text = say(
            "{who} looks at the dose of the kind-{scone} scone", who=seat(drawer), scone=scone
        )
        return _event(actor, "dose", None, text, seat=drawer, scone=scone, dose=None)
    who = seat(actor)
    if phase == TURN:
        if action == SHUFFLE:
            text = say("{who} shuffles the box, clearing every mark", who=who)
            return _event(actor, "shuffle", notation, text)
        if action >= MARKED_BASE:
            kind, dose, by, known = state.marked[action - MARKED_BASE]
            # Taking a marked scone shows its dose to the taker as well.
            seen = _known(dose, known | 1 << actor, viewer)
            text = _marked_take(who, kind + 1, None if by == actor else by, seen)
            return _event(actor, "draw", notation, text, scone=kind + 1, marked_by=by, dose=seen)
        if action >= DRAW_BASE:
            scone = action - DRAW_BASE + 1
            text = say("{who} takes a kind-{scone} scone from the box", who=who, scone=scone)
            return _event(actor, "draw", notation, text, scone=scone, marked_by=None, dose=None)
        assert action == STOP
        event = _event(actor, "stop", notation, say("{who} stops eating", who=who))
    else:
        scone = state.hand_kind + 1
        seen = _known(state.hand_dose, state.hand_known, viewer)
        it = (
            say("the kind-{scone} scone", scone=scone)
            if seen is None
            else say("the kind-{scone} scone (dose {dose})", scone=scone, dose=seen)
        )
        if phase == DECIDE:
            if action == EAT:
                asked = (
                    state._rules.little_spoon
                    and not state.eat_off
                    and state._next_spoon_holder(drawer) >= 0
                )
                args: dict[str, JSON] = {"scone": scone, "dose": seen, "spoon_asked": asked}
                if asked:
                    text = say("{who} chooses to eat {it}", who=who, it=it)
                else:
                    text = say("{who} eats {it}", who=who, it=it)
                event = _event(actor, "eat", notation, text, **args)
            else:
                shuffle = action == BACK_SHUFFLE
                if shuffle:
                    text = say(
                        "{who} puts {it} back for a sugar cube and shuffles the box", who=who, it=it
                    )
                else:
                    text = say("{who} puts {it} back for a sugar cube", who=who, it=it)
                args = {"scone": scone, "dose": seen, "shuffle": shuffle}
                event = _event(actor, "back", notation, text, **args)
        else:
            args = {"eater": drawer, "scone": scone, "dose": seen}
            if action == SPOON:
                text = say(
                    "{who} sends {it} of {eater} back with the little spoon",
                    who=who,
                    it=it,
                    eater=seat(drawer),
                )
                event = _event(actor, "spoon", notation, text, **args)
            else:
                text = say("{who} lets {eater} eat {it}", who=who, eater=seat(drawer), it=it)
                event = _event(actor, "pass", notation, text, **args)
                if state._next_spoon_holder(actor) < 0:  # nobody else is asked
                    add_then(event, [say("{eater} eats it", eater=seat(drawer))])
    _add_consequences(state, action, event)
    return event


def _marked_take(who: SeatsRef, scone: int, by: int | None, seen: int | None) -> Words:
    """``seat 1 takes the marked kind-3 scone seat 0 put back`` (``they`` when the
    taker put it back), with ``(dose 2)`` for a viewer who knows it: each a whole
    message."""
    if by is None:
        if seen is None:
            return say(
                "{who} takes the marked kind-{scone} scone they put back", who=who, scone=scone
            )
        return say(
            "{who} takes the marked kind-{scone} scone they put back (dose {dose})",
            who=who,
            scone=scone,
            dose=seen,
        )
    if seen is None:
        return say(
            "{who} takes the marked kind-{scone} scone {putter} put back",
            who=who,
            scone=scone,
            putter=seat(by),
        )
    return say(
        "{who} takes the marked kind-{scone} scone {putter} put back (dose {dose})",
        who=who,
        scone=scone,
        putter=seat(by),
        dose=seen,
    )


def _known(dose: int, known: int, viewer: Player | None) -> int | None:
    """``dose`` if ``viewer`` is among the seats in the bit set ``known``, else None."""
    if viewer is not None and viewer >= 0 and known >> viewer & 1:
        return dose
    return None


def _event(
    actor: Player, kind: str, notation: str | None, text: Words, **args: JSON
) -> dict[str, JSON]:
    return new_event(actor, kind, notation, text, {**args, "deaths": [], "turned_over": []})


def _add_consequences(state: TeaSconesArsenicState, action: Action, event: dict[str, JSON]) -> None:
    """What the action set off that everyone sees: honour turns owed, deaths, the
    end of the main game, an eat-off, the end."""
    after = after_action(state, action)
    n = state.game.num_players
    words: list[Words] = []
    if event["kind"] == "stop":
        owing = [q for q in range(n) if after.honour[q] > state.honour[q]]
        turns = state._rules.honour_turns
        event["owing"] = owing
        event["turns"] = turns
        if owing:
            owe = "owes" if len(owing) == 1 else "owe"
            each = "" if len(owing) == 1 else " each"
            plural = "turn" if turns == 1 else "turns"
            words.append(
                say(
                    "{owing} {owe} {turns} honour {plural}{each}",
                    owing=seats(owing),
                    owe=owe,
                    turns=turns,
                    plural=plural,
                    each=each,
                )
            )
    deaths: list[JSON] = []
    for q in range(n):
        if state.alive[q] and not after.alive[q]:
            deaths.append({"seat": q, "total": after.public_totals[q]})
            words.append(
                say("{who} dies at dose {total}", who=seat(q), total=after.public_totals[q])
            )
    event["deaths"] = deaths
    turned: list[JSON] = []
    if after.main_game_over and not state.main_game_over:
        turned = [{"seat": q, "total": after.public_totals[q]} for q in range(n) if after.alive[q]]
        totals = Words(", ").join(
            say("{who} total {total}", who=seat(q), total=after.public_totals[q])
            for q in range(n)
            if after.alive[q]
        )
        if totals:
            over = say("the main game is over; the cups are turned over: {totals}", totals=totals)
        else:
            over = say("the main game is over")
        words.append(over)
    if after.eat_off and not state.eat_off:
        words.append(
            say("the tie goes to an eat-off between {tied}", tied=seats(after.eat_off_seats))
        )
    if after.result is not None and state.eat_off:
        # the eat-off's scones were face down: its end turns every cup over again
        turned = [{"seat": q, "total": after.totals[q]} for q in state.eat_off_seats]
    event["turned_over"] = turned
    if after.result is not None:
        reason = after.result.words or Words(after.result.reason)
        words.append(say("the game is over: {reason}", reason=reason))
    add_then(event, words)


__all__ = ["describe"]
