"""Bots built on another bot: a search that improves it, and one that blunders.

``RolloutBot`` is Monte Carlo policy improvement (Tesauro and Galperin 1996;
Bertsekas's rollout algorithms): to choose a move it draws worlds its seat
cannot tell from the real one, tries each legal action in them and lets a base
bot (a game's ``rules`` bot, by default) play every seat to the end. The
action with the best average return wins. When the other seats really play
like the base bot this is a one-step improvement on it, which is what makes
it a level above the base bot rather than merely different.

Two things make a fixed budget go further:

* *common random numbers*: all candidate actions are tried in the same drawn
  worlds with the same playout randomness, so their difference is measured
  with far less noise than their values;
* *sequential halving* (Karnin, Koren and Somekh 2013): the budget is spent in
  rounds, each dropping the worse half of the candidates, so a position with
  thirty moves costs about as much as one with three.

``CarelessBot`` plays its base bot's move, except that with probability
``mistakes`` it plays a uniformly random legal move instead: a weaker
opponent with the base bot's style.

Both read the state only through ``resample_from_infostate(seat, rng)``,
``legal_actions()`` and their base bot (which reads its seat's observation),
so two states the seat cannot tell apart give the same choice for one seed.
"""

from __future__ import annotations

import math
import random

from apothecary.core.bot import Bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import CHANCE, Action, Game, Player, State, sample_chance

MAX_ROLLOUTS = 1_000_000


def policy_bots(game: Game, policy: str, rng: random.Random, playouts: bool = True) -> list[Bot]:
    """One bot ``policy`` of the registry per seat, seeded from ``rng``.

    ``playouts``: the bots will play positions out for a search, so a bot
    that searches itself is refused (BadOptionError).
    """
    # Imported here because the registry imports this module.
    from apothecary import bots as registry

    made = [
        registry.load(policy, game, seat, seed=rng.getrandbits(32))
        for seat in range(game.num_players)
    ]
    if playouts and made and made[0].searches:
        raise BadOptionError(
            f"policy={policy!r} searches itself, so as a playout policy its every move would "
            "cost a whole search; use a bot that does not (random, rules, easy, medium)"
        )
    return made


def play_out(world: State, players: list[Bot], rng: random.Random) -> None:
    """Play ``world`` to its end: ``players[p]`` for seat p, chance by ``rng``."""
    while not world.is_terminal():
        player = world.current_player()
        if player == CHANCE:
            world.apply_action(sample_chance(world, rng))
        else:
            world.apply_action(players[player].step(world))


class RolloutBot(Bot):
    """Tries each legal action in drawn worlds, the base bot playing them out.

    ``rollouts`` is the number of playouts per decision (about: sequential
    halving gives every surviving candidate at least one per round);
    ``policy`` names the base bot, which plays every seat in the playouts and
    whose own move stands unless another beats it by ``margin`` standard
    errors of the paired difference.
    """

    searches = True

    def __init__(
        self,
        game: Game,
        seat: Player,
        seed: int | None = None,
        *,
        rollouts: int = 200,
        margin: float = 1.0,
        policy: str = "rules",
    ) -> None:
        super().__init__(game, seat, seed)
        if not isinstance(rollouts, int) or not 1 <= rollouts <= MAX_ROLLOUTS:
            raise BadOptionError(f"rollout rollouts={rollouts!r}: expected 1 to {MAX_ROLLOUTS}")
        if not isinstance(margin, int | float) or not 0 <= margin <= 10:
            raise BadOptionError(f"rollout margin={margin!r}: expected 0 to 10")
        self.rollouts = rollouts
        self.margin = float(margin)
        self.policy = policy
        self._players = policy_bots(game, policy, self.rng)
        self.last_rollouts = 0
        """How many playouts the last decision ran (for measurement)."""
        self.last_base: Action | None = None
        """The base bot's move in the last decision (None when there was one legal move)."""

    def _choose(self, state: State) -> Action:
        legal = state.legal_actions()
        self.last_rollouts = 0
        self.last_base = None
        if len(legal) == 1:
            return legal[0]
        base = self.last_base = self._players[self.seat].step(state)
        # values[a][i]: this seat's return for action a in the i-th world drawn.
        # The base bot's move is never dropped, so every survivor is paired with it.
        values: dict[Action, list[float]] = {action: [] for action in legal}
        candidates = [base, *(a for a in legal if a != base)]
        rounds = math.ceil(math.log2(len(candidates)))
        for _ in range(rounds):
            worlds = max(1, self.rollouts // (rounds * len(candidates)))
            for _ in range(worlds):
                world = state.resample_from_infostate(self.seat, self.rng)
                seed = self.rng.getrandbits(64)
                for action in candidates:
                    values[action].append(self._value(world, action, seed))
            challengers = sorted(candidates[1:], key=lambda a: (-sum(values[a]), a))
            candidates = [base, *challengers[: math.ceil(len(challengers) / 2)]]
        self.last_rollouts = sum(map(len, values.values()))
        return self._decide(base, candidates[1:], values)

    def _decide(
        self, base: Action, challengers: list[Action], values: dict[Action, list[float]]
    ) -> Action:
        """The base bot's move, unless a challenger beats it in the paired playouts
        by more than ``margin`` standard errors.

        Win shares are noisy and most positions have several moves of nearly
        equal worth; switching on the raw best mean would swap a good move for a
        lucky one, so the base bot keeps the move unless the evidence is clear.
        """
        if not challengers:
            return base
        best = challengers[0]
        differences = [a - b for a, b in zip(values[best], values[base], strict=True)]
        n = len(differences)
        mean = sum(differences) / n
        if mean <= 0:
            return base
        # One pseudo-observation of unit spread keeps a few identical
        # differences from looking certain (differences lie in [-1, 1]).
        variance = (sum((d - mean) ** 2 for d in differences) + 1) / n
        return best if mean > self.margin * math.sqrt(variance / n) else base

    def _value(self, world: State, action: Action, seed: int) -> float:
        """This seat's return when ``action`` is played in ``world``, then the base bots.

        Every candidate gets the same ``seed`` (common random numbers): the same
        chance outcomes and the same playout choices wherever play coincides.
        """
        playout = world.clone()
        playout.apply_action(action)
        rng = random.Random(seed)
        for player, bot in enumerate(self._players):
            bot.rng.seed(seed + player)
        play_out(playout, self._players, rng)
        return playout.returns()[self.seat]


class CarelessBot(Bot):
    """The base bot, except for a uniformly random move with probability ``mistakes``."""

    def __init__(
        self,
        game: Game,
        seat: Player,
        seed: int | None = None,
        *,
        mistakes: float = 0.5,
        policy: str = "rules",
    ) -> None:
        super().__init__(game, seat, seed)
        if not isinstance(mistakes, int | float) or not 0 <= mistakes <= 1:
            raise BadOptionError(f"careless mistakes={mistakes!r}: expected 0 to 1")
        self.mistakes = float(mistakes)
        self.policy = policy
        # Made like the rollout bot's (one per seat, only this seat's kept) so
        # that a seed gives the same base bot in both.
        self._base = policy_bots(game, policy, self.rng, playouts=False)[seat]
        # A blundering search is still a search (and so no playout policy).
        self.searches = self._base.searches

    def _choose(self, state: State) -> Action:
        # The coin and the blunder use only this bot's generator and the legal
        # actions, so blundering is as fair as the base bot.
        if self.rng.random() < self.mistakes:
            return self.rng.choice(state.legal_actions())
        return self._base.step(state)
