"""The single-agent Gymnasium environments as ``gymnasium.vector.VectorEnv``
classes backed by the batch engines (:mod:`apothecary.batch`).

>>> import numpy as np
>>> from apothecary import batch
>>> from apothecary.interop.gymnasium_vector import BatchVectorEnv
>>> envs = BatchVectorEnv(batch.engines()[0], num_envs=256, players=2)
>>> observations, infos = envs.reset(seed=7)
>>> len(observations), len(infos["action_mask"])
(256, 256)
>>> rng = np.random.default_rng(7)
>>> actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
>>> observations, rewards, terminated, truncated, infos = envs.step(actions)

One class serves every game with a batch engine (``apothecary.batch.engines()``):
N copies of the scalar :class:`~apothecary.interop.gymnasium.ApothecaryGymEnv`,
one seat learning, as one batch. What differs from the scalar env, and why:

- **Opponents are uniformly random legal players**, the one policy that runs
  inside the batch with no Python per game (a bot is a Python call per game
  and move). The scalar env's default is the ``"medium"`` bot; for bots, use
  ``gymnasium.make_vec(id, num_envs, vectorization_mode="sync", opponents=...)``.
  Each opponent move is drawn from its game's own key (a counter-based draw,
  as the batch's chance), so a game plays the same in any batch, at any size.
- **Rewards are returns** (``reward="score"`` is refused: the batch engines
  report returns) and **observations are observation tensors** (the batch
  engines have no information-state tensor).
- **Autoreset is next-step** (``metadata["autoreset_mode"]``), as the batch
  engine's own: the step that ends an episode returns its last observation,
  reward and ``terminated``; the next step ignores that env's action and
  returns the first observation of a new episode, with reward 0.

Importing :mod:`apothecary.interop.gymnasium` registers this class as the
``vector_entry_point`` of ``apothecary/<Game>-v0`` for every game with a
batch engine, so ``gymnasium.make_vec("apothecary/MyGame-v0", num_envs=1024)``
makes one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from apothecary import batch
from apothecary.batch.core import BatchGame, BatchState, legal_action_at
from apothecary.batch.keys import U64, episode_key, mix, uniform
from apothecary.core.errors import (
    ApothecaryError,
    BadOptionError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
)
from apothecary.interop.gymnasium import (
    ILLEGAL_MODES,
    check_choice,
    check_number,
    check_seat,
    observation_box,
)

FloatArray = NDArray[np.float32]
IntArray = NDArray[np.int64]

_NO_DECISION_TRIES = 100
"""New games a slot starts in a row, at most, looking for one where the learner
moves (the scalar env's limit)."""
_OPPONENT_SALT = np.uint64(0x632BE59BD9B4E019)
_SEAT_SALT = np.uint64(0x85157AF5B5A2C1D3)


class BatchVectorEnv(VectorEnv[FloatArray, IntArray, NDArray[Any]]):
    """``num_envs`` single-agent games of one configuration, as one batch.

    ``game``, ``players`` and the game's options are :func:`apothecary.batch.load`'s;
    ``learner_seat`` (a seat, or ``"random"``: drawn per episode from the game's
    key), ``illegal`` and ``illegal_reward`` are the scalar env's. ``opponents``
    must be ``"random"`` and ``reward`` ``"returns"``, ``observation``
    ``"observation"`` (the module docstring says why). The spaces are the scalar
    env's, batched: ``single_observation_space`` its ``Box``,
    ``single_action_space`` its ``Discrete``. ``infos`` hold, per env, what the
    scalar env's ``info`` holds, as arrays with Gymnasium's ``_key`` masks:
    ``action_mask`` (n, actions) int8 and ``seat`` always, ``returns`` (n,
    players) where an episode ended, ``illegal_action`` where one was forfeited.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        players: int | None = None,
        opponents: str | Sequence[str] = "random",
        learner_seat: int | str = 0,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
        reward: str = "returns",
        observation: str = "observation",
        **game_options: Any,
    ) -> None:
        self.engine: BatchGame[Any] = batch.load(game, players, **game_options)
        self.game = self.engine.game
        n = self.game.num_players
        if type(num_envs) is not int or num_envs < 1:
            raise BadOptionError(f"num_envs {num_envs!r}: expected a positive int")
        _check_settings(n, opponents, reward, observation)
        self.learner_seat_option = check_seat(learner_seat, n)
        self.illegal = check_choice("illegal", illegal, ILLEGAL_MODES)
        self.illegal_reward = check_number("illegal_reward", illegal_reward)
        self.num_envs = num_envs
        self.num_actions = self.engine.num_distinct_actions()
        _, self.single_observation_space = observation_box(self.game, "observation")
        size = self.game.observation_tensor_size()
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        self.state: BatchState | None = None
        """The batch (the whole truth of every game: not for the learner)."""
        self.seat: IntArray = np.full(num_envs, 0 if learner_seat == "random" else learner_seat)
        """Each env's learning seat in its current episode."""
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._moves = np.zeros(num_envs, dtype=np.int64)
        self._opponent_key: U64 = np.zeros(num_envs, dtype=np.uint64)
        self._seat_key: U64 = np.zeros(num_envs, dtype=np.uint64)
        self._buffer = np.empty((num_envs, n, size), dtype=np.float32)
        self._rows = np.arange(num_envs)

    # -- the Gymnasium API ---------------------------------------------------------

    def reset(
        self,
        *,
        seed: int | Sequence[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[FloatArray, dict[str, Any]]:
        """Start every env's game and play it to its learner's first decision.

        ``seed`` (one int) gives env ``i`` the batch key of ``(seed, i)``; a
        sequence of ints gives one seed per env. Without a seed, the first
        reset draws one, and a later one starts every env on its next episode.
        """
        if options:
            raise BadOptionError(f"reset options {sorted(options)}: this env takes none")
        if isinstance(seed, int | np.integer):
            super().reset(seed=int(seed))
            state = self.engine.init(int(seed), self.num_envs)
        elif seed is not None:
            seeds = np.asarray(seed)
            if seeds.shape != (self.num_envs,):
                raise BadOptionError(f"seed: expected one int or {self.num_envs} ints")
            state = self.engine.init(seeds)
        elif self.state is None:
            state = self.engine.init(int(self.np_random.integers(2**63)), self.num_envs)
        else:
            state = self.engine.restart(self.state, np.ones(self.num_envs, dtype=np.bool_))
        self._opponent_key = mix(state.key ^ _OPPONENT_SALT)
        self._seat_key = mix(state.key ^ _SEAT_SALT)
        everyone = np.ones(self.num_envs, dtype=np.bool_)
        self._begin(state, everyone)
        self.state = self._play_opponents(state, everyone)
        self._done = np.zeros(self.num_envs, dtype=np.bool_)
        return self._observe(), self._infos(np.zeros(self.num_envs, dtype=np.bool_), None)

    def step(
        self, actions: Any
    ) -> tuple[
        FloatArray, NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]
    ]:
        """Play each env's learner action, then its opponents until its learner
        must act again or its game ends; an env whose episode ended on the
        previous step starts a new one instead (its action is ignored)."""
        if self.state is None:
            raise GameOverError(f"{self.game.name}: call reset() before step()")
        played = self._check_actions(actions)
        resetting = self._done
        live = ~resetting
        legal = self.state.legal_action_mask[self._rows, played]
        illegal = live & ~legal
        if illegal.any() and self.illegal == "raise":
            i = int(np.flatnonzero(illegal)[0])
            raise IllegalActionError(
                f"{self.game.name}: env {i}: action {int(played[i])} is not legal for seat "
                f"{int(self.seat[i])}; the legal actions are "
                f"{np.flatnonzero(self.state.legal_action_mask[i]).tolist()}"
            )
        state = self.engine.restart(self.state, resetting)
        self._begin(state, resetting)
        moving = np.flatnonzero(live & legal)
        state = self._step_rows(state, moving, played[moving])
        state = self._play_opponents(state, resetting)
        rewards = np.where(
            state.terminated, state.rewards[self._rows, self.seat].astype(np.float64), 0.0
        )
        rewards[illegal] = self.illegal_reward
        terminated = state.terminated | illegal
        self.state, self._done = state, terminated.copy()
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return self._observe(), rewards, terminated, truncated, self._infos(illegal, played)

    def action_masks(self) -> NDArray[np.bool_]:
        """(num_envs, actions) each learner's legal actions as booleans (all
        False for an env whose episode just ended), as the scalar env's."""
        if self.state is None:
            return np.zeros((self.num_envs, self.num_actions), dtype=np.bool_)
        masks: NDArray[np.bool_] = self.state.legal_action_mask & ~self._done[:, None]
        return masks

    # -- helpers ----------------------------------------------------------------

    def _check_actions(self, actions: Any) -> IntArray:
        """The actions as (n,) ids in the action space; MalformedActionError else
        (an env being reset ignores its action, but it must still be an id)."""
        played = np.asarray(actions)
        if played.shape != (self.num_envs,) or played.dtype.kind not in "iu":
            raise MalformedActionError(
                f"{self.game.name}: actions must be {self.num_envs} ints, got an array of "
                f"shape {played.shape} and dtype {played.dtype}"
            )
        outside = (played < 0) | (played >= self.num_actions)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise MalformedActionError(
                f"{self.game.name}: env {i}: action {int(played[i])} is outside the action "
                f"space 0 to {self.num_actions - 1}"
            )
        checked: IntArray = played.astype(np.int64)
        return checked

    def _begin(self, state: BatchState, rows: NDArray[np.bool_]) -> None:
        """New episodes in ``rows``: their learning seats and opponents' counters."""
        self._moves[rows] = 0
        if self.learner_seat_option == "random":
            keys = episode_key(self._seat_key[rows], state.episode[rows])
            u = uniform(keys, np.zeros(int(rows.sum()), dtype=np.int64))
            self.seat[rows] = (u * self.game.num_players).astype(np.int64)

    def _step_rows(self, state: BatchState, rows: NDArray[np.intp], actions: IntArray) -> Any:
        """The batch after games ``rows`` (none of them ended) play ``actions``,
        the others left as they are."""
        if rows.size == 0:
            return state
        if rows.size == self.num_envs:
            return self.engine.step(state, actions)
        return state.put(rows, self.engine.step(state.take(rows), actions))

    def _play_opponents(self, state: BatchState, fresh: NDArray[np.bool_]) -> Any:
        """Play every game's opponents until its learner must act or it ends.

        ``fresh`` marks games restarted on this call: one that ends before its
        learner moves is started again, as the scalar env's reset does (up to
        :data:`_NO_DECISION_TRIES` times)."""
        fresh = fresh.copy()
        tries = 0
        while True:
            early = state.terminated & fresh
            if early.any():
                tries += 1
                if tries > _NO_DECISION_TRIES:
                    raise ApothecaryError(
                        f"{self.game.name}: {_NO_DECISION_TRIES} games in a row ended before "
                        f"the learner had a move (env {int(np.flatnonzero(early)[0])})"
                    )
                state = self.engine.restart(state, early)
                self._begin(state, early)
            waiting = np.flatnonzero(~state.terminated & (state.current_player != self.seat))
            if waiting.size == 0:
                return state
            keys = episode_key(self._opponent_key[waiting], state.episode[waiting])
            u = uniform(keys, self._moves[waiting])
            self._moves[waiting] += 1
            actions = legal_action_at(state.legal_action_mask[waiting], u)
            state = self._step_rows(state, waiting, actions)

    def _observe(self) -> FloatArray:
        assert self.state is not None
        every = self.engine.observation(self.state, out=self._buffer)
        seen: FloatArray = every[self._rows, self.seat]  # a new array (fancy indexing)
        return seen

    def _infos(self, illegal: NDArray[np.bool_], played: IntArray | None) -> dict[str, Any]:
        assert self.state is not None
        state, everyone = self.state, np.ones(self.num_envs, dtype=np.bool_)
        infos: dict[str, Any] = {
            "action_mask": self.action_masks().astype(np.int8),
            "_action_mask": everyone,
            "seat": self.seat.copy(),
            "_seat": everyone.copy(),
        }
        if state.terminated.any():
            infos["returns"] = np.where(state.terminated[:, None], state.rewards, 0.0)
            infos["_returns"] = state.terminated.copy()
        if played is not None and illegal.any():
            infos["illegal_action"] = np.where(illegal, played, 0)
            infos["_illegal_action"] = illegal.copy()
        return infos


def _check_settings(
    players: int,
    opponents: str | Sequence[str],
    reward: str,
    observation: str,
) -> None:
    """Refuse, by name and with the reason, what the batch cannot play."""
    named = [opponents] if isinstance(opponents, str) else list(opponents)
    if isinstance(opponents, str) or len(named) == players - 1:
        refused = [name for name in named if name != "random"]
    else:
        refused = [f"{len(named)} names for {players - 1} other seats"]
    if refused:
        raise BadOptionError(
            f"opponents {refused[0]!r}: the batch vector env plays uniformly random "
            "opponents only ('random'); a bot is one Python call per game and move. "
            "For bots use gymnasium.make_vec(..., vectorization_mode='sync')"
        )
    if reward != "returns":
        raise BadOptionError(
            f"reward {reward!r}: the batch vector env pays returns only ('returns'); "
            "the batch engines report no scores"
        )
    if observation != "observation":
        raise BadOptionError(
            f"observation {observation!r}: the batch engines give observation tensors "
            "only ('observation')"
        )


__all__ = ["BatchVectorEnv"]
