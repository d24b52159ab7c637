"""In Vino Morte as a JAX program: one game's step and observation, which
:class:`~apothecary.batch.jax.core.JaxBatchGame` lays over the batch.

The rules are the numpy engine's (:mod:`apothecary.games.in_vino_morte.batch`),
whose tables it takes and whose element-wise rules (:func:`drink_kills`,
:func:`reveal_kills`) it calls on JAX arrays: the same functions, so a rule
changed there changes both backends. What differs is only the layout: the
numpy engine updates the rows of the batch in each phase in place; here a
step computes the deal and the turn for the one game and keeps the one its
phase calls for. Every option is played, 2 to 9 players.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from apothecary.batch.core import TERMINAL_PLAYER
from apothecary.batch.jax.core import JaxBatchGame, first_max, pick, put, replace
from apothecary.games.in_vino_morte.batch import (
    InVinoMorteBatch,
    InVinoMorteBatchState,
    drink_kills,
    reveal_kills,
)
from apothecary.games.in_vino_morte.rules import (
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
)

State = InVinoMorteBatchState
Array = Any
"""A JAX array (or tracer). The state classes type their fields as numpy
arrays, which under the JAX backend hold JAX arrays: the shared classes are
what keeps the two backends' states field for field alike, so here the
fields' static type is left open."""


class InVinoMorteJax(JaxBatchGame[InVinoMorteBatchState]):
    """In Vino Morte under ``jax.jit``/``vmap``: every option, 2 to 9 players."""

    engine: InVinoMorteBatch
    game: InVinoMorteGame

    def __init__(self, engine: InVinoMorteBatch) -> None:
        super().__init__(engine)
        game = engine.game
        self._cheese = bool(game.cheese)
        self._on_reveal = bool(game.cheese_on_reveal)
        self._round_limit = int(game.round_limit or 0)
        self._deck_wine, self._deck_poison = int(game.deck_wine), int(game.deck_poison)

    # -- a step -----------------------------------------------------------------------

    def _advance_one(self, s: State, a: Array, chance: Array) -> State:
        e, n = self.engine, self.num_players
        seats = jnp.arange(n)
        me = pick(s.order, s.step)
        deal = s.phase == DEAL_PHASE
        # The deal: a glass (and maybe Cheese) to the deal order's next seat.
        kind = (a & 1).astype(jnp.int8)
        dealt_card = put(s.card, me, kind)
        dealt_cheese = put(s.cheese, me, a >= DEAL_WINE_CHEESE)
        next_step = s.step + 1
        dealt = next_step == s.order_len
        # The turn: drink, swap or steal.
        k = s.step
        drink = a == DRINK
        mine = pick(s.card, me)
        died = drink & drink_kills(mine, pick(s.cheese, me))
        swap = (a >= SWAP_BASE) & (a < e.steal_base)
        steal = a >= e.steal_base
        other = jnp.where(swap, a - SWAP_BASE, jnp.where(steal, a - e.steal_base, me))
        swapped = put(put(s.card, me, pick(s.card, other)), other, mine)
        stolen = put(put(s.cheese, other, False), me, True)
        turn = replace(
            s,
            turn_action=put(s.turn_action, k, a),
            drunk=s.drunk | (drink & (seats == me)),
            alive=s.alive & ~(died & (seats == me)),
            turn_result=jnp.where(drink, put(s.turn_result, k, mine * 2 + died), s.turn_result),
            card=jnp.where(swap, swapped, s.card),
            cheese=jnp.where(steal, stolen, s.cheese),
            step=k + 1,
        )
        # The dealer takes no turn: the round ends after its len - 1 turns.
        turn = self._end_round(turn, k == s.order_len - 2)
        dealt_state = replace(
            s,
            card=dealt_card,
            cheese=dealt_cheese,
            wine_dealt=s.wine_dealt + (kind == WINE),
            poison_dealt=s.poison_dealt + kind,
            phase=jnp.where(dealt, TURN_PHASE, DEAL_PHASE),
            step=jnp.where(dealt, 0, next_step),
            rewards=jnp.zeros_like(s.rewards),
        )
        chosen = jax.tree_util.tree_map(lambda d, t: jnp.where(deal, d, t), dealt_state, turn)
        return self._refresh(chosen)

    def _end_round(self, s: State, ends: Array) -> State:
        """The round's reveal, the game's end or the next round, where ``ends``
        (else ``s`` with zero rewards)."""
        in_round, card, cheese = s.in_round, s.card, s.cheese
        revealed = in_round & ~s.drunk
        alive = s.alive & ~(revealed & reveal_kills(card, cheese, self._on_reveal))
        survivors = in_round & alive
        count = survivors.sum()
        over = (count <= 1) | (s.round == self._round_limit)
        winners = jnp.where(count == 0, in_round, survivors)
        rewards = jnp.where(over, winners / jnp.maximum(winners.sum(), 1), 0.0)
        # The next dealer: the first living seat counter-clockwise from the dealer.
        around = pick(jnp.asarray(self.engine._counter_clockwise), s.dealer)
        dealer = pick(around, first_max(self._gather(alive, around)))
        revealed_state = replace(
            s,
            alive=alive,
            last_round=s.round,
            last_dealer=s.dealer,
            last_card=card,
            last_cheese=cheese,
            last_revealed=revealed,
            last_died=in_round & ~alive,
            winners=jnp.where(over, winners, s.winners),
            rewards=rewards,
            phase=jnp.where(over, OVER_PHASE, s.phase),
        )
        going = self._begin_round(revealed_state, dealer)
        after = jax.tree_util.tree_map(lambda o, g: jnp.where(over, o, g), revealed_state, going)
        unchanged = replace(s, rewards=jnp.zeros_like(s.rewards))
        ended: State = jax.tree_util.tree_map(lambda x, y: jnp.where(ends, x, y), after, unchanged)
        return ended

    def _begin_round(self, s: State, dealer: Array) -> State:
        """The next round with this dealer (the numpy engine's ``_begin_round``)."""
        clockwise = pick(jnp.asarray(self.engine._clockwise), dealer)
        living = self._gather(s.alive, clockwise)
        # A stable sort of the dead to the end keeps the clockwise order: the
        # living by their rank among the living, then the dead by theirs.
        count = living.sum()
        # (associative_scan, not cumsum: XLA's CPU cumsum is a slow reduce-window.)
        ahead = jax.lax.associative_scan(jnp.add, living.astype(jnp.int32))
        rank = jnp.where(living, ahead - 1, count + jnp.arange(self.num_players) - ahead)
        at = rank[None, :] == jnp.arange(self.num_players)[:, None]  # [place, i]
        order = jnp.sum(jnp.where(at, clockwise[None, :], 0), axis=1)
        return replace(
            s,
            round=s.round + 1,
            dealer=dealer,
            phase=DEAL_PHASE,
            order=order,
            order_len=count,
            in_round=s.alive,
            step=0,
            card=jnp.full_like(s.card, NO_CARD),
            cheese=jnp.zeros_like(s.cheese),
            drunk=jnp.zeros_like(s.drunk),
            wine_dealt=0,
            poison_dealt=0,
            turn_action=jnp.full_like(s.turn_action, -1),
            turn_result=jnp.zeros_like(s.turn_result),
        )

    def _gather(self, vector: Array, index: Array) -> Array:
        """``vector[index]`` for a seat vector and a seat permutation, as selects."""
        n = self.num_players
        hit = index[:, None] == jnp.arange(n)[None, :]
        return jnp.any(hit & vector[None, :], axis=1)

    def _refresh(self, s: State) -> State:
        """Current player, terminated and the legal mask (the numpy ``_refresh``)."""
        e, n = self.engine, self.num_players
        phase = s.phase
        me = pick(s.order, s.step)
        deal, turn = phase == DEAL_PHASE, phase == TURN_PHASE
        left = s.order_len - s.step - 1
        wine, poison = s.wine_dealt, s.poison_dealt
        wine_ok = deal & self._deal_can_finish(wine + 1, poison, left)
        poison_ok = deal & self._deal_can_finish(wine, poison + 1, left)
        # The action ids: two deals, two deals with Cheese, drink, a swap per
        # seat, a steal per seat (the Cheese ones never legal without Cheese).
        more = self._cheese & (s.cheese.sum() < pick(jnp.asarray(e._cheese_limit), s.order_len))
        parts = [jnp.stack([wine_ok, poison_ok, wine_ok & more, poison_ok & more, turn])]
        seats = jnp.arange(n)
        # Swap with any other seat whose glass is poured and not drunk.
        parts.append(turn & (s.card != NO_CARD) & ~s.drunk & (seats != me))
        parts.append(self._cheese & turn & ~pick(s.cheese, me) & s.cheese & s.alive)
        mask = jnp.concatenate(parts)
        return replace(
            s,
            current_player=jnp.where(deal, s.dealer, jnp.where(turn, me, TERMINAL_PLAYER)),
            terminated=phase == OVER_PHASE,
            legal_action_mask=mask,
        )

    def _deal_can_finish(self, wine: Array, poison: Array, left: Array) -> Array:
        """The scalar ``deal_can_finish``."""
        low = jnp.maximum(jnp.maximum(0, 1 - wine), poison + left - self._deck_poison)
        high = jnp.minimum(jnp.minimum(left, self._deck_wine - wine), poison + left - 1)
        return low <= high

    # -- what each seat sees ------------------------------------------------------------

    def _observe_one(self, s: State) -> Array:
        """(P, size): each seat's scalar ``observation_tensor`` (the numpy
        ``_observe``'s blocks, for one game)."""
        e, n = self.engine, self.num_players
        seats = jnp.arange(n)
        live = s.phase != OVER_PHASE
        dealt = live & (s.card != NO_CARD)
        # The k-th turn is the deal order's k-th seat's.
        took = s.turn_action >= 0
        taken = jnp.any((s.order[: n - 1, None] == seats[None, :]) & took[:, None], axis=0)
        is_dealer = seats == s.dealer
        # planes[viewer, seat, plane]
        common = jnp.stack(
            [
                s.alive,
                live & s.in_round,
                is_dealer,
                dealt,
                live & s.drunk,
                dealt,
                dealt,
                live & s.cheese,
                taken,
                dealt,
                seats == s.current_player,
            ],
            axis=-1,
        ).astype(jnp.float32)
        planes = jnp.broadcast_to(common[None], (n, n, _SEAT_PLANES))
        # The dealer sees every glass; anyone sees a drunk one.
        visible = dealt[None, :] & (is_dealer[:, None] | s.drunk[None, :])
        planes = planes.at[..., 5].set(visible & (s.card == WINE)[None, :])
        planes = planes.at[..., 6].set(visible & (s.card == POISON)[None, :])
        planes = planes.at[..., 9].set(jnp.eye(n, dtype=jnp.float32))
        game = self.game
        table = jnp.concatenate(
            [
                jnp.stack([s.phase == p for p in (DEAL_PHASE, TURN_PHASE, OVER_PHASE)]).astype(
                    jnp.float32
                ),
                jnp.stack(
                    [
                        (s.round / e._scale).astype(jnp.float32),
                        (pick(jnp.asarray(e._cheese_limit), s.order_len) / 3.0).astype(jnp.float32),
                    ]
                ),
                jnp.array(
                    [
                        game.deck_wine / 9.0,
                        game.deck_poison / 9.0,
                        game.cheese,
                        game.cheese_on_reveal,
                    ],
                    dtype=jnp.float32,
                ),
            ]
        )
        act, result = s.turn_action, s.turn_result
        drink = act == DRINK
        swap = (act >= SWAP_BASE) & (act < e.steal_base)
        steal = act >= e.steal_base
        target = jnp.where(swap, act - SWAP_BASE, jnp.where(steal, act - e.steal_base, -1))
        turns = jnp.concatenate(
            [
                jnp.stack(
                    [
                        drink,
                        swap,
                        steal,
                        drink & (result >> 1 == WINE),
                        drink & (result >> 1 == POISON),
                        drink & (result & 1 == 1),
                    ],
                    axis=-1,
                ),
                target[:, None] == seats[None, :],
            ],
            axis=-1,
        ).astype(jnp.float32)
        last_seats = jnp.stack(
            [
                seats == s.last_dealer,
                s.last_card == WINE,
                s.last_card == POISON,
                s.last_cheese,
                s.last_revealed,
                s.last_died,
            ],
            axis=-1,
        ).astype(jnp.float32)
        last = jnp.concatenate(
            [
                jnp.stack([s.last_round > 0, s.last_round / e._scale]).astype(jnp.float32),
                last_seats.reshape(-1),
            ]
        )
        winners = (~live & s.winners).astype(jnp.float32)
        shared = jnp.concatenate([table, turns.reshape(-1), last, winners])
        assert shared.shape[0] + _SEAT_PLANES * n == self.observation_tensor_size()
        assert table.shape[0] == _TABLE_NUMBERS and turns.shape[-1] == _TURN_NUMBERS + n
        return jnp.concatenate(
            [planes.reshape(n, n * _SEAT_PLANES), jnp.broadcast_to(shared, (n, shared.shape[0]))],
            axis=1,
        )


def make(engine: Any) -> InVinoMorteJax:
    """The JAX program of a numpy In Vino Morte engine."""
    return InVinoMorteJax(engine)
