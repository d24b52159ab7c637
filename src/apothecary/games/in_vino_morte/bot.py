"""A rule-based In Vino Morte bot for both roles, reading only its seat's observation.

As the dealer it pours to kill: Poison for everyone else and Wine for itself;
with Caseus Vitae it adds Cheese where exhaustive search against random
drinkers found it pays (see ``RuleBot._deal``).

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
    DEAL_WINE,
    DEAL_WINE_CHEESE,
    DRINK,
    SWAP_BASE,
)

HOSTILITY = 0.3
"""How much of the drinker's prior is a dealer who pours to kill (the rest: a coin toss)."""

HOSTILITY_CHEESE_ON_REVEAL = 0.0
"""The same when Cheese reverses the reveal, where the dealer's intent is harder to
read: measured against the random bot, any hostility in the prior did worse."""

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
        seat = order[sum(1 for s in order if view["glasses"][s] is not None)]
        cheese = view["cheese_rule"] and view["cheese_limit"] > 0
        if seat == self.seat:
            # Without cheese on the reveal, a Cheese held by the dealer, who never
            # drinks, harms nobody; to the others it is a move that saves nobody.
            wanted = DEAL_WINE_CHEESE if cheese and not view["cheese_on_reveal"] else DEAL_WINE
        elif cheese and view["cheese_on_reveal"] and len(order) <= 4 and seat == order[-2]:
            # At a small table a Wine made deadly by Cheese gives the swappers
            # another target than the dealer's Wine.
            wanted = DEAL_WINE_CHEESE
        else:
            wanted = DEAL_POISON
        for action in (wanted, wanted & 1):
            if action in legal:
                return action
        return legal[0]

    # -- a drinker ----------------------------------------------------------------

    def _turn(self, view: dict[str, Any], legal: list[Action]) -> Action:
        me = self.seat
        poison = poison_chances(view)
        cheese: list[bool] = list(view["cheese"])
        on_reveal = view["cheese_rule"] and view["cheese_on_reveal"]
        steal_base = SWAP_BASE + view["players"]
        order: list[int] = view["deal_order"]
        taken: list[bool] = view["turn_taken"]
        covered = [s for s in order if view["glasses"][s] == "covered"]
        later = [s for s in order[:-1] if not taken[s] and s != me]
        holders = sum(1 for s in order if cheese[s] and view["alive"][s])

        # The players after me are not modelled beyond chance: each picks one of
        # its moves at random, so it takes my glass (or my cheese) with one
        # chance in as many moves as it has.
        glass_kept = cheese_kept = 1.0
        for seat in later:
            moves = len(covered) + (0 if cheese[seat] else holders)
            glass_kept *= 1.0 - 1.0 / moves
            if not cheese[seat]:
                cheese_kept *= 1.0 - 1.0 / moves

        def lives_at_reveal(action: Action) -> float:
            chances = {s: poison[s] for s in covered}
            holds_cheese = cheese[me]
            if action < steal_base:
                other = action - SWAP_BASE
                chances[me], chances[other] = chances[other], chances[me]
            else:
                holds_cheese = True
            others = [chances[s] for s in covered if s != me]
            instead = sum(others) / len(others) if others else chances[me]
            final = glass_kept * chances[me] + (1.0 - glass_kept) * instead
            reversed_ = cheese_kept if holds_cheese and on_reveal else 0.0
            return reversed_ * final + (1.0 - reversed_) * (1.0 - final)

        best_action = DRINK
        best = poison[me] if cheese[me] else 1.0 - poison[me]
        for action in legal:
            if action == DRINK:
                continue
            value = lives_at_reveal(action) - SWAP_MARGIN
            if value > best + 1e-12:
                best, best_action = value, action
        return best_action


def poison_chances(view: dict[str, Any]) -> list[float]:
    """For every seat, the chance that the glass in front of it is Poison (0 for
    seats with no covered glass), given the public events.

    The prior over deals mixes two dealers: a hostile one (Poison for the others
    and Wine for itself, nine times in ten, reversed where it gave Cheese that
    reverses the reveal) and one that picks each glass by a coin toss but must
    give its own glass the other kind when all the others came out alike. Each
    deal that agrees with the glasses drunk is weighed by both, exactly.
    """
    n: int = view["players"]
    order: list[int] = view["deal_order"]
    dealer: int = view["dealer"]
    on_reveal = view["cheese_rule"] and view["cheese_on_reveal"]
    hostility = HOSTILITY_CHEESE_ON_REVEAL if on_reveal else HOSTILITY
    # Who held cheese when the glasses were poured: undo the steals.
    cheese_at_deal = list(view["cheese"])
    for event in reversed(view["events"]):
        if event["kind"] == "steal":
            cheese_at_deal[event["actor"]] = False
            cheese_at_deal[event["from"]] = True
    hostile = []
    for seat in order:
        if seat == dealer:
            # Its own Cheese only matters to the dealer if it reverses the reveal.
            chance = 0.9 if on_reveal and cheese_at_deal[seat] else 0.1
        else:
            # Cheese given to a drinker comes with Wine, to kill it when it drinks.
            chance = 0.1 if cheese_at_deal[seat] else 0.9
        hostile.append(chance)
    all_wine = all_poison = 1.0
    for chance in hostile:
        all_wine *= 1.0 - chance
        all_poison *= chance
    hostile_valid = 1.0 - all_wine - all_poison
    # Each deal slot's glass, followed through the public swaps to its seat now.
    slot_at = {seat: i for i, seat in enumerate(order)}
    known: dict[int, int] = {}
    for event in view["events"]:
        if event["kind"] == "drink":
            known[slot_at[event["actor"]]] = 1 if event["glass"] == "poison" else 0
        elif event["kind"] == "swap":
            a, b = event["actor"], event["with"]
            slot_at[a], slot_at[b] = slot_at[b], slot_at[a]
    size = len(order)
    free = [i for i in range(size) if i not in known]
    total = 0.0
    poison_weight = [0.0] * size
    glasses = [known.get(i, 0) for i in range(size)]
    for mask in range(1 << len(free)):
        for bit, slot in enumerate(free):
            glasses[slot] = (mask >> bit) & 1
        poisons = sum(glasses)
        if poisons in (0, size):
            continue
        weight_hostile = 1.0
        for slot, glass in enumerate(glasses):
            weight_hostile *= hostile[slot] if glass else 1.0 - hostile[slot]
        # The coin-toss dealer: the others' glasses by coin, its own forced or not.
        before = poisons - glasses[-1]
        forced = before in (0, size - 1)
        weight_coin = 0.5 ** (size - 1) * (1.0 if forced else 0.5)
        weight = hostility * weight_hostile / hostile_valid + (1.0 - hostility) * weight_coin
        total += weight
        for slot, glass in enumerate(glasses):
            if glass:
                poison_weight[slot] += weight
    chances = [0.0] * n
    for seat, slot in slot_at.items():
        if view["glasses"][seat] == "covered":
            chances[seat] = poison_weight[slot] / total
    return chances


register_bot(
    "in-vino-morte",
    "rules",
    RuleBot,
    "pours to kill as dealer; drinks or swaps by the chance of Poison from public events",
    quick=True,
)
