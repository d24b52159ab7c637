"""Game records: a versioned JSON document that replays a game exactly.

A record holds the game, its player count and options, who sat where, every
action in notation (chance included) and, once finished, the outcome. Because
chance is explicit, replaying the actions needs no seed. See docs/records.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apothecary.core.errors import ApothecaryError, RecordError
from apothecary.core.game import JSON, Game, State
from apothecary.core.registry import load

FORMAT = "apothecary-record"
VERSION = 1


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
        try:
            return load(self.game, players=self.players, **self.options)
        except ApothecaryError as error:
            raise RecordError(f"record names a game that cannot be made: {error}") from None

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
                    f"action {index}: expected notation text, got {notation!r}", index
                )
            try:
                state.apply_action(notation)
            except ApothecaryError as error:
                raise RecordError(f"action {index} ({notation!r}): {error}", index) from None
            yield state

    def replay(self, upto: int | None = None, game: Game | None = None) -> State:
        """The state after the first ``upto`` actions (all of them by default).

        When the record is complete, its stated outcome is checked against the replay.
        """
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
            actual = state.outcome()
            if actual is None:
                raise RecordError("the record states an outcome but its game is not over")
            if actual.to_json() != _normalise(self.outcome):
                raise RecordError(
                    f"the record's outcome {self.outcome} differs from the replay's "
                    f"{actual.to_json()}"
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
        if data.get("version") != VERSION:
            raise RecordError(
                f"record version {data.get('version')!r} is not supported; this reads {VERSION}"
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
        unknown = sorted(set(data) - {*expected, "format", "version", "outcome"})
        if unknown:
            raise RecordError(f"record has unknown field {unknown[0]!r}")
        outcome = data.get("outcome")
        if outcome is not None and not isinstance(outcome, dict):
            raise RecordError("record field 'outcome' must be an object or null")
        seats = data.get("seats") or [f"seat {i}" for i in range(data["players"])]
        if len(seats) != data["players"] or not all(isinstance(s, str) for s in seats):
            raise RecordError(f"record 'seats' must name {data['players']} seats as text")
        return cls(
            game=data["game"],
            players=data["players"],
            options=dict(data.get("options") or {}),
            seats=list(seats),
            actions=list(data["actions"]),
            outcome=outcome,
        )

    @classmethod
    def loads(cls, text: str) -> Record:
        """Read a record from JSON text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"record is not valid JSON: {error}") from None
        return cls.from_json(data)

    @classmethod
    def load(cls, path: str | Path) -> Record:
        """Read a record from a file."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot read record {path}: {error.strerror}") from None
        return cls.loads(text)


def _normalise(outcome: dict[str, JSON]) -> dict[str, JSON]:
    # JSON turns tuples into lists and may write 2.0 as 2; compare like for like.
    return {
        "winners": list(outcome.get("winners", [])),
        "scores": [float(s) for s in outcome.get("scores", [])],
        "reason": outcome.get("reason"),
    }
