"""Little Drop of Poison actions as events: what each viewer may read of one
(:meth:`apothecary.core.game.State.describe_action`).

What is secret (the rulebook: the poison cards are dealt "face-down", and
only "turn over all of the played poison cards at once" at the end of a
poison round): the card a seat is dealt is read by that seat alone, and the
card a seat adds to their play by that seat alone. Public: the king and the
peasants (dealt face up), who is dealt a card, which character a seat plays
on and how many cards they add, ``done`` and ``pass``, and everything the
reveal shows. A spectator reads what a seat reads of others' actions.

The texts are for people: they name a card in words (:func:`card_words`,
"seat 2 is dealt a green poison of 1 drop"), while the ``card`` key and the
``notation`` keep its code (``g1``), the notation a player types.

Every event has ``actor``, ``notation`` and ``text``, a ``kind`` and the keys
of its kind:

- ``"king"``: ``king`` (``"rat"`` or ``"weasel"``);
- ``"peasant"``: ``seat``, ``peasant`` (``"rat"`` or ``"weasel"``);
- ``"deal"``: ``to`` (the seat dealt the card), ``card`` (its code for that
  seat, None for everyone else, whose ``notation`` is None too);
- ``"target"``: ``on`` (the character: ``"king"`` or the seat number as text,
  as in observations);
- ``"card"``: ``on``, ``card`` (the code for the seat that plays it, else None);
- ``"done"``: ``on``, ``cards`` (how many cards the play holds);
- ``"pass"``: no more keys.

Every event also has ``reveal``: None, unless the action ended a poison round,
where it holds what the reveal made public: ``deaths`` (a list of
``{"character", "killers"}``) and ``points`` (gained per seat); and ``then``:
the clauses that end the text and tell, in order, what the action set off
that everyone sees (the reveal, the discard pile shuffled into a new deck,
the end of the assassination round, the end of the game), empty for most
actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apothecary.core.events import add_then, after_action, new_event, say, seat, seats
from apothecary.core.game import CHANCE, JSON, Action, Player
from apothecary.core.words import Words, say_in, say_n
from apothecary.games.little_drop_of_poison.deck import ANTIDOTE, POISON, CardType
from apothecary.games.little_drop_of_poison.facts import (
    DEAL_PHASE,
    E_REFILL,
    E_REVEAL,
    E_ROUND_END,
    KINDS,
    KING_PHASE,
    PEASANT_PHASE,
    Reveal,
)

if TYPE_CHECKING:  # the rules import this module, so only the type checker imports them
    from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonState


def describe(
    state: LittleDropOfPoisonState, action: Action, actor: Player, viewer: Player | None
) -> dict[str, JSON]:
    """The event ``viewer`` reads of ``action`` (legal in ``state``, played by ``actor``)."""
    game = state.game
    notation = state.action_to_string(action)
    if actor == CHANCE:
        if state.phase == KING_PHASE:
            king = KINDS[action - game.CROWN]
            text = _king_words(king)
            return _event(actor, "king", notation, text, king=king)
        if state.phase == PEASANT_PHASE:
            owner = state.kinds.index(-1)
            kind = KINDS[action - game.PEASANT]
            text = _peasant_words(owner, kind)
            return _event(actor, "peasant", notation, text, seat=owner, peasant=kind)
        assert state.phase == DEAL_PHASE
        to = state.deal_order[state.deal_index]
        if viewer == to:
            dealt = game.deck.types[action - game.DEAL]
            text = say("{to} is dealt {card}", to=seat(to), card=card_words(dealt))
            event = _event(actor, "deal", notation, text, to=to, card=dealt.code)
        else:
            text = say("{to} is dealt a card face down", to=seat(to))
            event = _event(actor, "deal", None, text, to=to, card=None)
        if state.deck_size == 1:
            _add_consequences(state, action, event)  # the last card: a refill may follow
        return event
    who = seat(actor)
    if action < game.ADD:
        on = game.character_name(action)
        text = say("{who} plays on {on}", who=who, on=_character(action, actor, game.KING))
        return _event(actor, "target", notation, text, on=on)
    target = state.turn_target
    on = game.character_name(target)
    where = _character(target, actor, game.KING)
    if action < game.DONE:
        if viewer == actor:
            played = game.deck.types[action - game.ADD]
            text = say(
                "{who} adds {card} face down on {where}",
                who=who,
                card=card_words(played),
                where=where,
            )
            return _event(actor, "card", notation, text, on=on, card=played.code)
        text = say("{who} adds a card face down on {where}", who=who, where=where)
        return _event(actor, "card", None, text, on=on, card=None)
    if action == game.DONE:
        count = state.play_count[actor]
        text = say_n(
            "{who} is done: {count} card face down on {where}",
            "{who} is done: {count} cards face down on {where}",
            count,
            who=who,
            where=where,
        )
        event = _event(actor, "done", notation, text, on=on, cards=count)
    else:
        text = say("{who} passes, with no card in hand", who=who)
        event = _event(actor, "pass", notation, text)
    if state.turn_index == len(state.turn_order) - 1:
        _add_consequences(state, action, event)  # the last turn: the reveal follows
    return event


def _event(
    actor: Player, kind: str, notation: str | None, text: Words, **args: JSON
) -> dict[str, JSON]:
    return new_event(actor, kind, notation, text, {**args, "reveal": None})


def _king_words(king: str) -> Words:
    """``the king is the weasel king``: the kind said inside its own sentence."""
    if king == "rat":
        return say("the king is the rat king")
    if king == "weasel":
        return say("the king is the weasel king")
    return say("the king is the {king} king", king=king)  # a kind no deck has yet


def _peasant_words(owner: int, kind: str) -> Words:
    """``the peasant of seat 2 is a rat``, each kind in a sentence of its own."""
    if kind == "rat":
        return say("the peasant of {owner} is a rat", owner=seat(owner))
    if kind == "weasel":
        return say("the peasant of {owner} is a weasel", owner=seat(owner))
    return say("the peasant of {owner} is a {kind}", owner=seat(owner), kind=kind)


def card_words(card: CardType) -> Words:
    """A card in words, for a sentence: ``a blue poison of 2 drops``, ``a green
    and purple poison of 1 drop each``, ``a blue antidote``, ``a universal
    antidote``. It tells exactly what the card's code does (kind, colours,
    drops), so a text in these words shows no more and no less than the code.

    Each form is one whole message; English picks ``a`` or ``an`` by the
    colour's first letter (a deck may have an ``orange`` poison; no colour
    starts with ``u``, which codes keep for the universal antidote), and other
    languages translate both alike."""
    if card.kind == POISON:
        colours = colour_list(card.colours)
        an = card.colours[0][0] in "aeio"
        if len(card.colours) > 1:
            if an:
                return say_n(
                    "an {colours} poison of {count} drop each",
                    "an {colours} poison of {count} drops each",
                    card.drops,
                    colours=colours,
                )
            return say_n(
                "a {colours} poison of {count} drop each",
                "a {colours} poison of {count} drops each",
                card.drops,
                colours=colours,
            )
        if an:
            return say_n(
                "an {colours} poison of {count} drop",
                "an {colours} poison of {count} drops",
                card.drops,
                colours=colours,
            )
        return say_n(
            "a {colours} poison of {count} drop",
            "a {colours} poison of {count} drops",
            card.drops,
            colours=colours,
        )
    if card.kind == ANTIDOTE:
        colour = colour_words(card.colours[0])
        if card.colours[0][0] in "aeio":
            return say("an {colour} antidote", colour=colour)
        return say("a {colour} antidote", colour=colour)
    return say("a universal antidote")


def colour_words(colour: str) -> Words | str:
    """A deck's colour said in a card's words (``blue``): the colours a deck
    usually has are messages to translate; one a deck spec names itself stays
    as it is written (a player typed it)."""
    said = _COLOURS.get(colour)
    return said() if said is not None else colour


def colour_list(colours: tuple[str, ...]) -> Words | str:
    """A card's colours: ``blue``, ``green and purple``, ``red, green and blue``."""
    if len(colours) == 1:
        return colour_words(colours[0])
    return say_in(
        "colours of a card",
        "{colours} and {last}",
        colours=Words(", ").join(colour_words(c) for c in colours[:-1]),
        last=colour_words(colours[-1]),
    )


_COLOURS = {
    "blue": lambda: say_in("colour", "blue"),
    "green": lambda: say_in("colour", "green"),
    "purple": lambda: say_in("colour", "purple"),
    "red": lambda: say_in("colour", "red"),
    "yellow": lambda: say_in("colour", "yellow"),
    "black": lambda: say_in("colour", "black"),
    "white": lambda: say_in("colour", "white"),
    "orange": lambda: say_in("colour", "orange"),
}
"""The colours of the published deck and of the web table's palette, each a
literal message (the catalogs' tools extract literals only)."""


def _character(character: int, actor: Player, king: int) -> Words:
    """``the king``, ``their own peasant`` or ``the peasant of seat 2`` (a seat is a
    person, so singular they), its seat as data."""
    if character == king:
        return say("the king")
    if character == actor:
        return say("their own peasant")
    return say("the peasant of {owner}", owner=seat(character))


def _add_consequences(
    state: LittleDropOfPoisonState, action: Action, event: dict[str, JSON]
) -> None:
    """What the action set off that everyone sees: a reveal, a refill, the end of an
    assassination round or of the game, told in the order they happened."""
    after = after_action(state, action)
    # The log is a linked list of (earlier, entry): the entries this action
    # added are those in front of the node the state had before it.
    added: list[tuple[int, int, Any]] = []
    node = after.log
    while node and node is not state.log:
        node, entry = node
        added.append(entry)
    words: list[Words] = []
    for code, _seat, value in reversed(added):
        if code == E_REVEAL:
            reveal: Reveal = value[0]
            event["reveal"] = _reveal_json(state, reveal)
            words.append(_reveal_words(state, reveal))
        elif code == E_REFILL:
            words.append(
                say_n(
                    "the discard pile ({count} card) is shuffled into a new deck",
                    "the discard pile ({count} cards) is shuffled into a new deck",
                    sum(value),
                )
            )
        elif code == E_ROUND_END:
            words.append(say("the assassination round ends: {reason}", reason=value))
    outcome = after.outcome()
    if outcome is not None:
        reason = outcome.words if outcome.words is not None else outcome.reason
        winners = seats(outcome.winners)
        if len(outcome.winners) == 1:
            over = say("the game is over: {winners} wins, {reason}", winners=winners, reason=reason)
        else:
            over = say(
                "the game is over: {winners} share the win, {reason}",
                winners=winners,
                reason=reason,
            )
        words.append(over)
    add_then(event, words)


def _reveal_json(state: LittleDropOfPoisonState, reveal: Reveal) -> JSON:
    game = state.game
    return {
        "deaths": [
            {"character": game.character_name(c), "killers": list(killers)}
            for c, killers in reveal.deaths
        ],
        "points": list(reveal.points),
    }


def _reveal_words(state: LittleDropOfPoisonState, reveal: Reveal) -> Words:
    king = state.game.KING
    if not reveal.deaths:
        return say("the cards are turned over: nobody dies")
    deaths = [
        say(
            "{victim} dies, poisoned by {killers}",
            victim=_character(character, CHANCE, king),  # CHANCE: no seat is "their own"
            killers=seats(killers),
        )
        for character, killers in reveal.deaths
    ]
    gained = [say("{who} +{p}", who=seat(q), p=p) for q, p in enumerate(reveal.points) if p]
    if not gained:
        return say(
            "the cards are turned over: {deaths} (no points)", deaths=Words(", ").join(deaths)
        )
    return say(
        "the cards are turned over: {deaths} (points: {gained})",
        deaths=Words(", ").join(deaths),
        gained=Words(", ").join(gained),
    )


__all__ = ["card_words", "describe"]
