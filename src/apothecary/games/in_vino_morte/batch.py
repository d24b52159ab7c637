"""In Vino Morte as an array program over a batch of games.

The rules are the scalar engine's (:mod:`apothecary.games.in_vino_morte.rules`,
its rules.md); this module only lays them out over arrays. A game has no
chance, so a step is one decision: a deal (to the deal order's next seat),
or a turn (drink, swap, steal). Every option is played: both decks, Cheese,
Cheese on the reveal or not, any round limit, 2 to 9 players.

Arrays per game are indexed by seat (``P`` = players); the deal order of a
round is ``order[:order_len]`` (the living seats clockwise from the dealer's
left, the dealer last), and the k-th turn of a round is its k-th seat's.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from apothecary.batch.core import TERMINAL_PLAYER, BatchGame, BatchState, fresh_common
from apothecary.batch.keys import U64
from apothecary.games.in_vino_morte.rules import (
    _ROUND_SCALE,
    _SEAT_PLANES,
    _TABLE_NUMBERS,
    _TURN_NUMBERS,
    DEAL_PHASE,
    DEAL_WINE_CHEESE,
    DRINK,
    NO_CARD,
    OVER_PHASE,
    POISON,
    SWAP_BASE,
    TURN_PHASE,
    WINE,
    InVinoMorteGame,
    cheese_limit,
)

Bools = NDArray[np.bool_]
Ints = NDArray[np.int8]


@dataclasses.dataclass(frozen=True)
class InVinoMorteBatchState(BatchState):
    """N games of In Vino Morte (the fields the scalar state has, as arrays)."""

    alive: Bools
    """(n, P) the seat is alive."""
    round: NDArray[np.int32]
    """(n,) the round's number, 1 first."""
    dealer: Ints
    """(n,) the round's dealer (the last round's once the game is over)."""
    phase: Ints
    """(n,) deal, turns or over (the scalar engine's phase numbers)."""
    order: Ints
    """(n, P) the deal order in its first ``order_len`` entries."""
    order_len: Ints
    """(n,) how many seats the round has."""
    in_round: Bools
    """(n, P) the seat is in this round (alive when it started)."""
    step: Ints
    """(n,) the next deal's or turn's index in the deal order."""
    card: Ints
    """(n, P) the glass at each seat: Wine 0, Poison 1, none -1."""
    cheese: Bools
    """(n, P) the seat holds Cheese."""
    drunk: Bools
    """(n, P) the seat has drunk this round."""
    wine_dealt: Ints
    """(n,) Wines poured this round."""
    poison_dealt: Ints
    """(n,) Poisons poured this round."""
    turn_action: Ints
    """(n, P - 1) the action of each turn taken this round, -1 for none yet."""
    turn_result: Ints
    """(n, P - 1) for a drink: the glass * 2 + whether the drinker died."""
    last_round: NDArray[np.int32]
    """(n,) the number of the last round revealed, 0 before the first reveal."""
    last_dealer: Ints
    """(n,) that round's dealer (-1 before)."""
    last_card: Ints
    """(n, P) that round's glasses at its reveal."""
    last_cheese: Bools
    """(n, P) who held Cheese at that reveal."""
    last_revealed: Bools
    """(n, P) who revealed (had not drunk)."""
    last_died: Bools
    """(n, P) who died in that round."""
    winners: Bools
    """(n, P) the winners, once the game is over."""


def drink_kills(card: Ints, cheese: Bools) -> Bools:
    """Whether a drink kills: Poison does, and Cheese reverses the result."""
    killed: Bools = (card == POISON) != cheese
    return killed


def reveal_kills(card: Ints, cheese: Bools, cheese_on_reveal: bool) -> Bools:
    """Whether a glass revealed at the round's end kills: as a drink when
    Cheese reverses the reveal, else Poison kills whatever the Cheese."""
    if cheese_on_reveal:
        return drink_kills(card, cheese)
    killed: Bools = card == POISON
    return killed


class InVinoMorteBatch(BatchGame[InVinoMorteBatchState]):
    """In Vino Morte over a batch: every option, 2 to 9 players."""

    name: ClassVar[str] = "in-vino-morte"
    game: InVinoMorteGame

    def __init__(self, game: InVinoMorteGame) -> None:
        super().__init__(game)
        n = self.num_players
        self.steal_base = game.steal_base
        # The scalar game's seat tables, as arrays to index with a dealer per game.
        self._clockwise = np.array(game.clockwise_from_left, dtype=np.int8)
        self._counter_clockwise = np.array(game.counter_clockwise, dtype=np.int8)
        self._cheese_limit = np.array(
            [cheese_limit(m) if game.cheese else 0 for m in range(n + 1)], dtype=np.int8
        )
        self._scale = float(game.round_limit or _ROUND_SCALE)
        self._seats = np.arange(n, dtype=np.int8)

    # -- new games and rounds ------------------------------------------------------

    def _start(
        self, key: U64, episode: NDArray[np.int64], chance: NDArray[np.int64] | None = None
    ) -> InVinoMorteBatchState:
        count, n = key.shape[0], self.num_players

        def flags(fill: bool) -> Bools:
            return np.full((count, n), fill, dtype=np.bool_)

        def seats(fill: int) -> Ints:
            return np.full((count, n), fill, dtype=np.int8)

        state = InVinoMorteBatchState(
            **fresh_common(key, episode, n, self.num_distinct_actions()),
            alive=flags(True),
            round=np.zeros(count, dtype=np.int32),
            dealer=np.zeros(count, dtype=np.int8),
            phase=np.zeros(count, dtype=np.int8),
            order=seats(0),
            order_len=np.zeros(count, dtype=np.int8),
            in_round=flags(False),
            step=np.zeros(count, dtype=np.int8),
            card=seats(NO_CARD),
            cheese=flags(False),
            drunk=flags(False),
            wine_dealt=np.zeros(count, dtype=np.int8),
            poison_dealt=np.zeros(count, dtype=np.int8),
            turn_action=np.full((count, n - 1), -1, dtype=np.int8),
            turn_result=np.zeros((count, n - 1), dtype=np.int8),
            last_round=np.zeros(count, dtype=np.int32),
            last_dealer=np.full(count, -1, dtype=np.int8),
            last_card=seats(NO_CARD),
            last_cheese=flags(False),
            last_revealed=flags(False),
            last_died=flags(False),
            winners=flags(False),
        )
        self._begin_round(state, np.arange(count), np.zeros(count, dtype=np.int8))
        self._refresh(state)
        return state

    def _begin_round(self, s: InVinoMorteBatchState, rows: NDArray[np.intp], dealer: Ints) -> None:
        """Start the next round of games ``rows`` with these dealers (the scalar
        engine's ``_start_round``)."""
        s.round[rows] += 1
        s.dealer[rows] = dealer
        s.phase[rows] = DEAL_PHASE
        # The living seats clockwise from the dealer's left, the dealer last:
        # a stable sort of the dead to the end keeps the clockwise order.
        clockwise = self._clockwise[dealer]
        living = np.take_along_axis(s.alive[rows], clockwise, axis=1)
        first = np.argsort(~living, axis=1, kind="stable")
        s.order[rows] = np.take_along_axis(clockwise, first, axis=1)
        s.order_len[rows] = living.sum(axis=1)
        s.in_round[rows] = s.alive[rows]
        s.step[rows] = 0
        s.card[rows] = NO_CARD
        s.cheese[rows] = False
        s.drunk[rows] = False
        s.wine_dealt[rows] = 0
        s.poison_dealt[rows] = 0
        s.turn_action[rows] = -1
        s.turn_result[rows] = 0

    # -- a step ---------------------------------------------------------------------

    def _advance(
        self,
        state: InVinoMorteBatchState,
        actions: NDArray[np.int64],
        chance: NDArray[np.int64] | None,
    ) -> None:
        s = state
        s.rewards[...] = 0.0
        # Both sets are taken before either moves: a deal that completes the
        # round's glasses starts its turns only on the next step.
        deal = np.flatnonzero(s.phase == DEAL_PHASE)
        turn = np.flatnonzero(s.phase == TURN_PHASE)
        seat = s.order[np.arange(s.size), s.step]
        self._deal(s, deal, actions[deal], seat[deal])
        self._turn(s, turn, actions[turn], seat[turn])
        self._refresh(s)

    def _deal(
        self, s: InVinoMorteBatchState, rows: NDArray[np.intp], a: NDArray[np.int64], seat: Ints
    ) -> None:
        kind = (a & 1).astype(np.int8)
        s.card[rows, seat] = kind
        s.cheese[rows, seat] = a >= DEAL_WINE_CHEESE
        s.wine_dealt[rows] += kind == WINE
        s.poison_dealt[rows] += kind
        step = s.step[rows] + 1
        dealt = step == s.order_len[rows]
        s.phase[rows[dealt]] = TURN_PHASE
        s.step[rows] = np.where(dealt, 0, step)

    def _turn(
        self, s: InVinoMorteBatchState, rows: NDArray[np.intp], a: NDArray[np.int64], me: Ints
    ) -> None:
        k = s.step[rows]
        s.turn_action[rows, k] = a
        drink = a == DRINK
        r, m = rows[drink], me[drink]
        s.drunk[r, m] = True
        card = s.card[r, m]
        died = drink_kills(card, s.cheese[r, m])
        s.alive[r, m] &= ~died
        s.turn_result[r, k[drink]] = card * 2 + died
        swap = (a >= SWAP_BASE) & (a < self.steal_base)
        r, m, other = rows[swap], me[swap], a[swap] - SWAP_BASE
        mine = s.card[r, m]
        s.card[r, m] = s.card[r, other]
        s.card[r, other] = mine
        steal = a >= self.steal_base
        r, m, other = rows[steal], me[steal], a[steal] - self.steal_base
        s.cheese[r, other] = False
        s.cheese[r, m] = True
        s.step[rows] = k + 1
        # The dealer takes no turn: the round ends after its len - 1 turns.
        self._end_round(s, rows[k == s.order_len[rows] - 2])

    def _end_round(self, s: InVinoMorteBatchState, rows: NDArray[np.intp]) -> None:
        """Everyone in the round who has not drunk reveals; then the game ends
        or the next dealer deals (the scalar engine's ``_end_round``)."""
        if rows.size == 0:
            return
        in_round, card, cheese = s.in_round[rows], s.card[rows], s.cheese[rows]
        revealed = in_round & ~s.drunk[rows]
        alive = s.alive[rows] & ~(revealed & reveal_kills(card, cheese, self.game.cheese_on_reveal))
        s.alive[rows] = alive
        s.last_round[rows] = s.round[rows]
        s.last_dealer[rows] = s.dealer[rows]
        s.last_card[rows] = card
        s.last_cheese[rows] = cheese
        s.last_revealed[rows] = revealed
        s.last_died[rows] = in_round & ~alive
        survivors = in_round & alive
        count = survivors.sum(axis=1)
        over = (count <= 1) | (s.round[rows] == self.game.round_limit)
        # One survivor wins; none: those who died together share; at the
        # round limit the survivors share.
        winners = np.where((count == 0)[:, None], in_round, survivors)[over]
        done = rows[over]
        s.winners[done] = winners
        s.rewards[done] = winners / winners.sum(axis=1, keepdims=True)
        s.phase[done] = OVER_PHASE
        going = rows[~over]
        # The next dealer: the first living seat counter-clockwise from the dealer.
        around = self._counter_clockwise[s.dealer[going]]
        first = np.argmax(np.take_along_axis(s.alive[going], around, axis=1), axis=1)
        self._begin_round(s, going, around[np.arange(going.size), first])

    def _refresh(self, s: InVinoMorteBatchState) -> None:
        """The fields a learner reads: current player, terminated, legal mask."""
        every = np.arange(s.size)
        phase = s.phase
        me = s.order[every, s.step]
        s.current_player[...] = np.where(
            phase == DEAL_PHASE, s.dealer, np.where(phase == TURN_PHASE, me, TERMINAL_PLAYER)
        )
        s.terminated[...] = phase == OVER_PHASE
        mask = s.legal_action_mask
        mask[...] = False
        deal = phase == DEAL_PHASE
        left = s.order_len - s.step - 1
        wine, poison = s.wine_dealt, s.poison_dealt
        wine_ok = deal & self._deal_can_finish(wine + 1, poison, left)
        poison_ok = deal & self._deal_can_finish(wine, poison + 1, left)
        mask[:, 0], mask[:, 1] = wine_ok, poison_ok
        if self.game.cheese:
            more = s.cheese.sum(axis=1) < self._cheese_limit[s.order_len]
            mask[:, 2], mask[:, 3] = wine_ok & more, poison_ok & more
        turn = phase == TURN_PHASE
        n = self.num_players
        mask[:, DRINK] = turn
        # Swap with any other seat whose glass is poured and not drunk.
        swaps = mask[:, SWAP_BASE : SWAP_BASE + n]
        swaps[...] = turn[:, None] & (s.card != NO_CARD) & ~s.drunk
        swaps[every, me] = False
        if self.game.cheese:
            thief = turn & ~s.cheese[every, me]
            mask[:, self.steal_base :] = thief[:, None] & s.cheese & s.alive

    def _deal_can_finish(self, wine: Ints, poison: Ints, left: Ints) -> Bools:
        """The scalar ``deal_can_finish``, element-wise."""
        game = self.game
        low = np.maximum(np.maximum(0, 1 - wine), poison + left - game.deck_poison)
        high = np.minimum(np.minimum(left, game.deck_wine - wine), poison + left - 1)
        fits: Bools = low <= high
        return fits

    # -- what each seat sees -----------------------------------------------------------

    def _observe(self, state: InVinoMorteBatchState, out: NDArray[np.float32]) -> None:
        """(n, P, size): each seat's scalar ``observation_tensor``, block for
        block (see :meth:`InVinoMorteState.observation_tensor
        <apothecary.games.in_vino_morte.rules.InVinoMorteState.observation_tensor>`)."""
        s = state
        n, count = self.num_players, s.size
        at = _SEAT_PLANES * n
        planes = out[:, :, :at].reshape(count, n, n, _SEAT_PLANES)
        assert np.shares_memory(planes, out)  # a view: the planes are written into out
        self._seat_planes(s, planes)
        out[:, :, at : at + _TABLE_NUMBERS] = self._table(s)[:, None, :]
        at += _TABLE_NUMBERS
        width = (n - 1) * (_TURN_NUMBERS + n)
        out[:, :, at : at + width] = self._turns(s).reshape(count, 1, width)
        at += width
        out[:, :, at : at + 2 + 6 * n] = self._last_round(s)[:, None, :]
        at += 2 + 6 * n
        over = s.phase == OVER_PHASE
        out[:, :, at:] = (over[:, None] & s.winners)[:, None, :]

    def _seat_planes(self, s: InVinoMorteBatchState, planes: NDArray[np.float32]) -> None:
        """Fill ``planes`` (n, viewer, seat, 11), the per-seat block as each
        viewer sees it, in place (a view of the observation)."""
        n, count = self.num_players, s.size
        live = (s.phase != OVER_PHASE)[:, None]
        dealt = live & (s.card != NO_CARD)
        taken = np.zeros((count, n), dtype=np.bool_)
        every = np.arange(count)
        for k in range(n - 1):  # the k-th turn is the deal order's k-th seat's
            taken[every, s.order[:, k]] |= s.turn_action[:, k] >= 0
        # The planes every viewer sees alike, built once per game (small and
        # contiguous) and copied to each viewer in one pass; then the three
        # that depend on the viewer. Eleven strided passes over the output
        # cost twice as much at 9 players.
        common = np.stack(
            [
                s.alive,
                live & s.in_round,
                self._seats == s.dealer[:, None],
                dealt,
                live & s.drunk,
                dealt,  # Wine seen: per viewer, below
                dealt,  # Poison seen: per viewer, below
                live & s.cheese,
                taken,
                dealt,  # is the viewer: below
                self._seats == s.current_player[:, None],
            ],
            axis=-1,
        )
        planes[...] = common[:, None]
        # The dealer sees every glass; anyone sees a drunk one.
        sees = (self._seats == s.dealer[:, None])[:, :, None]
        visible = dealt[:, None, :] & (sees | s.drunk[:, None, :])
        planes[..., 5] = visible & (s.card == WINE)[:, None, :]
        planes[..., 6] = visible & (s.card == POISON)[:, None, :]
        planes[..., 9] = np.eye(n, dtype=np.float32)

    def _table(self, s: InVinoMorteBatchState) -> NDArray[np.float32]:
        """(n, 9): phase, round, Cheese limit, deck and the Cheese options."""
        game = self.game
        table = np.empty((s.size, _TABLE_NUMBERS), dtype=np.float32)
        for phase in (DEAL_PHASE, TURN_PHASE, OVER_PHASE):
            table[:, phase] = s.phase == phase
        table[:, 3] = s.round / self._scale
        table[:, 4] = self._cheese_limit[s.order_len] / 3.0
        table[:, 5:] = [
            game.deck_wine / 9.0,
            game.deck_poison / 9.0,
            game.cheese,
            game.cheese_on_reveal,
        ]
        return table

    def _turns(self, s: InVinoMorteBatchState) -> NDArray[np.float32]:
        """(n, P - 1, 6 + P): per turn, drink/swap/steal, what a drink showed
        and did, and the seat swapped with or stolen from."""
        n = self.num_players
        act, result = s.turn_action, s.turn_result
        drink = act == DRINK
        swap = (act >= SWAP_BASE) & (act < self.steal_base)
        steal = act >= self.steal_base
        target = np.where(swap, act - SWAP_BASE, np.where(steal, act - self.steal_base, -1))
        turns = np.zeros((*act.shape, _TURN_NUMBERS + n), dtype=np.float32)
        turns[..., 0], turns[..., 1], turns[..., 2] = drink, swap, steal
        turns[..., 3] = drink & (result >> 1 == WINE)
        turns[..., 4] = drink & (result >> 1 == POISON)
        turns[..., 5] = drink & (result & 1 == 1)
        turns[..., _TURN_NUMBERS:] = target[..., None] == self._seats
        return turns

    def _last_round(self, s: InVinoMorteBatchState) -> NDArray[np.float32]:
        """(n, 2 + 6P): the last reveal's number and, per seat, its dealer,
        glass, Cheese, who revealed and who died."""
        n = self.num_players
        last = np.zeros((s.size, 2 + 6 * n), dtype=np.float32)
        last[:, 0] = s.last_round > 0
        last[:, 1] = s.last_round / self._scale
        seats = np.stack(
            [
                self._seats == s.last_dealer[:, None],
                s.last_card == WINE,
                s.last_card == POISON,
                s.last_cheese,
                s.last_revealed,
                s.last_died,
            ],
            axis=-1,
        )
        last[:, 2:] = seats.reshape(s.size, 6 * n)
        return last
