"""Game records: a versioned JSON document that replays a game exactly.

A record holds the game, its player count and options, who sat where, every
action in notation (chance included) and, once finished, the outcome. Because
chance is explicit, replaying the actions needs no seed. See docs/records.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apothecary.core.errors import ApothecaryError, RecordError, UnknownGameError
from apothecary.core.errors import quote as _quote
from apothecary.core.errors import shorten as _shorten
from apothecary.core.game import JSON, Game, State
from apothecary.core.registry import game_class

FORMAT = "apothecary-record"
VERSION = 1

MAX_PLAYERS_UNREGISTERED = 1000
"""The most players a record of a game not registered here may claim (a
registered game's own range is checked instead)."""

_OUTCOME_FIELDS = ("winners", "scores", "reason")
_FLOAT_MAX = sys.float_info.max


@dataclass
class Record:
    """One game, as data. Make one with :meth:`from_state`, read one with :meth:`loads`."""

    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    outcome: dict[str, JSON] | None = None

    @classmethod
    def from_state(cls, state: State, seats: Sequence[str] | None = None) -> Record:
        """The record of the game that led to ``state``."""
        game = state.game
        outcome = state.outcome()
        return cls(
            game=game.name,
            players=game.num_players,
            options=dict(game.options),
            seats=list(seats)
            if seats is not None
            else [f"seat {i}" for i in range(game.num_players)],
            actions=state.history_notation(),
            outcome=None if outcome is None else outcome.to_json(),
        )

    def make_game(self) -> Game:
        """The configured game this record is of."""
        if not isinstance(self.game, str):
            raise RecordError(f"record names no game: 'game' is {_quote(self.game)}")
        try:
            cls = game_class(self.game)
            # Checked here, not left to a call with **options: an option named
            # like a parameter ("players", "self") would be a TypeError there.
            known = {spec.name for spec in cls.option_specs}
            unknown = [name for name in self.options if name not in known]
            if unknown:
                raise RecordError(
                    f"record names a game that cannot be made: {self.game}: unknown option "
                    f"{_quote(unknown[0])}; its options are: {', '.join(sorted(known)) or 'none'}"
                )
            return cls(self.players, **self.options)
        except RecordError:
            raise
        except RecursionError:  # an option value nested too deeply to show
            raise RecordError(
                f"record names a game that cannot be made: {self.game}: an option value "
                "is nested too deeply"
            ) from None
        except ApothecaryError as error:
            raise RecordError(
                f"record names a game that cannot be made: {_shorten(str(error))}"
            ) from None

    def states(self, game: Game | None = None) -> Iterator[State]:
        """Every position of the game in turn, from the start to after the last action.

        Each yielded state is the live replay: clone it to keep it. ``game``
        replaces the registry's (for games that are not registered, as in tests).
        Raises RecordError naming the index of the first bad action.
        """
        if game is None:
            game = self.make_game()
        elif game.settings() != {"players": self.players, "options": self.options}:
            raise RecordError(f"the record is not of {game!r}")
        state = game.new_initial_state()
        yield state
        for index, notation in enumerate(self.actions):
            if not isinstance(notation, str):
                raise RecordError(
                    f"action {index}: expected notation text, got {_quote(notation)}", index
                )
            try:
                state.apply_action(notation)
            except ApothecaryError as error:
                raise RecordError(
                    f"action {index} ({_quote(notation)}): {_shorten(str(error))}", index
                ) from None
            yield state

    def replay(self, upto: int | None = None, game: Game | None = None) -> State:
        """The state after the first ``upto`` actions (all of them by default).

        When the record is complete, its stated outcome is checked against the replay.
        """
        if upto is not None and (not isinstance(upto, int) or isinstance(upto, bool)):
            raise RecordError(f"--at must be a whole number, got {_quote(upto)}")
        if upto is not None and not 0 <= upto <= len(self.actions):
            raise RecordError(f"--at {upto}: the record has {len(self.actions)} actions")
        count = len(self.actions) if upto is None else upto
        state: State | None = None
        for index, position in enumerate(self.states(game)):
            state = position
            if index == count:
                break
        assert state is not None
        if upto is None and self.outcome is not None:
            _check_outcome(self.outcome, state.game.num_players)
            actual = state.outcome()
            if actual is None:
                raise RecordError("the record states an outcome but its game is not over")
            if actual.to_json() != _normalise(self.outcome):
                raise RecordError(
                    f"the record's outcome {_shorten(str(self.outcome))} differs from the "
                    f"replay's {_shorten(str(actual.to_json()))}"
                )
        return state

    # -- JSON ------------------------------------------------------------------

    def to_json(self) -> dict[str, JSON]:
        """The record as a JSON-ready dict."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "players": self.players,
            "options": dict(self.options),
            "seats": list(self.seats),
            "actions": list(self.actions),
            "outcome": self.outcome,
        }

    def dumps(self) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_json(), indent=1)

    def save(self, path: str | Path) -> None:
        """Write the record to ``path``."""
        Path(path).write_text(self.dumps() + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """Validate a parsed JSON document and make a record of it (not yet replayed)."""
        if not isinstance(data, dict):
            raise RecordError("a record is a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"not an apothecary record: 'format' must be {FORMAT!r}")
        version = data.get("version")
        # Exactly the int: 1.0 and true compare equal to 1 but are not a version.
        if type(version) is not int or version != VERSION:
            raise RecordError(
                f"record version {_quote(version)} is not supported; this reads {VERSION}"
            )
        missing = [k for k in ("game", "players", "actions") if k not in data]
        if missing:
            raise RecordError(f"record is missing {', '.join(missing)}")
        expected = {
            "game": str,
            "players": int,
            "options": dict,
            "seats": list,
            "actions": list,
        }
        for key, kind in expected.items():
            if key in data and (not isinstance(data[key], kind) or isinstance(data[key], bool)):
                raise RecordError(f"record field {key!r} must be a {kind.__name__}")
        known = {*expected, "format", "version", "outcome"}
        unknown = sorted((str(k) for k in data if k not in known), key=lambda k: (len(k), k))
        if unknown:
            raise RecordError(f"record has unknown field {_quote(unknown[0])}")
        game, players = data["game"], data["players"]
        # The player count is checked before anything is made of it (the
        # default seats are one string per player).
        try:
            info = game_class(game).info
            low, high = info.min_players, info.max_players
        except UnknownGameError:
            # A game not registered here (replayed with states(game=...)).
            low, high = 1, MAX_PLAYERS_UNREGISTERED
        if not low <= players <= high:
            raise RecordError(
                f"record of {_quote(game)} has {_quote(players)} players; "
                f"the game takes {low} to {high} players"
            )
        options = data.get("options") or {}
        bad_name = next((k for k in options if not isinstance(k, str)), None)
        if bad_name is not None:
            raise RecordError(f"record option name {_quote(bad_name)} is not text")
        seats = data.get("seats")
        if seats:
            if len(seats) != players or not all(isinstance(s, str) for s in seats):
                raise RecordError(f"record 'seats' must name {players} seats as text")
        else:
            seats = [f"seat {i}" for i in range(players)]
        outcome = data.get("outcome")
        _check_outcome(outcome, players)
        return cls(
            game=game,
            players=players,
            options=dict(options),
            seats=list(seats),
            actions=list(data["actions"]),
            outcome=outcome,
        )

    @classmethod
    def loads(cls, text: str) -> Record:
        """Read a record from JSON text."""
        if isinstance(text, bytes | bytearray):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as error:
                raise RecordError(f"record is not UTF-8 text (byte {error.start})") from None
        if not isinstance(text, str):
            raise RecordError(f"a record is read from text, got {type(text).__name__}")
        try:
            data = json.loads(text)
        except RecursionError:
            raise RecordError("record is not valid JSON: it is nested too deeply") from None
        except ValueError as error:
            # JSONDecodeError, or an integer longer than Python will convert.
            raise RecordError(f"record is not valid JSON: {_shorten(str(error))}") from None
        return cls.from_json(data)

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record from a file."""
        where = _shorten(str(path))
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot read record {where}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise RecordError(
                f"cannot read record {where}: it is not UTF-8 text (byte {error.start})"
            ) from None
        except ValueError as error:  # a path with a NUL byte in it
            raise RecordError(f"cannot read record {_quote(str(path))}: {error}") from None
        return cls.loads(text)


def _check_outcome(outcome: Any, players: int) -> None:
    """Refuse an outcome that is not null or exactly {winners, scores, reason}."""
    if outcome is None:
        return
    if not isinstance(outcome, dict):
        raise RecordError("record field 'outcome' must be an object or null")
    unknown = [str(k) for k in outcome if k not in _OUTCOME_FIELDS]
    if unknown:
        raise RecordError(f"record 'outcome' has unknown field {_quote(unknown[0])}")
    missing = [k for k in _OUTCOME_FIELDS if k not in outcome]
    if missing:
        raise RecordError(f"record 'outcome' is missing {', '.join(missing)}")
    winners, scores, reason = (outcome[k] for k in _OUTCOME_FIELDS)
    if not isinstance(winners, list | tuple) or not all(
        _is_int(w) and 0 <= w < players for w in winners
    ):
        raise RecordError(
            f"record 'outcome' winners must be a list of seats 0 to {players - 1}, "
            f"got {_quote(winners)}"
        )
    if (
        not isinstance(scores, list | tuple)
        or len(scores) != players
        or not all(isinstance(s, float) or (_is_int(s) and abs(s) <= _FLOAT_MAX) for s in scores)
    ):
        raise RecordError(
            f"record 'outcome' scores must be a list of {players} numbers, got {_quote(scores)}"
        )
    if not isinstance(reason, str):
        raise RecordError(f"record 'outcome' reason must be text, got {_quote(reason)}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _normalise(outcome: dict[str, JSON]) -> dict[str, JSON]:
    # JSON turns tuples into lists and may write 2.0 as 2; compare like for like.
    return {
        "winners": list(outcome.get("winners", [])),
        "scores": [float(s) for s in outcome.get("scores", [])],
        "reason": outcome.get("reason"),
    }
