"""The game protocol: :class:`Game` (a configured, immutable rule set) and
:class:`State` (a mutable position in it).

Names follow OpenSpiel where they fit. Chance is an explicit pseudo-player
(:data:`CHANCE`) with :meth:`State.chance_outcomes`, so a list of actions
replays a game exactly with no seed. The base classes enforce the invariants
every game shares (legality checks, notation parsing, history, the error
contract) once, so a game module only writes its rules.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from types import MappingProxyType
from typing import Any, ClassVar, TypeAlias, overload

from apothecary.core.errors import (
    ApothecaryError,
    BadOptionError,
    GameOverError,
    IllegalActionError,
    LanguageError,
    MalformedActionError,
    PlayerCountError,
    quote,
)
from apothecary.core.words import SeatsRef, Words, message_of, runs_of, say, seat

Action: TypeAlias = int
"""An action id: a small non-negative int, dense per game configuration."""

Player: TypeAlias = int
"""A seat number, 0-based, or one of :data:`CHANCE` / :data:`TERMINAL`."""

CHANCE: Player = -1
"""``current_player()`` when the next action is a chance event (OpenSpiel's value)."""

TERMINAL: Player = -4
"""``current_player()`` when the game is over (OpenSpiel's value)."""

JSON: TypeAlias = Any
"""A value made of dicts, lists, str, int, float, bool and None only."""

OptionValue: TypeAlias = bool | int | float | str

ROOM_ACTIONS = 20_000
"""The longest game, in actions (chance's included), that a game server's room
plays and that a record it takes may hold: every such game is one it replays
within its limits. A room whose options allow a longer game is refused, or plays
its options' room defaults (:meth:`Game.for_room`)."""

MAX_NOTATION = 1000
"""The longest notation text read as an action, in characters: every game's
is far shorter, and a bound keeps a number of thousands of digits (more than
Python turns into an int) or a 100 MB string from reaching a game's parser."""

_INT_TEXT = re.compile(r"[+-]?[0-9]{1,30}", re.ASCII)
_FLOAT_TEXT = re.compile(
    r"[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?"
)


def other_digit(text: str) -> str | None:
    """The first character of ``text`` that Python reads as a digit but is not
    one of the ASCII digits 0-9 (a superscript two, an Arabic-Indic three...),
    or None. Notation and options take ASCII digits only: ``int()`` accepts
    some of the others and crashes on the rest."""
    if text.isascii():
        return None
    for char in text:
        if (char.isdigit() or char.isnumeric()) and not "0" <= char <= "9":
            return char
    return None


def parse_whole_number(text: str) -> int | None:
    """``text`` as an int if it is ASCII digits (at most 30, an optional sign,
    spaces around), else None."""
    text = text.strip()
    return int(text) if _INT_TEXT.fullmatch(text) else None


def parse_decimal(text: str) -> float | None:
    """``text`` as a float if it is a decimal number in ASCII digits
    (``0.5``, ``.5``, ``-2``, ``1e-3``; no ``inf``, ``nan`` or ``1_0``), else None."""
    text = text.strip()
    return float(text) if _FLOAT_TEXT.fullmatch(text) else None


# A BCP 47 tag (``de-CH``) or a POSIX locale (``es_MX.UTF-8``): the language is the
# letters before the first separator; the rest (region, script, charset) is ignored.
_LANGUAGE_TAG = re.compile(r"([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*(?:\.[A-Za-z0-9-]+)?(?:@\w+)?")


def rules_language(lang: str | None) -> str | None:
    """The lower-case language of the tag ``lang`` (``"de-CH"`` -> ``"de"``), or
    None for None or an empty tag; :class:`LanguageError` if ``lang`` is no tag."""
    if lang is None or not lang.strip():
        return None
    match = _LANGUAGE_TAG.fullmatch(lang.strip())
    if match is None:
        raise LanguageError(
            f"language {quote(lang)} is not a language tag; write one like 'fr', 'de-CH' or 'es'"
        )
    return match.group(1).lower()


@dataclass(frozen=True)
class GameInfo:
    """What a game is, independent of its configuration."""

    name: str
    """Registry name, lower-case with hyphens (``"my-game"``)."""
    title: str
    """The name a person reads (``"My Game"``)."""
    min_players: int
    max_players: int
    default_players: int
    has_chance: bool
    has_hidden_information: bool
    summary: str = ""
    """One line saying what the game is about."""


@dataclass(frozen=True)
class OptionSpec:
    """One game option: enough to validate it and to generate a CLI, a lobby
    form or a docs table from it."""

    name: str
    type: type[Any]
    """``bool``, ``int``, ``float`` or ``str``."""
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] | None = None
    """The allowed values, when they are a short list."""
    minimum: int | float | None = None
    maximum: int | float | None = None
    validator: Callable[[Any], str | None] | None = field(default=None, compare=False)
    """Extra check for free-form values: returns an error text, or None if fine."""
    room_maximum: int | float | None = None
    """The most a room on a game server may set (None: up to :attr:`maximum`).
    A game sets it on each option that makes its games longer, so that the
    longest game a room can make stays within what a server replays (its
    limit of actions per record); one's own tools still go up to :attr:`maximum`."""
    room_default: OptionValue | None = None
    """What a room on a game server plays this option as when it is left at its
    :attr:`default` and the options give no longest game (``max_game_length``
    raises): a bounded value in place of an unbounded default (None: none;
    :meth:`Game.for_room` applies it). The option's help says so."""

    def room_problem(self, value: Any) -> str | None:
        """Why a room on a server may not take the checked ``value``; None if it may."""
        if self.room_maximum is not None and value > self.room_maximum:
            return (
                f"option {self.name}={_show(value)}: a game server's rooms take at most "
                f"{_show(self.room_maximum)} (longer games are more than it replays)"
            )
        return None

    def allowed(self) -> str:
        """Describe the allowed values in words (used in error messages)."""
        if self.choices is not None:
            return "one of " + ", ".join(_show(c) for c in self.choices)
        if self.type is bool:
            return "true or false"
        if self.minimum is not None or self.maximum is not None:
            low = "" if self.minimum is None else f" >= {self.minimum}"
            high = "" if self.maximum is None else f" <= {self.maximum}"
            sep = " and" if low and high else ""
            return f"{self.type.__name__}{low}{sep}{high}"
        return f"a {self.type.__name__}"

    def parse(self, text: str) -> OptionValue:
        """Turn command-line text into a value of the option's type, validated.

        Numbers are ASCII digits only (``int()`` would also take ``٣``, ``1_0``
        and thousands of digits; the cases it refuses would crash elsewhere).
        """
        if not isinstance(text, str):
            raise BadOptionError(f"option {self.name}: expected text, got {quote(text)}")
        value: OptionValue | None
        if self.type is bool:
            lowered = text.strip().lower()
            value = {"true": True, "yes": True, "on": True, "1": True}.get(lowered)
            if value is None:
                value = {"false": False, "no": False, "off": False, "0": False}.get(lowered)
        elif self.type is int:
            value = parse_whole_number(text)
        elif self.type is float:
            value = parse_decimal(text)
        else:
            value = text
        if value is None:
            raise BadOptionError(f"option {self.name}={quote(text)}: expected {self.allowed()}")
        return self.check(value)

    def check(self, value: Any) -> OptionValue:
        """Validate a value given in Python; returns it (ints widen to float)."""
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise BadOptionError(f"option {self.name}={quote(value)}: expected {self.allowed()}")
        if self.choices is not None and value not in self.choices:
            raise BadOptionError(f"option {self.name}={_show(value)}: expected {self.allowed()}")
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ):
            raise BadOptionError(f"option {self.name}={_show(value)}: expected {self.allowed()}")
        if self.validator is not None:
            problem = self.validator(value)
            if problem:
                raise BadOptionError(f"option {self.name}={_show(value)}: {problem}")
        checked: OptionValue = value
        return checked


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return quote(value)[1:-1] if len(value) > 80 else value
    return quote(value)


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, in words a person and a program can read."""

    winners: tuple[Player, ...]
    """Every seat that won; several means a shared win, none means nobody won."""
    scores: tuple[float, ...]
    """The game's own score per seat (points, group size, scones eaten...)."""
    reason: str
    """One sentence: how it ended."""
    words: Words | None = field(default=None, compare=False)
    """The reason with its seats as data (:mod:`apothecary.core.words`), when
    the game gave them; :meth:`to_json` sends them as ``reason_words``."""

    @classmethod
    def told(cls, winners: tuple[Player, ...], scores: tuple[float, ...], reason: Words) -> Outcome:
        """An outcome whose reason is words: ``reason`` is their English."""
        return cls(winners, scores, str(reason), reason)

    def to_json(self, words: bool = False) -> dict[str, JSON]:
        """A JSON-ready dict of this outcome, as a record keeps it; with
        ``words``, as the protocol sends it: also ``reason_words``, the reason
        with its seats as data."""
        out: dict[str, JSON] = {
            "winners": list(self.winners),
            "scores": [float(s) for s in self.scores],
            "reason": self.reason,
        }
        if words:
            said = self.words if self.words is not None else self.reason
            out["reason_words"] = runs_of(said)
            out["reason_msg"] = message_of(said)
        return out


class Game(ABC):
    """A game with its configuration fixed: player count and options.

    Subclasses set :attr:`info` and :attr:`option_specs`, may override
    :meth:`_configure` to derive constants from the options (and reject
    combinations), and implement the size queries and
    :meth:`new_initial_state`. A game is immutable once made.
    """

    info: ClassVar[GameInfo]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()

    def __init__(self, /, players: int | None = None, **options: Any) -> None:
        info = self.info
        if players is None:
            players = info.default_players
        if not isinstance(players, int) or isinstance(players, bool):
            raise PlayerCountError(
                f"{info.name}: players must be a whole number, got {quote(players)}"
            )
        if not info.min_players <= players <= info.max_players:
            raise PlayerCountError(
                f"{info.name}: {players} players is not allowed; it takes "
                f"{info.min_players} to {info.max_players}"
            )
        specs = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise BadOptionError(
                f"{info.name}: unknown option {quote(unknown[0])}; its options are: {known}"
            )
        values = {name: spec.default for name, spec in specs.items()}
        for name, value in options.items():
            values[name] = specs[name].check(value)
        self.num_players: int = players
        self.options: Mapping[str, OptionValue] = MappingProxyType(values)
        self._configure()

    def _configure(self) -> None:
        """Derive per-configuration constants; raise BadOptionError on bad combinations."""

    def room_problem(self) -> str | None:
        """Why a room on a game server may not be made with these options (one
        past its :attr:`OptionSpec.room_maximum`); None if it may."""
        for spec in self.option_specs:
            problem = spec.room_problem(self.options[spec.name])
            if problem is not None:
                return f"{self.name}: {problem}"
        return None

    def unbounded_problem(self) -> str | None:
        """Why these options give no longest game (what ``max_game_length``
        raises), or one longer than :data:`ROOM_ACTIONS`, for a server's room,
        which replays only games of a bounded length; None when they give one."""
        try:
            longest = self.max_game_length()
        except BadOptionError as error:
            return f"{error} (a game server's rooms play only games with a longest length)"
        if longest > ROOM_ACTIONS:
            return (
                f"{self.name}: these options allow a game of {longest:,} actions; a game "
                f"server's rooms play games of at most {ROOM_ACTIONS:,}"
            )
        return None

    def for_room(self) -> Game:
        """These options as a game server's room plays them: when they give no
        longest game or too long a one, every option left at its default that has an
        :attr:`OptionSpec.room_default` takes that instead (a new game); else
        this game. A room still unbounded then is refused
        (:meth:`unbounded_problem`)."""
        if self.unbounded_problem() is None:
            return self
        bounded = {
            spec.name: spec.room_default
            for spec in self.option_specs
            if spec.room_default is not None and self.options[spec.name] == spec.default
        }
        if not bounded:
            return self
        return type(self)(players=self.num_players, **{**self.options, **bounded})

    @property
    def name(self) -> str:
        """The registry name."""
        return self.info.name

    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Action ids run from 0 to this number minus one (chance included)."""

    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of actions, chance included, in any game.

        A configuration whose games have no such bound (they end with
        probability 1 but may go on for ever) raises BadOptionError saying
        which option gives one; tools that need a bound (OpenSpiel) then
        refuse that configuration with that error.
        """

    @abstractmethod
    def observation_tensor_size(self) -> int:
        """The length of every :meth:`State.observation_tensor`."""

    def observation_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Per element of :meth:`State.observation_tensor`, the least and the
        greatest value any state gives: ``(low, high)``, two lists of
        :meth:`observation_tensor_size` floats, ``low[i] <= high[i]``.

        Adapters build exact spaces from them (Gymnasium's and PettingZoo's
        ``Box``). Every game in this package declares them; the base class
        raises NotImplementedError, so a game from elsewhere that declares none
        gets unbounded spaces there (and :attr:`declares_tensor_bounds` False).
        """
        raise NotImplementedError(f"{self.name} declares no observation tensor bounds")

    def information_state_tensor_size(self) -> int:
        """The length of every :meth:`State.information_state_tensor`: fixed per
        configuration. A configuration whose games have no longest length (see
        :meth:`max_game_length`) has no such length either and raises
        BadOptionError saying which option gives one.

        Every game in this package defines the tensor; the base class raises
        NotImplementedError, so a game from elsewhere may leave it out, and
        :attr:`provides_information_state_tensor` is then False (OpenSpiel's
        flag of the same name; the adapters then offer only the observation).
        """
        raise NotImplementedError(f"{self.name} defines no information-state tensor")

    def information_state_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Per element of :meth:`State.information_state_tensor`, ``(low, high)``
        as for :meth:`observation_tensor_bounds`; raises as
        :meth:`information_state_tensor_size` does."""
        raise NotImplementedError(f"{self.name} defines no information-state tensor")

    @property
    def provides_information_state_tensor(self) -> bool:
        """Whether this game defines :meth:`information_state_tensor_size` (and
        with it :meth:`State.information_state_tensor` and its bounds)."""
        return type(self).information_state_tensor_size is not Game.information_state_tensor_size

    @property
    def declares_tensor_bounds(self) -> bool:
        """Whether this game declares :meth:`observation_tensor_bounds` (a game
        that defines an information-state tensor declares its bounds too)."""
        return type(self).observation_tensor_bounds is not Game.observation_tensor_bounds

    @abstractmethod
    def new_initial_state(self) -> State:
        """A fresh game at its start."""

    @classmethod
    def rules_page(cls, lang: str | None = None) -> str | None:
        """The game's rules page, if it has one: ``rules.LANG.md`` beside its
        module when ``lang`` names a language it is translated into, else the
        English ``rules.md``.

        ``lang`` is a language tag as a browser or a system locale writes it
        (``fr``, ``de-CH``, ``es_MX.UTF-8``); only its language counts, and a
        language with no translation falls back to English. A ``lang`` that is
        no language tag at all raises :class:`LanguageError`.
        """
        import sys
        from importlib import resources

        code = rules_language(lang)
        package = sys.modules[cls.__module__].__package__
        if not package:
            return None
        folder = resources.files(package)
        names = ["rules.md"] if code in (None, "en") else [f"rules.{code}.md", "rules.md"]
        for name in names:
            page = folder.joinpath(name)
            if page.is_file():
                return page.read_text(encoding="utf-8")
        return None

    def settings(self) -> dict[str, JSON]:
        """Player count and options: what a record needs to remake this game."""
        return {"players": self.num_players, "options": dict(self.options)}

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"load({self.name!r}, players={self.num_players}{opts})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The options mapping is read-only (a mappingproxy), which pickle cannot
        # copy; remaking the game from its settings is what a copy means anyway.
        return (_remake_game, (self.__class__, self.num_players, dict(self.options)))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Game)
            and self.name == other.name
            and self.num_players == other.num_players
            and dict(self.options) == dict(other.options)
        )

    def __hash__(self) -> int:
        return hash((self.name, self.num_players, tuple(sorted(self.options.items()))))


def _remake_game(cls: type[Game], players: int, options: dict[str, Any]) -> Game:
    return cls(players, **options)


class History(Sequence[Action]):
    """A state's actions, shared between a state and its clones.

    Clones of one position share storage and each knows its own length, so
    :meth:`State.clone` is O(1) however long the game is. The actions are a
    frozen shared prefix (``_base[:_m]``) and a tail (``_items[:_n]``).
    Appending extends the tail in place when this history is as long as it
    (the usual case: the state that plays on). Otherwise a sharer has already
    extended the tail past this point: a one-level history then freezes the
    tail as its prefix and starts an empty tail (O(1), so a search that clones
    one long position again and again pays nothing per clone), and a
    two-level one copies only its tail (copy on write). Reads see exactly
    this history's actions, never a sharer's later ones.
    """

    __slots__ = ("_base", "_items", "_m", "_n")

    def __init__(self, items: list[Action] | None = None) -> None:
        self._base: list[Action] = _NO_ACTIONS
        self._m = 0
        self._items: list[Action] = [] if items is None else items
        self._n = len(self._items)

    def fork(self) -> History:
        """A history with the same actions, sharing their storage."""
        other = History.__new__(History)
        other._base = self._base
        other._m = self._m
        other._items = self._items
        other._n = self._n
        return other

    def append(self, action: Action) -> None:
        """Add ``action`` at the end (of this history only)."""
        items = self._items
        if len(items) != self._n:
            if self._m == 0:
                # Freeze the shared tail: its first _n entries never change
                # (sharers only ever append beyond their own length).
                self._base, self._m = items, self._n
                items = self._items = []
                self._n = 0
            else:
                items = self._items = items[: self._n]
        items.append(action)
        self._n += 1

    def copy(self) -> list[Action]:
        """The actions as a new list."""
        if self._m:
            return self._base[: self._m] + self._items[: self._n]
        return self._items[: self._n]

    def __len__(self) -> int:
        return self._m + self._n

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return self.copy()[index]
        m = self._m
        if index < 0:
            index += m + self._n
        if 0 <= index < m:
            return self._base[index]
        if m <= index < m + self._n:
            return self._items[index - m]
        raise IndexError("history index out of range")

    def __iter__(self) -> Iterator[Action]:
        if self._m:
            return chain(islice(self._base, self._m), islice(self._items, self._n))
        return islice(self._items, self._n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History | list):
            return self.copy() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"History({self.copy()!r})"


# The base of every one-level history: never appended to.
_NO_ACTIONS: list[Action] = []


class State(ABC):
    """A position in a game. Mutable: :meth:`apply_action` advances it in place,
    :meth:`clone` gives an independent copy.

    Subclasses implement the rules through the underscore hooks
    (:meth:`_legal_actions`, :meth:`_apply`, :meth:`_clone_into`) and the
    public queries; the base class does the checking, the history and the
    notation dispatch, so every game behaves alike on bad input.
    """

    __slots__ = ("_history", "_legal", "game")

    def __init__(self, game: Game) -> None:
        self.game = game
        # A plain list until the first clone, which turns it into a shared
        # History: a playout that never clones keeps the list's C append.
        self._history: History | list[Action] = []
        # Legal actions cached per position: a playout asks for them and then
        # applies one, so computing them once halves the rules work.
        self._legal: tuple[Action, ...] | None = None

    # -- the rules: implemented by each game -----------------------------------

    @abstractmethod
    def current_player(self) -> Player:
        """The seat to act, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def _legal_actions(self) -> Sequence[Action]:
        """The sorted legal actions (chance outcomes' actions at a chance node).

        The base class keeps them per position as a tuple, so a game may
        return a tuple it made once and returns again (a table of legal sets):
        that tuple is then kept as it is, not copied."""

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Advance by a legal action (already checked)."""

    @abstractmethod
    def _clone_into(self, other: State) -> None:
        """Copy this game's own fields into ``other`` (a bare new instance)."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """At a chance node, ``[(action, probability)]`` sorted by action; else []."""

    @abstractmethod
    def action_to_string(self, action: Action) -> str:
        """The notation of ``action`` in this position (chance actions included)."""

    @abstractmethod
    def _parse_action(self, text: str) -> Action | None:
        """The action that ``text`` names in this position, or None if it names none."""

    @abstractmethod
    def observation(self, player: Player | None) -> dict[str, JSON]:
        """Exactly what ``player`` may know now (``None``: a spectator), JSON-ready."""

    @abstractmethod
    def information_state_string(self, player: Player) -> str:
        """A key for everything ``player`` has seen so far (perfect recall)."""

    @abstractmethod
    def observation_tensor(self, player: Player) -> list[float]:
        """A flat numeric view of :meth:`observation`, of the game's declared length."""

    def information_state_tensor(self, player: Player) -> list[float]:
        """A flat numeric key for everything ``player`` has seen so far, with
        perfect recall, of the game's declared length
        (:meth:`Game.information_state_tensor_size`): two positions give the seat
        the same tensor exactly when they give it the same
        :meth:`information_state_string`. Every value lies within
        :meth:`Game.information_state_tensor_bounds`.

        Every game in this package defines it; the base class raises
        NotImplementedError (see :attr:`Game.provides_information_state_tensor`).
        """
        raise NotImplementedError(f"{self.game.name} defines no information-state tensor")

    def write_information_state_tensor(self, player: Player, out: Any) -> None:
        """:meth:`information_state_tensor` written into ``out``, a NumPy array of
        :meth:`Game.information_state_tensor_size` (OpenSpiel's observer keeps
        one). A game whose tensor is large and mostly zeros overrides this to
        write its nonzero entries alone, since turning a list of every number
        into an array costs more than making the tensor."""
        out[:] = self.information_state_tensor(player)

    @abstractmethod
    def resample_from_infostate(self, player: Player, rng: random.Random) -> State:
        """A full state, with a history that replays to it, drawn from the hidden
        information consistent with what ``player`` knows; uses only that and ``rng``."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""

    @abstractmethod
    def __str__(self) -> str:
        """The full state, hidden parts included (for debugging and tests)."""

    # -- shared behaviour ------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """The sorted legal actions; at a chance node, the possible outcomes."""
        legal = self._legal
        if legal is None:
            # A game may return a tuple it keeps (tuple() of a tuple is the
            # tuple itself, no copy): its legal sets are then never rebuilt.
            legal = self._legal = tuple(self._legal_actions())
        # A new list each call (the caller may change it); [*t] is the
        # cheapest copy of a tuple into one.
        return [*legal]

    def is_chance_node(self) -> bool:
        """Whether the next action is a chance event."""
        return self.current_player() == CHANCE

    def string_to_action(self, text: str) -> Action:
        """Parse notation in this position; raises MalformedActionError if it names nothing.

        Before a game's parser sees it, notation longer than
        :data:`MAX_NOTATION` or with a digit other than 0-9 in it is refused
        here, for every game alike; the text is quoted shortened.
        """
        if not isinstance(text, str):
            raise MalformedActionError(f"notation must be text, got {quote(text)}")
        name = self.game.name
        if len(text) > MAX_NOTATION:
            raise MalformedActionError(
                f"{name}: notation of {len(text):,} characters is too long to be an action "
                f"(at most {MAX_NOTATION:,}): {quote(text)}"
            )
        digit = other_digit(text)
        if digit is not None:
            raise MalformedActionError(
                f"{name}: cannot read {quote(text)} as an action: numbers are written "
                f"with the digits 0-9, not {digit!r}"
            )
        action = self._parse_action(text.strip())
        if action is None:
            examples = ", ".join(repr(self.action_to_string(a)) for a in self.legal_actions()[:4])
            hint = f"; legal here: {examples}" if examples else ""
            raise MalformedActionError(f"{name}: cannot read {quote(text)} as an action{hint}")
        return action

    def apply_action(self, action: Action | str) -> None:
        """Play ``action`` (an id or notation). Bad input raises and leaves the state as it was."""
        # The fast path: an id among the (cached) legal actions. A finished
        # game has none, so it never gets here; every refusal is explained below.
        if type(action) is int:
            legal = self._legal
            if legal is None:
                legal = self._legal = tuple(self._legal_actions())
            if action in legal:
                self._apply(action)
                # History.append inlined for a shared history's state that
                # plays on (a game that clones itself, as Little Drop of
                # Poison does each round); a plain list appends in C.
                history = self._history
                if type(history) is History and history._n == len(history._items):
                    history._items.append(action)
                    history._n += 1
                else:
                    history.append(action)
                self._legal = None
                return
        self._refuse_or_apply(action)

    def _refuse_or_apply(self, action: Action | str) -> None:
        if self.is_terminal():
            raise GameOverError(f"{self.game.name}: the game is over")
        if isinstance(action, str):
            action = self.string_to_action(action)
        elif not isinstance(action, int) or isinstance(action, bool):
            raise MalformedActionError(
                f"an action is an int id or notation text, got {quote(action)}"
            )
        legal = self._legal
        if legal is None:
            legal = self._legal = tuple(self._legal_actions())
        if action not in legal:
            if not 0 <= action < self.game.num_distinct_actions():
                raise MalformedActionError(
                    f"{self.game.name}: action id {quote(action)} is out of range "
                    f"0..{self.game.num_distinct_actions() - 1}"
                )
            raise IllegalActionError(
                f"{self.game.name}: {self._describe(action)} is not legal now"
                f" ({self._whose_turn()}); legal: {self._legal_summary(legal)}"
            )
        self._apply(action)
        self._history.append(action)
        self._legal = None

    def _describe(self, action: Action) -> str:
        try:
            return f"{self.action_to_string(action)!r} (action {action})"
        except Exception:  # an illegal id may have no notation here
            return f"action {action}"

    def _whose_turn(self) -> str:
        player = self.current_player()
        return "chance to move" if player == CHANCE else f"seat {player} to move"

    def _legal_summary(self, legal: Sequence[Action]) -> str:
        shown = [self.action_to_string(a) for a in legal[:8]]
        more = f" and {len(legal) - 8} more" if len(legal) > 8 else ""
        return ", ".join(shown) + more

    def describe_action(self, action: Action | str, viewer: Player | None) -> dict[str, JSON]:
        """What ``viewer`` (a seat, or None for a spectator) may read of ``action``,
        about to be played in this position: one event for a game log.

        The one place that decides what each viewer is told of an action: the
        terminal app, the server and every client read it from here. The event
        is a JSON dict with at least ``actor`` (the seat, or :data:`CHANCE`),
        ``text`` (a sentence in words, seats named ``seat N``) and
        ``notation`` (the action's notation, or None when the viewer may not
        know which action it was). It depends only on what the viewer knows
        once the action is played, so it is the same in every world the
        viewer cannot tell from this one (the conformance suite checks that).
        Raises like :meth:`apply_action` for an action that is not legal now.
        """
        if isinstance(action, str):
            action = self.string_to_action(action)
        if self.is_terminal():
            raise GameOverError(f"{self.game.name}: the game is over")
        if type(action) is not int or action not in self.legal_actions():
            # A copy raises the precise error; this state is left as it was.
            self.clone().apply_action(action)
        return with_words(self._describe_action(action, self.current_player(), viewer))

    def describe_action_for_all(self, action: Action | str) -> list[dict[str, JSON]]:
        """:meth:`describe_action` for every seat, then a spectator, in that
        order: what a server logs of one action. Viewers that
        :meth:`event_audience` puts in one audience share one event, made
        once (the same dict: read it, never change it per viewer); the
        conformance suite checks that each reads what :meth:`describe_action`
        tells it. Raises like :meth:`describe_action`."""
        if isinstance(action, str):
            action = self.string_to_action(action)
        viewers: list[Player | None] = [*range(self.game.num_players), None]
        first = self.describe_action(action, viewers[0])  # checks the action, once
        actor = self.current_player()
        made: dict[Hashable, dict[str, JSON]] = {self.event_audience(action, viewers[0]): first}
        events = [first]
        for viewer in viewers[1:]:
            audience = self.event_audience(action, viewer)
            event = made.get(audience)
            if event is None:
                event = made[audience] = with_words(self._describe_action(action, actor, viewer))
            events.append(event)
        return events

    def event_audience(self, action: Action, viewer: Player | None) -> Hashable:
        """A key for what ``viewer`` reads of ``action`` (legal here): viewers
        with equal keys read the same event, so :meth:`describe_action_for_all`
        makes it once for them all. The generic answer shares nothing (each
        viewer its own key), which is right for every game: even one that
        declares no hidden information may tell a spectator less than a seat
        (a solo game's player sees what the spectator does not). A game
        overrides it to share what it can; a wrong key shows in the
        conformance suite as an event that differs."""
        return viewer

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        """The event of :meth:`describe_action` (``action`` is legal, ``actor`` moves).

        The generic answer, which games with hidden information override: the
        actor and, when the game hides nothing, everyone reads the notation;
        anyone else learns only that the actor acted.
        """
        who: str | SeatsRef = "chance" if actor == CHANCE else seat(actor)
        if actor == viewer or not self.game.info.has_hidden_information:
            notation = self.action_to_string(action)
            text = say("{who} plays {notation}", who=who, notation=notation)
            return {
                "actor": actor,
                "notation": notation,
                "text": str(text),
                "words": text.runs(),
                "msg": text.message(),
            }
        text = say("{who} acts", who=who)
        return {
            "actor": actor,
            "notation": None,
            "text": str(text),
            "words": text.runs(),
            "msg": text.message(),
        }

    def action_label(self, action: Action) -> str:
        """Words for a legal action of the seat to move, shown before it is
        chosen (a button's label). It tells the choice only, never what it
        will lead to: a label is read before the action is played, when its
        consequences are still hidden. The generic answer is the notation.
        A game whose labels name seats overrides :meth:`action_words` and
        returns its English here (the conformance suite checks they agree)."""
        return self.action_to_string(action)

    def action_words(self, action: Action) -> Words:
        """:meth:`action_label` with its seats as data (:mod:`apothecary.core.words`),
        sent as a legal action's ``words``; the generic answer is the label
        as one run (no seat kept as data)."""
        return Words(self.action_label(action))

    def action_move(self, action: Action) -> dict[str, JSON]:
        """A legal action of the seat to move as data, sent beside its id,
        notation and label: ``{"kind": ..., ...}`` with the arguments of its
        kind, seats as numbers and cards, glasses or places as the game's ids
        (each game's rules page lists its kinds). A front end finds a move by
        this, never by reading its notation. The generic answer is
        ``{"kind": "action", "action": id}``."""
        return {"kind": "action", "action": action}

    def clone(self) -> State:
        """An independent copy: changing one never changes the other."""
        other = self.__class__.__new__(self.__class__)
        other.game = self.game
        history = self._history
        if not isinstance(history, History):
            # A state starts with a plain list (and a game may set one, for a
            # replay it builds); adopt it, so this state and its clones share it.
            history = self._history = History(history)
        other._history = history.fork()
        other._legal = self._legal
        self._clone_into(other)
        return other

    def __copy__(self) -> State:
        # The default copy would share the mutable fields (lists of the board,
        # the hands...), so a move on the copy would corrupt the original.
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        # A clone is already independent (the game is immutable and shared, as
        # in clone()); copy.deepcopy itself records the result in ``memo``, so a
        # state met twice in one structure is copied once.
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        # A state pickles as its game and its history, and is rebuilt by
        # replaying that history. This is exact for every game because chance
        # is an explicit player (a history replays to the same state, which the
        # conformance suite checks, resampled worlds included). It works at every
        # pickle protocol (the default pickling of __slots__ fails at 0 and 1),
        # carries no caches nor any game's internal layout (nested states, deep
        # linked logs, a field a game forgot to copy), and the sender pickles a
        # list of ints: the O(n) replay (about 3 ms for a 1,700-action Little
        # Drop of Poison game, 3x a field-by-field copy) is paid by the receiver,
        # a worker process, not by the server's event loop.
        cls = self.__class__
        start = self.game.new_initial_state().__class__
        if start is not cls:
            raise ApothecaryError(
                f"{self.game.name}: cannot pickle a {cls.__name__}: its game starts "
                f"a {start.__name__}, so replaying its history would not remake it"
            )
        return (_replay_state, (self.game, self._history.copy()))

    def history(self) -> list[Action]:
        """Every action applied so far, chance included, in order."""
        return self._history.copy()

    def history_notation(self) -> list[str]:
        """The history in notation, each action written in the position it was played."""
        replay = self.game.new_initial_state()
        out = []
        for action in self._history:
            out.append(replay.action_to_string(action))
            replay.apply_action(action)
        return out

    def move_number(self) -> int:
        """How many actions have been applied, chance included."""
        return len(self._history)

    def returns(self) -> list[float]:
        """Per seat: 1/k for each of k winners, 0 otherwise; all 0 before the end."""
        result = [0.0] * self.game.num_players
        outcome = self.outcome()
        if outcome is not None and outcome.winners:
            share = 1.0 / len(outcome.winners)
            for seat in outcome.winners:
                result[seat] = share
        return result

    def render(self, player: Player | None) -> str:
        """A text view of what ``player`` may see (built from :meth:`observation`, so
        it can never show more). Games override this with a readable picture."""
        import json

        return json.dumps(self.observation(player), indent=1, sort_keys=True)

    def observation_string(self, player: Player | None) -> str:
        """:meth:`observation` as canonical JSON text."""
        import json

        return json.dumps(self.observation(player), sort_keys=True, separators=(",", ":"))


def _replay_state(game: Game, history: list[Action]) -> State:
    """The state that ``history`` leads to in ``game`` (how a state unpickles)."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def sample_chance(state: State, rng: random.Random) -> Action:
    """Draw a chance outcome at ``state`` with its probability, from ``rng``."""
    outcomes = state.chance_outcomes()
    r = rng.random()
    total = 0.0
    for action, probability in outcomes:
        total += probability
        if r < total:
            return action
    return outcomes[-1][0]


def with_words(event: dict[str, JSON]) -> dict[str, JSON]:
    """``event`` with ``words`` (and ``then_words`` where it has ``then``):
    the runs a game gave, or, for a game that gave only text, the text as one
    run, so every event on the wire has them (docs/protocol.md)."""
    then = event.get("then")
    if "words" not in event:
        # A game that gave only text: its own words are the text before its
        # ``then`` clauses (core.events.add_then put them there, after "; ").
        text = str(event.get("text", ""))
        tail = "; " + "; ".join(str(t) for t in then) if isinstance(then, list) and then else ""
        event["words"] = runs_of(text[: -len(tail)] if tail and text.endswith(tail) else text)
    if isinstance(then, list) and "then_words" not in event:
        event["then_words"] = [runs_of(str(t)) for t in then]
    return event
