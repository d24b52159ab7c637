"""Words whose seats are data: what a game says, with every seat it names kept
as a number, so a front end puts in a name, "you" or a highlight without
reading the sentence.

A :class:`Words` is a list of runs: plain strings, ``{"seat": n}`` (one seat)
and ``{"seats": [n, ...]}`` (several, which a front end joins as a sentence
does: "Ann, Bob and you"). ``str(words)`` is the English every log, record and
terminal line has always read (``seat 3``, ``seat 0 and seat 2``);
:meth:`Words.runs` is the JSON the protocol sends beside it (``words`` on an
event, a legal action and an outcome; see docs/protocol.md).

Games build words with :func:`say`, a :meth:`str.format` template whose
seat values are :func:`seat` and :func:`seats`::

    say("{who} swaps glasses with {other}", who=seat(2), other=seat(0))

The template is the game's own code, never text a client sent, so nothing
here reads a sentence back apart: a seat is data from the moment it is named.
"""

from __future__ import annotations

import functools
import gettext
import string
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Union

if TYPE_CHECKING:  # core.game imports this module; the alias is only for the checker
    from apothecary.core.game import JSON

_FORMATTER = string.Formatter()
_ENGLISH = gettext.NullTranslations()


class SeatsRef:
    """Seats named in words (one, several or none): ``str`` is ``seat 3``, or
    the seats joined as a sentence joins them (``seat 0, seat 1 and seat 2``),
    ``nobody`` for none."""

    __slots__ = ("numbers",)

    def __init__(self, numbers: Iterable[int]) -> None:
        self.numbers = tuple(int(n) for n in numbers)

    def __str__(self) -> str:
        numbers = self.numbers
        if len(numbers) == 1:  # the common case, without the list and the join
            return f"seat {numbers[0]}"
        return join_names([seat_name(n) for n in numbers])

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"seats({list(self.numbers)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeatsRef) and other.numbers == self.numbers

    def __hash__(self) -> int:
        return hash(("seats", self.numbers))


Part = Union[str, SeatsRef, "Words"]
"""What words are made of."""


def seat(number: int) -> SeatsRef:
    """One seat, for :func:`say` (``str``: ``seat 3``; on the wire ``{"seat": 3}``)."""
    return SeatsRef((number,))


def seats(numbers: Iterable[int]) -> SeatsRef:
    """Several seats, for :func:`say` (``str``: ``seat 0 and seat 2``; ``nobody`` for none)."""
    return SeatsRef(numbers)


class Words:
    """An English phrase whose seats are data (see the module's docstring).

    Immutable; ``+`` joins words and strings, :meth:`join` a sequence of them.
    """

    __slots__ = ("_parts", "_text", "_tree")

    def __init__(self, *parts: Part) -> None:
        if len(parts) == 1 and type(parts[0]) is str:
            # The common case (a label or clause with no seat in it), without the loop.
            self._parts: tuple[str | SeatsRef, ...] = parts  # type: ignore[assignment]
            self._text: str | None = parts[0]
            self._tree: tuple[Node, ...] = parts  # type: ignore[assignment]
            return
        flat: list[str | SeatsRef] = []
        tree: list[Node] = []
        for part in parts:
            if isinstance(part, Words):
                flat.extend(part._parts)
                tree.extend(part._tree)
            elif isinstance(part, (str, SeatsRef)):
                flat.append(part)
                tree.append(part)
            else:
                raise TypeError(f"words are made of strings and seats, not {part!r}")
        self._parts = tuple(flat)
        self._text = None
        self._tree = tuple(tree)

    @classmethod
    def _made(cls, parts: tuple[str | SeatsRef, ...], tree: tuple[Node, ...]) -> Words:
        """Words of parts already flat and checked (no copy, no check)."""
        made = cls.__new__(cls)
        made._parts = parts
        made._text = None
        made._tree = tree
        return made

    @staticmethod
    def of(value: Part) -> Words:
        """``value`` as words (a plain string is words with no seat in them)."""
        return value if isinstance(value, Words) else Words(value)

    def __str__(self) -> str:
        # Kept once made: an event's words are read as text more than once
        # (its ``text``, its ``then`` list, a hash) for every viewer.
        if self._text is None:
            self._text = "".join([p if type(p) is str else str(p) for p in self._parts])
        return self._text

    def __repr__(self) -> str:
        return f"Words({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Words) and other.runs() == self.runs()

    def __hash__(self) -> int:
        return hash(str(self))

    def __add__(self, other: Part) -> Words:
        return Words(self, other)

    def __radd__(self, other: Part) -> Words:
        return Words(other, self)

    def __bool__(self) -> bool:
        return bool(str(self))

    def join(self, items: Iterable[Part]) -> Words:
        """``items`` with these words between them, as :meth:`str.join`."""
        parts: list[Part] = []
        for i, item in enumerate(items):
            if i:
                parts.append(self)
            parts.append(item)
        return Words(*parts)

    def capitalized(self) -> Words:
        """These words with a capital first letter, when they start with a string."""
        if self._parts and isinstance(self._parts[0], str) and self._parts[0]:
            first = self._parts[0]
            flat = (first[0].upper() + first[1:], *self._parts[1:])
            # Another language may not start with a string: capitalise what it says.
            return Words._made(flat, (Capital(self._tree),))
        return self

    def message(self) -> list[JSON]:
        """These words as a message to translate (see :func:`render`): the
        protocol's ``msg`` beside ``words``, which a server renders in each
        viewer's language. Strings outside a template stay as they are."""
        return [_node_json(node) for node in self._tree]

    def runs(self) -> list[JSON]:
        """The protocol's form: strings (neighbours merged), ``{"seat": n}``
        and ``{"seats": [n, ...]}``; an empty seat list is the string ``nobody``."""
        parts = self._parts
        if len(parts) == 1 and type(parts[0]) is str:
            return [parts[0]] if parts[0] else []
        out: list[JSON] = []
        text = ""  # the strings since the last seat, merged once
        for part in parts:
            if isinstance(part, str):
                text += part
                continue
            numbers = part.numbers
            if not numbers:
                text += str(part)
                continue
            if text:
                out.append(text)
                text = ""
            out.append({"seat": numbers[0]} if len(numbers) == 1 else {"seats": list(numbers)})
        if text:
            out.append(text)
        return out

    def seat_numbers(self) -> list[int]:
        """Every seat these words name, in order, each once."""
        found: list[int] = []
        for part in self._parts:
            if isinstance(part, SeatsRef):
                found.extend(n for n in part.numbers if n not in found)
        return found


def say(template: str, /, **values: object) -> Words:
    # Translators' tools (``python -m apothecary.i18n``) extract every literal
    # ``template`` given to say(): write the whole sentence, never fragments.
    """Words from a :meth:`str.format` template: a value that is a
    :func:`seat`, :func:`seats` or :class:`Words` keeps its seats as data;
    any other value is formatted into the text (its format spec applies).

    >>> str(say("{who} drinks {glass}", who=seat(1), glass="wine"))
    'seat 1 drinks wine'
    >>> say("{who} drinks", who=seat(1)).runs()
    [{'seat': 1}, ' drinks']
    """
    flat: list[str | SeatsRef] = []
    for literal, field, spec, conversion in _parsed(template):
        if literal:
            flat.append(literal)
        if field is None:
            continue
        if field not in values:
            raise KeyError(f"say: the template names {field!r}, which was not given")
        value = values[field]
        if not spec and not conversion:
            # The common case, without string.Formatter's Python-level steps
            # (a server makes words for every viewer of every move).
            if isinstance(value, SeatsRef):
                flat.append(value)
            elif isinstance(value, Words):
                flat.extend(value._parts)
            else:
                flat.append(value if type(value) is str else format(value))
        else:
            shown = _FORMATTER.convert_field(value, conversion)
            flat.append(_FORMATTER.format_field(shown, spec or ""))
    return Words._made(tuple(flat), (Said(template, values),))


def say_in(context: str, template: str, /, **values: object) -> Words:
    """:func:`say` with a context for translators (gettext's ``pgettext``):
    the same English in two places that another language says apart, such
    as a colour named alone and in a sentence."""
    words = say(template, **values)
    return Words._made(words._parts, (Said(template, values, context=context),))


def say_n(singular: str, plural: str, count: int, /, **values: object) -> Words:
    """Words with a plural form (gettext's ``ngettext``): ``singular`` when
    ``count`` is 1 in English, else ``plural``; each language picks its own
    form. ``count`` is also the value ``{count}`` of the templates."""
    values = {"count": count, **values}
    words = say(singular if count == 1 else plural, **values)
    said = Said(singular, values, plural=plural, count=count)
    return Words._made(words._parts, (said,))


class Said:
    """A :func:`say` template with its values, kept to be said again in
    another language: ``context`` and a plural form are gettext's."""

    __slots__ = ("context", "count", "plural", "template", "values")

    def __init__(
        self,
        template: str,
        values: dict[str, object],
        context: str | None = None,
        plural: str | None = None,
        count: int = 0,
    ) -> None:
        self.template = template
        self.values = values
        self.context = context
        self.plural = plural
        self.count = count


class Capital:
    """Words said with a capital first letter (:meth:`Words.capitalized`)."""

    __slots__ = ("tree",)

    def __init__(self, tree: tuple[Node, ...]) -> None:
        self.tree = tree


Node = str | SeatsRef | Said | Capital
"""What a message is made of: a string said as it is, seats, and templates."""


def _seats_json(ref: SeatsRef) -> JSON:
    numbers = ref.numbers
    return {"seat": numbers[0]} if len(numbers) == 1 else {"seats": list(numbers)}


def _node_json(node: Node) -> JSON:
    """One node of a message as JSON (see :func:`render` for the forms)."""
    if isinstance(node, str):
        return node
    if isinstance(node, SeatsRef):
        return _seats_json(node)
    if isinstance(node, Capital):
        return {"cap": [_node_json(n) for n in node.tree]}
    out: dict[str, JSON] = {"say": node.template}
    if node.context is not None:
        out["ctx"] = node.context
    if node.plural is not None:
        out["plural"], out["n"] = node.plural, node.count
    values: dict[str, JSON] = {}
    for name, value in node.values.items():
        if isinstance(value, SeatsRef):
            values[name] = _seats_json(value)
        elif isinstance(value, Words):
            values[name] = value.message()
        elif type(value) is int:
            values[name] = value
        else:
            values[name] = str(value)
    if values:
        out["with"] = values
    return out


class Translator(Protocol):
    """What :func:`render` needs of a language: :class:`gettext.NullTranslations`."""

    def gettext(self, message: str, /) -> str: ...  # noqa: D102 - gettext's own
    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...  # noqa: D102
    def pgettext(self, context: str, message: str, /) -> str: ...  # noqa: D102
    def npgettext(  # noqa: D102
        self, context: str, singular: str, plural: str, n: int, /
    ) -> str: ...


def render(message: object, language: Translator) -> list[JSON]:
    """A message (:meth:`Words.message`) as runs in ``language``: each template
    translated, then its values put in by name (seats stay data). Raises
    ValueError for anything that is not a message. A message is a list of
    strings, ``{"seat": n}``, ``{"seats": [...]}``, ``{"cap": message}`` and
    ``{"say": template, "with": {name: value}}`` (with ``ctx`` for a context,
    ``plural`` and ``n`` for a plural form; a value is a string, a number,
    seats or a message)."""
    out: list[JSON] = []
    _render_into(message, language, out)
    return _merged(out)


def _render_into(message: object, language: Translator, out: list[JSON]) -> None:
    if not isinstance(message, list):
        raise ValueError(f"a message is a list, not {message!r}")
    for node in message:
        seated = isinstance(node, dict) and ("seat" in node or "seats" in node)
        if isinstance(node, str) or seated:
            out.append(node)
        elif isinstance(node, dict) and "cap" in node:
            inner = render(node["cap"], language)
            if inner and isinstance(inner[0], str) and inner[0]:
                inner[0] = inner[0][0].upper() + inner[0][1:]
            out.extend(inner)
        elif isinstance(node, dict) and isinstance(node.get("say"), str):
            _render_said(node, language, out)
        else:
            raise ValueError(f"not a node of a message: {node!r}")


def _render_said(node: dict[str, Any], language: Translator, out: list[JSON]) -> None:
    template, context = node["say"], node.get("ctx")
    values = node.get("with", {})
    if "plural" in node:
        n = int(node["n"])
        if context is None:
            said = language.ngettext(template, node["plural"], n)
        else:
            said = language.npgettext(context, template, node["plural"], n)
    else:
        said = (
            language.gettext(template) if context is None else language.pgettext(context, template)
        )
    parsed = _parsed(said)
    if any(field is not None and field not in values for _, field, _, _ in parsed):
        # A translation naming a value the English does not: the English then
        # (the catalog check refuses such a translation before it ships).
        english = template if "plural" not in node or node["n"] == 1 else node["plural"]
        parsed = _parsed(english)
    for literal, field, spec, _conversion in parsed:
        if literal:
            out.append(literal)
        if field is None:
            continue
        value = values[field]
        if isinstance(value, list):
            _render_into(value, language, out)
        elif isinstance(value, dict):
            out.append(value)
        else:
            out.append(format(value, spec or ""))


def _merged(runs: list[JSON]) -> list[JSON]:
    """Runs with neighbouring strings merged and empty ones dropped, as
    :meth:`Words.runs` makes them."""
    out: list[JSON] = []
    for run in runs:
        if isinstance(run, str):
            if not run:
                continue
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + run
                continue
        out.append(run)
    return out


@functools.lru_cache(maxsize=1024)
def _parsed(
    template: str,
) -> tuple[tuple[str, str | None, str | None, str | None], ...]:
    """``template`` split as :meth:`string.Formatter.parse` splits it, once per
    template: the templates are the games' own code, a few hundred at most."""
    return tuple(_FORMATTER.parse(template))


def seat_name(number: int) -> str:
    """``seat 3``: how the English names a seat."""
    return f"seat {number}"


def read(
    runs: object,
    name: Callable[[int], str] = seat_name,
    join: Callable[[Sequence[str]], str] | None = None,
) -> str:
    """Protocol runs as one string, each seat named by ``name`` (``seat N`` by
    default: the English of ``text``), a list of seats joined as a sentence
    does (by ``join``: :func:`join_names`, the English, unless another language
    is given); raises ValueError for anything that is not runs. The browser's
    reading (static/words.js) is the same walk over the same data."""
    joined = join_names if join is None else join
    if not isinstance(runs, list):
        raise ValueError(f"words are a list of runs, not {runs!r}")
    out: list[str] = []
    for run in runs:
        if isinstance(run, str):
            out.append(run)
        elif isinstance(run, dict) and set(run) == {"seat"} and type(run["seat"]) is int:
            out.append(name(run["seat"]))
        elif (
            isinstance(run, dict)
            and set(run) == {"seats"}
            and isinstance(run["seats"], list)
            and all(type(n) is int for n in run["seats"])
        ):
            out.append(joined([name(n) for n in run["seats"]]))
        else:
            raise ValueError(f"not a run of words: {run!r}")
    return "".join(out)


def join_names(names: Sequence[str], empty: str = "nobody") -> str:
    """``a``, ``a and b``, ``a, b and c``; ``empty`` for none: names joined as a
    sentence joins them (the one place the Python side does it)."""
    if not names:
        return empty
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def plain_runs(text: str) -> list[JSON]:
    """Runs for words a game gave as a plain string (no seat kept as data)."""
    return [text] if text else []


def runs_of(value: str | Words) -> list[JSON]:
    """The protocol's runs of ``value``: words keep their seats, a string has none."""
    return value.runs() if isinstance(value, Words) else plain_runs(value)


def message_of(value: str | Words) -> list[JSON]:
    """The message of ``value`` (:meth:`Words.message`): a plain string is said as it is."""
    return value.message() if isinstance(value, Words) else plain_runs(value)


def runs_list(values: Sequence[str | Words]) -> list[JSON]:
    """:func:`runs_of` for each of ``values``."""
    return [runs_of(v) for v in values]
