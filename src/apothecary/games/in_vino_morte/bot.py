"""A rule-based In Vino Morte bot for both roles, reading only its seat's observation.

As the dealer it pours to kill: Poison for everyone else and Wine for itself
(with Caseus Vitae and cheese on the reveal: Poison and Cheese for itself, so a
swap with it hands over a Poison it does not fear).

As a drinker it estimates, for every covered glass on the table, the chance
that it is Poison: each glass is traced back through the public swaps to the
seat it was dealt to; the dealer is assumed partly hostile (Wine for itself,
Poison for the others, reversed where it handed out Cheese) and partly
indifferent; glasses already drunk are known; and the deal had at least one
Wine and one Poison. It then takes the move that gives it the best chance to
live through the round: drink, swap with the likeliest Wine, or steal Cheese.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.bot import Bot, register_bot
from apothecary.core.game import Action, State
from apothecary.games.in_vino_morte.rules import (
    DEAL_POISON,
    DEAL_POISON_CHEESE,
    DEAL_WINE,
    DEAL_WINE_CHEESE,
    DRINK,
    SWAP_BASE,
)

HOSTILITY = 0.3
"""How much of the drinker's prior is a dealer who pours to kill (the rest: a coin toss)."""

SWAP_MARGIN = 0.02
"""How much better a swapped-in glass must look than drinking one's own: a glass
not yet drunk can still be swapped away by the players after you."""


class RuleBot(Bot):
    """Pours to kill as the dealer; as a drinker, picks the likeliest way to live."""

    def _choose(self, state: State) -> Action:
        view = state.observation(self.seat)
        legal = state.legal_actions()
        if view["phase"] == "deal":
            return self._deal(view, legal)
        return self._turn(view, legal)

    # -- the dealer -------------------------------------------------------------

    def _deal(self, view: dict[str, Any], legal: list[Action]) -> Action:
        order: list[int] = view["deal_order"]
        dealt = sum(1 for s in order if view["glasses"][s] is not None)
        seat = order[dealt]
        cheese_given = sum(view["cheese"])
        can_cheese = view["cheese_rule"] and cheese_given < view["cheese_limit"]
        cheese_kills = view["cheese_rule"] and view["cheese_on_reveal"]
        if seat == self.seat:
            if cheese_kills and can_cheese and DEAL_POISON_CHEESE in legal:
                wanted = [DEAL_POISON_CHEESE]
            else:
                wanted = [DEAL_WINE]
        elif cheese_kills and can_cheese and self._needs_wine(view, dealt):
            # Cheese turns the one Wine the rules demand into another death.
            wanted = [DEAL_WINE_CHEESE, DEAL_WINE]
        else:
            wanted = [DEAL_POISON]
        for action in [*wanted, DEAL_POISON, DEAL_WINE]:
            if action in legal:
                return action
        return legal[0]

    def _needs_wine(self, view: dict[str, Any], dealt: int) -> bool:
        """Whether the dealer means to pour itself Poison and Cheese, so that a Wine
        must go to someone else; it goes to the last seat before the dealer."""
        order: list[int] = view["deal_order"]
        wine_poured = any(view["glasses"][s] == "wine" for s in order[:dealt])
        # The dealer keeps the one Cheese a small table allows for itself.
        spare_cheese = view["cheese_limit"] - sum(view["cheese"]) >= 2
        return not wine_poured and spare_cheese and dealt == len(order) - 2

    # -- a drinker ----------------------------------------------------------------

    def _turn(self, view: dict[str, Any], legal: list[Action]) -> Action:
        me = self.seat
        poison = poison_chances(view)
        cheese: list[bool] = view["cheese"]
        on_reveal = view["cheese_rule"] and view["cheese_on_reveal"]

        def lives_drinking(seat_chance: float, with_cheese: bool) -> float:
            return seat_chance if with_cheese else 1.0 - seat_chance

        def lives_revealing(seat_chance: float, with_cheese: bool) -> float:
            return lives_drinking(seat_chance, with_cheese and on_reveal)

        n = view["players"]
        steal_base = SWAP_BASE + n
        order: list[int] = view["deal_order"]
        taken: list[bool] = view["turn_taken"]
        covered = [s for s in order if view["glasses"][s] == "covered"]
        later = [s for s in order[:-1] if not taken[s] and s != me]

        def kept(action: Action) -> tuple[float, float]:
            """The chance that no later player swaps my glass away, assuming each
            picks among its moves at random; and the chance of Poison in the
            glass I would get instead (the average of the others)."""
            chances = {s: poison[s] for s in covered}
            if SWAP_BASE <= action < steal_base:
                other = action - SWAP_BASE
                chances[me], chances[other] = chances[other], chances[me]
            others = [chances[s] for s in covered if s != me]
            instead = sum(others) / len(others) if others else 0.0
            keep = 1.0
            for _ in later:
                keep *= 1.0 - 1.0 / len(covered)
            return keep, instead

        best_action = DRINK
        best = lives_drinking(poison[me], cheese[me])
        for action in legal:
            if SWAP_BASE <= action < steal_base:
                mine, with_cheese = poison[action - SWAP_BASE], cheese[me]
            elif action >= steal_base:
                mine, with_cheese = poison[me], True
            else:
                continue
            keep, instead = kept(action)
            value = keep * lives_revealing(mine, with_cheese) + (1.0 - keep) * lives_revealing(
                instead, with_cheese
            )
            if value > best + SWAP_MARGIN:
                best, best_action = value, action
        return best_action


def poison_chances(view: dict[str, Any]) -> list[float]:
    """For every seat, the chance that the glass in front of it is Poison, from
    public events and a prior on the dealer's intent (0 for seats with no glass)."""
    n: int = view["players"]
    order: list[int] = view["deal_order"]
    dealer: int = view["dealer"]
    on_reveal = view["cheese_rule"] and view["cheese_on_reveal"]
    # Who held cheese when the glasses were poured: undo the steals.
    cheese_at_deal = list(view["cheese"])
    for event in reversed(view["events"]):
        if event["act"] == "steal":
            cheese_at_deal[event["seat"]] = False
            cheese_at_deal[event["from"]] = True
    prior = []
    for seat in order:
        hostile = 0.1 if seat == dealer else 0.9
        if on_reveal and cheese_at_deal[seat]:
            hostile = 1.0 - hostile
        prior.append(HOSTILITY * hostile + (1.0 - HOSTILITY) * 0.5)
    slot_at = {seat: i for i, seat in enumerate(order)}
    known: dict[int, float] = {}
    for event in view["events"]:
        if event["act"] == "drink":
            known[slot_at[event["seat"]]] = 1.0 if event["glass"] == "poison" else 0.0
        elif event["act"] == "swap":
            a, b = event["seat"], event["with"]
            slot_at[a], slot_at[b] = slot_at[b], slot_at[a]
    # The deal held at least one of each: condition the independent prior on it.
    free = [i for i in range(len(order)) if i not in known]
    all_wine = all_poison = 1.0
    for i in free:
        all_wine *= 1.0 - prior[i]
        all_poison *= prior[i]
    if any(v == 1.0 for v in known.values()):
        all_wine_bad = 0.0
    else:
        all_wine_bad = all_wine
    all_poison_bad = 0.0 if any(v == 0.0 for v in known.values()) else all_poison
    valid = 1.0 - all_wine_bad - all_poison_bad
    chances = [0.0] * n
    for seat, slot in slot_at.items():
        if slot in known:
            chances[seat] = known[slot]
        else:
            chances[seat] = (prior[slot] - all_poison_bad) / valid
    return chances


register_bot(
    "in-vino-morte",
    "rules",
    RuleBot,
    "pours to kill as dealer; drinks or swaps by the chance of Poison from public events",
)
