"""A room's state machine: seats, games, turns, bots, timers, series, and what
each viewer is sent. Plain Python: no socket, no database, no clock.

Time comes in as ``now`` (seconds since the epoch) and everything a room
decides goes out as data: :meth:`Room.snapshot` is the row a store keeps,
:class:`Changes` what one step added, :meth:`Room.view` the message a
viewer reads. The transport (:mod:`apothecary.server.app`) runs bots and
timers and sends the messages; the store writes the changes first.

Chance and bots are seeded from the room's seed, the game number and the
step, never from a generator that runs along: a room rebuilt from its stored
actions after a crash draws exactly what it would have drawn without one.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from apothecary import bots as bot_registry
from apothecary.core import tutorial as tutorials
from apothecary.core.bot import Bot
from apothecary.core.errors import ApothecaryError, MalformedActionError
from apothecary.core.game import CHANCE, JSON, Action, Game, Player, State, sample_chance
from apothecary.core.records import Record
from apothecary.core.registry import load

Viewer = int | None
"""A seat, or None for a spectator."""

NAME_LIMIT = 40
"""The longest display name, in characters."""

CHAT_LIMIT = 500
"""The longest chat message, in characters."""

CHAT_KEPT = 200
"""Chat messages a room keeps in memory and sends to a viewer who connects."""

OPEN = "open"
HUMAN = "human"
BOT = "bot"

TIMEOUT = "timeout"
"""Why a bot plays for a person: their turn's time ran out."""
BY_HOST = "host"
"""Why a bot plays for a person: the host handed their seat to it."""

LEFT = "left"
"""A notice: a seated person's last connection has been gone a while."""
RETURNED = "returned"
"""A notice: a person who left is connected again."""
BOT_PLAYS = "bot_plays"
"""A notice: a bot plays for a person from now on (with its level and the reason)."""
TOOK_BACK = "took_back"
"""A notice: the person took their seat back from the bot."""


# -- errors ---------------------------------------------------------------------------


class RoomError(ApothecaryError):
    """A request the room refuses. ``code`` names the reason for programs,
    ``status`` is the HTTP status it maps to; nothing was changed."""

    code = "bad_request"
    status = 400


class TooMany(RoomError):
    """A client that asks too often (rooms created, messages sent)."""

    code = "rate_limited"
    status = 429


class GameTooLong(RoomError):
    """Game options past what a server's rooms take (an option's
    ``OptionSpec.room_maximum``): its games could be longer than it replays."""

    code = "game_too_long"


class RatedWithHints(RoomError):
    """A rated room that would give hints: a rating measures the player, not the bot."""

    code = "rated_hints"


class RoomNotFound(RoomError):
    """No room has this code (or the code is malformed)."""

    code = "not_found"
    status = 404


class NotAllowed(RoomError):
    """A token that is missing, forged, or not the host's."""

    code = "forbidden"
    status = 403


class WrongPhase(RoomError):
    """The request does not fit the room's phase (seat taken, game not started...)."""

    code = "conflict"
    status = 409


class GameOver(RoomError):
    """An action sent after the game ended."""

    code = "game_over"
    status = 409


class NotYourTurn(RoomError):
    """An action from a spectator, or from a seat that is not to move."""

    code = "not_your_turn"
    status = 409


class MalformedAction(RoomError):
    """An action that is neither an action id nor notation of this game."""

    code = "malformed_action"


class IllegalAction(RoomError):
    """A well-formed action the rules do not allow now."""

    code = "illegal_action"


class WrongMove(RoomError):
    """In a tutorial room, a legal move that is not the lesson's: the coach's
    explanation is the message, and the position stays as it was."""

    code = "tutorial_wrong_move"
    status = 409


class TutorialRoom(RoomError):
    """In a tutorial room, something that would break the script: a rematch,
    another person taking a seat, a bot put in or handed a seat."""

    code = "tutorial_room"
    status = 409


class StaleState(RoomError):
    """An action sent for a position that has since changed."""

    code = "stale_state"
    status = 409


# -- tokens and codes -------------------------------------------------------------------


def new_token() -> str:
    """An unguessable secret (192 random bits) for a seat or a host."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """What is stored of a token: its SHA-256. A token is random enough that
    no salt or slow hash is needed; the database never holds the token itself."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: object, stored: str | None) -> bool:
    """Whether ``token`` hashes to ``stored`` (compared in constant time)."""
    if not isinstance(token, str) or stored is None or len(token) > 200:
        return False
    return secrets.compare_digest(hash_token(token), stored)


def new_code() -> str:
    """A room code: 72 random bits, so codes cannot be guessed or enumerated."""
    return secrets.token_urlsafe(9)


def clean_text(text: object, limit: int, what: str) -> str:
    """``text`` stripped of control characters and outer space; RoomError if
    it is not text, empty, or longer than ``limit``."""
    if not isinstance(text, str):
        raise RoomError(f"{what} must be text")
    # Control characters (and other invisible categories) could spoof a log line.
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " ")
    kept = kept.strip()
    if not kept:
        raise RoomError(f"{what} is empty")
    if len(kept) > limit:
        raise RoomError(f"{what} is {len(kept)} characters; the limit is {limit}")
    return kept


def _plain_fields(value: Any) -> dict[str, JSON]:
    """A dataclass whose fields are plain strings, numbers, flags and None, as
    ``asdict`` gives it, without ``asdict``'s deep copy of each value: every
    commit stores the room's settings and each seat, and ``asdict`` was a
    sixth of a move's commit on SQLite."""
    return {f.name: getattr(value, f.name) for f in fields(value)}


# -- the parts of a room ------------------------------------------------------------------


@dataclass
class Seat:
    """Who sits in one seat."""

    kind: str
    """``open`` (waiting for a person), ``human`` or ``bot``."""
    level: str
    """The bot (or level) that plays it: always for a bot, for a human while away."""
    name: str = ""
    token_hash: str | None = None
    away: bool = False
    """A human whose turn timed out, or whom the host replaced: the bot plays
    for them until they act again."""
    away_reason: str | None = None
    """Why the bot plays for them: :data:`TIMEOUT` or :data:`BY_HOST`; None
    when not away (and for an away seat stored before reasons were kept)."""
    wins: int = 0
    """Games won in this room's series (they move with the person)."""

    def to_json(self) -> dict[str, JSON]:
        """The stored form (with the token's hash: for the store only)."""
        return _plain_fields(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        """The inverse of :meth:`to_json` (a row stored before a field was added
        gets its default)."""
        return cls(**data)

    def hand_to_bot(self, level: str, reason: str) -> None:
        """A bot of ``level`` plays for the person, for ``reason``."""
        self.level, self.away, self.away_reason = level, True, reason

    def take_back(self) -> None:
        """The person plays their own seat again."""
        self.away, self.away_reason = False, None

    def public(self, seat: int, connected: bool) -> dict[str, JSON]:
        """What anyone may read of this seat."""
        return {
            "seat": seat,
            "kind": self.kind,
            "name": self.name or (f"{self.level} bot" if self.kind == BOT else ""),
            "level": self.level if self.kind == BOT or self.away else None,
            "away": self.away,
            "away_reason": self.away_reason if self.away else None,
            "connected": connected or self.kind == BOT,
            "wins": self.wins,
        }


@dataclass(frozen=True)
class Settings:
    """A room's options beyond the game's own."""

    turn_seconds: float | None = None
    """Seconds a human has for each move; None: no timer."""
    match_target: int | None = None
    """Play a series: the first to this many wins takes it. None: single games."""
    listed: bool = True
    """Shown in the list of open rooms (an unlisted room is joined by its link)."""
    fallback_level: str = "medium"
    """The bot that fills empty seats at an early start and plays for a timed-out human."""
    hints: bool = False
    """A casual room: a seat may ask the strongest bot for a suggestion on its
    turn (everyone sees that the room allows it; off by default)."""
    rated: bool = False
    """A rated room: each finished game moves its players' ratings
    (:mod:`apothecary.server.ratings`). Every person seated is signed in to an
    account, and the room gives no hints."""
    tutorial: bool = False
    """A learn-to-play room: chance and the bots follow the game's script
    (:mod:`apothecary.core.tutorial`), and the person's moves are coached."""

    def to_json(self) -> dict[str, JSON]:
        """JSON-ready."""
        return _plain_fields(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Settings:
        """The inverse of :meth:`to_json`."""
        return cls(**data)


@dataclass(frozen=True)
class ActionRow:
    """One applied action, as the store keeps it."""

    game_no: int
    step: int
    action: Action
    notation: str
    actor: Player
    at: float


@dataclass
class Changes:
    """What one step of a room added, for the store to write in one transaction
    before anyone is told (the room's own row is always rewritten)."""

    new_game: tuple[int, list[str]] | None = None
    """A game that started: its number and who sits where."""
    actions: list[ActionRow] = field(default_factory=list)
    finished: tuple[int, dict[str, JSON]] | None = None
    """A game that ended: its number and outcome."""
    chat: list[dict[str, JSON]] = field(default_factory=list)
    notices: list[tuple[int, dict[str, JSON]]] = field(default_factory=list)
    """Room notices (someone left, came back, was handed to a bot), each with
    the number of the game it belongs to."""
    no_op: bool = False
    """The command left the room's own row as it was (a ``back`` from a seat
    that is not away); see :attr:`unchanged`."""

    @classmethod
    def nothing(cls) -> Changes:
        """The changes of a command that changed nothing."""
        return cls(no_op=True)

    @property
    def unchanged(self) -> bool:
        """The room is as it was: the hub commits nothing and tells nobody, so
        repeating such a command costs nothing. Anything added to a no-op (a
        move after a ``back`` that did nothing, a drawn chance) makes it a change
        again, so a no-op can never swallow a move."""
        return self.no_op and not (
            self.new_game or self.actions or self.finished or self.chat or self.notices
        )

    def extend(self, other: Changes) -> None:
        """Add ``other``'s changes after these."""
        self.no_op = self.no_op and other.no_op
        self.new_game = other.new_game or self.new_game
        self.actions += other.actions
        self.finished = other.finished or self.finished
        self.chat += other.chat
        self.notices += other.notices


@dataclass(frozen=True)
class Pending:
    """What the room waits for now."""

    kind: str
    """``chance`` (the server draws), ``bot`` (a bot plays ``seat``),
    ``human`` (``seat`` must act, by ``deadline`` if set) or ``next_game``
    (a series goes on)."""
    seat: Player | None = None
    deadline: float | None = None
    state_id: str = ""


def _derived_seed(*parts: object) -> int:
    """A 64-bit seed from text: the same parts give the same seed in every process."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


# -- the room -----------------------------------------------------------------------------


class Room:
    """One room: a game configuration, its seats, and the games played in it."""

    def __init__(
        self,
        code: str,
        game: Game,
        seats: list[Seat],
        settings: Settings,
        seed: str,
        host_hash: str,
        created: float,
    ) -> None:
        self.code = code
        self.game = game
        self.seats = seats
        self.settings = settings
        self.seed = seed
        self.host_hash = host_hash
        self.created = created
        self.status = "lobby"
        """``lobby``, ``playing``, ``over`` (a game ended; a rematch may follow)."""
        self.game_no = 0
        self.state: State | None = None
        self.deadline: float | None = None
        self.log: list[list[dict[str, JSON]]] = []
        """Per action of the current game: its event for each seat, then the spectator."""
        self.chat: list[dict[str, JSON]] = []
        self.chat_count = 0
        self.notices: list[dict[str, JSON]] = []
        """The current game's notices, in order: who left, came back, was
        handed to a bot or took their seat back. The same for every viewer."""
        self.outcome: dict[str, JSON] | None = None
        self.seating: list[str] = []
        """Who sat where in the current game (names, for its record)."""
        self.presence: Counter[Viewer] = Counter()
        self._legal_cache: tuple[str, list[dict[str, JSON]]] | None = None
        self.script: tutorials.Script | None = None
        """A tutorial room's script (:attr:`Settings.tutorial`), loaded once."""
        if settings.tutorial:
            self.script = tutorials.load_script(game.name)
            if self.script is None:
                raise RoomError(f"{game.name} has no tutorial")

    # -- making one -------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        game_name: str,
        players: int | None,
        options: dict[str, Any],
        seats: Sequence[str] | None,
        settings: Settings,
        now: float,
        seed: str | None = None,
    ) -> tuple[Room, str]:
        """A new room in its lobby, and the host's token.

        ``seats`` gives each seat ``open`` (for a person) or a bot or level
        name; missing entries are open. Raises RoomError for anything the
        game, the bot registry or the settings refuse.
        """
        try:
            # Options whose default is unbounded play a room's bounded default.
            game = load(game_name, players, **options).for_room()
        except ApothecaryError as error:
            raise RoomError(str(error)) from None
        too_long = game.room_problem() or game.unbounded_problem()
        if too_long is not None:
            raise GameTooLong(too_long)
        plan = list(seats or [])
        if len(plan) > game.num_players:
            raise RoomError(f"{len(plan)} seats given; {game.name} is set for {game.num_players}")
        plan += [OPEN] * (game.num_players - len(plan))
        made = []
        for entry in plan:
            if not isinstance(entry, str):
                raise RoomError(f"a seat is 'open' or a bot level, got {entry!r}")
            if entry == OPEN:
                made.append(Seat(OPEN, settings.fallback_level))
            else:
                made.append(Seat(BOT, _check_bot(game, entry)))
        _check_bot(game, settings.fallback_level)
        if settings.rated and settings.hints:
            raise RatedWithHints("a rated room gives no hints; turn one of the two off")
        if settings.turn_seconds is not None and not 1 <= settings.turn_seconds <= 86400:
            raise RoomError("turn_seconds must be between 1 and 86400")
        if settings.match_target is not None and not 1 <= settings.match_target <= 99:
            raise RoomError("match_target must be between 1 and 99")
        token = new_token()
        room = cls(
            new_code(),
            game,
            made,
            settings,
            seed if seed is not None else secrets.token_hex(16),
            hash_token(token),
            now,
        )
        return room, token

    # -- who is who ---------------------------------------------------------------------

    def seat_of(self, token: object) -> int:
        """The seat whose token this is; NotAllowed otherwise."""
        for index, seat in enumerate(self.seats):
            if token_matches(token, seat.token_hash):
                return index
        raise NotAllowed("that token is not for a seat of this room")

    def check_host(self, token: object) -> None:
        """NotAllowed unless ``token`` is the host's."""
        if not token_matches(token, self.host_hash):
            raise NotAllowed("only the host may do that (send the host token)")

    def _seat_index(self, seat: object) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise RoomError(f"a seat is a number, got {seat!r}")
        if not 0 <= seat < len(self.seats):
            raise RoomError(f"seat {seat}: this room has seats 0 to {len(self.seats) - 1}")
        return seat

    # -- the lobby --------------------------------------------------------------------

    def claim(self, name: object, seat: object = None) -> tuple[int, str]:
        """Sit a person down in ``seat`` (or the first open one): their seat and token."""
        shown = clean_text(name, NAME_LIMIT, "a display name")
        self._not_in_a_lesson("seats are not claimed: the lesson has one person's seat")
        if self.status != "lobby":
            raise WrongPhase("the game has started; seats are claimed in the lobby")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.kind == OPEN]
            if not free:
                raise WrongPhase("no seat is open; watch instead")
            index = free[0]
        else:
            index = self._seat_index(seat)
            if self.seats[index].kind != OPEN:
                raise WrongPhase(f"seat {index} is not open")
        token = new_token()
        place = self.seats[index]
        place.kind, place.name, place.token_hash = HUMAN, shown, hash_token(token)
        return index, token

    def set_bot(self, seat: object, level: object, now: float = 0.0) -> Changes:
        """Host: put a bot in an open seat (lobby), or let a bot play for a
        human who is absent (the seat stays theirs; they take it back by acting;
        during a game the log says the host handed it over)."""
        index = self._seat_index(seat)
        self._not_in_a_lesson("its bots play the script; they are not changed")
        if not isinstance(level, str):
            raise RoomError("a bot level is text")
        checked = _check_bot(self.game, level)
        place = self.seats[index]
        if place.kind == HUMAN:
            place.hand_to_bot(checked, BY_HOST)
            if self.state is not None and self.state.current_player() == index:
                self.deadline = None
            if self.status == "playing":
                return self._notice(BOT_PLAYS, index, now, level=checked, reason=BY_HOST)
        else:
            if self.status != "lobby":
                raise WrongPhase("only a human's seat can be handed to a bot during a game")
            place.kind, place.level = BOT, checked
        return Changes()

    def _not_in_a_lesson(self, why: str) -> None:
        """Refuse what would break a tutorial room's script, once it has started
        (the room is set up in its lobby like any other)."""
        if self.settings.tutorial and self.status != "lobby":
            raise TutorialRoom(f"this is a learn-to-play room: {why}")

    def open_seat(self, seat: object) -> str | None:
        """Host, in the lobby: free ``seat`` (whoever took it, person or bot,
        leaves it open for someone else). The freed person's token hash, so
        their sockets can be closed; None when it was not a person's."""
        index = self._seat_index(seat)
        if self.status != "lobby":
            raise WrongPhase("seats are freed in the lobby; during a game, hand the seat to a bot")
        freed = self.seats[index].token_hash
        self.seats[index] = Seat(OPEN, self.settings.fallback_level)
        return freed

    def start(self, now: float) -> Changes:
        """Host: start the first game, bots in every seat still open."""
        if self.status != "lobby":
            raise WrongPhase("the room has already started")
        for place in self.seats:
            if place.kind == OPEN:
                place.kind, place.level = BOT, self.settings.fallback_level
        return self._new_game(now)

    def rematch(self, now: float) -> Changes:
        """Host: another game with the same people, everyone one seat on.
        After a finished series, the series starts again from nothing."""
        self._not_in_a_lesson("there is no rematch: start a real game instead")
        if self.status != "over":
            raise WrongPhase("a rematch follows a finished game")
        if self.series_winner() is not None:
            for place in self.seats:
                place.wins = 0
        return self.next_game(now)

    def next_game(self, now: float) -> Changes:
        """The next game of the room: seats rotated by one, so the start moves on."""
        if self.status != "over":
            raise WrongPhase("no game has finished")
        self.seats = [self.seats[-1], *self.seats[:-1]]
        # The people's connections move with them (the hub moves each socket).
        last = len(self.seats) - 1
        self.presence = Counter(
            {(None if v is None else (v + 1) % (last + 1)): n for v, n in self.presence.items()}
        )
        return self._new_game(now)

    def _new_game(self, now: float) -> Changes:
        self.game_no += 1
        self.state = self.game.new_initial_state()
        self.status = "playing"
        self.log = []
        self.notices = []
        self.outcome = None
        self.seating = [self._seat_label(i) for i in range(len(self.seats))]
        self._legal_cache = None
        changes = Changes(new_game=(self.game_no, list(self.seating)))
        self._arm_timer(now)
        return changes

    def _seat_label(self, index: int) -> str:
        # The name the room shows ("Ann", "medium bot"): the game's replay and record use it.
        place = self.seats[index]
        return place.name if place.kind == HUMAN else f"{place.level} bot"

    # -- play ----------------------------------------------------------------------------

    @property
    def step(self) -> int:
        """Actions applied in the current game."""
        return 0 if self.state is None else self.state.move_number()

    @property
    def state_id(self) -> str:
        """Names the position: ``game:step``. An action carries the id it was
        chosen in, so one chosen in a position that has changed is refused."""
        return f"{self.game_no}:{self.step}"

    def pending(self) -> Pending | None:
        """What the room waits for, or None (lobby; a finished game or series)."""
        if self.status == "over":
            if self.settings.match_target is not None and self.series_winner() is None:
                return Pending("next_game", state_id=self.state_id)
            return None
        if self.status != "playing" or self.state is None:
            return None
        mover = self.state.current_player()
        if mover == CHANCE:
            return Pending("chance", CHANCE, state_id=self.state_id)
        place = self.seats[mover]
        if place.kind == BOT or place.away:
            return Pending("bot", mover, state_id=self.state_id)
        return Pending("human", mover, self.deadline, self.state_id)

    def chance_action(self) -> Action:
        """The chance outcome here, drawn from the room's seed, game and step."""
        state = self._playing_state()
        if self.script is not None:
            return tutorials.scripted_action(self.script, state)
        rng = random.Random(_derived_seed(self.seed, self.game_no, self.step, "chance"))
        return sample_chance(state, rng)

    def make_bot(self, seat: int) -> Bot:
        """The bot that plays ``seat`` now, seeded by the room's seed, game and step."""
        state = self._playing_state()
        if self.script is not None:
            return tutorials.ScriptedBot(self.game, seat, self.script)
        place = self.seats[seat]
        seed = _derived_seed(self.seed, self.game_no, self.step, "bot", seat)
        bot = bot_registry.load_for_room(place.level, self.game, seat, seed=seed)
        bot.restart_at(state)
        return bot

    def _playing_state(self) -> State:
        if self.state is None or self.status != "playing":
            raise WrongPhase("no game is being played")
        return self.state

    def check_action(self, seat: Viewer, action: object, state_id: object) -> Action:
        """The action id a viewer's message names, or the reason it is refused,
        checked in this order: game over, not your turn (or not a seat),
        malformed, illegal, stale state id. Changes nothing."""
        if self.status == "lobby" or self.state is None:
            raise WrongPhase("the game has not started")
        state = self.state
        if self.status != "playing" or state.is_terminal():
            raise GameOver("the game is over")
        mover = state.current_player()
        if seat is None:
            raise NotYourTurn("spectators do not play")
        if mover != seat:
            whose = "chance" if mover == CHANCE else f"seat {mover}"
            raise NotYourTurn(f"it is {whose}'s turn, not seat {seat}'s")
        chosen: Action
        if isinstance(action, str):
            try:
                chosen = state.string_to_action(action)
            except MalformedActionError as error:
                raise MalformedAction(str(error)) from None
        elif isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < self.game.num_distinct_actions():
                raise MalformedAction(
                    f"action id {action} is out of range 0..{self.game.num_distinct_actions() - 1}"
                )
            chosen = action
        else:
            raise MalformedAction("an action is an action id (a number) or notation (text)")
        if chosen not in state.legal_actions():
            try:
                state.clone().apply_action(chosen)
            except ApothecaryError as error:
                raise IllegalAction(str(error)) from None
            raise IllegalAction(f"action {chosen} is not legal now")  # pragma: no cover
        if state_id != self.state_id:
            raise StaleState(
                f"the position changed (you sent state {state_id!r}, it is now {self.state_id!r})"
            )
        if self.script is not None:
            why = tutorials.judge(self.script, state, chosen)
            if why is not None:
                raise WrongMove(why)
        return chosen

    def apply(self, action: Action, now: float, by_bot: bool = False) -> Changes:
        """Play a checked action by whoever is to move and say what changed.

        ``by_bot``: a bot played it, for a bot seat or for an away human (who
        stays away); a person's own action takes their seat back from the bot.
        """
        state = self._playing_state()
        actor = state.current_player()
        row = ActionRow(self.game_no, self.step, action, state.action_to_string(action), actor, now)
        changes = Changes()
        bot: str | None = None
        if actor != CHANCE and by_bot and self.seats[actor].kind == HUMAN:
            bot = self.seats[actor].level  # the log marks the move as the bot's
        elif actor != CHANCE and not by_bot:
            changes = self.back(actor, now)
        self._play(action, bot)
        changes.actions.append(row)
        if state.is_terminal():
            self._finish(changes)
        else:
            self._arm_timer(now)
        return changes

    def _play(self, action: Action, bot: str | None = None) -> None:
        """Apply ``action`` to the state and log its event for every viewer;
        ``bot``: the level of the bot that chose it for an away person."""
        state = self._playing_state()
        # One event per audience, shared by the viewers who read the same
        # (State.describe_action_for_all): what is added here is for all alike.
        events = state.describe_action_for_all(action)
        step = state.move_number()
        for event in {id(event): event for event in events}.values():
            event["step"] = step
            if bot is not None:
                event["by_bot"] = bot
        state.apply_action(action)
        self.log.append(events)
        self._legal_cache = None

    def _finish(self, changes: Changes) -> None:
        state = self._playing_state()
        outcome = state.outcome()
        assert outcome is not None
        self.outcome = outcome.to_json(words=True)
        for winner in outcome.winners:
            self.seats[winner].wins += 1
        self.status = "over"
        self.deadline = None
        changes.finished = (self.game_no, self.outcome)

    def _arm_timer(self, now: float) -> None:
        """A human to move gets ``turn_seconds`` from now; anyone else none."""
        pending = self.pending()
        seconds = self.settings.turn_seconds
        if pending is not None and pending.kind == "human" and seconds is not None:
            self.deadline = now + seconds
        else:
            self.deadline = None

    def timeout(self, now: float, state_id: str) -> Changes | None:
        """The timer ran out at ``state_id``: the seat's bot plays for the person
        from now on. None when the timer was stale (the position moved on)."""
        pending = self.pending()
        if (
            pending is None
            or pending.kind != "human"
            or pending.state_id != state_id
            or self.deadline is None
            or now < self.deadline
            or pending.seat is None
        ):
            return None
        place = self.seats[pending.seat]
        place.hand_to_bot(place.level, TIMEOUT)
        self.deadline = None
        return self._notice(BOT_PLAYS, pending.seat, now, level=place.level, reason=TIMEOUT)

    def back(self, seat: int, now: float) -> Changes:
        """A person takes their seat back from the bot."""
        place = self.seats[seat]
        if not place.away:
            return Changes.nothing()
        place.take_back()
        self._arm_timer(now)
        return self._notice(TOOK_BACK, seat, now)

    # -- notices: who left, came back, was handed to a bot ---------------------------------

    def _notice(
        self, kind: str, seat: int, now: float, level: str | None = None, reason: str | None = None
    ) -> Changes:
        """Log a notice of the current game, for every viewer alike."""
        entry: dict[str, JSON] = {
            "id": len(self.notices),
            "kind": kind,
            "seat": seat,
            "step": self.step,
            "level": level,
            "reason": reason,
            "at": now,
        }
        self.notices.append(entry)
        return Changes(notices=[(self.game_no, entry)])

    def gone(self, seat: int) -> bool:
        """Whether the log last said that the person in ``seat`` left."""
        for entry in reversed(self.notices):
            if entry["seat"] == seat and entry["kind"] in (LEFT, RETURNED):
                return bool(entry["kind"] == LEFT)
        return False

    def leaving(self, seat: int) -> bool:
        """Whether ``seat`` is a person with no connection, during a game, whose
        leaving the log has not told yet."""
        return (
            self.status == "playing"
            and self.seats[seat].kind == HUMAN
            and self.presence[seat] <= 0
            and not self.gone(seat)
        )

    def left(self, seat: int, now: float) -> Changes:
        """The person in ``seat`` has been gone a while: the log says they left
        (once; nothing if they are back, or it said so already)."""
        if not self.leaving(seat):
            return Changes.nothing()
        return self._notice(LEFT, seat, now)

    def returned(self, seat: int, now: float) -> Changes:
        """A person the log said had left is connected again: it says so."""
        if not self.gone(seat) or self.presence[seat] <= 0:
            return Changes.nothing()
        return self._notice(RETURNED, seat, now)

    def series_winner(self) -> int | None:
        """The seat that has reached the series target, if any."""
        target = self.settings.match_target
        if target is None:
            return None
        best = max(range(len(self.seats)), key=lambda i: self.seats[i].wins)
        return best if self.seats[best].wins >= target else None

    # -- chat -------------------------------------------------------------------------------

    def say(self, seat: int, text: object, now: float) -> Changes:
        """A seat's chat message (table talk is part of the games)."""
        words = clean_text(text, CHAT_LIMIT, "a chat message")
        self.chat_count += 1
        entry: dict[str, JSON] = {
            "id": self.chat_count,
            "seat": seat,
            "name": self.seats[seat].name,
            "text": words,
            "at": now,
        }
        self.chat = [*self.chat[-(CHAT_KEPT - 1) :], entry]
        return Changes(chat=[entry])

    # -- what a viewer reads -------------------------------------------------------------

    def legal(self, viewer: Viewer) -> list[dict[str, JSON]]:
        """The viewer's legal actions, each with notation and a label, on their turn."""
        return self._legal(self.pending(), viewer)

    def _legal(self, pending: Pending | None, viewer: Viewer) -> list[dict[str, JSON]]:
        """:meth:`legal` with what the room waits for already known (a view
        asks :meth:`pending` once, not once for itself and once here)."""
        if pending is None or pending.kind not in ("human", "bot") or pending.seat != viewer:
            return []
        if self._legal_cache is not None and self._legal_cache[0] == self.state_id:
            return self._legal_cache[1]
        state = self._playing_state()
        listed: list[dict[str, JSON]] = [
            {
                "id": action,
                "notation": state.action_to_string(action),
                "label": str(words),
                "words": words.runs(),
                "msg": words.message(),
                "move": state.action_move(action),
            }
            for action in state.legal_actions()
            for words in (state.action_words(action),)
        ]
        self._legal_cache = (self.state_id, listed)
        return listed

    def seats_view(self) -> list[dict[str, JSON]]:
        """Every seat as anyone may see it, with presence."""
        return [place.public(i, self.presence[i] > 0) for i, place in enumerate(self.seats)]

    def game_view(self, viewer: Viewer, since: int = 0) -> dict[str, JSON]:
        """What the game itself shows ``viewer``: its observation, its legal
        actions on its turn, the state id, and the events from index ``since``
        on, as it may read them. The only place this is made (a replay's view,
        :meth:`replay_view`, is made by the same function); it depends only
        on what the viewer knows (the secrecy tests check it in drawn worlds)."""
        pending = self.pending()
        view = self._game_view(
            self.state,
            len(self.log),
            viewer,
            since,
            None if pending is None else pending.seat,
            None if pending is None else pending.kind,
            self._legal(pending, viewer) if viewer is not None else [],
            self.outcome,
        )
        if self.script is not None:
            # The script is public (the same for every viewer); the coach reads it.
            view["coach"] = tutorials.coach_view(self.script, self.state)
        return view

    def _game_view(
        self,
        state: State | None,
        step: int,
        viewer: Viewer,
        since: int,
        to_move: Player | None,
        waiting_for: str | None,
        legal: list[dict[str, JSON]],
        outcome: dict[str, JSON] | None,
    ) -> dict[str, JSON]:
        column = len(self.seats) if viewer is None else viewer
        return {
            "state_id": f"{self.game_no}:{step}",
            "to_move": to_move,
            "waiting_for": waiting_for,
            "observation": None if state is None else state.observation(viewer),
            "legal": legal,
            "events": [events[column] for events in self.log[since:step]],
            "event_count": step,
            "outcome": outcome,
        }

    ROOM_FACTS = (
        "type",
        "room",
        "status",
        "game_no",
        "you",
        "seats",
        "spectators",
        "deadline",
        "match_target",
        "series_winner",
        "notices",
        "now",
    )
    """The keys of an update beside the game view: facts about the room that
    every viewer may read alike."""

    def view(
        self, viewer: Viewer, since: int = 0, now: float | None = None, noticed: int = 0
    ) -> dict[str, JSON]:
        """The update message for ``viewer``: :meth:`game_view` and the room's
        public facts (:data:`ROOM_FACTS`), ``now`` the server's time (so a
        client's countdown to ``deadline`` need not trust the device's clock),
        the notices from index ``noticed`` on. Every message to a viewer is made here."""
        facts: dict[str, JSON] = {
            "type": "update",
            "room": self.code,
            "status": self.status,
            "game_no": self.game_no,
            "you": viewer,
            "seats": self.seats_view(),
            "spectators": self.presence[None],
            "deadline": self.deadline,
            "match_target": self.settings.match_target,
            "series_winner": self.series_winner(),
            "notices": list(self.notices[noticed:]),
            "now": now,
        }
        return {**facts, **self.game_view(viewer, since)}

    def presence_view(self) -> dict[str, JSON]:
        """The presence message: who is connected and how many watch, as an
        update's ``seats[].connected`` and ``spectators`` say it. Presence is
        public, so it is the same for every viewer and made once for all."""
        return {
            "type": "presence",
            "room": self.code,
            "connected": [place["connected"] for place in self.seats_view()],
            "spectators": self.presence[None],
        }

    def public_info(self) -> dict[str, JSON]:
        """What the room list and the room page show to anyone."""
        return {
            "code": self.code,
            "game": self.game.name,
            "title": self.game.info.title,
            "players": self.game.num_players,
            "options": dict(self.game.options),
            "status": self.status,
            "game_no": self.game_no,
            "open_seats": [i for i, s in enumerate(self.seats) if s.kind == OPEN],
            "seats": self.seats_view(),
            "settings": self.settings.to_json(),
            "created": self.created,
        }

    def record(self, game_no: int, actions: Sequence[str], seating: Sequence[str]) -> Record:
        """A finished game's full record; WrongPhase for one still being played."""
        if not 1 <= game_no <= self.game_no:
            raise RoomNotFound(f"this room has no game {game_no}")
        if game_no == self.game_no and self.status == "playing":
            raise WrongPhase("the record is available once the game is over")
        return Record(
            game=self.game.name,
            players=self.game.num_players,
            options=dict(self.game.options),
            seats=list(seating),
            actions=list(actions),
            outcome=None,
        )

    def replay_view(self, viewer: Viewer, step: int, then: State | None = None) -> dict[str, JSON]:
        """What ``viewer`` saw of the finished current game after its first
        ``step`` actions: the same keys as :meth:`game_view`, with its
        observation then and the events up to then as it read them (the log
        was made by ``describe_action`` as the game was played), and no legal
        actions. ``then``: that position, if the caller has it (read only;
        else it is replayed from the start). WrongPhase while the game is being
        played: a replay of an unfinished game would show what is still secret."""
        state = self.state
        if state is None or self.status != "over" or not state.is_terminal():
            raise WrongPhase("a game can be replayed once it is over")
        history = state.history()
        if not isinstance(step, int) or not 0 <= step <= len(history):
            raise RoomError(f"step {step!r}: the game has steps 0 to {len(history)}")
        if viewer is not None:
            self._seat_index(viewer)
        if then is None:
            then = self.game.new_initial_state()
            for action in history[:step]:
                then.apply_action(action)
        mover = then.current_player()
        outcome = then.outcome()
        return self._game_view(
            then,
            step,
            viewer,
            0,
            mover if mover >= 0 else None,
            None,
            [],
            None if outcome is None else outcome.to_json(words=True),
        )

    def hint_position(self, seat: int) -> State:
        """A copy of the position for ``seat``'s hint: only in a room with
        hints on, during a game, on that seat's own turn."""
        if not self.settings.hints:
            raise NotAllowed("this room does not give hints (the host turns them on)")
        state = self._playing_state()
        if state.current_player() != seat:
            raise NotYourTurn(f"a hint is for your own turn; seat {seat} is not to move")
        return state.clone()

    # -- storage ------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The room's row for a store (everything but its actions and chat)."""
        return {
            "code": self.code,
            "game": self.game.name,
            "players": self.game.num_players,
            "options": dict(self.game.options),
            "settings": self.settings.to_json(),
            "seed": self.seed,
            "host_hash": self.host_hash,
            "seats": [s.to_json() for s in self.seats],
            "status": self.status,
            "game_no": self.game_no,
            "deadline": self.deadline,
            "created": self.created,
        }

    @classmethod
    def restore(
        cls,
        row: dict[str, Any],
        actions: Sequence[Action],
        seating: Sequence[str],
        chat: Sequence[dict[str, JSON]] = (),
        chat_count: int = 0,
        notices: Sequence[dict[str, JSON]] = (),
    ) -> Room:
        """A room rebuilt from its stored row, its current game's actions
        (replayed, so the events are made again exactly as they were) and
        notices (which say which of the moves a bot made for a person)."""
        game = load(row["game"], row["players"], **row["options"])
        room = cls(
            row["code"],
            game,
            [Seat.from_json(s) for s in row["seats"]],
            Settings.from_json(row["settings"]),
            row["seed"],
            row["host_hash"],
            row["created"],
        )
        room.game_no = row["game_no"]
        room.seating = list(seating)
        room.chat = list(chat)[-CHAT_KEPT:]
        room.chat_count = chat_count
        if room.game_no:
            room.status = "playing"
            room.state = game.new_initial_state()
            room.notices = list(notices)
            room._replay(actions)
            outcome = room.state.outcome()
            if outcome is not None:
                room.outcome = outcome.to_json(words=True)
        room.status = row["status"]
        room.deadline = row["deadline"]
        return room

    def _replay(self, actions: Sequence[Action]) -> None:
        """Play the stored actions again, each marked as a bot's when the
        notices say a bot played for its seat then (as :meth:`apply` did)."""
        notices = iter(self.notices)
        upcoming = next(notices, None)
        bots: dict[int, str] = {}  # seat: the level of the bot playing for it
        for step, action in enumerate(actions):
            # A notice at step k came before the k-th action (the step it names).
            while upcoming is not None and _number(upcoming["step"]) <= step:
                seat, level = _number(upcoming["seat"]), upcoming["level"]
                if upcoming["kind"] == BOT_PLAYS and isinstance(level, str):
                    bots[seat] = level
                elif upcoming["kind"] == TOOK_BACK:
                    bots.pop(seat, None)
                upcoming = next(notices, None)
            self._play(action, bots.get(self._playing_state().current_player()))


def _number(value: JSON) -> int:
    """A stored notice's step or seat (always a number; -1 for anything else)."""
    return value if isinstance(value, int) else -1


def _check_bot(game: Game, name: str) -> str:
    """``name`` if it names a bot or level of ``game``; RoomError otherwise.

    A room takes names only, not budgets (``ismcts:iterations=N``): the
    levels and the bots' own defaults are sized to think in well under a
    second, and a budget of the creator's choosing could hold a worker of
    the shared bot pool for as long as they liked.
    """
    if ":" in name:
        raise RoomError(f"seat bot {name!r}: a room takes a level or bot name, without a budget")
    try:
        bot_registry.load_for_room(name, game, 0, seed=0)
    except ApothecaryError as error:
        raise RoomError(f"seat bot {name!r}: {error}") from None
    return name
