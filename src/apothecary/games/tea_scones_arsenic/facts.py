"""Tea, Scones and Arsenic: the facts the rules, the redraw of hidden doses and
the events all read (the box, the action ids, the phases), in one module that
imports none of them, so that none of them imports another in a circle.

:class:`Table` names the parts of a position that :mod:`.resample` reads, so
that it can be typed without importing :mod:`.rules`.
"""

from __future__ import annotations

from typing import Protocol

from apothecary.core.game import Action, Game

KINDS = 6
"""Kinds of scone in the box."""
DOSE_COUNTS = (2, 2, 1, 1)
"""How many scones of each kind carry dose 0, 1, 2 and 3."""
MAX_DOSE = 3
SCONES = KINDS * sum(DOSE_COUNTS)
"""36 scones in all."""
SUGAR_CUBES = 3
"""Sugar cubes each player starts with."""
LETHAL_DOSE = {1: 30, 2: 15, 3: 10, 4: 8, 5: 7, 6: 6}
"""The lethal dose by number of players at the start."""

DOSE_BASE = 0
STOP = 4
SHUFFLE = 5
DRAW_BASE = 6
EAT = 12
BACK = 13
BACK_SHUFFLE = 14
SPOON = 15
PASS = 16
MARKED_BASE = 17

# Phases of play.
TURN = 0  # start of a turn: stop, shuffle or draw
DOSE = 1  # chance: the dose of the scone just drawn by kind
DECIDE = 2  # the drawer saw the dose: eat or put back
SPOON_WINDOW = 3  # a spoon holder may send the scone back
OVER = 4

PHASE_NAMES = ("turn", "dose", "decide", "spoon", "over")

# One marked scone in the box: (kind, dose, put back by, seats that know its dose).
MarkedScone = tuple[int, int, int, int]
# One eaten scone: (eater, kind, dose, seats that know its dose).
EatenScone = tuple[int, int, int, int]


def longest_cup(lethal: int) -> int:
    """The most scones one cup can ever hold at this lethal dose: the lightest
    scones of the box below the lethal dose, plus the one that kills."""
    doses = sorted(d for d, count in enumerate(DOSE_COUNTS) for _ in range(count * KINDS))
    total = eaten = 0
    for dose in doses:
        if total + dose >= lethal:
            break
        total += dose
        eaten += 1
    return min(SCONES, eaten + 1)


class Table(Protocol):
    """The parts of a Tea, Scones and Arsenic position read outside its class."""

    game: Game
    phase: int
    turn_player: int
    hand_kind: int
    hand_dose: int
    main_game_over: bool
    eaten: tuple[EatenScone, ...]
    scones: tuple[int, ...]
    alive: tuple[int, ...]
    public_totals: tuple[int, ...]

    @property
    def lethal_dose(self) -> int:
        """The dose at which a player dies in this game."""
        ...

    def history(self) -> list[Action]:
        """The actions played so far."""
        ...

    def apply_action(self, action: Action | str) -> None:
        """Play one action."""
        ...
