"""A rule-based player for Tea, Scones and Arsenic, reading only its seat's observation.

It estimates each kind's dose odds from what it has seen (the doses it knows
left the box), draws where a lethal or heavy dose is least likely (or a marked
scone it knows to be light), puts heavy doses back while it has sugar cubes,
and stops when one more draw would be too dangerous for what it stands to win.
"""

from __future__ import annotations

from typing import Any

from apothecary.core.bot import Bot, register_bot
from apothecary.core.game import Action, State
from apothecary.games.tea_scones_arsenic.facts import (
    BACK,
    DOSE_COUNTS,
    DRAW_BASE,
    EAT,
    KINDS,
    MARKED_BASE,
    PASS,
    SPOON,
    STOP,
)

Odds = list[float]


def dose_odds(obs: dict[str, Any]) -> list[Odds]:
    """Per kind, the chance of each dose 0..3 for a scone drawn unmarked, from
    the seat's view: known doses out of the box are removed, unknown ones are
    assumed to have left at random."""
    remaining = [list(DOSE_COUNTS) for _ in range(KINDS)]
    for seat in obs["seats"]:
        for scone in seat["cup"]:
            if scone["dose"] is not None:
                remaining[scone["kind"] - 1][scone["dose"]] -= 1
    for scone in obs["box"]["marked"]:
        if scone["dose"] is not None:
            remaining[scone["kind"] - 1][scone["dose"]] -= 1
    hand = obs["hand"]
    if hand is not None and hand["dose"] is not None:
        remaining[hand["kind"] - 1][hand["dose"]] -= 1
    odds = []
    for counts in remaining:
        counts = [max(c, 0) for c in counts]
        total = sum(counts)
        odds.append([c / total for c in counts] if total else [1.0, 0.0, 0.0, 0.0])
    return odds


def lethal_chance(odds: Odds, room: int) -> float:
    """The chance that a dose drawn with these odds reaches ``room``."""
    return sum(p for d, p in enumerate(odds) if d >= room)


class RuleBot(Bot):
    """Draw the safest scone, put heavy ones back while cubes last, stop in time."""

    heavy_putback_margin = 2
    """Put a dose-2 scone back (cube permitting) when eating it would leave this little room."""

    def _choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        obs = state.observation(self.seat)
        me = obs["seats"][self.seat]
        room = obs["lethal_dose"] - me["total"]
        if SPOON in legal:
            return self._spoon(obs, legal)
        if EAT in legal:
            return self._eat_or_back(obs, me, room, legal)
        return self._turn(obs, me, room, legal)

    def _spoon(self, obs: dict[str, Any], legal: list[Action]) -> Action:
        eater = obs["turn"]
        mine = obs["seats"][self.seat]["scones"]
        if not obs["seats"][self.seat]["alive"]:
            return PASS
        # Deny a scone to whoever would draw level with or pass us.
        return SPOON if obs["seats"][eater]["scones"] + 1 >= mine else PASS

    def _eat_or_back(
        self, obs: dict[str, Any], me: dict[str, Any], room: int, legal: list[Action]
    ) -> Action:
        dose = obs["hand"]["dose"]
        if BACK not in legal:
            return EAT
        if dose >= room:
            return BACK
        if dose == 3 or (dose == 2 and room - dose <= self.heavy_putback_margin):
            return BACK
        return EAT

    def _turn(
        self, obs: dict[str, Any], me: dict[str, Any], room: int, legal: list[Action]
    ) -> Action:
        odds = dose_odds(obs)
        best_action = -1
        best_key = (2.0, 9.0)
        for action in legal:
            if DRAW_BASE <= action < DRAW_BASE + KINDS:
                kind_odds = odds[action - DRAW_BASE]
                risk = lethal_chance(kind_odds, room)
                mean = sum(d * p for d, p in enumerate(kind_odds))
                key = (risk, mean)
            elif action >= MARKED_BASE:
                marked = obs["box"]["marked"][action - MARKED_BASE]
                if marked["dose"] is None:
                    # Someone chose not to eat it: assume the worst.
                    key = (1.0, 3.0)
                else:
                    key = (float(marked["dose"] >= room), float(marked["dose"]) - 0.5)
            else:
                continue
            if key < best_key:
                best_key, best_action = key, action
        if STOP in legal and self._should_stop(obs, me, best_key[0]):
            return STOP
        return best_action

    def _should_stop(self, obs: dict[str, Any], me: dict[str, Any], risk: float) -> bool:
        if me["cubes"] > 0 and risk < 1.0:
            # A deadly dose can still be put back: drawing costs at most a cube.
            return False
        mine: int = me["scones"]
        rivals = [s["scones"] for q, s in enumerate(obs["seats"]) if q != self.seat and s["alive"]]
        if not rivals:
            # Alone (or the last alive): draw while the expected gain beats the risk.
            return risk * (mine + 1) > 1.0
        leading = mine > max(rivals)
        return risk > (0.12 if leading else 0.35)


register_bot(
    "tea-scones-arsenic",
    "rules",
    RuleBot,
    "draws the safest scone, puts heavy doses back while cubes last, stops in time",
    quick=True,
)
