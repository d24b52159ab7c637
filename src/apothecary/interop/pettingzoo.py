"""Every apothecary game as a PettingZoo AEC environment.

>>> from apothecary.interop.pettingzoo import env
>>> table = env("in-vino-morte", players=3)
>>> table.reset(seed=7)
>>> for agent in table.agent_iter():
...     observation, reward, terminated, truncated, info = table.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = table.action_space(agent).sample(observation["action_mask"])
...     table.step(action)

Agents are ``player_0`` … ``player_{n-1}``, one per seat. An agent observes
a dict: ``observation`` is the seat's ``observation_tensor`` (float32, of the
game's declared length), or with ``env(..., observation="information_state")``
its ``information_state_tensor`` (perfect recall: everything the seat has seen,
for the deep algorithms that need it), in a ``Box`` of the game's declared
bounds; ``action_mask`` marks the seat's legal actions
(all zero when it is not the seat's turn). The action space is every action
id of the game, chance ids included, so the mask is what keeps a policy legal;
an action outside it raises :class:`apothecary.IllegalActionError` and leaves
the game as it was — it is never silently replaced.

Chance is resolved inside the environment with a generator seeded by
``reset(seed=...)``, so a seed fixes the whole game. Rewards come once, at
the end: each seat's ``state.returns()`` (a win shared by k seats gives 1/k
each). Every seat stays an agent until the game ends, even one a game has
already knocked out; it simply gets no turns.

Needs ``pip install 'apothecary[rl]'``.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from apothecary.core.game import CHANCE, TERMINAL, Game, State, sample_chance
from apothecary.core.registry import load
from apothecary.interop import action_id, agent_name, tensor_layout

ObsDict = dict[str, np.ndarray[Any, Any]]

_RENDER_MODES = ["ansi"]


class ApothecaryEnv(AECEnv):  # type: ignore[misc]
    """A configured apothecary game as a PettingZoo AEC environment.

    Make one with :func:`env`, which checks the game name and options exactly
    as :func:`apothecary.load` does.
    """

    def __init__(
        self, game: Game, render_mode: str | None = None, observation: str = "observation"
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not supported; use 'ansi' or None")
        self.game = game
        self.render_mode = render_mode
        self.metadata = {
            "render_modes": _RENDER_MODES,
            "name": f"apothecary_{game.name.replace('-', '_')}_v0",
            "is_parallelizable": False,
        }
        self.possible_agents = [agent_name(seat) for seat in range(game.num_players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._num_actions = game.num_distinct_actions()
        self.observation_kind = observation
        """``"observation"`` or ``"information_state"``: which tensor a seat gets."""
        self._tensor_method, size, bounds = tensor_layout(game, observation)
        # The game's declared bounds; unbounded only for a game from elsewhere
        # that declares none (the protocol then promises finite values only).
        if bounds is None:
            box = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        else:
            low, high = (np.asarray(b, dtype=np.float32) for b in bounds)
            box = spaces.Box(low, high, shape=(size,), dtype=np.float32)
        observation_space = spaces.Dict(
            {
                "observation": box,
                "action_mask": spaces.Box(0, 1, shape=(self._num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces = {
            agent: spaces.Discrete(self._num_actions) for agent in self.possible_agents
        }
        self._no_actions = np.zeros(self._num_actions, dtype=np.int8)
        self._no_actions.flags.writeable = False
        self._masks: dict[tuple[int, ...], np.ndarray[Any, Any]] = {}
        self._cache_masks = self._num_actions <= _CACHED_MASKS_UP_TO
        self._mask = self._no_actions
        self._rng = random.Random()
        self._skip_agent_selection: str | None = None
        self.state: State = game.new_initial_state()
        self._reset_bookkeeping()

    # -- the PettingZoo API ----------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The same dict space for every agent (the tensor and the mask)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Every action id of the game; the mask says which are legal."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; a ``seed`` fixes every chance draw from here on."""
        if seed is not None:
            self._rng = random.Random(seed)
            for agent in self.possible_agents:
                self.action_spaces[agent].seed(seed)
        self.state = self.game.new_initial_state()
        self._reset_bookkeeping()
        self._resolve_chance()

    def observe(self, agent: str) -> ObsDict:
        """The seat's tensor (observation or information state) and its legal-action mask."""
        seat = self._seat[agent]
        mask = self._mask if agent == self.agent_selection else self._no_actions
        tensor = getattr(self.state, self._tensor_method)(seat)
        return {
            "observation": np.fromiter(tensor, dtype=np.float32, count=len(tensor)),
            "action_mask": mask.copy(),
        }

    def step(self, action: int | None) -> None:
        """Play ``action`` for the selected agent (``None`` once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            action = action_id(action)
        # The core checks legality and raises without changing the state.
        self.state.apply_action(action)
        # Rewards are all zero until the end, so the cumulative rewards (and
        # their reset for the agent that just acted) only change then.
        if self._resolve_chance():
            self._cumulative_rewards[agent] = 0
            self._accumulate_rewards()

    def render(self) -> str | None:
        """The text view of the seat to act (a spectator's once the game is over)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with render_mode='ansi'"
            )
            return None
        player = self.state.current_player()
        return self.state.render(player if player >= 0 else None)

    def close(self) -> None:
        """Nothing to release."""

    # -- helpers ---------------------------------------------------------------

    def _reset_bookkeeping(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None
        self._mask = self._no_actions

    def _resolve_chance(self) -> bool:
        """Draw chance until a seat must act or the game ends, then select the
        agent; returns whether the game has ended."""
        # Every step runs this, so it keeps to locals and asks the state once
        # per question (the mask-only loop is measured in benchmarks/playout.py).
        state = self.state
        infos = self.infos
        info = infos[self.agent_selection]
        if "action_mask" in info:
            del info["action_mask"]
        player = state.current_player()
        if player == CHANCE:
            rng = self._rng
            while player == CHANCE:
                state.apply_action(sample_chance(state, rng))
                player = state.current_player()
        if player == TERMINAL:
            for seat, value in enumerate(state.returns()):
                agent = self.possible_agents[seat]
                self.rewards[agent] = value
                self.terminations[agent] = True
            self._mask = self._no_actions
            # Terminated agents are removed one dead step at a time, starting
            # from the first seat.
            self.agent_selection = self.agents[0]
            return True
        agent = self.possible_agents[player]
        legal = state.legal_actions()
        # The cached mask of a legal set seen before, without the call.
        mask = self._masks.get(tuple(legal)) if self._cache_masks else None
        if mask is None:
            mask = self._mask_for(legal)
        self._mask = mask
        # Also in the info, so an agent that needs only the mask can call
        # last(observe=False) and skip building the tensor.
        infos[agent]["action_mask"] = mask
        self.agent_selection = agent
        return False

    def _was_dead_step(self, action: int | None) -> None:
        """Remove the selected (terminated) agent, as PettingZoo's own helper does.

        A game here ends for every seat at once and truncates none, so every
        agent still listed is terminated and the next to remove is the first:
        the general helper's search for the next dead agent is skipped (it cost
        as much as a move in a short game). The outcome is the same: agents go
        in seat order, and the selection returns to the first removed once
        none are left.
        """
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        del self.terminations[agent]
        del self.truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        if agents:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = agents[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        self._clear_rewards()

    def _mask_for(self, legal: list[int]) -> np.ndarray[Any, Any]:
        """The read-only mask of a set of legal actions.

        A mask is needed every step and costs about as much as a step of the
        faster games, so it is made the cheapest way for the game's size: with
        few action ids the same legal sets keep coming back and their masks
        are kept (the cache is emptied if it ever grows large); with many, sets
        rarely repeat, and a bytearray fill beats NumPy's fancy indexing.
        """
        cache = self._cache_masks
        if cache:
            key = tuple(legal)
            mask = self._masks.get(key)
            if mask is not None:
                return mask
        flags = bytearray(self._num_actions)
        for action in legal:
            flags[action] = 1
        mask = np.frombuffer(flags, dtype=np.int8)
        mask.flags.writeable = False
        if cache:
            if len(self._masks) >= _MASK_CACHE_SIZE:
                self._masks.clear()
            self._masks[key] = mask
        return mask


_MASK_CACHE_SIZE = 4096
_CACHED_MASKS_UP_TO = 256
"""Action-space size up to which masks are cached (Poison Pot's 1,409 is not)."""


def env(
    name: str,
    players: int | None = None,
    render_mode: str | None = None,
    *,
    observation: str = "observation",
    **options: Any,
) -> ApothecaryEnv:
    """A PettingZoo AEC environment for game ``name``, configured like
    ``apothecary.load(name, players, **options)`` (same checks, same errors).

    ``observation`` chooses what a seat observes: ``"observation"`` (its
    observation tensor, the default) or ``"information_state"`` (its
    information-state tensor, perfect recall); BadOptionError for anything
    else, or for a game that defines no information-state tensor."""
    game = load(name, players, **options)
    return ApothecaryEnv(game, render_mode=render_mode, observation=observation)


__all__ = ["ApothecaryEnv", "env"]
