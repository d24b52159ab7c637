"""A game in progress as the terminal app plays it: seats, bots, chance, the log.

No Textual here: :mod:`apothecary.tui.app` drives a :class:`Session`, and so
can a test. Chance is drawn from the session's own ``random.Random(seed)``;
bots act from a copy of the state so that they may think on another thread.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from apothecary import bots as bot_registry
from apothecary.core.bot import Bot
from apothecary.core.errors import (
    BadOptionError,
    GameOverError,
    IllegalActionError,
    UnknownBotError,
)
from apothecary.core.game import CHANCE, JSON, Action, Game, Player, State, sample_chance
from apothecary.core.records import Record
from apothecary.core.tutorial import Script, ScriptedBot, coach_view, judge, scripted_action
from apothecary.core.words import Words
from apothecary.core.words import read as read_words
from apothecary.tui.views import GameView, view_for
from apothecary.tui.views.base import plural

HUMAN = "human"
"""The seat name of a person at the keyboard (in ``--seat-bots`` and records)."""

DEFAULT_BOT = "easy"
"""The level that fills every seat that ``--seat-bots`` leaves unnamed."""

SCRIPTED = "tutorial"
"""The seat name of a bot that plays a tutorial's script (``--learn``)."""

Viewer = int | None
"""A seat whose eyes a view is drawn for, or None for a spectator."""


def plan_seats(
    game_name: str,
    players: int,
    seat_bots: Sequence[str],
    human_seat: int = 0,
    field: str = "--seat-bots",
) -> list[str]:
    """Who sits where: the person at ``human_seat``, the others in seat order.

    ``seat_bots`` names the other seats in order (a level such as ``easy``, a
    bot such as ``random``, or ``human`` for another person at the same
    keyboard); the last name fills the seats left over, and ``easy`` fills
    them all when none is given. ``field`` is what the errors call
    ``seat_bots`` (the flag, or the setup form's field). Raises
    BadOptionError / UnknownBotError.
    """
    if not 0 <= human_seat < players:
        raise BadOptionError(f"--seat {human_seat}: {game_name} has seats 0 to {players - 1}")
    names = [name.strip() for name in seat_bots if name.strip()]
    others = players - 1
    if len(names) > others:
        leave = "leaves" if players == 1 else "leave"
        room = "no seat" if others == 0 else plural(others, "seat")
        fix = "name none" if others == 0 else f"name at most {others}"
        raise BadOptionError(
            f"{field} names {plural(len(names), 'seat')}, but {plural(players, 'player')} "
            f"{leave} {room} beside yours: {fix}, or choose more players"
        )
    known = bot_registry.names(game_name)
    for name in names:
        # A bot may carry its budget (ismcts:iterations=100); the name must be known.
        if name != HUMAN and bot_registry.parse_spec(name)[0] not in known:
            raise UnknownBotError(
                f"{field}: unknown level or bot {name!r} for {game_name}; "
                f"use {HUMAN}, {', '.join(known)}"
            )
    fill = names[-1] if names else DEFAULT_BOT
    names += [fill] * (others - len(names))
    return [*names[:human_seat], HUMAN, *names[human_seat:]]


def seats_from_record(record: Record) -> list[str]:
    """The seats of a record as a session reads them: bot and level names stay
    bots, anything else (``human``, ``seat 0``, a person's name) is a person."""
    known = set(bot_registry.names(record.game))
    return [name if _is_bot(name, known) else HUMAN for name in record.seats]


def _is_bot(name: str, known: set[str]) -> bool:
    """Whether ``name`` names a known bot or level, perhaps with a budget."""
    try:
        return bot_registry.parse_spec(name)[0] in known
    except ValueError:  # a person's name with a colon in it
        return False


@dataclass
class LogEntry:
    """One action of the game and how each viewer may read it."""

    number: int
    """Its place in the game's history, from 1."""
    actor: Player
    """The seat that acted, or :data:`CHANCE`."""
    notation: str
    """The action in full notation (for the record; not every viewer may read it)."""
    events: dict[Viewer, dict[str, JSON]] = field(default_factory=dict)
    """Per viewer, the game's own event for it (``State.describe_action``): the
    one place that decides what that viewer may read of the action."""
    more: dict[Viewer, Sequence[str | Words]] = field(default_factory=dict)
    """Per viewer, what the view read off that viewer's observations before and
    after the action and the event leaves unsaid (the cards of a reveal...)."""
    summary: dict[Viewer, str] = field(default_factory=dict)
    """Per viewer, a milestone the action reached (a round's end, the viewer's
    death): the app pauses on it, and the result screen lists them all."""

    def whole(self, viewer: Viewer) -> bool:
        """Whether ``viewer`` learnt the whole action (its notation)."""
        event = self.events.get(viewer)
        return event is not None and event.get("notation") is not None

    def line(self, viewer: Viewer) -> str:
        """The log line as ``viewer`` reads it: the action in the event's words with
        its notation when the viewer may know it (so the log teaches the
        notation), then what it set off; the viewer's own seat marked ``(you)``."""
        event = self.events.get(viewer)
        if event is None:
            return f"{self.number:>3}. (hidden)"
        # The reader finds itself by a mark, which keeps the sentence's verbs
        # right ("seat 1 (you) drinks"); the seats are the event's data.
        name = marking(viewer)
        text = read_words(event["words"], name)
        then = "; ".join(read_words(clause, name) for clause in event.get("then_words") or [])
        # The notation goes with the action's own words, before what followed.
        notation = event.get("notation")
        line = text + ("" if notation is None else f" ({notation})") + (f"; {then}" if then else "")
        for more in self.more.get(viewer, []):
            line += f"; {read_words(more.runs(), name) if isinstance(more, Words) else more}"
        return f"{self.number:>3}. {line}"


class Session:
    """One game at the terminal: the state, who sits where, the bots, the log."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[str],
        seed: int | None = None,
        state: State | None = None,
        script: Script | None = None,
    ) -> None:
        if len(seats) != game.num_players:
            raise BadOptionError(f"{game.name}: {game.num_players} seats, got {len(seats)} names")
        self.game = game
        self.seats: list[str] = list(seats)
        self.seed_given = seed is not None
        """Whether the player chose the seed (and so may know chance already)."""
        if seed is None:
            # A secret seed: shown only once the game is over, since from it a
            # player could work out every hand and dose that chance dealt.
            seed = random.SystemRandom().randrange(1 << 31)
        self.seed: int = seed
        self.rng = random.Random(seed)
        self.view: GameView = view_for(game)
        self.script = script
        """A tutorial's script (``--learn``): chance and the bots play it, and
        the person's moves are judged by it (:meth:`judge`)."""
        self.humans: list[int] = [s for s, name in enumerate(self.seats) if name == HUMAN]
        self.bots: dict[int, Bot] = {
            seat: self._bot(name, seat) for seat, name in enumerate(self.seats) if name != HUMAN
        }
        self.state: State = game.new_initial_state()
        self.log: list[LogEntry] = []
        if state is not None:
            # Replayed from the start so the log is built as each seat saw it.
            for action in state.history():
                self._apply(action)
        for bot in self.bots.values():
            bot.restart_at(self.state)

    def _bot(self, name: str, seat: int) -> Bot:
        if self.script is not None:
            return ScriptedBot(self.game, seat, self.script)
        return bot_registry.load(name, self.game, seat, seed=self.seed * 1009 + seat)

    @classmethod
    def learn(cls, script: Script) -> Session:
        """The tutorial of ``script``: the person in the script's seat, the
        script's bots in the others, chance as the script deals it."""
        seats = [HUMAN if seat == script.seat else SCRIPTED for seat in range(script.players)]
        # The seed is unused (the script is the chance), but fixed: nothing is secret.
        return cls(script.new_game(), seats, seed=0, script=script)

    def real_game(self) -> Session:
        """What a finished tutorial offers: a game of the same game with its
        usual settings, the person in seat 0 and ``easy`` bots around."""
        from apothecary.core.registry import load

        game = load(self.game.name)
        return Session(game, plan_seats(game.name, game.num_players, [DEFAULT_BOT]))

    @classmethod
    def resume(
        cls, record: Record, seats: Sequence[str] | None = None, seed: int | None = None
    ) -> Session:
        """Pick up a saved game: its record replayed, its seats kept unless given."""
        state = record.replay()
        return cls(state.game, seats or seats_from_record(record), seed, state)

    def again(self) -> Session:
        """A new game of the same settings, each name one seat on (so everyone
        plays from another seat), with a new secret seed; after a tutorial,
        its :meth:`real_game`."""
        if self.script is not None:
            return self.real_game()
        seats = [self.seats[-1], *self.seats[:-1]]
        return Session(self.game, seats)

    # -- whose turn ------------------------------------------------------------

    def to_move(self) -> Player:
        """The seat to act, CHANCE or TERMINAL."""
        return self.state.current_player()

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.state.is_terminal()

    def is_human(self, seat: Player) -> bool:
        """Whether a person plays ``seat``."""
        return seat in self.humans

    def bot_to_move(self) -> Bot | None:
        """The bot whose turn it is, if it is a bot's turn."""
        return self.bots.get(self.to_move())

    def viewers(self) -> list[Viewer]:
        """Everyone a log is kept for: each person's seat, and a spectator."""
        return [*self.humans, None]

    # -- playing -----------------------------------------------------------------

    def play_chance(self) -> Action:
        """Draw the chance event due now from the session's rng (or the
        tutorial's script) and play it."""
        if self.script is not None:
            action = scripted_action(self.script, self.state)
        else:
            action = sample_chance(self.state, self.rng)
        self._apply(action)
        return action

    # -- the tutorial ------------------------------------------------------------------

    def coach(self) -> dict[str, JSON] | None:
        """What the tutorial's coach says now (:func:`~apothecary.core.tutorial.coach_view`,
        the same data the browser draws); None outside a tutorial."""
        return None if self.script is None else coach_view(self.script, self.state)

    def expected(self) -> Action | None:
        """In a tutorial, the move the script plays next (None outside one, or at its end)."""
        if self.script is None or self.state.move_number() >= len(self.script.steps):
            return None
        return scripted_action(self.script, self.state)

    def judge(self, action: Action) -> str | None:
        """In a tutorial, why the legal ``action`` is not the lesson's move
        (the coach's explanation), or None when it is, or outside a tutorial."""
        if self.script is None:
            return None
        return judge(self.script, self.state, action)

    def play(self, seat: Player, action: Action | str) -> Action:
        """Play ``action`` (id or notation) for ``seat``.

        Bad input raises a ValueError subclass with the reason and changes nothing.
        """
        mover = self.to_move()
        if self.state.is_terminal():
            raise GameOverError(f"{self.game.name}: the game is over")
        if mover != seat:
            whose = "chance's" if mover == CHANCE else f"seat {mover}'s"
            raise IllegalActionError(f"it is {whose} turn, not seat {seat}'s")
        if isinstance(action, str):
            action = self.state.string_to_action(action)
        if action not in self.state.legal_actions():
            # A copy raises the state's own precise error; the real state is untouched.
            self.state.clone().apply_action(action)
            raise IllegalActionError(f"{action!r} is not legal now")
        self._apply(action)
        return action

    def _apply(self, action: Action) -> None:
        state = self.state
        actor = state.current_player()
        entry = LogEntry(len(state.history()) + 1, actor, state.action_to_string(action))
        before: dict[Viewer, dict[str, JSON]] = {}
        for viewer in self.viewers():
            # Asked before the action is played, as describe_action wants.
            entry.events[viewer] = state.describe_action(action, viewer)
            before[viewer] = state.observation(viewer)
        for bot in self.bots.values():
            bot.inform_action(state, actor, action)
        state.apply_action(action)
        for viewer in self.viewers():
            # Read from the viewer's own observations only, so nothing leaks.
            after = state.observation(viewer)
            more = self.view.aftermath(before[viewer], after, viewer)
            if more:
                entry.more[viewer] = more
            summary = self.view.summary(before[viewer], after, viewer)
            if summary:
                entry.summary[viewer] = summary
        self.log.append(entry)

    # -- what a seat reads --------------------------------------------------------

    def log_lines(self, viewer: Viewer) -> list[str]:
        """The whole log as ``viewer`` may read it."""
        return [entry.line(viewer) for entry in self.log]

    def summaries(self, viewer: Viewer, since: int = 0) -> list[str]:
        """The milestones ``viewer`` may read, from log entry ``since`` on."""
        return [e.summary[viewer] for e in self.log[since:] if viewer in e.summary]

    def seat_label(self, seat: int) -> str:
        """``seat 2 (easy)`` or ``seat 0 (human)``."""
        return f"seat {seat} ({self.seats[seat]})"

    # -- records -----------------------------------------------------------------

    def record(self) -> Record:
        """The game so far as a record, its seats named by who plays them."""
        return Record.from_state(self.state, seats=self.seats)

    def save(self, path: str | Path) -> Path:
        """Write the record to ``path`` (OSError if the file cannot be written)."""
        target = Path(path).expanduser()
        self.record().save(target)
        return target


__all__ = [
    "DEFAULT_BOT",
    "HUMAN",
    "SCRIPTED",
    "LogEntry",
    "Session",
    "Viewer",
    "plan_seats",
    "seats_from_record",
]


def marking(viewer: Viewer) -> Callable[[int], str]:
    """How the terminal names a seat to ``viewer``: ``seat N``, and ``seat N (you)``
    for the viewer's own."""

    def name(number: int) -> str:
        return f"seat {number} (you)" if number == viewer else f"seat {number}"

    return name
