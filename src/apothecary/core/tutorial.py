"""Learn-to-play scripts: a short, fixed first game with a coach.

A game's tutorial is data in its own package (``tutorial.json``, named by the
manifest's :attr:`~apothecary.core.manifest.GameManifest.tutorial`), so every
front end runs it the same way without naming the game. A script fixes the
options, the number of seats, the person's seat, and every action of the game
in order: the chance outcomes (the engine's chance is explicit, so a deal is
just more actions), the bots' moves and the person's own. Each step may carry
the coach's text (English, one whole text per step so that a translator gets
whole sentences), and the part of the table it points at: a name that the
game's browser table marks with a ``data-part`` attribute and that its terminal
view knows.

A step the person plays (the engine's current player is the person's seat)
must say what to do; it names the expected move and, for likely wrong moves,
an explanation (``wrong``), with a fallback (``otherwise``) for any other
legal move. :class:`Tutorial` follows a script: it plays the steps that are
not the person's, and :meth:`Tutorial.try_move` either plays the person's
move (it was the expected one) or explains why not and leaves the state as it
was. :func:`check` replays a script in the engine, so a script that no longer
matches the rules fails its test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from apothecary.core.bot import Bot
from apothecary.core.errors import ApothecaryError
from apothecary.core.game import CHANCE, JSON, Action, Game, State

PART_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")
"""A table part's name: what a ``data-part`` attribute holds (``seat-2``, ``pot``)."""

GENERIC_WRONG = (
    "That move is allowed by the rules, but it is not the one this lesson is about. "
    "Read the coach's note again and try the move it describes."
)
"""What the coach says to a wrong move that the script explains nowhere."""


class TutorialError(ApothecaryError):
    """A tutorial script that is malformed or no longer matches the rules."""


@dataclass(frozen=True)
class Step:
    """One action of the scripted game, with what the coach says about it."""

    move: str
    """The action, in the game's notation."""
    text: str = ""
    """The coach's words at this step (empty: the step passes silently)."""
    part: str = ""
    """The table part the coach points at (empty: none)."""
    wrong: Mapping[str, str] = field(default_factory=dict)
    """For the person's steps: a likely wrong move (notation) and why it is wrong."""
    otherwise: str = ""
    """For the person's steps: why any other move is wrong (else :data:`GENERIC_WRONG`)."""


@dataclass(frozen=True)
class Script:
    """A whole tutorial: the game's set-up and its steps."""

    game: str
    players: int
    options: Mapping[str, Any]
    seat: int
    """The person's seat; every other seat is a bot that plays the script."""
    intro: str
    outro: str
    steps: tuple[Step, ...]

    def new_game(self) -> Game:
        """The configured game the script is played in."""
        from apothecary.core.registry import game_class

        return game_class(self.game)(players=self.players, **dict(self.options))


def _text(data: Mapping[str, Any], key: str, where: str, required: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise TutorialError(f"{where}: {key!r} must be a non-empty text")
    return value


def _step(data: Any, where: str) -> Step:
    if not isinstance(data, dict):
        raise TutorialError(f"{where}: a step is an object, got {type(data).__name__}")
    unknown = set(data) - {"move", "text", "part", "wrong", "otherwise"}
    if unknown:
        raise TutorialError(f"{where}: unknown keys {sorted(unknown)}")
    part = _text(data, "part", where)
    if part and not PART_NAME.fullmatch(part):
        raise TutorialError(f"{where}: part {part!r} is not a part name (a-z, 0-9, -)")
    wrong = data.get("wrong", {})
    if not isinstance(wrong, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in wrong.items()
    ):
        raise TutorialError(f"{where}: 'wrong' maps moves to explanations (texts)")
    return Step(
        move=_text(data, "move", where, required=True),
        text=_text(data, "text", where),
        part=part,
        wrong=dict(wrong),
        otherwise=_text(data, "otherwise", where),
    )


def parse_script(data: Any, game: str) -> Script:
    """A :class:`Script` from its JSON value; raises :class:`TutorialError` on bad shape."""
    if not isinstance(data, dict):
        raise TutorialError(f"{game} tutorial: expected an object")
    where = f"{game} tutorial"
    players, seat, options, steps = (data.get(k) for k in ("players", "seat", "options", "steps"))
    if not isinstance(players, int) or not isinstance(seat, int) or not 0 <= seat < players:
        raise TutorialError(f"{where}: 'players' and 'seat' must be whole numbers, seat < players")
    if not isinstance(options, dict) or not isinstance(steps, list) or not steps:
        raise TutorialError(f"{where}: 'options' must be an object and 'steps' a list")
    return Script(
        game=game,
        players=players,
        options=dict(options),
        seat=seat,
        intro=_text(data, "intro", where, required=True),
        outro=_text(data, "outro", where, required=True),
        steps=tuple(_step(s, f"{where}, step {i + 1}") for i, s in enumerate(steps)),
    )


def load_script(game: str) -> Script | None:
    """The tutorial the game's manifest names, or None if it has none."""
    from apothecary.core.registry import manifest

    reference = manifest(game).tutorial
    if reference is None:
        return None
    package, _, name = reference.partition(":")
    text = resources.files(package).joinpath(name or "tutorial.json").read_text("utf-8")
    return parse_script(json.loads(text), game)


def _action(state: State, move: str, where: str) -> Action:
    try:
        action = state.string_to_action(move)
    except ApothecaryError as error:
        raise TutorialError(f"{where}: {move!r} is not an action here: {error}") from None
    if action not in state.legal_actions():
        raise TutorialError(f"{where}: {move!r} is not legal here")
    return action


class Tutorial:
    """A script being followed: the state, the next step, the coach's words.

    The bots' and chance's steps are played by :meth:`advance`, one at a time
    (a front end shows each one's text before the next); the person's step
    waits for :meth:`try_move`.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.state = script.new_game().new_initial_state()
        self.index = 0
        """The next step to play."""

    @property
    def step(self) -> Step | None:
        """The next step, or None when the script is over."""
        return self.script.steps[self.index] if self.index < len(self.script.steps) else None

    @property
    def finished(self) -> bool:
        """Whether every step has been played."""
        return self.index >= len(self.script.steps)

    def persons_turn(self) -> bool:
        """Whether the next step is the person's to play."""
        return not self.finished and self.state.current_player() == self.script.seat

    def expected(self) -> Action:
        """The action id of the next step."""
        step = self.step
        if step is None:
            raise TutorialError(f"{self.script.game} tutorial: the script is over")
        return _action(self.state, step.move, f"step {self.index + 1}")

    def advance(self) -> Step:
        """Play the next step, which is a bot's or chance's; returns it."""
        if self.persons_turn():
            raise TutorialError("the next step is the person's move: use try_move")
        step = self.step
        action = self.expected()
        self.state.apply_action(action)
        self.index += 1
        assert step is not None
        return step

    def try_move(self, action: Action) -> str | None:
        """The person plays ``action``: None if it was the expected move (it is
        played), else why it is wrong (the state stays as it was)."""
        step = self.step
        if step is None or not self.persons_turn():
            raise TutorialError("it is not the person's move")
        expected = self.expected()
        if action == expected:
            self.state.apply_action(action)
            self.index += 1
            return None
        for move, why in step.wrong.items():
            if _action(self.state, move, f"step {self.index + 1}") == action:
                return why
        return step.otherwise or GENERIC_WRONG


def check(script: Script) -> State:
    """Replay ``script`` in the engine; returns the final state.

    Raises :class:`TutorialError` naming the first step that is not legal,
    a person's step without the coach's text, a wrong move that is the
    expected one or not legal, or a script that does not end the game.
    """
    tutorial = Tutorial(script)
    while not tutorial.finished:
        step = tutorial.step
        assert step is not None
        where = f"{script.game} tutorial, step {tutorial.index + 1} ({step.move!r})"
        expected = _action(tutorial.state, step.move, where)
        if tutorial.persons_turn():
            if not step.text.strip():
                raise TutorialError(f"{where}: the person's step has no coach text")
            for move in step.wrong:
                if _action(tutorial.state, move, where) == expected:
                    raise TutorialError(f"{where}: wrong move {move!r} is the expected one")
            if tutorial.try_move(expected) is not None:
                raise TutorialError(f"{where}: the expected move was refused")
        else:
            tutorial.advance()
    if not tutorial.state.is_terminal():
        raise TutorialError(f"{script.game} tutorial: the steps end before the game does")
    return tutorial.state


def scripted_action(script: Script, state: State) -> Action:
    """The action the script plays in ``state`` (its step is the state's move number)."""
    step = state.move_number()
    if step >= len(script.steps):
        raise TutorialError(f"{script.game} tutorial: the script has no step {step + 1}")
    return _action(state, script.steps[step].move, f"step {step + 1}")


def judge(script: Script, state: State, action: Action) -> str | None:
    """None if ``action`` is the step's expected move in ``state``, else why not."""
    expected = scripted_action(script, state)
    if action == expected:
        return None
    step = script.steps[state.move_number()]
    for move, why in step.wrong.items():
        if _action(state, move, f"step {state.move_number() + 1}") == action:
            return why
    return step.otherwise or GENERIC_WRONG


class ScriptedBot(Bot):
    """A bot seat of a tutorial room: it plays the script's move for its step."""

    def __init__(self, game: Game, seat: int, script: Script) -> None:
        super().__init__(game, seat)
        self.script = script

    def _choose(self, state: State) -> Action:
        return scripted_action(self.script, state)


def part_view(name: str) -> dict[str, JSON] | None:
    """A part name as data a front end finds an element by: ``seat-2`` is
    ``{"name": "seat-2", "key": "seat", "value": "2"}`` (the browser looks for
    ``data-part="seat-2"`` or ``data-seat="2"``); None for no part."""
    if not name:
        return None
    key, _, value = name.partition("-")
    return {"name": name, "key": key if value else None, "value": value or None}


def coach_view(script: Script, state: State | None) -> dict[str, JSON]:
    """What the coach says in ``state``, as data a front end draws: the lines of
    the steps played so far that have words (with the part each points at),
    the person's current instruction (``now``, on their turn) and the ends."""
    played = 0 if state is None else state.move_number()
    lines: list[JSON] = [
        {"step": i, "text": step.text, "part": part_view(step.part)}
        for i, step in enumerate(script.steps[:played])
        if step.text
    ]
    yours = (
        state is not None and played < len(script.steps) and state.current_player() == script.seat
    )
    now = script.steps[played] if yours else None
    return {
        "seat": script.seat,
        "intro": script.intro,
        "outro": script.outro,
        "step": played,
        "steps": len(script.steps),
        "lines": lines,
        "now": None
        if now is None
        else {"text": now.text, "part": part_view(now.part), "move": now.move},
        "finished": played >= len(script.steps),
    }


def coach_json(tutorial: Tutorial) -> dict[str, JSON]:
    """What a front end shows: the coach's current words and pointer, as data."""
    step = tutorial.step
    chance = not tutorial.finished and tutorial.state.current_player() == CHANCE
    return {
        "step": tutorial.index,
        "steps": len(tutorial.script.steps),
        "text": step.text if step else tutorial.script.outro,
        "part": step.part if step else "",
        "yours": tutorial.persons_turn(),
        "chance": chance,
        "finished": tutorial.finished,
    }


__all__ = [
    "GENERIC_WRONG",
    "Script",
    "ScriptedBot",
    "Step",
    "Tutorial",
    "TutorialError",
    "check",
    "coach_json",
    "coach_view",
    "judge",
    "load_script",
    "parse_script",
    "part_view",
    "scripted_action",
]
