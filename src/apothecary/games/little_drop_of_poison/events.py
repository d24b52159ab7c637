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
from apothecary.core.words import Words
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
            text = say("the king is the {king} king", king=king)
            return _event(actor, "king", notation, text, king=king)
        if state.phase == PEASANT_PHASE:
            owner = state.kinds.index(-1)
            kind = KINDS[action - game.PEASANT]
            text = say("the peasant of {owner} is a {kind}", owner=seat(owner), kind=kind)
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
        cards = "1 card" if count == 1 else f"{count} cards"
        text = say("{who} is done: {cards} face down on {where}", who=who, cards=cards, where=where)
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


def card_words(card: CardType) -> str:
    """A card in words, for a sentence: ``a blue poison of 2 drops``, ``a green
    and purple poison of 1 drop each``, ``a blue antidote``, ``a universal
    antidote``. It tells exactly what the card's code does (kind, colours,
    drops), so a text in these words shows no more and no less than the code."""
    if card.kind == POISON:
        drops = "1 drop" if card.drops == 1 else f"{card.drops} drops"
        each = " each" if len(card.colours) > 1 else ""
        return _a(f"{' and '.join(card.colours)} poison of {drops}{each}")
    if card.kind == ANTIDOTE:
        return _a(f"{card.colours[0]} antidote")
    return "a universal antidote"


def _a(words: str) -> str:
    """``words`` after ``a``, or ``an`` before a vowel (a deck may have an
    ``orange`` poison; no colour starts with ``u``, which codes keep for the
    universal antidote)."""
    return ("an " if words[0] in "aeio" else "a ") + words


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
    words: list[str | Words] = []
    for code, _seat, value in reversed(added):
        if code == E_REVEAL:
            reveal: Reveal = value[0]
            event["reveal"] = _reveal_json(state, reveal)
            words.append(_reveal_words(state, reveal))
        elif code == E_REFILL:
            words.append(f"the discard pile ({sum(value)} cards) is shuffled into a new deck")
        elif code == E_ROUND_END:
            words.append(f"the assassination round ends: {value}")
    outcome = after.outcome()
    if outcome is not None:
        won = "wins" if len(outcome.winners) == 1 else "share the win"
        reason = outcome.words if outcome.words is not None else outcome.reason
        words.append(
            say(
                "the game is over: {winners} {won}, {reason}",
                winners=seats(outcome.winners),
                won=won,
                reason=reason,
            )
        )
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
    points = (
        say(" (points: {gained})", gained=Words(", ").join(gained)) if gained else " (no points)"
    )
    return Words("the cards are turned over: ", Words(", ").join(deaths), points)


__all__ = ["card_words", "describe"]
