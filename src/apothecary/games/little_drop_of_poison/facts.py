"""Little Drop of Poison: the facts the rules, the redeal of unseen cards and the
events all read (characters, phases, the log's entry kinds, the scoring table, a
reveal), in one module that imports none of them, so that none of them imports
another in a circle. The cards themselves are in :mod:`.deck`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

RAT, WEASEL = 0, 1
KINDS: tuple[str, ...] = ("rat", "weasel")
"""Peasant and king kinds, by index."""

PEASANT_DECK = (4, 4)
"""Rats and weasels in the peasant deck."""

PEASANT_LETHAL = 3
"""Drops of one colour that kill a peasant."""

KING_PHASE, PEASANT_PHASE, DEAL_PHASE, PLAY_PHASE, OVER_PHASE = range(5)
PHASE_NAMES: tuple[str, ...] = ("king", "peasants", "deal", "play", "over")

# Log entries: ``(kind, seat, value)``, the public and private events in order
# (see LittleDropOfPoisonState.information_state_string). Action entries come
# one per action of the history, in order; the others are what actions set off.
E_KING, E_PEASANT, E_DEAL, E_TARGET, E_CARD, E_DONE, E_PASS = range(7)
E_REVEAL, E_REFILL, E_ROUND_END = 7, 8, 9
ACTION_ENTRIES = 7
"""Entry kinds below this are actions of the history."""


def king_lethal(players: int) -> int:
    """Drops of one colour that kill the king: 5 (3-4 players), 6 (5), 7 (6), 8 (7-8)."""
    return {3: 5, 4: 5, 5: 6, 6: 7}.get(players, 8)


def kill_points(killer_kind: int, victim_kind: int, king: bool) -> int:
    """The rulebook's table: a king is worth 3 (other kind) or 2 (own kind), a
    peasant 1 (other kind) or 0 (own kind, oneself included)."""
    if king:
        return 2 if killer_kind == victim_kind else 3
    return 0 if killer_kind == victim_kind else 1


class Reveal(NamedTuple):
    """What one reveal made public: the plays, the deaths, the points.

    A named tuple rather than a frozen dataclass: one is made at every reveal,
    and a tuple is made several times faster.
    """

    assassination_round: int
    poison_round: int
    plays: tuple[tuple[int, int, tuple[int, ...]], ...]
    """``(seat, character, cards per type)`` in turn order; character ``N`` is the king."""
    deaths: tuple[tuple[int, tuple[int, ...]], ...]
    """``(character, killers)`` for each character that died, by character; the
    killers in turn order."""
    points: tuple[int, ...]
    """Points gained per seat."""
    hands: tuple[tuple[int, tuple[int, ...]], ...]
    """``(seat, cards per type)``: the hands of killed players, discarded face-up."""


Stretches = tuple["Stretches | None", str]
"""A seat's information state up to a reveal, as a linked list of its stretches
between reveals: ``(the stretches before, the text of the last one)``."""


class TensorStretch(NamedTuple):
    """A seat's information-state tensor up to a reveal, as a linked list of its
    stretches between reveals: each the nonzero entries it wrote (every index
    once), and where the scan of the log stands after it."""

    before: TensorStretch | None
    """The stretches before this one."""
    indices: Any
    """Where this stretch's nonzero entries are (a NumPy integer array)."""
    values: Any
    """Their values (a NumPy float64 array, the exact numbers of the list form)."""
    clears: bool
    """Whether the last slot was cleared for reuse in this stretch (past the
    last slot): the entries of every stretch before it there are void."""
    slot: int
    """The slot the stretch's last poison round filled."""
    poison_round: int
    """That poison round's number in its assassination round."""
    stretches: int
    """How many stretches there are up to this one, this one included."""
    joined: tuple[Any, Any] | None
    """On every 16th stretch, the entries of this one and all before it,
    joined (indices and values, every index once), so that a call joins a few
    stretches, not one per poison round of the game."""


class RevealTexts:
    """Texts made from one reveal when first asked for, kept with its log entry
    (log entries are shared by clones and never change, so neither do these)."""

    __slots__ = ("line", "seats", "tensors")

    def __init__(
        self,
        line: str | None = None,
        seats: dict[int, Stretches] | None = None,
        tensors: dict[tuple[int, int], TensorStretch] | None = None,
    ) -> None:
        self.line = line
        """The reveal as one line of the information state (the same for every seat)."""
        self.seats: dict[int, Stretches] = {} if seats is None else seats
        """Per seat, its information state up to and including this reveal."""
        self.tensors: dict[tuple[int, int], TensorStretch] = {} if tensors is None else tensors
        """Per (seat, slots of the tensor), its information-state tensor up to and
        including this reveal (the slots are in the key since they follow
        ``INFOSTATE_LIMIT``, which a test may change)."""
