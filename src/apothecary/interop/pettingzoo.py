"""Every apothecary game as a PettingZoo AEC environment.

>>> import apothecary
>>> from apothecary.interop.pettingzoo import env
>>> table = env(apothecary.games()[0], players=3)
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
from collections.abc import Iterator
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
        # Masks of legal sets seen before, when the game has few enough action
        # ids for sets to come back (None: every mask is made afresh).
        self._masks: dict[tuple[int, ...], np.ndarray[Any, Any]] | None = (
            {} if self._num_actions <= _CACHED_MASKS_UP_TO else None
        )
        self._mask = self._no_actions
        self._rng = random.Random()
        self._skip_agent_selection: str | None = None
        # Whether the game is over: every agent is then terminated (a game
        # ends for all seats at once and truncates none), so step() asks this
        # instead of the two dicts.
        self._over = False
        # What each reset starts the per-agent dicts from (copying is cheaper
        # than building: a short game lasts a few steps).
        self._zeros = dict.fromkeys(self.possible_agents, 0.0)
        self._falses = dict.fromkeys(self.possible_agents, False)
        self._trues = dict.fromkeys(self.possible_agents, True)
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
        self._advance(None)

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
        if self._over:
            self._was_dead_step(action)
            return
        if type(action) is not int:
            action = action_id(action)
        # The core checks legality and raises without changing the state.
        self.state.apply_action(action)
        self._advance(self.agent_selection)

    # PettingZoo's own last() and agent_iter(), as cheap as they can be: an
    # agent loop calls both at every step.

    def last(
        self, observe: bool = True
    ) -> tuple[ObsDict | None, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation (None unless ``observe``), cumulative
        reward, termination, truncation and info."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        """The selected agent, again after each step, while any agent is left
        (at most ``max_iter`` times)."""
        return _AgentIterable(self, max_iter)

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
        agents = self.agents = self.possible_agents[:]
        self.rewards = self._zeros.copy()
        self._cumulative_rewards = self._zeros.copy()
        self.terminations = self._falses.copy()
        self.truncations = self._falses.copy()
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        self.agent_selection = agents[0]
        self._skip_agent_selection = None
        self._mask = self._no_actions
        self._over = False

    def _advance(self, actor: str | None) -> None:
        """After ``actor``'s action (None: at the start), draw chance until a
        seat must act or the game ends, then select the agent."""
        # Every step runs this, so it keeps to locals and asks the state once
        # per question (the mask-only loop is measured in benchmarks/playout.py).
        state = self.state
        player = state.current_player()
        # Only the selected agent's info holds a mask.
        infos = self.infos
        selected = self.agent_selection
        if player < 0:  # chance, or the end (a seat is the usual answer)
            if player == CHANCE:
                rng = self._rng
                while player == CHANCE:
                    state.apply_action(sample_chance(state, rng))
                    player = state.current_player()
            if player == TERMINAL:
                infos[selected].pop("action_mask", None)
                self._end(actor)
                return
        agent = self.possible_agents[player]
        if agent != selected:
            infos[selected].pop("action_mask", None)
        legal = state.legal_actions()
        masks = self._masks
        if masks is None:
            mask = self._mask_for(legal)
        else:
            # The mask of a legal set seen before, without the call. The key
            # is the tuple legal_actions() keeps in the state (the core's own
            # apply_action trusts it as the current set whenever it is not
            # None), so the list need not be copied into one; a game that
            # keeps none gets the copy.
            key = state._legal or tuple(legal)
            seen = masks.get(key)
            if seen is None:
                if len(masks) >= _MASK_CACHE_SIZE:
                    masks.clear()
                seen = masks[key] = self._mask_for(legal)
            mask = seen
        self._mask = mask
        # Also in the info, so an agent that needs only the mask can call
        # last(observe=False) and skip building the tensor.
        infos[agent]["action_mask"] = mask
        self.agent_selection = agent

    def _end(self, actor: str | None) -> None:
        """The game is over: every seat's reward is its return, and every agent
        is terminated (removed one dead step at a time, from the first seat)."""
        # Every agent is still listed (none leaves before the end).
        self.rewards.update(zip(self.possible_agents, self.state.returns(), strict=True))
        self.terminations.update(self._trues)
        self._over = True
        self._mask = self._no_actions
        self.agent_selection = self.agents[0]
        # Rewards are all zero until the end, so the cumulative rewards (and
        # their reset for the agent that just acted) only change now.
        if actor is not None:
            self._cumulative_rewards[actor] = 0
            self._accumulate_rewards()

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
        # PettingZoo's _clear_rewards(), without the call.
        rewards = self.rewards
        for other in rewards:
            rewards[other] = 0

    def _mask_for(self, legal: list[int]) -> np.ndarray[Any, Any]:
        """The read-only mask of a set of legal actions.

        A mask is needed every step and costs about as much as a step of the
        faster games, so it is made the cheapest way for the game's size: with
        few action ids the same legal sets keep coming back and their masks
        are kept (see :meth:`_advance`; the cache is emptied if it ever grows
        large); with many, sets rarely repeat, and a bytearray fill beats
        NumPy's fancy indexing.
        """
        flags = bytearray(self._num_actions)
        for action in legal:
            flags[action] = 1
        # Over bytes, which are immutable, the array is read-only as it is made
        # (cheaper than setting its flag).
        return np.frombuffer(bytes(flags), dtype=np.int8)


class _AgentIterable:
    """What :meth:`ApothecaryEnv.agent_iter` returns: PettingZoo's
    ``AECIterable`` (each ``iter()`` counts ``max_iter`` afresh), whose
    iterator is a generator, resumed at each step rather than a method called."""

    def __init__(self, env: ApothecaryEnv, max_iter: int) -> None:
        self.env = env
        self.max_iter = max_iter

    def __iter__(self) -> Iterator[str]:
        env = self.env
        left = self.max_iter
        while env.agents and left > 0:
            left -= 1
            yield env.agent_selection


_MASK_CACHE_SIZE = 4096
_CACHED_MASKS_UP_TO = 256
"""Action-space size up to which masks are cached (a board game's 1,409 is not)."""


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
