"""Every apothecary game as a single-agent Gymnasium environment.

One seat learns; the other seats are played by bots from the bot registry
(:func:`apothecary.bots.load`), and chance is drawn inside the environment.

>>> import gymnasium
>>> import numpy as np
>>> import apothecary
>>> from apothecary.interop.gymnasium import env_id
>>> solo = [n for n in apothecary.games() if apothecary.game_class(n).info.min_players == 1]
>>> env = gymnasium.make(env_id(solo[0]), players=1)
>>> observation, info = env.reset(seed=7)
>>> rng = np.random.default_rng(7)
>>> terminated = False
>>> while not terminated:
...     action = rng.choice(np.flatnonzero(info["action_mask"]))
...     observation, reward, terminated, truncated, info = env.step(action)
>>> 0.0 <= reward <= 1.0
True

Importing this module registers ``apothecary/<Game>-v0`` for every game
:func:`apothecary.games` lists (``my-game`` is ``apothecary/MyGame-v0``: the
registry name in CamelCase). Without the import, Gymnasium's own
``"module:id"`` form loads it:
``gymnasium.make("apothecary.interop.gymnasium:apothecary/MyGame-v0")``.

Needs ``pip install 'apothecary[rl]'``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from apothecary.bots import load as load_bot
from apothecary.core.bot import Bot
from apothecary.core.errors import (
    ApothecaryError,
    BadOptionError,
    GameOverError,
    MalformedActionError,
)
from apothecary.core.game import CHANCE, Game, State, sample_chance
from apothecary.core.registry import games, load
from apothecary.interop import OBSERVATION_KINDS, action_id, tensor_layout

FloatArray = np.ndarray[Any, np.dtype[np.float32]]

RENDER_MODES = ["ansi"]
ILLEGAL_MODES = ("penalty", "raise")
REWARDS = ("returns", "score")
OBSERVATIONS = OBSERVATION_KINDS

ENTRY_POINT = "apothecary.interop.gymnasium:ApothecaryGymEnv"
VECTOR_ENTRY_POINT = "apothecary.interop.gymnasium_vector:BatchVectorEnv"
"""What ``gymnasium.make_vec`` makes, by default, for a game with a batch engine."""

_NO_DECISION_TRIES = 100
"""New games ``reset`` starts, at most, looking for one where the learner moves."""


def env_id(game_name: str) -> str:
    """The Gymnasium id of a registered game: ``"apothecary/MyGame-v0"`` for ``my-game``."""
    return "apothecary/" + "".join(part.capitalize() for part in game_name.split("-")) + "-v0"


class ApothecaryGymEnv(gymnasium.Env[FloatArray, np.int64]):
    """One seat of an apothecary game against bots, as a Gymnasium ``Env``.

    Make one with ``gymnasium.make(env_id(name), players=N, ...)`` or directly
    with ``ApothecaryGymEnv(name, players=N, ...)``; every keyword this class
    does not take itself is a game option, checked like :func:`apothecary.load`.

    - ``opponents``: a bot or level name (``"medium"``, ``"rules"``,
      ``"ismcts:iterations=200"``) for every other seat, or a sequence of
      names, one per other seat in seat order. Ignored alone (``players=1``).
    - ``learner_seat``: the seat that learns, or ``"random"`` for a seat drawn
      at every reset from the env's generator.
    - ``illegal``: ``"penalty"`` (default) ends the episode with
      ``illegal_reward`` when the learner plays an id the mask does not mark;
      ``"raise"`` raises :class:`apothecary.IllegalActionError` instead and
      leaves the game as it was.
    - ``reward``: ``"returns"`` (default: the seat's win share,
      ``state.returns()``) or ``"score"`` (the game's own score for the seat,
      ``state.outcome().scores``: such as the scones a seat ate).
    - ``observation``: ``"observation"`` (the seat's observation tensor) or
      ``"information_state"`` (its information-state tensor, perfect recall;
      every game here defines one, for each configuration with a longest
      game). Either lies in a ``Box`` of the game's declared bounds.
    """

    # Text frames have no natural rate; 4 is what Gymnasium's own text games declare.
    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        players: int | None = None,
        opponents: str | Sequence[str] = "medium",
        learner_seat: int | str = 0,
        render_mode: str | None = None,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
        reward: str = "returns",
        observation: str = "observation",
        **game_options: Any,
    ) -> None:
        self.game: Game = load(game, players, **game_options)
        n = self.game.num_players
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise BadOptionError(f"render_mode {render_mode!r}: expected 'ansi' or None")
        self.render_mode = render_mode
        self.illegal = check_choice("illegal", illegal, ILLEGAL_MODES)
        self.illegal_reward = check_number("illegal_reward", illegal_reward)
        self.reward_kind = check_choice("reward", reward, REWARDS)
        self.observation_kind = check_choice("observation", observation, OBSERVATIONS)
        self.learner_seat_option = self._check_seat(learner_seat)
        if isinstance(opponents, str):
            self.opponent_specs = [opponents] * (n - 1)
        elif isinstance(opponents, Sequence) and all(isinstance(s, str) for s in opponents):
            if len(opponents) != n - 1:
                raise BadOptionError(
                    f"opponents: {len(opponents)} bots given for the {n - 1} other seats "
                    f"of {n}-player {self.game.name}"
                )
            self.opponent_specs = list(opponents)
        else:
            raise BadOptionError(
                f"opponents {opponents!r}: expected a bot name or a list of bot names"
            )
        # Make the opponents once now, so a bad bot name or budget fails at
        # make() rather than at the first reset (bots are remade, seeded, there).
        self._make_opponents(learner_seat if type(learner_seat) is int else 0, None)

        self.num_actions = self.game.num_distinct_actions()
        self._tensor_method, self.observation_space = observation_box(
            self.game, self.observation_kind
        )
        self.action_space = spaces.Discrete(self.num_actions)

        self.state: State = self.game.new_initial_state()
        """The apothecary state of the episode (the whole truth: never show it
        to the learner; :meth:`render` and the observation are its view)."""
        self.seat: int = learner_seat if type(learner_seat) is int else 0
        """The learning seat of the current episode."""
        self.bots: dict[int, Bot] = {}
        self._chance = random.Random()
        self._over = True

    # -- the Gymnasium API ---------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        """Start a game and play it to the learner's first decision.

        ``seed`` seeds the env's generator, from which every episode draws its
        chance stream, its learner seat (if ``"random"``) and its bots' seeds,
        so the same seed gives the same episode for the same actions.
        ``options`` may hold ``learner_seat``, for this episode only.
        """
        super().reset(seed=seed)
        seat_option = self.learner_seat_option
        if options:
            unknown = sorted(set(options) - {"learner_seat"})
            if unknown:
                raise BadOptionError(
                    f"reset option {unknown[0]!r} is unknown; the only one is learner_seat"
                )
            seat_option = self._check_seat(options.get("learner_seat", seat_option))
        for _ in range(_NO_DECISION_TRIES):
            self._new_episode(seat_option)
            if not self.state.is_terminal():
                return self._observe(), self._info()
        raise ApothecaryError(
            f"{self.game.name}: {_NO_DECISION_TRIES} games in a row ended before seat "
            f"{self.seat} had a move"
        )

    def step(self, action: Any) -> tuple[FloatArray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the bots and chance until the learner
        must act again or the game ends.

        The reward is 0 until the last step, which gives the seat's return (or
        score). An id the mask does not mark ends the episode with
        ``illegal_reward`` (``illegal="penalty"``, marked ``info["illegal_action"]``)
        or raises IllegalActionError (``illegal="raise"``); a value that is not
        an id of the action space raises MalformedActionError.
        """
        if self._over:
            raise GameOverError(
                f"{self.game.name}: the episode is over (or was never started); call reset()"
            )
        action = action_id(action)
        if not 0 <= action < self.num_actions:
            raise MalformedActionError(
                f"{self.game.name}: action {action} is outside the action space "
                f"0 to {self.num_actions - 1}"
            )
        if action not in self.state.legal_actions():
            if self.illegal == "raise":
                # A copy raises the game's own precise error; this state stays as it was.
                self.state.clone().apply_action(action)
            self._over = True
            info = self._info()
            info["illegal_action"] = action
            return self._observe(), self.illegal_reward, True, False, info
        self._play(action)
        self._advance()
        terminated = self.state.is_terminal()
        reward = self._final_reward() if terminated else 0.0
        self._over = terminated
        return self._observe(), reward, terminated, False, self._info()

    def render(self) -> str | None:
        """The learner's text view of the game (``state.render(seat)``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with render_mode='ansi'"
            )
            return None
        return self.state.render(self.seat)

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The learner's legal actions as booleans (sb3-contrib's MaskablePPO asks this)."""
        return self._mask().astype(bool)

    # -- helpers ----------------------------------------------------------------

    def _make_opponents(self, learner: int, seeds: Sequence[int] | None) -> dict[int, Bot]:
        others = [seat for seat in range(self.game.num_players) if seat != learner]
        return {
            seat: load_bot(spec, self.game, seat, seed=None if seeds is None else seeds[i])
            for i, (seat, spec) in enumerate(zip(others, self.opponent_specs, strict=True))
        }

    def _check_seat(self, seat: Any) -> int | str:
        return check_seat(seat, self.game.num_players)

    def _new_episode(self, seat_option: int | str) -> None:
        rng = self.np_random
        n = self.game.num_players
        self.seat = int(rng.integers(n)) if seat_option == "random" else int(seat_option)
        # One draw per stream, so a bot's seed never depends on how many
        # chance draws an earlier episode made.
        self._chance = random.Random(int(rng.integers(2**63)))
        seeds = [int(s) for s in rng.integers(2**63, size=n - 1)]
        self.bots = self._make_opponents(self.seat, seeds)
        self.state = self.game.new_initial_state()
        for bot in self.bots.values():
            bot.restart_at(self.state)
        self._over = False
        self._advance()
        self._over = self.state.is_terminal()

    def _play(self, action: int) -> None:
        """Apply ``action`` for the player to move, telling every bot first."""
        state = self.state
        player = state.current_player()
        for bot in self.bots.values():
            bot.inform_action(state, player, action)
        state.apply_action(action)

    def _advance(self) -> None:
        """Draw chance and play the bots until the learner must act or the game ends."""
        state = self.state
        while not state.is_terminal():
            player = state.current_player()
            if player == self.seat:
                return
            if player == CHANCE:
                self._play(sample_chance(state, self._chance))
            else:
                self._play(self.bots[player].step(state))

    def _final_reward(self) -> float:
        if self.reward_kind == "returns":
            return float(self.state.returns()[self.seat])
        outcome = self.state.outcome()
        if outcome is None:  # a terminal state always has one; the protocol says so
            raise ApothecaryError(f"{self.game.name}: a finished game has no outcome")
        return float(outcome.scores[self.seat])

    def _observe(self) -> FloatArray:
        # By name: both kinds are read the same way.
        tensor = getattr(self.state, self._tensor_method)(self.seat)
        return np.asarray(tensor, dtype=np.float32)

    def _mask(self) -> np.ndarray[Any, np.dtype[np.int8]]:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self._over and self.state.current_player() == self.seat:
            mask[self.state.legal_actions()] = 1
        return mask

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask(), "seat": self.seat}
        if self.state.is_terminal():
            info["returns"] = self.state.returns()
            outcome = self.state.outcome()
            if outcome is not None:
                info["scores"] = list(outcome.scores)
        return info


def observation_box(game: Game, kind: str) -> tuple[str, spaces.Box[np.float32]]:
    """The state's method that gives a seat's tensor of ``kind``, and the
    ``Box`` it lies in: the game's declared bounds (every game of this package
    declares them), else unbounded (a game from elsewhere that declares none
    promises only finite values)."""
    method, size, bounds = tensor_layout(game, kind)
    low: Any = -np.inf
    high: Any = np.inf
    if bounds is not None:
        low, high = (np.asarray(b, dtype=np.float32) for b in bounds)
    return method, spaces.Box(low, high, shape=(size,), dtype=np.float32)


def check_seat(seat: Any, players: int) -> int | str:
    """A ``learner_seat`` setting: a seat of the table, or ``"random"``;
    BadOptionError else."""
    if seat != "random" and not (type(seat) is int and 0 <= seat < players):
        raise BadOptionError(
            f"learner_seat {seat!r}: expected a seat 0 to {players - 1} or 'random'"
        )
    checked: int | str = seat
    return checked


def check_number(name: str, value: Any) -> float:
    """A numeric setting (not a bool) as a float; BadOptionError else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadOptionError(f"{name} {value!r}: expected a number")
    return float(value)


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    """A setting that must be one of ``allowed``; BadOptionError naming them else."""
    if value not in allowed:
        raise BadOptionError(
            f"{name} {value!r}: expected one of {', '.join(repr(a) for a in allowed)}"
        )
    chosen: str = value
    return chosen


def register() -> list[str]:
    """Register ``apothecary/<Game>-v0`` with Gymnasium for every game (again
    harmlessly); returns the ids. Importing this module calls it.

    A game with a batch engine also gets :data:`VECTOR_ENTRY_POINT`, so
    ``gymnasium.make_vec(id, num_envs)`` makes the batch-backed vector env
    (random opponents); ``vectorization_mode="sync"`` still makes N of these
    envs, with bots."""
    # Imported here: the batch package's registry, not its engines (each is
    # imported on first use).
    from apothecary.batch import engines

    batched = set(engines())
    ids = []
    for name in games():
        ident = env_id(name)
        vector = VECTOR_ENTRY_POINT if name in batched else None
        spec = gymnasium.registry.get(ident)
        if spec is None or spec.vector_entry_point != vector:
            gymnasium.register(
                id=ident,
                entry_point=ENTRY_POINT,
                vector_entry_point=vector,
                kwargs={"game": name},
            )
        ids.append(ident)
    return ids


register()

__all__ = ["ApothecaryGymEnv", "env_id", "register"]
