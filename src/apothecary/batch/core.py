"""What every batched game is: :class:`BatchState` and :class:`BatchGame`.

A batch is N independent games of one configuration, held as numpy arrays
whose first axis is the game. :meth:`BatchGame.step` is a pure function: it
returns a new state and never changes the one it is given, so a caller may
keep old states (for search, or to replay a step) and a JAX backend can run
the same program under ``jit``. Shapes depend on the configuration only
(player count and options), never on the position.

The conventions every game follows (docs/batch.md says them with examples):

- **A step is one decision per game**, plus every chance event it sets off:
  a batch state is never at a chance node, and ``current_player`` is a seat,
  or :data:`~apothecary.core.game.TERMINAL` (-4) for a game that has ended.
- **Chance** is drawn inside from each game's own key
  (:mod:`apothecary.batch.keys`) with the scalar engine's probabilities, or
  supplied with ``step(..., chance=outcomes)``: per game the scalar engine's
  chance action id (a column per event where one step sets off several,
  and through ``init(..., chance=)`` for a game's opening events), so a test
  can drive both engines with the same outcomes.
- **Auto-reset, next-step**: the step that ends a game returns its terminal
  state (``terminated`` True, its ``rewards``, its final observation); the
  next step ignores that game's action and starts it again from its next
  episode key (``episode`` + 1), with zero rewards.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from apothecary.batch.keys import U64, game_keys
from apothecary.core.errors import (
    ApothecaryError,
    BadOptionError,
    IllegalActionError,
    MalformedActionError,
)
from apothecary.core.game import TERMINAL, Game, OptionValue

TERMINAL_PLAYER = TERMINAL
"""``current_player`` of a game that has ended (OpenSpiel's -4, as the scalar engine)."""


@dataclasses.dataclass(frozen=True)
class BatchState:
    """The arrays every batched game has; a game's state class adds its own.

    Every field is a numpy array whose first axis is the game. The fields a
    learner reads are computed by the step that made the state, so reading
    them costs nothing; the observation is the game's
    :meth:`BatchGame.observation`, computed on demand.
    """

    key: U64
    """(n,) each game's root key; its episodes' keys derive from it."""
    episode: NDArray[np.int64]
    """(n,) how many games this slot has finished (each auto-reset adds 1)."""
    draws: NDArray[np.int64]
    """(n,) chance draws made so far in this episode (the counter of its key)."""
    current_player: NDArray[np.int8]
    """(n,) the seat to move, or -4 (:data:`TERMINAL_PLAYER`) once a game has ended."""
    legal_action_mask: NDArray[np.bool_]
    """(n, num_distinct_actions) the seat to move's legal actions (all False at the end)."""
    rewards: NDArray[np.float32]
    """(n, players) what the step that made this state paid each seat: the
    scalar ``returns()`` on the step that ended the game, 0 on every other."""
    terminated: NDArray[np.bool_]
    """(n,) the game has ended; the next step restarts it."""

    def copy(self: S) -> S:
        """A state of the same class with every array copied."""
        values = {f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)}
        return type(self)(**values)

    @property
    def size(self) -> int:
        """How many games the batch holds."""
        return int(self.terminated.shape[0])

    def take(self: S, rows: NDArray[np.intp]) -> S:
        """The batch of games ``rows`` only (copies), to step some games of a
        batch and not others (an environment whose opponents move while its
        learner waits)."""
        return type(self)(**{f.name: getattr(self, f.name)[rows] for f in dataclasses.fields(self)})

    def put(self: S, rows: NDArray[np.intp], part: S) -> S:
        """A copy of this batch with games ``rows`` replaced by ``part``'s games
        (in order): the inverse of :meth:`take`."""
        new = self.copy()
        for f in dataclasses.fields(self):
            getattr(new, f.name)[rows] = getattr(part, f.name)
        return new


S = TypeVar("S", bound=BatchState)


class BatchGame(ABC, Generic[S]):
    """N games of one configuration at once, as array programs.

    Made from the scalar game (:func:`apothecary.batch.load` does it), whose
    validated options, sizes and tables it reuses: a batch engine is the same
    rules, so it has the same configuration. A subclass sets :attr:`name`,
    lists the options it cannot play in :attr:`refused_options`, and writes
    :meth:`_start`, :meth:`_advance` and :meth:`_observe`.
    """

    name: ClassVar[str]
    """The registry name of the game it batches."""
    refused_options: ClassVar[Mapping[str, str]] = {}
    """Option names this engine does not play (at other than their default),
    with the reason, for the error that refuses them."""
    opening_chance: ClassVar[bool] = False
    """Whether a game begins with chance events (drawn in :meth:`_start` from
    the episode's key, or given by ``init``'s ``chance``); when not, every new
    game starts from one position."""

    def __init__(self, game: Game) -> None:
        if game.name != self.name:
            raise ApothecaryError(f"{type(self).__name__} batches {self.name}, not {game.name}")
        for option, reason in self.refused_options.items():
            spec = next(s for s in game.option_specs if s.name == option)
            if game.options[option] != spec.default:
                raise BadOptionError(
                    f"{self.name}: the batch engine does not support option "
                    f"{option}={game.options[option]!r}: {reason}"
                )
        self.game = game
        self._opening: S | None = None
        self.num_players: int = game.num_players
        self.options: Mapping[str, OptionValue] = game.options
        self.max_chance_per_step: int = 1
        """The most chance events one step can set off; above 1, ``chance`` may
        be ``(n, m)``, a column per event in the scalar engine's order."""

    def num_distinct_actions(self) -> int:
        """The legal mask's width: the scalar game's action ids."""
        return self.game.num_distinct_actions()

    def observation_tensor_size(self) -> int:
        """The last axis of :meth:`observation`: the scalar game's tensor length."""
        return self.game.observation_tensor_size()

    def init(
        self, seed: int | ArrayLike, n: int | None = None, chance: ArrayLike | None = None
    ) -> S:
        """A batch of new games: ``init(seed, n)`` gives game ``i`` the key of
        ``(seed, i)``; ``init(seeds)`` one game per seed of a sequence.

        ``chance``, for a game that opens with chance events
        (:attr:`opening_chance`), gives their outcomes as ``step``'s does
        (scalar chance action ids, -1 to draw from the key); other games refuse it.
        """
        keys = game_keys(seed, n)
        if chance is not None and not self.opening_chance:
            raise ApothecaryError(f"{self.name} opens with no chance event; pass chance=None")
        outcomes = self._check_chance(keys.shape[0], chance)
        return self._start(keys, np.zeros(keys.shape, dtype=np.int64), outcomes)

    def step(self, state: S, actions: ArrayLike, chance: ArrayLike | None = None) -> S:
        """The batch after each game's seat to move plays ``actions[i]``.

        A game that had ended (``state.terminated``) ignores its action and
        starts again. ``chance`` gives, per game, the outcome of the chance
        event the action sets off (the scalar engine's chance action id; -1 to
        draw it from the game's key; ignored for a game whose action sets off
        none); games without chance refuse it. Where one step can set off
        several (:attr:`max_chance_per_step`), ``chance`` may be ``(n, m)``:
        per game its events' outcomes in the scalar order, -1 (or a missing
        column) to draw; a game that restarts takes its opening events from it.
        Raises MalformedActionError for an id outside the game's range and
        IllegalActionError for an illegal one, naming the first such game.
        """
        played = self._check_actions(state, actions)
        outcomes = self._check_chance(state.size, chance)
        new = state.copy()
        self._advance(new, played, outcomes)
        ended = np.flatnonzero(state.terminated)
        if ended.size:
            self._restart(new, ended, outcomes)
        return new

    def restart(self, state: S, done: ArrayLike, chance: ArrayLike | None = None) -> S:
        """The batch with every game where ``done`` (n bools) is True started
        again on its next episode, exactly as the step after a game ends does
        (a new state; ``state`` is not changed). For a caller that ends games
        itself: an environment's forfeit on an illegal action, a time limit.
        ``chance`` gives a game that opens with chance events their outcomes,
        as :meth:`init`'s does; other games refuse it."""
        if chance is not None and not self.opening_chance:
            raise ApothecaryError(f"{self.name} opens with no chance event; pass chance=None")
        outcomes = self._check_chance(state.size, chance)
        rows = np.flatnonzero(np.asarray(done, dtype=np.bool_))
        new = state.copy()
        if rows.size:
            self._restart(new, rows, outcomes)
        return new

    def _restart(
        self, state: S, rows: NDArray[np.intp], chance: NDArray[np.int64] | None = None
    ) -> None:
        """Start games ``rows`` of ``state`` (a fresh copy) again, each on its
        next episode (its opening chance from ``chance``'s rows, when given)."""
        episode = state.episode[rows] + 1
        if self.opening_chance:
            fresh = self._start(state.key[rows], episode, None if chance is None else chance[rows])
        else:
            # Every new game is the same position until its first chance event:
            # made once and copied in, rather than built again at every reset.
            if self._opening is None:
                self._opening = self._start(game_keys(0, 1), np.zeros(1, dtype=np.int64))
            fresh = self._opening
        for field in dataclasses.fields(state):
            if field.name != "key":  # a slot keeps its root key for ever
                getattr(state, field.name)[rows] = getattr(fresh, field.name)
        state.episode[rows] = episode

    def _check_actions(self, state: S, actions: ArrayLike) -> NDArray[np.int64]:
        played = np.asarray(actions)
        n = state.size
        if played.shape != (n,) or played.dtype.kind not in "iu":
            raise MalformedActionError(
                f"{self.name}: actions must be {n} ints (one per game), got an array "
                f"of shape {played.shape} and dtype {played.dtype}"
            )
        played = played.astype(np.int64)
        live = ~state.terminated
        width = self.num_distinct_actions()
        outside = live & ((played < 0) | (played >= width))
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise MalformedActionError(
                f"{self.name}: game {i}: action {int(played[i])} is not an action id "
                f"(they run from 0 to {width - 1})"
            )
        clipped = np.where(live, played, 0)
        illegal = live & ~state.legal_action_mask[np.arange(n), clipped]
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            legal = np.flatnonzero(state.legal_action_mask[i]).tolist()
            raise IllegalActionError(
                f"{self.name}: game {i}: action {int(played[i])} is not legal for seat "
                f"{int(state.current_player[i])}; the legal actions are {legal}"
            )
        return clipped

    def _check_chance(self, n: int, chance: ArrayLike | None) -> NDArray[np.int64] | None:
        if chance is None:
            return None
        if not self.game.info.has_chance:
            raise ApothecaryError(f"{self.name} has no chance events; pass chance=None")
        outcomes = np.asarray(chance)
        several = self.max_chance_per_step > 1 and outcomes.ndim == 2 and outcomes.shape[1] >= 1
        if not (outcomes.shape == (n,) or (several and outcomes.shape[0] == n)):
            wanted = f"{n} ints (one per game, -1 to draw)"
            if self.max_chance_per_step > 1:
                wanted += f" or ({n}, m) ints (a column per chance event)"
            raise MalformedActionError(
                f"{self.name}: chance must be {wanted}, got an array of shape "
                f"{outcomes.shape} and dtype {outcomes.dtype}"
            )
        if outcomes.dtype.kind not in "iu":
            raise MalformedActionError(
                f"{self.name}: chance must be ints, got an array of dtype {outcomes.dtype}"
            )
        return outcomes.astype(np.int64)

    @abstractmethod
    def _start(
        self, key: U64, episode: NDArray[np.int64], chance: NDArray[np.int64] | None = None
    ) -> S:
        """New games, one per key, drawing any opening chance from the episode's
        key or taking it from ``chance`` (as :meth:`step`'s, a row per game)."""

    @abstractmethod
    def _advance(
        self, state: S, actions: NDArray[np.int64], chance: NDArray[np.int64] | None
    ) -> None:
        """Play ``actions`` (checked legal) in place on ``state``, a fresh copy:
        every game not yet ended moves; ended games are left for the reset.
        Must also set the learner's fields (current player, mask, rewards,
        terminated) of every game."""

    def observation(self, state: S, out: NDArray[np.float32] | None = None) -> NDArray[np.float32]:
        """(n, players, observation_tensor_size): per game, per seat, the scalar
        engine's ``observation_tensor(seat)``, number for number.

        ``out``, an array of that shape and dtype float32, is written into and
        returned instead of a new array: a loop that reads observations at
        every step then reuses one buffer (a new one of tens of megabytes,
        at large batches, costs the page faults of its first writes each time).
        """
        shape = (state.size, self.num_players, self.observation_tensor_size())
        if out is None:
            out = np.empty(shape, dtype=np.float32)
        elif out.shape != shape or out.dtype != np.float32:
            raise ApothecaryError(
                f"{self.name}: out must be a float32 array of shape {shape}, got "
                f"{out.dtype} {out.shape}"
            )
        self._observe(state, out)
        return out

    @abstractmethod
    def _observe(self, state: S, out: NDArray[np.float32]) -> None:
        """Write :meth:`observation` into ``out`` (every entry: it may hold anything)."""

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"apothecary.batch.load({self.name!r}, players={self.num_players}{opts})"


def random_legal_actions(mask: NDArray[np.bool_], rng: np.random.Generator) -> NDArray[np.int64]:
    """Per row of a legal mask, one of its legal actions uniformly at random
    (0 for a row with none: a game that has ended, whose action is ignored).

    One uniform number per game picks among that game's legal actions, so
    the cost is one pass over the mask, not a random number per entry (on
    a 1,409-wide mask, a seventh of the argmax of random scores).
    """
    return legal_action_at(mask, rng.random(int(mask.shape[0])))


def legal_action_at(mask: NDArray[np.bool_], u: NDArray[np.float64]) -> NDArray[np.int64]:
    """Per row of a legal mask, its ``floor(u * count)``-th legal action (in id
    order) for a ``u`` in [0, 1): uniform over the legal actions when ``u`` is
    uniform, from any source (a generator, or a game's key for draws that must
    not depend on the batch around it). 0 for a row with none."""
    games, width = mask.shape
    counts = mask.sum(axis=1)
    legal = np.flatnonzero(mask)  # row-major: each game's legal entries in turn
    first = np.cumsum(counts) - counts
    pick = first + (u * counts).astype(np.int64)
    actions = np.zeros(games, dtype=np.int64)
    some = np.flatnonzero(counts)
    actions[some] = legal[pick[some]] - some * width
    return actions


def fresh_common(
    key: U64, episode: NDArray[np.int64], players: int, actions: int
) -> dict[str, Any]:
    """The base fields of new games (a game's :meth:`BatchGame._start` adds
    its own and fills the current player and the mask)."""
    n = key.shape[0]
    return {
        "key": key.copy(),
        "episode": episode.copy(),
        "draws": np.zeros(n, dtype=np.int64),
        "current_player": np.zeros(n, dtype=np.int8),
        "legal_action_mask": np.zeros((n, actions), dtype=np.bool_),
        "rewards": np.zeros((n, players), dtype=np.float32),
        "terminated": np.zeros(n, dtype=np.bool_),
    }
