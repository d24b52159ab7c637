"""Poison Pot endgame: exact expectimax over the last placements, through the
public protocol only, and the ``endgame`` bot that uses it.

Poison Pot hides nothing (every piece and every draw is public), so the seat's
information is the whole position; the search still starts from
``resample_from_infostate`` (which, for a perfect-information game, is the
position itself) so that it provably reads nothing else.

Chance nodes (the colour draws) are averaged with their probabilities;
at a decision (slides and placements) the seat to move takes the child best
for itself (max^n). A finished game is worth, to each seat, its return (share
of the win) plus ``MARGIN`` times its lead in score over the best other seat:
with 2 players that breaks equal chances by the score difference, with 3 it is
the max^n convention on own return. Ties between equal values go to the lowest
action id, so the search is deterministic.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.bot import Bot, game_bots, register_bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import Action, Game, Player, State

GAME = "poison-pot"
MARGIN = 1e-3
DEFAULT_CAULDRONS = 3


def cauldrons_left(obs: dict[str, Any]) -> int:
    """Cauldrons still to place: the face-down ones plus one drawn and not yet placed."""
    return int(sum(obs["remaining"].values())) + (1 if obs["drawn"] is not None else 0)


def terminal_value(state: State) -> list[float]:
    """Return plus a small weight on the lead in score, per seat."""
    outcome = state.outcome()
    assert outcome is not None
    returns = state.returns()
    scores = outcome.scores
    n = len(returns)
    return [
        returns[i] + MARGIN * (scores[i] - max(scores[j] for j in range(n) if j != i))
        for i in range(n)
    ]


class Expectimax:
    """Exact expectimax (max^n at decisions) to the end of the game."""

    def __init__(self) -> None:
        self.nodes = 0

    def value(self, state: State) -> list[float]:
        """The value vector of ``state`` under best play by everyone."""
        self.nodes += 1
        if state.is_terminal():
            return terminal_value(state)
        if state.is_chance_node():
            total: list[float] | None = None
            for action, p in state.chance_outcomes():
                child = state.clone()
                child.apply_action(action)
                v = self.value(child)
                total = (
                    [p * x for x in v]
                    if total is None
                    else [t + p * x for t, x in zip(total, v, strict=True)]
                )
            assert total is not None
            return total
        return self.best(state)[1]

    def best(self, state: State) -> tuple[Action, list[float]]:
        """The mover's best action and the resulting value vector."""
        mover = state.current_player()
        best_action = -1
        best_value: list[float] = []
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            v = self.value(child)
            if best_action < 0 or v[mover] > best_value[mover] + 1e-12:
                best_action, best_value = action, v
        return best_action, best_value


class EndgameBot(Bot):
    """The game's ``rules`` bot until ``cauldrons`` or fewer are left to place,
    then exact expectimax to the end."""

    searches = True

    def __init__(
        self, game: Game, seat: Player, seed: int | None = None, cauldrons: int = DEFAULT_CAULDRONS
    ) -> None:
        if not isinstance(cauldrons, int) or isinstance(cauldrons, bool) or not 0 <= cauldrons <= 5:
            raise BadOptionError(
                f"poison-pot bot 'endgame': cauldrons must be 0 to 5, got {cauldrons!r}"
            )
        super().__init__(game, seat, seed)
        self.cauldrons = cauldrons
        self.early = game_bots(GAME)["rules"].factory(game, seat, seed)

    def _choose(self, state: State) -> Action:
        if cauldrons_left(state.observation(self.seat)) > self.cauldrons:
            return self.early.step(state)
        world = state.resample_from_infostate(self.seat, self.rng)
        return Expectimax().best(world)[0]

    def inform_action(self, state: State, player: Player, action: Action) -> None:
        """Pass the news on to the rules bot that plays the opening."""
        self.early.inform_action(state, player, action)

    def restart_at(self, state: State) -> None:
        """Pass the news on to the rules bot that plays the opening."""
        self.early.restart_at(state)


register_bot(
    GAME,
    "endgame",
    EndgameBot,
    "the rules bot, then exact expectimax for the last placements (budget: cauldrons=N, default 3)",
)
