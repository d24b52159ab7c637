"""In Vino Morte's difficulty levels: bots a person cannot read.

The rules bot (``rules``) pours and plays deterministically: Poison for every
drinker and Wine for itself, and always the same drink or swap in the same
position. In self-play that lets the dealer's right-hand seat win every game,
and a person who has seen it a few times beats every level built on it. So
the levels mix their choices where the game calls for it, the dealer's pour
and the drinker's swap:

* ``mixed`` (the ``medium`` level): at every decision, with probability
  ``mix`` (default :data:`MEDIUM_MIX`), the stored equilibrium's move for the
  round (:mod:`.ivm_cfr`, drawn with its probabilities), else the rules bot's.
  A round with no stored strategy (more than five players in it, or Cheese at
  a table that has none) mixes only the pour: with probability ``mix`` a
  uniformly drawn legal pour, else the rules bot's.
* ``easy`` stays ``careless`` over ``rules`` (half its moves uniformly random,
  so already unreadable); over ``mixed`` it no longer lost to ``medium`` at 5
  players (docs/bots.md).
* ``hard`` (bot ``equilibrium``, :func:`hard_bot`) is the equilibrium itself (``cfr``) on every
  table that has one, and elsewhere ``rollout`` over ``mixed`` (its playouts
  assume the others play like ``mixed``), without raising.

Every draw comes from the bot's own seeded generator. :meth:`MixedBot.probabilities`
gives each legal move's exact probability, which the exploitability benchmark
(benchmarks/ivm_exploitability.py) uses instead of sampling.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.bot import Bot, Level, game_bots, register_bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import Action, Game, Player, State
from apothecary.games.in_vino_morte.cfr import (
    GAME,
    CFRBot,
    action_weights,
    check_supported,
    info_key,
    load_table,
)

MEDIUM_MIX = 0.5
"""How often ``medium`` plays the equilibrium's move instead of the rules bot's
(chosen by measurement, docs/bots.md: enough that no seat wins every game in
self-play, little enough that ``hard`` still beats it)."""

HARD_FALLBACK_ROLLOUTS = 60
"""Playouts a move for ``hard`` where no equilibrium is stored (the former hard level)."""


def table_applies(game: Game) -> bool:
    """Whether the stored round strategies describe ``game``'s rounds: the table
    is keyed on a round's own information, so it fits every round of a stored
    size, except with Cheese that does not reverse the reveal (keyed alike but
    another game)."""
    return not (game.options.get("cheese") and not game.options.get("cheese_on_reveal", True))


class MixedBot(Bot):
    """The rules bot, mixed with the equilibrium (or, where none is stored, a
    random pour) with probability ``mix``: see the module's docstring."""

    def __init__(
        self, game: Game, seat: Player, seed: int | None = None, *, mix: float = MEDIUM_MIX
    ) -> None:
        super().__init__(game, seat, seed)
        if not isinstance(mix, int | float) or not 0 <= mix <= 1:
            raise BadOptionError(f"in-vino-morte mixed mix={mix!r}: expected 0 to 1")
        self.mix = float(mix)
        # The rules bot is deterministic, so its seed does not matter.
        self.rules = game_bots(GAME)["rules"].factory(game, seat, seed)
        self.table = load_table() if table_applies(game) else {}

    def probabilities(self, state: State) -> dict[Action, float]:
        """Each legal action's exact probability of being chosen in ``state``."""
        legal = state.legal_actions()
        obs = state.observation(self.seat)
        other = self._other(state, obs, legal)
        rules = self.rules.step(state)
        if other is None:
            return {a: 1.0 if a == rules else 0.0 for a in legal}
        probs = {a: self.mix * other.get(a, 0.0) for a in legal}
        probs[rules] += 1.0 - self.mix
        return probs

    def _other(
        self, state: State, obs: dict[str, Any], legal: list[Action]
    ) -> dict[Action, float] | None:
        """The mixed-in distribution: the equilibrium's, a uniform pour, or none."""
        if info_key(obs, self.seat) in self.table:
            actions, weights = action_weights(state, self.seat, self.table)
            return dict(zip(actions, weights, strict=True))
        if obs["phase"] == "deal":
            return {a: 1.0 / len(legal) for a in legal}
        return None

    def _choose(self, state: State) -> Action:
        probs = self.probabilities(state)
        actions = list(probs)
        return self.rng.choices(actions, weights=[probs[a] for a in actions])[0]


def hard_bot(game: Game, seat: Player, seed: int | None = None, **budget: Any) -> Bot:
    """The ``hard`` level: the equilibrium (``cfr``) where one is stored, else
    ``rollout`` over ``mixed`` with :data:`HARD_FALLBACK_ROLLOUTS` playouts a move
    (``budget`` goes to the rollout bot)."""
    try:
        check_supported(game)
    except BadOptionError:
        # Imported here: apothecary.bots imports this package when it loads.
        from apothecary.bots.rollout import RolloutBot

        options = {"rollouts": HARD_FALLBACK_ROLLOUTS, "margin": 2.0, "policy": "mixed", **budget}
        return RolloutBot(game, seat, seed, **options)
    if budget:
        raise BadOptionError(f"in-vino-morte hard (cfr) takes no budget {', '.join(budget)}")
    return CFRBot(game, seat, seed)


register_bot(
    GAME,
    "mixed",
    MixedBot,
    f"the rules bot, playing the equilibrium's move {MEDIUM_MIX:.0%} of the time "
    "(a random pour where none is stored); mix=P",
)
register_bot(
    GAME,
    "equilibrium",
    hard_bot,
    "the equilibrium (cfr) where one is stored, else rollout over mixed",
)

LEVELS = {
    "medium": Level(
        "medium",
        "mixed",
        {},
        f"the rules bot, the equilibrium's move {MEDIUM_MIX:.0%} of the time",
    ),
    "hard": Level(
        "hard",
        "equilibrium",
        {},
        "the equilibrium (cfr) where one is stored, else rollout over mixed",
    ),
}
"""The levels the manifest declares (``easy`` stays the generic one)."""
