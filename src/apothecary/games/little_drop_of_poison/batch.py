"""Little Drop of Poison as an array program over a batch of games.

The rules are the scalar engine's (:mod:`.rules`, its rules.md), laid out
over arrays of fixed shape: ``P`` seats, ``K = P + 1`` characters (the king
last), ``T`` card types and ``C`` colours. A batch step is one decision of
the seat to move (a target, a card, done or pass) and every chance event it
sets off: after the last turn of a poison round, the reveal and then the
next poison round's deals, or, when the assassination round ends, the next
one's king, peasants and deals (up to ``3P + 1`` events in one step). A new
game opens with those of its first assassination round. Every event is
drawn from the game's key with the scalar probabilities (a deal: a type
with probability its copies left over the deck's size; a peasant: a kind by
its share of the peasant deck; the king: 1/2 each), or taken from
``chance``: per game a column per event in the scalar order (king, peasants
by seat, then the deals), each the scalar chance action id, -1 to draw.

Every deck with a universal antidote and a colour of drops enough to kill a
peasant is played, at every player count and round limit. A deck without
either is refused: the scalar engine's "no kill left" rule then ends
assassination rounds early (one can end before any card is dealt, so a game
can end with no decision at all), which this engine does not implement.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from apothecary.batch.core import TERMINAL_PLAYER, BatchGame, BatchState, fresh_common
from apothecary.batch.keys import U64, choose_weighted, episode_key, uniform
from apothecary.core.errors import BadOptionError, IllegalActionError
from apothecary.games.little_drop_of_poison.facts import (
    OVER_PHASE,
    PEASANT_DECK,
    PHASE_NAMES,
    PLAY_PHASE,
    RAT,
    WEASEL,
)
from apothecary.games.little_drop_of_poison.rules import LittleDropOfPoisonGame

Small = NDArray[np.int8]
Count = NDArray[np.int16]
Flags = NDArray[np.bool_]
Ints = NDArray[np.int64]


@dataclasses.dataclass(frozen=True)
class LittleDropOfPoisonBatchState(BatchState):
    """N games of Little Drop of Poison: the scalar state's fields as arrays
    (``P`` seats, ``K = P + 1`` characters with the king last, ``T`` card types)."""

    scores: Count
    """(n, P) points so far."""
    round_points: Count
    """(n, P) points gained in this assassination round (the tie-break)."""
    assassination_round: Count
    """(n,) the assassination round, from 1."""
    poison_round: Count
    """(n,) the poison round of this assassination round, from 1."""
    start_seat: Small
    """(n,) the seat that starts this assassination round's poison rounds."""
    alive: Flags
    """(n, P) each seat's peasant lives."""
    kinds: Small
    """(n, P) each seat's peasant: rat 0, weasel 1."""
    king: Small
    """(n,) the king's kind."""
    king_alive: Flags
    """(n,) the king lives (always, while a seat is to move)."""
    peasants_left: Small
    """(n, 2) rats and weasels left in the peasant deck."""
    deck: Count
    """(n, T) cards left in the deck per type."""
    discard: Count
    """(n, T) the discard pile per type."""
    hands: Count
    """(n, P, T) each seat's hand per type."""
    table: Count
    """(n, K, T) the face-up cards on each character per type."""
    plays: Count
    """(n, P, T) the cards each seat has added face down this poison round."""
    play_target: Small
    """(n, P) the character each seat chose this poison round, or -1."""
    turn_order: Small
    """(n, P) the poison round's turn order (the living seats clockwise from
    the starting seat), its first ``turns`` entries."""
    turns: Small
    """(n,) how many seats have a turn this poison round."""
    turn_index: Small
    """(n,) whose turn it is, as a place in ``turn_order``."""
    turn_target: Small
    """(n,) the character the seat to move chose, or -1 before it chooses."""
    phase: Small
    """(n,) play or over (the scalar phase numbers; never a chance phase)."""
    player: Small
    """(n,) the seat to move (its last value once over)."""
    revealed: Flags
    """(n,) a reveal has happened in this game (the last_reveal fields below hold it)."""
    reveal_rounds: Count
    """(n, 2) the last reveal's assassination and poison round."""
    reveal_target: Small
    """(n, P) the character each seat played on in the last reveal, or -1."""
    reveal_plays: Count
    """(n, P, T) the cards each seat played in the last reveal."""
    reveal_dead: Flags
    """(n, K) the characters that died in the last reveal."""
    reveal_killers: Flags
    """(n, K, P) the seats credited with each death of the last reveal."""
    reveal_points: Count
    """(n, P) the points the last reveal gave each seat."""
    reveal_hands: Count
    """(n, P, T) the hands of the seats killed in the last reveal."""


@dataclasses.dataclass
class Feed:
    """The chance outcomes a step (or ``init``) was given, a column per event
    in the scalar order, and per game how many of its columns are used."""

    given: Ints | None
    """(n, m) scalar chance action ids, -1 to draw; None to draw every event."""
    used: Ints
    """(n,) the column of each game's next event."""

    @classmethod
    def of(cls, chance: Ints | None, n: int) -> Feed:
        """The feed of ``chance`` as the core checked it: (n,) or (n, m)."""
        if chance is not None and chance.ndim == 1:
            chance = chance[:, None]
        return cls(chance, np.zeros(n, dtype=np.int64))


def bits(masks: tuple[int, ...], width: int) -> NDArray[np.int64]:
    """(len(masks), width) 0/1: bit ``k`` of each mask (a colour set per card type)."""
    return (np.array(masks, dtype=np.int64)[:, None] >> np.arange(width)) & 1


class LittleDropOfPoisonBatch(BatchGame[LittleDropOfPoisonBatchState]):
    """Little Drop of Poison over a batch: 3 to 8 players, every round limit
    and target, every deck with a universal antidote that can kill."""

    name: ClassVar[str] = "little-drop-of-poison"
    opening_chance: ClassVar[bool] = True
    game: LittleDropOfPoisonGame

    def __init__(self, game: LittleDropOfPoisonGame) -> None:
        super().__init__(game)
        if not game.has_universal or not game.peasant_killers:
            raise BadOptionError(
                f"{self.name}: the batch engine does not support option deck="
                f"{game.options['deck']!r}: a deck without a universal antidote, or "
                "with no colour of drops enough to kill a peasant, ends assassination "
                "rounds by the no-kill-left rule, which the batch engine does not implement"
            )
        if game.max_actions:
            raise BadOptionError(
                f"{self.name}: the batch engine does not support option max_actions="
                f"{game.max_actions} (a limit of actions is a server's bound on a room, "
                "not a rule to train on; leave it at 0)"
            )
        p, t, c = game.num_players, game.num_types, game.num_colours
        self.max_chance_per_step = 3 * p + 1  # the king, P peasants, 2P deals
        self._colour_of = bits(game.poison_mask, c)
        """(T, C) 1 where a type's poison holds the colour."""
        self._drops_of = self._colour_of * np.array(game.drops, dtype=np.int64)[:, None]
        """(T, C) the drops of each colour a card of the type gives."""
        self._antidote_of = bits(game.antidote_mask, c)
        """(T, C) 1 where a type is that colour's one-colour antidote."""
        self._universal = np.zeros(t, dtype=np.bool_)
        self._universal[list(game.universal_types)] = True
        self._lethal = np.array(game.lethal_counts, dtype=np.int64)
        self._start_counts = np.array(game.start_counts, dtype=np.int16)

    # -- chance -----------------------------------------------------------------------

    def _draw(
        self,
        s: LittleDropOfPoisonBatchState,
        rows: NDArray[np.intp],
        weights: Ints,
        base: int,
        feed: Feed,
    ) -> Ints:
        """One chance event in each game of ``rows``: the index of the outcome
        (weighted by ``weights``, (rows, k)) drawn from its key, or the one
        ``feed`` gives at the game's next column (scalar id ``base + index``)."""
        keys = episode_key(s.key[rows], s.episode[rows])
        pick = choose_weighted(uniform(keys, s.draws[rows]), weights)
        s.draws[rows] += 1
        column = feed.used[rows]
        feed.used[rows] += 1
        chance = feed.given
        if chance is None:
            return pick
        inside = column < chance.shape[1]
        given = np.where(inside, chance[rows, np.minimum(column, chance.shape[1] - 1)], -1)
        supplied = given >= 0
        index = given - base
        width = weights.shape[1]
        bad = supplied & ((index < 0) | (index >= width))
        clipped = np.clip(index, 0, width - 1)
        bad |= supplied & (weights[np.arange(rows.size), clipped] == 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"{self.name}: game {int(rows[i])}: chance {int(given[i])} (event "
                f"{int(column[i])} of its step) is not a possible outcome; those are "
                f"{(base + np.flatnonzero(weights[i])).tolist()}"
            )
        chosen: Ints = np.where(supplied, index, pick)
        return chosen

    # -- new games, assassination rounds and poison rounds -------------------------------

    def _start(
        self, key: U64, episode: Ints, chance: Ints | None = None
    ) -> LittleDropOfPoisonBatchState:
        count, p, t, k = key.shape[0], self.num_players, self.game.num_types, self.num_players + 1

        def zeros(*shape: int, dtype: type = np.int16) -> NDArray[Any]:
            return np.zeros((count, *shape), dtype=dtype)

        s = LittleDropOfPoisonBatchState(
            **fresh_common(key, episode, p, self.num_distinct_actions()),
            scores=zeros(p),
            round_points=zeros(p),
            assassination_round=zeros(),
            poison_round=zeros(),
            start_seat=zeros(dtype=np.int8),
            alive=zeros(p, dtype=np.bool_),
            kinds=zeros(p, dtype=np.int8),
            king=zeros(dtype=np.int8),
            king_alive=zeros(dtype=np.bool_),
            peasants_left=zeros(2, dtype=np.int8),
            deck=zeros(t),
            discard=zeros(t),
            hands=zeros(p, t),
            table=zeros(k, t),
            plays=zeros(p, t),
            play_target=zeros(p, dtype=np.int8),
            turn_order=zeros(p, dtype=np.int8),
            turns=zeros(dtype=np.int8),
            turn_index=zeros(dtype=np.int8),
            turn_target=zeros(dtype=np.int8),
            phase=zeros(dtype=np.int8),
            player=zeros(dtype=np.int8),
            revealed=zeros(dtype=np.bool_),
            reveal_rounds=zeros(2),
            reveal_target=np.full((count, p), -1, dtype=np.int8),
            reveal_plays=zeros(p, t),
            reveal_dead=zeros(k, dtype=np.bool_),
            reveal_killers=zeros(k, p, dtype=np.bool_),
            reveal_points=zeros(p),
            reveal_hands=zeros(p, t),
        )
        self._new_assassination_round(s, np.arange(count), Feed.of(chance, count))
        self._refresh(s)
        return s

    def _new_assassination_round(
        self,
        s: LittleDropOfPoisonBatchState,
        rows: NDArray[np.intp],
        feed: Feed,
    ) -> None:
        """Everything afresh but the scores and the last reveal, then the king's
        and the peasants' draws (seat by seat) and the first poison round."""
        game = self.game
        s.assassination_round[rows] += 1
        s.round_points[rows] = 0
        s.alive[rows] = True
        s.king_alive[rows] = True
        s.peasants_left[rows] = PEASANT_DECK
        s.deck[rows] = self._start_counts
        for field in (s.discard, s.hands, s.table, s.plays, s.poison_round):
            field[rows] = 0
        s.play_target[rows] = -1
        halves = np.ones((rows.size, 2), dtype=np.int64)
        s.king[rows] = self._draw(s, rows, halves, game.CROWN, feed)
        for seat in range(self.num_players):
            left = s.peasants_left[rows].astype(np.int64)
            kind = self._draw(s, rows, left, game.PEASANT, feed)
            s.kinds[rows, seat] = kind
            s.peasants_left[rows, kind] -= 1
        self._new_poison_round(s, rows, feed)

    def _new_poison_round(
        self,
        s: LittleDropOfPoisonBatchState,
        rows: NDArray[np.intp],
        feed: Feed,
    ) -> None:
        """The turn order (the living seats clockwise from the starting seat),
        the deals (twice round it, refilling the deck from the discards when it
        is empty, stopping when both are), and the first turn."""
        p = self.num_players
        s.poison_round[rows] += 1
        seats = np.arange(p)
        rank = (seats - s.start_seat[rows, None].astype(np.int64)) % p
        order = np.argsort(np.where(s.alive[rows], rank, p + rank), axis=1, kind="stable")
        s.turn_order[rows] = order
        turns = s.alive[rows].sum(axis=1)
        s.turns[rows] = turns
        dealing = np.ones(rows.size, dtype=np.bool_)
        for deal in range(2 * p):  # the deal order is the turn order twice
            dealing &= deal < 2 * turns
            empty = dealing & (s.deck[rows].sum(axis=1) == 0)
            refill = rows[empty]
            s.deck[refill] += s.discard[refill]
            s.discard[refill] = 0
            dealing &= s.deck[rows].sum(axis=1) > 0  # deck and discards both empty: no more
            live = rows[dealing]
            if not live.size:
                break
            seat = order[dealing, deal % np.maximum(turns[dealing], 1)]
            kind = self._draw(s, live, s.deck[live].astype(np.int64), self.game.DEAL, feed)
            s.deck[live, kind] -= 1
            s.hands[live, seat, kind] += 1
        s.phase[rows] = PLAY_PHASE
        s.turn_index[rows] = 0
        s.turn_target[rows] = -1
        s.player[rows] = order[:, 0]

    # -- a step -----------------------------------------------------------------------

    def _advance(
        self, state: LittleDropOfPoisonBatchState, actions: Ints, chance: Ints | None
    ) -> None:
        s, game = state, self.game
        s.rewards[...] = 0.0
        feed = Feed.of(chance, s.size)
        rows = np.flatnonzero(s.phase == PLAY_PHASE)
        a = actions[rows]
        seat = s.player[rows].astype(np.intp)
        chose = a < game.ADD
        s.turn_target[rows[chose]] = a[chose]
        s.play_target[rows[chose], seat[chose]] = a[chose]
        add = (a >= game.ADD) & (a < game.DONE)
        kind = a[add] - game.ADD
        s.hands[rows[add], seat[add], kind] -= 1
        s.plays[rows[add], seat[add], kind] += 1
        ended = rows[a >= game.DONE]  # done or pass
        s.turn_index[ended] += 1
        s.turn_target[ended] = -1
        more = s.turn_index[ended] < s.turns[ended]
        going = ended[more]
        s.player[going] = s.turn_order[going, s.turn_index[going]]
        last = ended[~more]
        if last.size:
            self._reveal(s, last)
            self._after_reveal(s, last, feed)
        self._refresh(s)

    def _after_reveal(
        self,
        s: LittleDropOfPoisonBatchState,
        rows: NDArray[np.intp],
        feed: Feed,
    ) -> None:
        """The assassination round ends (the king died, at most one peasant
        lives, the poison-round limit, or no card left anywhere to play), and
        with it maybe the game; otherwise the next poison round."""
        game = self.game
        holding = ((s.hands[rows].sum(axis=2) > 0) & s.alive[rows]).any(axis=1)
        no_card = (s.deck[rows].sum(axis=1) == 0) & (s.discard[rows].sum(axis=1) == 0) & ~holding
        over = (
            ~s.king_alive[rows]
            | (s.alive[rows].sum(axis=1) <= 1)
            | (s.poison_round[rows] >= game.max_poison_rounds)
            | no_card
        )
        self._new_poison_round(s, rows[~over], feed)
        done = rows[over]
        final = (s.scores[done].max(axis=1) >= game.target) | (
            s.assassination_round[done] >= game.max_assassination_rounds
        )
        end = done[final]
        s.phase[end] = OVER_PHASE
        s.rewards[end] = self.returns(s.scores[end], s.round_points[end])
        again = done[~final]
        s.start_seat[again] = (s.start_seat[again] + 1) % self.num_players
        self._new_assassination_round(s, again, feed)

    @staticmethod
    def returns(scores: Count, round_points: Count) -> NDArray[np.float32]:
        """The scalar ``returns()``: the highest score wins, ties broken by the
        points of the last assassination round, still tied share (1/k each)."""
        tied = scores == scores.max(axis=1, keepdims=True)
        last = np.where(tied, round_points, np.iinfo(np.int16).min)
        winners = tied & (round_points == last.max(axis=1, keepdims=True))
        shares: NDArray[np.float32] = (winners / winners.sum(axis=1, keepdims=True)).astype(
            np.float32
        )
        return shares

    # -- the reveal ---------------------------------------------------------------------

    def _reveal(self, s: LittleDropOfPoisonBatchState, rows: NDArray[np.intp]) -> None:
        """The end of a poison round in games ``rows``: the rulebook's steps in
        order, antidotes, drops per colour, deaths, credit, hands discarded."""
        p, k = self.num_players, self.num_players + 1
        target = s.play_target[rows].astype(np.int64)
        plays = s.plays[rows].astype(np.int64)
        # Per seat and character: the seat played on it (a pass plays on none).
        onto = target[:, :, None] == np.arange(k)
        new = np.einsum("rqk,rqt->rkt", onto, plays)
        received = onto.any(axis=1)
        table = s.table[rows].astype(np.int64)
        discard = s.discard[rows].astype(np.int64)
        # 1. A universal antidote discards every card on its character.
        universal = received & new[:, :, self._universal].any(axis=2)
        pile = table + new
        discard += np.where(universal[:, :, None], pile, 0).sum(axis=1)
        table = np.where(universal[:, :, None], 0, pile)
        # Otherwise this round's one-colour antidotes discard the poison there
        # of their colours (this round's and earlier ones').
        cure = (((new > 0) @ self._antidote_of) > 0) & ~universal[:, :, None]
        cured = (cure @ self._colour_of.T) > 0  # (games, K, T): the types they discard
        gone = np.where(cured, table, 0)
        discard += gone.sum(axis=1)
        table -= gone
        # 2-3. Drops per colour over the pile, blocked colours counting zero;
        # a character dies of any lethal colour.
        blocked = ((table > 0) @ self._antidote_of) > 0
        counted = received & ~universal
        lethal = (table @ self._drops_of >= self._lethal[:, None]) & ~blocked & counted[:, :, None]
        dead = lethal.any(axis=2)
        # 4. Credit: a seat whose card of a lethal colour, this round, survived
        # the antidotes on its character (a seat plays on one character only).
        on = np.clip(target, 0, k - 1)
        every = np.arange(rows.size)[:, None]
        deadly = ((lethal @ self._colour_of.T) > 0)[every, on]  # (games, P, T)
        survived = (plays > 0) & ~cured[every, on]
        killer = (target >= 0) & dead[every, on] & (survived & deadly).any(axis=2)
        kinds = s.kinds[rows].astype(np.int64)
        victim_kind = np.concatenate([kinds, s.king[rows, None].astype(np.int64)], axis=1)
        same = kinds == victim_kind[every, on]
        worth = np.where(on == p, np.where(same, 2, 3), np.where(same, 0, 1))
        gained = np.where(killer, worth, 0)
        s.scores[rows] += gained.astype(np.int16)
        s.round_points[rows] += gained.astype(np.int16)
        s.alive[rows] &= ~dead[:, :p]
        s.king_alive[rows] &= ~dead[:, p]
        # 5. A killed peasant's hand and the cards on it go to the discards.
        hands = s.hands[rows].astype(np.int64)
        shown = np.where(dead[:, :p, None], hands, 0)
        discard += shown.sum(axis=1) + np.where(dead[:, :p, None], table[:, :p], 0).sum(axis=1)
        table[:, :p] = np.where(dead[:, :p, None], 0, table[:, :p])
        s.hands[rows] = hands - shown
        s.table[rows] = table
        s.discard[rows] = discard
        s.revealed[rows] = True
        s.reveal_rounds[rows, 0] = s.assassination_round[rows]
        s.reveal_rounds[rows, 1] = s.poison_round[rows]
        s.reveal_target[rows] = target
        s.reveal_plays[rows] = plays
        s.reveal_dead[rows] = dead
        s.reveal_killers[rows] = onto.transpose(0, 2, 1) & killer[:, None, :]
        s.reveal_points[rows] = gained
        s.reveal_hands[rows] = shown
        s.plays[rows] = 0
        s.play_target[rows] = -1

    # -- what a learner reads --------------------------------------------------------------

    def _refresh(self, s: LittleDropOfPoisonBatchState) -> None:
        """Current player, terminated and the legal mask (the scalar
        ``legal_actions``: a living character or pass, then cards and done)."""
        game, p = self.game, self.num_players
        over = s.phase == OVER_PHASE
        s.current_player[...] = np.where(over, TERMINAL_PLAYER, s.player)
        s.terminated[...] = over
        every = np.arange(s.size)
        seat = s.player.astype(np.intp)
        hand = s.hands[every, seat] > 0
        holding = hand.any(axis=1) & ~over
        choosing = s.turn_target < 0
        adding = ~choosing & ~over
        mask = s.legal_action_mask
        mask[...] = False
        mask[:, :p] = (choosing & holding)[:, None] & s.alive
        mask[:, game.KING] = choosing & holding
        mask[:, game.PASS] = choosing & ~holding & ~over
        mask[:, game.ADD : game.DONE] = hand & adding[:, None]
        mask[:, game.DONE] = adding & (s.plays[every, seat].sum(axis=1) > 0)

    def _observe(self, state: LittleDropOfPoisonBatchState, out: NDArray[np.float32]) -> None:
        """(n, players, size): each seat's scalar ``observation_tensor`` (its
        docstring and rules.md say what every entry is). Every fraction is
        divided in float64 and then rounded to float32, as the scalar list is."""
        s, game = state, self.game
        n, p, t, c = s.size, self.num_players, game.num_types, game.num_colours
        k = p + 1
        every = np.arange(n)
        obs = np.zeros((n, self.observation_tensor_size()), dtype=np.float64)
        seats = obs[:, : p * (8 + p)].reshape(n, p, 8 + p)
        seats[:, :, 0] = s.alive
        seats[:, :, 1] = s.kinds == RAT
        seats[:, :, 2] = s.kinds == WEASEL
        seats[:, :, 3] = s.scores / float(game.target)
        seats[:, :, 4] = s.round_points / float(game.target)
        seats[:, :, 5] = s.hands.sum(axis=2) / 10.0
        seats[:, :, 6] = s.plays.sum(axis=2) / 10.0
        seats[:, :, 7:] = s.play_target[:, :, None] == np.arange(k)
        at = p * (8 + p)
        obs[:, at] = s.king == RAT
        obs[:, at + 1] = s.king == WEASEL
        obs[:, at + 2] = s.king_alive
        at += 3
        characters = obs[:, at : at + k * (t + c)].reshape(n, k, t + c)
        characters[:, :, :t] = s.table
        characters[:, :, t:] = ((s.table > 0).astype(np.int64) @ self._antidote_of) > 0
        at += k * (t + c)
        own = at  # the viewer's hand and face-down play, filled per seat below
        at += 2 * t
        obs[:, at : at + t] = s.discard
        obs[:, at + t] = s.deck.sum(axis=1) / max(1, game.deck_size)
        at += t + 1
        obs[every, at + s.phase.astype(np.intp)] = 1.0
        at += len(PHASE_NAMES)
        moving = np.flatnonzero(s.phase != OVER_PHASE)
        obs[moving, at + s.player[moving].astype(np.intp)] = 1.0
        viewer = at + p
        at += 2 * p
        obs[:, at] = s.assassination_round / game.max_assassination_rounds
        obs[:, at + 1] = s.poison_round / game.max_poison_rounds
        obs[every, at + 2 + s.start_seat.astype(np.intp)] = 1.0
        at += 2 + p
        self._observe_reveal(s, obs[:, at:])
        out[...] = obs[:, None, :]
        out[:, :, own : own + t] = s.hands
        out[:, :, own + t : own + 2 * t] = s.plays
        out[:, np.arange(p), viewer + np.arange(p)] = 1.0

    def _observe_reveal(self, s: LittleDropOfPoisonBatchState, obs: NDArray[np.float64]) -> None:
        """The last reveal's part of the observation, into ``obs`` (zeros):
        1, its rounds; per seat its character one-hot and cards; per character
        died and its killers; points per seat; the hands of the killed."""
        game = self.game
        n, p, t = s.size, self.num_players, game.num_types
        k = p + 1
        obs[:, 0] = s.revealed
        obs[:, 1] = s.reveal_rounds[:, 0] / game.max_assassination_rounds
        obs[:, 2] = s.reveal_rounds[:, 1] / game.max_poison_rounds
        at = 3
        plays = obs[:, at : at + p * (k + t)].reshape(n, p, k + t)
        plays[:, :, :k] = s.reveal_target[:, :, None] == np.arange(k)
        plays[:, :, k:] = s.reveal_plays
        at += p * (k + t)
        deaths = obs[:, at : at + k * (1 + p)].reshape(n, k, 1 + p)
        deaths[:, :, 0] = s.reveal_dead
        deaths[:, :, 1:] = s.reveal_killers
        at += k * (1 + p)
        obs[:, at : at + p] = s.reveal_points / float(game.target)
        at += p
        obs[:, at:] = s.reveal_hands.reshape(n, p * t)
