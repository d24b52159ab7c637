"""The poison deck as data, and the deck spec: a short typable text that names it.

A deck spec is a list of sections separated by ``;``, each ``KEY:ITEMS``
(case and spaces ignored):

- ``blue:6x1,4x2,2x3`` -- one-colour poison: 6 cards of 1 drop, 4 of 2, 2 of 3;
- ``green+purple:4x1`` -- multi-coloured poison: each card gives 1 drop of
  green *and* 1 drop of purple;
- ``antidote(blue):2`` -- 2 one-colour antidotes for blue;
- ``universal:2`` -- 2 universal antidotes.

``default`` (or an empty text) is the reconstruction of the published deck.
A card is written by its *code*: the first letter of each of its colours
joined with ``+`` and then its drops (``b1``, ``g+p1``), a colour's letter and
``!`` for its antidote (``b!``), and ``u!`` for the universal antidote. So
colours need distinct first letters, and none may start with ``u``.

Numbers are ASCII digits only (never another script's digits nor superscripts),
and a spec that cannot be read raises :class:`DeckSpecError`, one of the
project's option errors, quoting at most a short piece of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from apothecary.core.errors import BadOptionError, quote

POISON = "poison"
ANTIDOTE = "antidote"
UNIVERSAL = "universal"

DEFAULT_DECK = (
    "blue:6x1,4x2,2x3;green:6x1,4x2,2x3;purple:6x1,4x2,2x3;green+purple:4x1;"
    "antidote(blue):2;antidote(green):2;antidote(purple):2;universal:2"
)
"""Our reconstruction of the published deck, 48 cards: the published card counts
are not known (the rules page says how it is made up)."""

MAX_COLOURS = 8
MAX_CARD_TYPES = 40
MAX_CARDS = 400
MAX_SPEC_LENGTH = 2000
"""Characters a deck spec may have: far more than the largest deck needs."""

_COLOUR = re.compile(r"[a-z]+", re.ASCII)
_ANTIDOTE_KEY = re.compile(r"antidote\(([a-z]+)\)", re.ASCII)
_POISON_ITEM = re.compile(r"([0-9]+)x([0-9]+)", re.ASCII)
_NUMBER = re.compile(r"[0-9]+", re.ASCII)
_QUOTE_LIMIT = 40


class DeckSpecError(BadOptionError):
    """A deck spec that cannot be read; the message says what is wrong."""


def _quote(text: str) -> str:
    """``text`` quoted for a message, cut short when long."""
    return quote(text, _QUOTE_LIMIT)


@dataclass(frozen=True)
class CardType:
    """One kind of poison card: all cards of a type are alike."""

    kind: str
    """``poison``, ``antidote`` (one colour) or ``universal``."""
    colours: tuple[str, ...]
    """A poison's colours (``drops`` of each), or an antidote's one colour."""
    drops: int
    """Drops of each of its colours (0 for antidotes)."""
    code: str
    """The notation of the card: ``b1``, ``g+p1``, ``b!``, ``u!``."""

    @property
    def name(self) -> str:
        """The card in words: ``blue 2``, ``green+purple 1``, ``blue antidote``."""
        if self.kind == POISON:
            return f"{'+'.join(self.colours)} {self.drops}"
        if self.kind == ANTIDOTE:
            return f"{self.colours[0]} antidote"
        return "universal antidote"


@dataclass(frozen=True)
class Deck:
    """A parsed deck spec: the colours, the card types and how many of each."""

    colours: tuple[str, ...]
    types: tuple[CardType, ...]
    counts: tuple[int, ...]

    @property
    def size(self) -> int:
        """How many cards in all."""
        return sum(self.counts)

    def spec(self) -> str:
        """The canonical deck spec of this deck."""
        sections: list[str] = []
        items: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for card, count in zip(self.types, self.counts, strict=True):
            key = (card.kind, card.colours)
            if key not in items:
                items[key] = []
                if card.kind == POISON:
                    sections.append("+".join(card.colours))
                elif card.kind == ANTIDOTE:
                    sections.append(f"antidote({card.colours[0]})")
                else:
                    sections.append("universal")
            items[key].append(f"{count}x{card.drops}" if card.kind == POISON else str(count))
        return ";".join(
            f"{section}:{','.join(parts)}"
            for section, parts in zip(sections, items.values(), strict=True)
        )


def _count(text: str, what: str) -> int:
    # A count beyond MAX_CARDS is refused by its length, before int() reads it
    # (which refuses numbers of over 4,300 digits).
    if not _NUMBER.fullmatch(text) or len(text) > len(str(MAX_CARDS)) or int(text) < 1:
        raise DeckSpecError(
            f"{_quote(what)}: expected a count from 1 to {MAX_CARDS}, got {_quote(text)}"
        )
    return int(text)


def parse_deck(text: str) -> Deck:
    """Read a deck spec; raises DeckSpecError naming the first problem."""
    if len(text) > MAX_SPEC_LENGTH:
        raise DeckSpecError(
            f"a deck spec has at most {MAX_SPEC_LENGTH} characters, got {len(text)}"
        )
    compact = "".join(text.split()).lower()
    if compact in ("", "default"):
        compact = DEFAULT_DECK
    poisons: dict[tuple[str, ...], dict[int, int]] = {}
    antidotes: dict[str, int] = {}
    universal = 0
    seen_keys: set[str] = set()
    colours: list[str] = []
    for section in compact.split(";"):
        if not section:
            continue
        key, sep, body = section.partition(":")
        if not sep or not body:
            raise DeckSpecError(f"section {_quote(section)}: expected KEY:ITEMS, e.g. blue:6x1,4x2")
        if key in seen_keys:
            raise DeckSpecError(f"section {_quote(key)} appears twice")
        seen_keys.add(key)
        if key == UNIVERSAL:
            universal = _count(body, key)
            continue
        match = _ANTIDOTE_KEY.fullmatch(key)
        if match:
            antidotes[match.group(1)] = _count(body, key)
            continue
        names = key.split("+")
        if not all(_COLOUR.fullmatch(name) for name in names) or len(set(names)) != len(names):
            raise DeckSpecError(
                f"section key {_quote(key)}: expected a colour (letters a-z), colours "
                "joined by '+', "
                "antidote(COLOUR) or universal"
            )
        for name in names:
            if name in (UNIVERSAL, ANTIDOTE, "default"):
                raise DeckSpecError(f"{_quote(name)} cannot be a colour name")
            if name not in colours:
                colours.append(name)
        drops_counts: dict[int, int] = {}
        for item in body.split(","):
            found = _POISON_ITEM.fullmatch(item)
            if not found:
                raise DeckSpecError(
                    f"{_quote(key)}: expected items like 6x1 (6 cards of 1 drop), "
                    f"got {_quote(item)}"
                )
            count = _count(found.group(1), key)
            drops_text = found.group(2)
            if len(drops_text) > 1 or not 1 <= int(drops_text) <= 9:
                raise DeckSpecError(
                    f"{_quote(key)}: drops per card must be 1 to 9, got {_quote(drops_text)}"
                )
            drops = int(drops_text)
            drops_counts[drops] = drops_counts.get(drops, 0) + count
        poisons[tuple(names)] = drops_counts
    if not poisons:
        raise DeckSpecError("the deck needs at least one poison card")
    if len(colours) > MAX_COLOURS:
        raise DeckSpecError(f"at most {MAX_COLOURS} colours, got {len(colours)}")
    letters = [name[0] for name in colours]
    if len(set(letters)) != len(letters):
        raise DeckSpecError("colours must start with different letters (a card's code uses it)")
    if "u" in letters:
        raise DeckSpecError("no colour may start with 'u' (u! is the universal antidote)")
    for name in antidotes:
        if name not in colours:
            raise DeckSpecError(
                f"{_quote(f'antidote({name})')}: the deck has no poison of that colour"
            )
    order = {name: i for i, name in enumerate(colours)}
    types: list[CardType] = []
    counts: list[int] = []
    for key_colours, drops_counts in poisons.items():
        ordered = tuple(sorted(key_colours, key=order.__getitem__))
        for drops in sorted(drops_counts):
            code = "+".join(name[0] for name in ordered) + str(drops)
            types.append(CardType(POISON, ordered, drops, code))
            counts.append(drops_counts[drops])
    codes = [card.code for card in types]
    if len(set(codes)) != len(codes):
        raise DeckSpecError("the same multi-coloured card is listed twice (in another order)")
    for name in colours:
        if name in antidotes:
            types.append(CardType(ANTIDOTE, (name,), 0, name[0] + "!"))
            counts.append(antidotes[name])
    if universal:
        types.append(CardType(UNIVERSAL, (), 0, "u!"))
        counts.append(universal)
    if len(types) > MAX_CARD_TYPES:
        raise DeckSpecError(f"at most {MAX_CARD_TYPES} kinds of card, got {len(types)}")
    if sum(counts) > MAX_CARDS:
        raise DeckSpecError(f"at most {MAX_CARDS} cards, got {sum(counts)}")
    return Deck(tuple(colours), tuple(types), tuple(counts))


def deck_problem(text: object) -> str | None:
    """The option validator: an error text, or None when ``text`` is a good deck spec."""
    if not isinstance(text, str):
        return "a deck spec is text"
    try:
        parse_deck(text)
    except DeckSpecError as error:
        return str(error)
    return None
