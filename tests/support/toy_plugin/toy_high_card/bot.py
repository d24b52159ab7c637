"""Toy high card's own bot, and the exact values analysis may use.

The rules bot bets or calls with the highest card and otherwise checks or
folds. The game is small enough that a move's value is known exactly from the
seat's card alone, which :func:`exact_values` gives analysis.
"""

from __future__ import annotations

from apothecary.core.bot import Bot, register_bot
from apothecary.core.game import Action, Player, State
from toy_high_card.game import BET, CALL, CHECK, FOLD

NAME = "toy-high-card"


class HighCardBot(Bot):
    """Bets and calls with the high card (2); checks and folds otherwise."""

    def _choose(self, state: State) -> Action:
        card = state.observation(self.seat).get("my_card")
        legal = state.legal_actions()
        strong = card == 2
        if BET in legal:
            return BET if strong else CHECK
        return CALL if strong else FOLD


register_bot(NAME, "rules", HighCardBot, "bets and calls with the high card only")


def exact_values(
    state: State, seat: Player
) -> tuple[dict[Action, float], dict[Action, list[float]]] | None:
    """Each legal move's win share for ``seat`` against a uniformly dealt other
    card, the other seat answering as :class:`HighCardBot` would."""
    card = state.observation(seat).get("my_card")
    if not isinstance(card, int):
        return None
    others = [c for c in (0, 1, 2) if c != card]
    outlooks: dict[Action, list[float]] = {}
    for action in state.legal_actions():
        win = 0.0
        for other in others:
            if action == FOLD:
                mine = 0.0
            elif action in (CHECK, CALL):
                mine = 1.0 if card > other else 0.0
            else:  # a bet: the other folds unless it holds the high card
                mine = 1.0 if other != 2 else 0.0
            win += mine / len(others)
        outlooks[action] = [win, 1.0 - win] if seat == 0 else [1.0 - win, win]
    return {a: v[seat] for a, v in outlooks.items()}, outlooks
