"""Little Drop of Poison: poison the king and each other's peasants, take the credit.

The rules as the rulebook gives them and as we read it where it is silent (the
rules page, ``rules.md`` beside this module, says it in full):

- A game is a series of *assassination rounds*. Each starts with a random king
  (rat or weasel, a chance event), a face-up peasant per seat (from 4 rats and
  4 weasels, chance events seat by seat) and 2 cards each, dealt one at a time
  clockwise from the starting seat (a chance event per card, over card types).
- An assassination round is a series of *poison rounds*. On a turn a living
  player chooses one living character (a peasant or the king) and plays one or
  more cards on it face-down; a player with no card passes. When everyone has
  had a turn, all the cards are revealed: antidotes first, then drops are
  counted per colour. A character with a lethal count of a colour dies and
  everyone who put a drop of a lethal colour on it *this* poison round scores.
- The assassination round ends when the king dies or at most one peasant is
  alive (or no kill can ever happen again in it); otherwise the survivors draw 2 each
  and play another poison round. The game ends after the assassination round in
  which someone reached the target score.

A turn is a sequence of small actions by the same seat, all in one id space
(``N`` seats, ``T`` card types):

- ``0 .. N-1``: choose the peasant of that seat; ``N``: choose the king;
- ``N+1 .. N+T``: add a card of that type to the play;
- ``N+T+1``: done (at least one card added); ``N+T+2``: pass (no card in hand);
- chance: ``N+T+3 ..`` deal a card of each type; then rat / weasel peasant;
  then rat king / weasel king.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Sequence
from itertools import compress
from operator import add, getitem
from typing import Any, NamedTuple

from apothecary.core.errors import BadOptionError
from apothecary.core.game import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    OptionSpec,
    Outcome,
    Player,
    State,
)
from apothecary.core.registry import register
from apothecary.core.words import Words, say, say_n
from apothecary.core.words import seat as seat_words  # `seat` is the loops' name here
from apothecary.games.little_drop_of_poison.deck import (
    ANTIDOTE,
    DEFAULT_DECK,
    POISON,
    UNIVERSAL,
    Deck,
    DeckSpecError,
    deck_problem,
    parse_deck,
)
from apothecary.games.little_drop_of_poison.events import describe
from apothecary.games.little_drop_of_poison.facts import (
    ACTION_ENTRIES,
    DEAL_PHASE,
    E_CARD,
    E_DEAL,
    E_DONE,
    E_KING,
    E_PASS,
    E_PEASANT,
    E_REFILL,
    E_REVEAL,
    E_ROUND_END,
    E_TARGET,
    KINDS,
    KING_PHASE,
    OVER_PHASE,
    PEASANT_DECK,
    PEASANT_LETHAL,
    PEASANT_PHASE,
    PHASE_NAMES,
    PLAY_PHASE,
    RAT,
    WEASEL,
    Reveal,
    RevealTexts,
    Stretches,
    TensorStretch,
    kill_points,
    king_lethal,
)
from apothecary.games.little_drop_of_poison.resample import KnownCards, redeal

RoundStart = tuple[
    list[int],
    tuple[Any, ...],
    tuple[Reveal, RevealTexts] | None,
    tuple[int, ...],
    int,
    tuple[int, ...],
    int,
    int,
]
"""The fields of an assassination round's first position that the round's
start does not set (see ``LittleDropOfPoisonState.round_start``)."""

TurnOrders = tuple[tuple[int, ...], tuple[int, ...]]
"""A poison round's turn order and deal order."""


class SlotLayout(NamedTuple):
    """Offsets, from a slot's start, of the parts of a poison round's slot of the
    information-state tensor (the slot opens with the assassination round's
    start flag, the king's kind and the peasants' kinds)."""

    deals: int
    """The cards dealt so far, then the asking seat's two deals one-hot."""
    turns: int
    """Per seat: the character chosen one-hot, the cards added, turn over."""
    own_added: int
    """The types of the asking seat's added cards, in order."""
    reveal: int
    """Whether the reveal came, then per seat its played cards per type."""
    hands: int
    """Per seat the hand it was killed holding in this reveal, per type."""
    width: int
    """The whole slot."""


INFOSTATE_LIMIT = 1 << 16
"""The most numbers the information-state tensor has (under every option whose
poison-round slot fits in it, the default ones among them): the number of slots
it holds is cut to fit, see :meth:`LittleDropOfPoisonGame.infostate_slots`."""

_CACHE_LIMIT = 1 << 16
"""The most entries :attr:`LittleDropOfPoisonGame.card_choices` keeps: far more
than any deck's hands come to, a bound for decks of many types all the same."""


@register
class LittleDropOfPoisonGame(Game):
    """Little Drop of Poison for 3 to 8 players."""

    info = GameInfo(
        name="little-drop-of-poison",
        title="Little Drop of Poison",
        min_players=3,
        max_players=8,
        default_players=4,
        has_chance=True,
        has_hidden_information=True,
        summary="Slip poison onto the king and your rivals' peasants; score for every kill.",
    )
    option_specs = (
        OptionSpec(
            "deck",
            str,
            DEFAULT_DECK,
            "the poison deck as a deck spec (see the rules page); 'default' is our "
            "reconstruction of the published deck",
            validator=deck_problem,
        ),
        # A server's rooms take the defaults' round limits at most, and a target
        # of 100: seeded random play at 8 seats then ends within about 17,000
        # actions (the assassination round limit ends it), under a server's
        # 20,000 a record. At the greatest values a game was 169k actions.
        OptionSpec(
            "target",
            int,
            10,
            "the score that ends the game",
            minimum=1,
            maximum=1000,
            room_maximum=100,
        ),
        OptionSpec(
            "max_poison_rounds",
            int,
            50,
            "an assassination round ends without more points after this many poison rounds",
            minimum=1,
            maximum=1000,
            room_maximum=50,
        ),
        OptionSpec(
            "max_assassination_rounds",
            int,
            100,
            "the game ends after this many assassination rounds even if nobody reached the target",
            minimum=1,
            maximum=1000,
            room_maximum=100,
        ),
        # Even at those limits a table that stalls on purpose could play a game
        # of 400,000 actions (the true bound), more than a server replays. So a
        # room plays the default (no limit) as 15,000 actions: the last
        # assassination round then ends within 20,000 (ROOM_ACTIONS).
        OptionSpec(
            "max_actions",
            int,
            0,
            "the game ends at the end of the assassination round in which this many "
            "actions (chance's included) have been played, even if nobody reached the "
            "target; 0, the default, is no limit. A game server's room plays 0 as "
            "15000 and takes at most 15000",
            minimum=0,
            maximum=10_000_000,
            room_maximum=15_000,
            room_default=15_000,
        ),
    )

    def _configure(self) -> None:
        try:
            deck: Deck = parse_deck(str(self.options["deck"]))
        except DeckSpecError as error:  # the validator already ran; keep mypy and callers honest
            raise BadOptionError(f"option deck: {error}") from None
        n = self.num_players
        self.deck = deck
        self.num_types: int = len(deck.types)
        self.num_colours: int = len(deck.colours)
        self.codes: tuple[str, ...] = tuple(card.code for card in deck.types)
        self.start_counts: tuple[int, ...] = deck.counts
        self.deck_size: int = deck.size
        bit = {name: 1 << i for i, name in enumerate(deck.colours)}
        # Per card type: the colour bits of its poison, of its antidote, and its drops.
        self.poison_mask: tuple[int, ...] = tuple(
            sum(bit[c] for c in card.colours) if card.kind == POISON else 0 for card in deck.types
        )
        self.antidote_mask: tuple[int, ...] = tuple(
            bit[card.colours[0]] if card.kind == ANTIDOTE else 0 for card in deck.types
        )
        self.drops: tuple[int, ...] = tuple(card.drops for card in deck.types)
        self.universal_types: tuple[int, ...] = tuple(
            t for t, card in enumerate(deck.types) if card.kind == UNIVERSAL
        )
        self.has_universal: bool = bool(self.universal_types)
        self.universals: frozenset[int] = frozenset(self.universal_types)
        self.antidote_types: tuple[int, ...] = tuple(
            t for t, card in enumerate(deck.types) if card.kind == ANTIDOTE
        )
        self.remedies: frozenset[int] = frozenset(self.antidote_types) | self.universals
        """The types of antidote, one-colour or universal."""
        self.poison_types: tuple[int, ...] = tuple(
            t for t, mask in enumerate(self.poison_mask) if mask
        )
        self.all_colours: int = (1 << self.num_colours) - 1
        self.colour_types: tuple[tuple[int, ...], ...] = tuple(
            tuple(t for t in range(self.num_types) if self.poison_mask[t] & (1 << k))
            for k in range(self.num_colours)
        )
        self.colours_of: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((k, self.drops[t]) for k in range(self.num_colours) if mask >> k & 1)
            for t, mask in enumerate(self.poison_mask)
        )
        """Per type, ``(colour, drops)`` for each colour of its poison (none for antidotes)."""
        self.king_lethal: int = king_lethal(n)
        self.lethal_counts: tuple[int, ...] = (PEASANT_LETHAL,) * n + (self.king_lethal,)
        """Per character (the king last), the drops of one colour that kill it."""
        self.no_points: tuple[int, ...] = (0,) * n
        """The points of a reveal in which nobody dies."""
        # Per colour, the drops of every card of the deck together: a character
        # can never hold more, so a colour below a character's lethal count can
        # never kill it.
        totals = [sum(deck.counts[t] * self.drops[t] for t in types) for types in self.colour_types]
        self.peasant_killers: int = sum(
            1 << k for k, total in enumerate(totals) if total >= PEASANT_LETHAL
        )
        """The colours the deck holds enough drops of to kill a peasant."""
        self.king_killers: int = sum(
            1 << k for k, total in enumerate(totals) if total >= self.king_lethal
        )
        """The colours the deck holds enough drops of to kill the king."""
        self.target: int = int(self.options["target"])
        self.max_poison_rounds: int = int(self.options["max_poison_rounds"])
        self.max_assassination_rounds: int = int(self.options["max_assassination_rounds"])
        self.max_actions: int = int(self.options["max_actions"])
        """Actions after which the game ends with its assassination round (0: no limit)."""
        t = self.num_types
        self.KING = n
        self.ADD = n + 1
        self.DONE = n + 1 + t
        self.PASS = n + 2 + t
        self.DEAL = n + 3 + t
        self.PEASANT = n + 3 + 2 * t
        self.CROWN = n + 5 + 2 * t
        self._num_actions = n + 7 + 2 * t
        # The information-state tensor's layout, made on first use (every call
        # of the tensor reads it); the slot count with the limit it was cut to.
        self._slot_layout: SlotLayout | None = None
        self._infostate_slots: tuple[int, int] = (-1, 0)
        # Action ids by card type, zipped with count lists in the hot loops.
        self.add_actions: tuple[int, ...] = tuple(range(self.ADD, self.ADD + t))
        self.deal_actions: tuple[int, ...] = tuple(range(self.DEAL, self.DEAL + t))
        self.character_names: tuple[str, ...] = (*map(str, range(n)), "king")
        # Tables for the hot path of a playout (see LittleDropOfPoisonState.apply_action).
        self.all_targets: tuple[int, ...] = (*range(n), self.KING)
        """The choices of a seat starting its turn with cards while every peasant lives."""
        self.pass_only: tuple[int, ...] = (self.PASS,)
        self.king_draws: tuple[tuple[int, float], ...] = (
            (self.CROWN + RAT, 0.5),
            (self.CROWN + WEASEL, 0.5),
        )
        """The chance outcomes of the king's draw."""
        self.peasant_draws: dict[tuple[int, int], tuple[tuple[int, float], ...]] = {
            (rats, weasels): tuple(
                (self.PEASANT + kind, left / (rats + weasels))
                for kind, left in ((RAT, rats), (WEASEL, weasels))
                if left
            )
            for rats in range(PEASANT_DECK[RAT] + 1)
            for weasels in range(PEASANT_DECK[WEASEL] + 1)
            if rats + weasels
        }
        """The chance outcomes of a peasant's draw, by the rats and weasels left in
        the peasant deck (each kind left, by its share of the deck)."""
        self.king_choices: tuple[int, ...] = tuple(a for a, _ in self.king_draws)
        self.peasant_choices: dict[tuple[int, int], tuple[int, ...]] = {
            left: tuple(a for a, _ in draws) for left, draws in self.peasant_draws.items()
        }
        """The legal actions of those draws, by the same keys."""
        self.turn_orders: dict[tuple[tuple[int, ...], int], TurnOrders] = {}
        """The turn order and the deal order of a poison round (see
        :meth:`turn_orders_of`), by the living characters and the starting seat."""
        self.card_choices: dict[int, tuple[int, ...]] = {}
        """The legal actions of a seat adding cards, by the types it holds (a bit
        per type) shifted left by one, plus one once it has added a card; filled
        as met (a hand holds few types, so few of the subsets of types come up)."""
        self.deal_rows: list[tuple[tuple[tuple[int, float], ...], ...] | None] = [None] * (
            self.deck_size + 1
        )
        """Per deck size, per card type, per count: the deal's chance outcome
        ``(action, count / size)``; filled as met (see :meth:`deal_rows_of`)."""

    def turn_orders_of(self, key: tuple[tuple[int, ...], int]) -> TurnOrders:
        """The turn order of a poison round, the living seats clockwise from the
        starting seat, and its deal order, the turn order twice (2 cards each);
        ``key`` is the living characters (the king last) and the starting seat."""
        living, start = key
        n = self.num_players
        order = tuple(s % n for s in range(start, start + n) if s % n in living)
        orders = self.turn_orders[key] = (order, order + order)
        return orders

    def card_choices_of(self, key: int) -> tuple[int, ...]:
        """The legal actions of a seat adding cards (see :attr:`card_choices`):
        a card of each type in hand, then ``done`` once a card is added."""
        held = key >> 1
        choices = tuple(a for kind, a in enumerate(self.add_actions) if held >> kind & 1)
        if key & 1:
            choices += (self.DONE,)
        if len(self.card_choices) < _CACHE_LIMIT:
            self.card_choices[key] = choices
        return choices

    def deal_rows_of(self, size: int) -> tuple[tuple[tuple[int, float], ...], ...]:
        """The chance outcomes of a deal from a deck of ``size`` cards, per type
        and count (:attr:`deal_rows`). Made once per size, the pairs are the same
        objects at every deal, and their probabilities the same floats as dividing
        anew: ``count / size`` for a count of 1 to the type's copies in the deck
        (index 0, a type not in the deck, is never an outcome). They take
        ``deck size x (deck size + types)`` pairs at most: 2,976 for the default deck."""
        rows = tuple(
            tuple((a, count / size) for count in range(copies + 1))
            for a, copies in zip(self.deal_actions, self.start_counts, strict=True)
        )
        self.deal_rows[size] = rows
        return rows

    def num_distinct_actions(self) -> int:
        """Targets, cards, done, pass, and the chance outcomes."""
        return self._num_actions

    def max_game_length(self) -> int:
        """A true bound: per poison round at most 2N deals, 2N target/done or pass
        actions and one add per card in the game; the round limits bound the rest."""
        n = self.num_players
        per_poison_round = 4 * n + self.deck_size
        per_assassination = 1 + n + self.max_poison_rounds * per_poison_round
        rounds = self.max_assassination_rounds * per_assassination
        if self.max_actions:  # the round under way when the limit is passed ends the game
            return min(rounds, self.max_actions - 1 + per_assassination)
        return rounds

    def observation_tensor_size(self) -> int:
        """See :meth:`LittleDropOfPoisonState.observation_tensor`."""
        n, t, c = self.num_players, self.num_types, self.num_colours
        position = n * (8 + n) + 3 + (n + 1) * (t + c) + 3 * t + 1 + len(PHASE_NAMES) + 2 * n
        rounds = 2 + n
        reveal = 3 + n * (n + 1 + t) + (n + 1) * (n + 1) + n + n * t
        return position + rounds + reveal

    def most_in_hand(self, poison_round: int) -> int:
        """The most cards a seat can hold in the ``poison_round``-th (from 1) poison
        round of an assassination round: 2 dealt each round, at least 1 played
        each round while any is held, and never more than the deck."""
        return min(poison_round + 1, self.deck_size)

    def most_added(self) -> int:
        """The most cards a seat can add in one turn: the most it can hold at the
        round limit (the width of the asking seat's own cards in a slot)."""
        return self.most_in_hand(self.max_poison_rounds)

    def slot_layout(self) -> SlotLayout:
        """Where each part of a poison round's slot of the information-state tensor
        starts, from the slot's start (see
        :meth:`LittleDropOfPoisonState.information_state_tensor`)."""
        if self._slot_layout is None:
            n, t = self.num_players, self.num_types
            deals = 3 + 2 * n
            turns = deals + 1 + 2 * t
            own_added = turns + n * (n + 3)
            reveal = own_added + self.most_added()
            hands = reveal + 1 + n * t
            self._slot_layout = SlotLayout(deals, turns, own_added, reveal, hands, hands + n * t)
        return self._slot_layout

    def slot_width(self) -> int:
        """Numbers of one poison round's slot of the information-state tensor."""
        return self.slot_layout().width

    def infostate_slots(self) -> int:
        """How many poison-round slots the information-state tensor has: as many as
        fit in :data:`INFOSTATE_LIMIT` numbers, and no more than the round limits
        allow. The tensor has perfect recall for every game that plays at most
        this many poison rounds (assassination rounds that end before their first
        poison round count as one); past it the last slot is reused (see
        :meth:`LittleDropOfPoisonState.information_state_tensor`)."""
        limit, slots = self._infostate_slots
        if limit != INFOSTATE_LIMIT:  # read each time: a test may lower the limit
            n = self.num_players
            fit = max(1, (INFOSTATE_LIMIT - n - 1) // self.slot_width())
            slots = min(fit, self.max_assassination_rounds * self.max_poison_rounds)
            self._infostate_slots = (INFOSTATE_LIMIT, slots)
        return slots

    def information_state_tensor_size(self) -> int:
        """See :meth:`LittleDropOfPoisonState.information_state_tensor`: the asking
        seat, the overflow flag and :meth:`infostate_slots` slots, at most
        :data:`INFOSTATE_LIMIT` numbers under every option whose slot fits in it."""
        return self.num_players + 1 + self.infostate_slots() * self.slot_width()

    def information_state_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Every number of the information-state tensor lies in [0, 1]."""
        size = self.information_state_tensor_size()
        return [0.0] * size, [1.0] * size

    def observation_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Flags and one-hots in [0, 1]; card counts up to the deck's copies of their
        type; scores up to the target plus one assassination round's best haul
        (the king and every other peasant: n + 2 points); hand and play sizes up
        to the most a hand can hold, over 10; round counters up to their limits."""
        n, c = self.num_players, self.num_colours
        copies = [float(x) for x in self.start_counts]
        haul = (n + 2) / self.target
        held = self.most_in_hand(self.max_poison_rounds) / 10.0
        high: list[float] = []
        for _seat in range(n):
            high += [1.0, 1.0, 1.0, 1.0 + (n + 1) / self.target, haul, held, held]
            high += [1.0] * (n + 1)
        high += [1.0] * 3
        for _character in range(n + 1):
            high += copies + [1.0] * c
        high += copies * 3 + [1.0]
        high += [1.0] * (len(PHASE_NAMES) + 2 * n + 2 + n)
        high += [1.0] * 3
        for _seat in range(n):
            high += [1.0] * (n + 1) + copies
        high += [1.0] * ((n + 1) * (n + 1))
        high += [haul] * n
        high += copies * n
        assert len(high) == self.observation_tensor_size()
        return [0.0] * len(high), high

    def new_initial_state(self) -> LittleDropOfPoisonState:
        """The first assassination round, before the king is drawn."""
        return LittleDropOfPoisonState(self)

    def character_name(self, character: int) -> str:
        """``king`` or the seat number of a peasant."""
        return self.character_names[character]

    def cards_text(self, counts: Sequence[int]) -> str:
        """Cards per type as notation: ``b1 b1 g+p1`` (``-`` for none)."""
        parts = []
        for code, count in zip(self.codes, counts, strict=True):
            parts.extend([code] * count)
        return " ".join(parts) if parts else "-"

    def cards_json(self, counts: Sequence[int]) -> dict[str, int]:
        """Cards per type as a JSON dict of code to count, nonzero only."""
        if not any(counts):
            return {}
        codes = self.codes
        return {codes[i]: c for i, c in enumerate(counts) if c}


_JOIN_EVERY = 16
"""How often a seat's information-state tensor stretch keeps everything up to
it joined (see ``LittleDropOfPoisonState._infostate_entries``)."""


def _join_stretches(
    indices: list[Any],
    values: list[Any],
    kept: TensorStretch | None,
    void: bool,
    last: int,
    width: int,
) -> tuple[Any, Any]:
    """The entries ``indices``/``values`` (newest first) joined with those of
    ``kept`` and the stretches before it, back to the first one that keeps
    all before it joined. ``void``: a later stretch cleared the last slot (at
    ``last``, ``width`` numbers), so what these wrote there is void (every
    other index is written by one stretch only)."""
    import numpy as np

    while kept is not None:
        part = kept.joined
        at, value = part if part is not None else (kept.indices, kept.values)
        if void:
            keep = (at < last) | (at >= last + width)
            at, value = at[keep], value[keep]
        indices.append(at)
        values.append(value)
        if part is not None:
            break
        void = void or kept.clears
        kept = kept.before
    if not indices:
        return np.zeros(0, np.intp), np.zeros(0, np.float64)
    return np.concatenate(indices), np.concatenate(values)


# Seat numbers are ASCII digits only (never other scripts' digits nor
# superscripts), and short: no seat number has more than one digit, and a
# longer one must not reach int(), which refuses numbers of over 4,300 digits.
_TARGET_TEXT = re.compile(r"(?:on\s*|@\s*)?(king|k|[0-9]{1,3})", re.ASCII)
_CHANCE_TO = re.compile(r"(.*?)\s+to\s+([0-9]{1,3})", re.ASCII)


class LittleDropOfPoisonState(State):
    """A position: the characters, the cards on them, hands, deck and scores."""

    __slots__ = (
        "_public",
        "_resample_facts",
        "alive",
        "assassination_round",
        "deal_index",
        "deal_order",
        "deck",
        "deck_size",
        "discard",
        "discard_size",
        "hands",
        "held",
        "kinds",
        "king",
        "king_alive",
        "last_reveal",
        "log",
        "peasants_left",
        "phase",
        "play_target",
        "played",
        "player",
        "plays",
        "poison_round",
        "round_points",
        "round_start",
        "scores",
        "start_seat",
        "table",
        "targets",
        "turn_index",
        "turn_order",
        "turn_target",
        "venom",
    )

    game: LittleDropOfPoisonGame

    def __init__(self, game: LittleDropOfPoisonGame) -> None:
        super().__init__(game)
        n, t = game.num_players, game.num_types
        self.scores: list[int] = [0] * n
        self.round_points: list[int] = [0] * n
        self.assassination_round = 0
        self.start_seat = 0
        self.log: tuple[Any, ...] = ()
        self.last_reveal: tuple[Reveal, RevealTexts] | None = None
        # (move number, the public observation) of the last observation: the
        # position it was made in, which every action leaves.
        self._public: tuple[int, dict[str, JSON]] | None = None
        # (history length, seat, KnownCards) of the last resample_from_infostate.
        self._resample_facts: tuple[int, int, KnownCards] | None = None
        self.round_start: RoundStart
        # Everything below is reset by _new_assassination_round.
        self.alive: list[bool] = [True] * n
        self.kinds: list[int] = [-1] * n
        self.king = -1
        self.king_alive = True
        self.peasants_left: list[int] = list(PEASANT_DECK)
        self.deck: list[int] = list(game.start_counts)
        self.deck_size = game.deck_size
        self.discard: list[int] = [0] * t
        self.discard_size = 0
        self.hands: list[int] = [0] * (n * t)
        # Kept beside the hands and the living for the legal actions' sake:
        # per seat, a bit per type it holds (none: an empty hand); the choices of
        # a seat starting its turn.
        self.held: list[int] = [0] * n
        self.targets: tuple[int, ...] = game.all_targets
        self.table: list[int] = [0] * ((n + 1) * t)
        # Per character and colour, the drops of that colour on it (blocked or
        # not), kept beside the table card by card: the reveal's count.
        self.venom: list[int] = [0] * ((n + 1) * game.num_colours)
        self.plays: list[int] = [0] * (n * t)
        # Per seat, the types of the cards it has added this poison round, a
        # type once per card: the reveal works card by card, not type by type.
        self.played: list[tuple[int, ...]] = [()] * n
        self.play_target: list[int] = [-1] * n
        self.poison_round = 0
        self.deal_order: tuple[int, ...] = ()
        self.deal_index = 0
        self.turn_order: tuple[int, ...] = ()
        self.turn_index = 0
        self.turn_target = -1
        self.player: int = CHANCE
        self.phase = KING_PHASE
        self._new_assassination_round()

    # -- flow -------------------------------------------------------------------

    def _new_assassination_round(self) -> None:
        game = self.game
        n, t = game.num_players, game.num_types
        self.assassination_round += 1
        self.round_points = [0] * n
        self.alive = [True] * n
        self.kinds = [-1] * n
        self.king = -1
        self.king_alive = True
        self.peasants_left = list(PEASANT_DECK)
        self.deck = list(game.start_counts)
        self.deck_size = game.deck_size
        self.discard = [0] * t
        self.discard_size = 0
        self.hands = [0] * (n * t)
        self.held = [0] * n
        self.targets = game.all_targets
        self.table = [0] * ((n + 1) * t)
        self.venom = [0] * ((n + 1) * game.num_colours)
        self.plays = [0] * (n * t)
        self.played = [()] * n
        self.play_target = [-1] * n
        self.poison_round = 0
        self.phase = KING_PHASE
        self.player = CHANCE
        self._public = None
        # What this moment, where nothing is hidden, holds beyond what every
        # assassination round starts with: resampling replays only the current
        # assassination round, from this moment made anew (_round_start_state).
        self.round_start = (
            self.scores,
            self.log,
            self.last_reveal,
            self.deal_order,
            self.deal_index,
            self.turn_order,
            self.turn_index,
            self.turn_target,
        )

    def _round_start_state(self) -> LittleDropOfPoisonState:
        """The first position of this assassination round, made anew from
        :attr:`round_start` (the lists it holds are never changed in place)."""
        start = LittleDropOfPoisonState.__new__(LittleDropOfPoisonState)
        State.__init__(start, self.game)
        (
            start.scores,
            start.log,
            start.last_reveal,
            start.deal_order,
            start.deal_index,
            start.turn_order,
            start.turn_index,
            start.turn_target,
        ) = self.round_start
        start._resample_facts = None
        start.start_seat = self.start_seat
        start.assassination_round = self.assassination_round - 1
        start._new_assassination_round()
        return start

    def _new_poison_round(self) -> None:
        self.poison_round += 1
        # The living seats clockwise from the starting seat: the same from one
        # death to the next, so made once per set of the living (game.turn_orders).
        key = (self.targets, self.start_seat)
        orders = self.game.turn_orders.get(key)
        if orders is None:
            orders = self.game.turn_orders_of(key)
        self.turn_order, self.deal_order = orders
        self.deal_index = 0
        self._next_deal()

    def _next_deal(self) -> None:
        """Go to the next deal, refilling the deck from the discards when it is empty,
        or to the first turn when every card is dealt (or none is left)."""
        while self.deal_index < len(self.deal_order):
            if self.deck_size:
                self.phase = DEAL_PHASE
                self.player = CHANCE
                return
            if self.discard_size:
                self.log = (self.log, (E_REFILL, -1, tuple(self.discard)))
                deck = self.deck
                for i, c in enumerate(self.discard):
                    deck[i] += c
                self.deck_size += self.discard_size
                self.discard = [0] * self.game.num_types
                self.discard_size = 0
                continue
            self.deal_index = len(self.deal_order)
        self.phase = PLAY_PHASE
        self.turn_index = 0
        self.turn_target = -1
        self.player = self.turn_order[0]

    def _end_turn(self) -> None:
        self.turn_index += 1
        self.turn_target = -1
        if self.turn_index < len(self.turn_order):
            self.player = self.turn_order[self.turn_index]
            return
        self._reveal()
        reason = self._assassination_round_over()
        if reason:
            self._end_assassination_round(reason)
        else:
            self._new_poison_round()

    def _assassination_round_over(self) -> Words | None:
        game = self.game
        if not self.king_alive:
            return say("the king died")
        if sum(self.alive) <= 1:
            return say("at most one peasant is alive")
        if self.poison_round >= game.max_poison_rounds:
            return say_n(
                "the limit of {count} poison round was reached",
                "the limit of {count} poison rounds was reached",
                game.max_poison_rounds,
            )
        if (
            not self.deck_size
            and not self.discard_size
            and not any(self.held[s] for s in range(game.num_players) if self.alive[s])
        ):
            return say("no card is left to play")
        return self._no_kill_left()

    def _no_kill_left(self) -> Words | None:
        """Why no kill can ever happen again in this assassination round, or None.

        A character can die only of a colour the deck holds drops enough of to
        kill it (cards never multiply), and, in a deck without a universal
        antidote, only of a colour not blocked on it (a block then lasts the
        rest of the assassination round). What the hands and piles hold now is
        not weighed: the deck's composition and the blocks decide it alone.
        """
        game = self.game
        if game.has_universal and game.peasant_killers:
            return None  # blocks can be lifted, and two peasants or more are alive here
        n = game.num_players
        for character in range(n + 1):
            if character < n:
                if not self.alive[character]:
                    continue
                colours = game.peasant_killers
            else:
                if not self.king_alive:
                    continue
                colours = game.king_killers
            if colours and not game.has_universal:
                colours &= ~self._blocked(character)
            if colours:
                return None
        if not game.peasant_killers:
            return say("no kill can ever happen: no colour has drops enough in the deck to kill")
        return say(
            "no kill can happen any more: every colour that could kill a living "
            "character is blocked on it"
        )

    def _blocked(self, character: int) -> int:
        """The colours blocked on ``character`` (a bit per colour): those of the
        one-colour antidotes lying on it."""
        game = self.game
        t = game.num_types
        cards = self.table[character * t : character * t + t]
        blocked = 0
        for i in game.antidote_types:
            if cards[i]:
                blocked |= game.antidote_mask[i]
        return blocked

    def _end_assassination_round(self, reason: Words) -> None:
        game = self.game
        self.log = (self.log, (E_ROUND_END, -1, reason))
        if (
            max(self.scores) >= game.target
            or self.assassination_round >= game.max_assassination_rounds
            or 0 < game.max_actions <= self.move_number()
        ):
            self.phase = OVER_PHASE
            self.player = TERMINAL
            return
        self.start_seat = (self.start_seat + 1) % game.num_players
        self._new_assassination_round()

    # -- the reveal -------------------------------------------------------------

    def _reveal(self) -> None:
        """The end of a poison round: every card played this round turns face up
        at once, and the rulebook's steps follow in order (see rules.md)."""
        # Copy on write: clones share these lists, which change only here (plays
        # and played are each state's own and are emptied at the end; the
        # discard pile is replaced by _to_discard). The living and the scores
        # change only when someone dies, so they are replaced only then.
        self.table = self.table.copy()
        self.venom = self.venom.copy()
        revealed, players_on = self._turn_over()
        counted = self._antidotes(players_on)
        lethal = self._drops_per_colour(counted)
        n = self.game.num_players
        if lethal:
            self.alive = self.alive.copy()
            victims = self._deaths(lethal)
            deaths, gained = self._credit_the_killers(victims, lethal, players_on)
            hands = self._hands_to_the_discard_pile(victims)
        else:  # the usual reveal: nobody dies, so nobody scores and no hand is shown
            deaths, gained, hands = (), self.game.no_points, ()
        self.plays = [0] * (n * self.game.num_types)
        self.played = [()] * n
        self.play_target = [-1] * n
        reveal = Reveal(
            self.assassination_round,
            self.poison_round,
            revealed,
            deaths,
            gained,
            hands,
        )
        facts = (reveal, RevealTexts())
        self.last_reveal = facts
        self.log = (self.log, (E_REVEAL, -1, facts))

    def _turn_over(
        self,
    ) -> tuple[tuple[tuple[int, int, tuple[int, ...]], ...], dict[int, list[int]]]:
        """Every play turned face up: ``(seat, character, cards)`` in turn order,
        and the seats that played on each character, in turn order."""
        t = self.game.num_types
        plays, targets = self.plays, self.play_target
        revealed = []
        players_on: dict[int, list[int]] = {}
        for q in self.turn_order:
            character = targets[q]
            if character >= 0:
                revealed.append((q, character, tuple(plays[q * t : q * t + t])))
                on = players_on.get(character)
                if on is None:
                    players_on[character] = [q]
                else:
                    on.append(q)
        return tuple(revealed), players_on

    def _antidotes(self, players_on: dict[int, list[int]]) -> list[int]:
        """Step 1, antidotes first, on each character that received cards: a
        universal antidote discards every card on the character (itself, other
        antidotes and earlier rounds' cards included) and nothing else happens
        there; a one-colour antidote discards every poison card there holding its
        colour, this round's and earlier ones'. The surviving cards of this
        round join the pile (and stay in ``played``, for step 4). Returns the
        characters whose piles are counted, in character order."""
        game = self.game
        t, c = game.num_types, game.num_colours
        table, played, venom = self.table, self.played, self.venom
        poison_mask, antidote_mask, colours_of = (
            game.poison_mask,
            game.antidote_mask,
            game.colours_of,
        )
        # The characters are taken in turn order: each has its own pile, and what
        # goes to the discard pile adds up the same in any order.
        counted = []
        for character, players in players_on.items():
            new = played[players[0]]
            if len(players) > 1:
                for q in players[1:]:
                    new += played[q]
            base, at = character * t, character * c
            remedy = not game.remedies.isdisjoint(new)  # an antidote among the cards
            if remedy and not game.universals.isdisjoint(new):
                pile = table[base : base + t]
                for i in new:
                    pile[i] += 1
                self._to_discard(pile)
                table[base : base + t] = [0] * t
                venom[at : at + c] = [0] * c
                for q in players:
                    played[q] = ()
                continue
            # Each card joins the pile, and its drops the character's count per colour.
            for i in new:
                table[base + i] += 1
                for k, drops in colours_of[i]:
                    venom[at + k] += drops
            if remedy:  # a one-colour antidote
                cure = 0
                for i in new:
                    cure |= antidote_mask[i]
                # Copy on write, as in _to_discard; the poison types of each cured
                # colour (a type of two colours may come twice, and is empty then).
                discard = self.discard = self.discard.copy()
                for k, types in enumerate(game.colour_types):
                    if cure >> k & 1:
                        for i in types:
                            gone = table[base + i]
                            if gone:
                                table[base + i] = 0
                                discard[i] += gone
                                self.discard_size += gone
                                for j, drops in colours_of[i]:
                                    venom[at + j] -= gone * drops
                for q in players:
                    played[q] = tuple([i for i in played[q] if not poison_mask[i] & cure])
            counted.append(character)
        counted.sort()
        return counted

    def _drops_per_colour(self, counted: list[int]) -> dict[int, int]:
        """Step 2, drops counted per colour over every card on each character
        (a multi-coloured card gives its drops in each of its colours; a blocked
        colour counts zero). Returns the lethal colours (a bit per colour) of
        each character that has any, in character order."""
        game = self.game
        c = game.num_colours
        venom = self.venom  # the counts, kept card by card (see _antidotes)
        lethal_at = game.lethal_counts
        lethal: dict[int, int] = {}
        for character in counted:
            limit = lethal_at[character]
            totals = venom[character * c : character * c + c]
            if max(totals) < limit:
                continue  # the usual case: no colour is lethal, whatever is blocked
            blocked = self._blocked(character)
            colours = 0
            for k, total in enumerate(totals):
                if total >= limit and not blocked >> k & 1:
                    colours |= 1 << k
            if colours:
                lethal[character] = colours
        return lethal

    def _deaths(self, lethal: dict[int, int]) -> list[int]:
        """Step 3, deaths: every character with a lethal colour dies, all at once."""
        n = self.game.num_players
        for character in lethal:
            if character == n:
                self.king_alive = False
            else:
                self.alive[character] = False
        self.targets = (*compress(range(n), self.alive), n)
        return list(lethal)

    def _credit_the_killers(
        self, victims: list[int], lethal: dict[int, int], players_on: dict[int, list[int]]
    ) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], tuple[int, ...]]:
        """Step 4, credit: every seat that put a card holding a lethal colour on
        the victim this poison round, and that survived the antidotes, scores for
        the kill once, by the rulebook's table (killed seats too). Returns
        ``(victim, killers)`` per victim and the points gained per seat."""
        game = self.game
        n = game.num_players
        gained = [0] * n
        played, poison_mask = self.played, game.poison_mask  # after the antidotes
        deaths = []
        for victim in victims:
            colours = lethal[victim]
            poisoners = []
            for q in players_on[victim]:
                for i in played[q]:
                    if poison_mask[i] & colours:
                        poisoners.append(q)
                        break
            killers = tuple(poisoners)
            is_king = victim == n
            victim_kind = self.king if is_king else self.kinds[victim]
            for q in killers:
                gained[q] += kill_points(self.kinds[q], victim_kind, is_king)
            deaths.append((victim, killers))
        self.scores = list(map(add, self.scores, gained))
        self.round_points = list(map(add, self.round_points, gained))
        return tuple(deaths), tuple(gained)

    def _hands_to_the_discard_pile(
        self, victims: list[int]
    ) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Step 5: a killed peasant's hand, turned face up, and the cards on it go
        to the discard pile. Returns the hands, by seat."""
        game = self.game
        n, t, c = game.num_players, game.num_types, game.num_colours
        table = self.table
        hands = []
        for seat in victims:
            if seat == n:
                continue  # the king holds no hand; its pile stays until the round ends
            base = seat * t
            hand = tuple(self.hands[base : base + t])
            hands.append((seat, hand))
            self._to_discard(list(map(add, table[base : base + t], hand)))
            table[base : base + t] = [0] * t
            self.venom[seat * c : seat * c + c] = [0] * c
            self.hands[base : base + t] = [0] * t
            self.held[seat] = 0
        return tuple(hands)

    def _to_discard(self, cards: Sequence[int]) -> None:
        """Add ``cards`` (per type) to the discard pile (a new list: clones share it)."""
        self.discard = list(map(add, self.discard, cards))
        self.discard_size += sum(cards)

    @property
    def hand_size(self) -> list[int]:
        """Per seat, how many cards it holds."""
        t = self.game.num_types
        hands = self.hands
        return [sum(hands[at : at + t]) for at in range(0, len(hands), t)]

    @property
    def play_count(self) -> list[int]:
        """Per seat, how many cards it has added this poison round."""
        return [len(cards) for cards in self.played]

    # -- the protocol -----------------------------------------------------------

    def current_player(self) -> Player:
        """The seat to act, CHANCE or TERMINAL."""
        return self.player

    def is_chance_node(self) -> bool:
        """Whether the next action is a chance event."""
        # Asked before every action of a playout: read the field, not current_player().
        return self.player == CHANCE

    # A game is mostly deals (about a third of its actions) and seats' choices
    # during their turns (about 60%), the rest the king's and peasants' draws:
    # the methods below give each a shorter road than the base class's, which
    # builds the legal actions on the way (benchmarks/playout.py times it; the
    # fast-paths test checks it against the rules). Their legality checks read
    # the facts _legal_actions reads, and whatever they do not accept goes to
    # the base class, which applies it or refuses it with the precise error.

    def legal_actions(self) -> list[Action]:
        """The sorted legal actions; at a chance node, the possible outcomes."""
        if self.phase != PLAY_PHASE:
            return super().legal_actions()
        # The seat to move: its choices come from tables, by the living characters
        # (kept since the last death) or by the types in hand. They are kept for
        # the apply_action that follows, as the base class keeps them.
        seat = self.player
        if self.turn_target < 0:
            legal = self.targets if self.held[seat] else self.game.pass_only
        else:
            game = self.game
            key = self.held[seat] << 1 | (len(self.played[seat]) > 0)
            legal = game.card_choices.get(key) or game.card_choices_of(key)
        self._legal = legal
        return list(legal)

    def apply_action(self, action: Action | str) -> None:
        """Play ``action`` (an id or notation). Bad input raises and leaves the state as it was."""
        if type(action) is int:
            phase = self.phase
            if phase == PLAY_PHASE:
                legal = action in (self._legal or self.legal_actions())
                if legal:
                    self._play(action)
            elif phase == DEAL_PHASE:
                # A deal of a type still in the deck (the types it holds are the outcomes).
                kind = action - self.game.DEAL
                legal = 0 <= kind < len(self.deck) and self.deck[kind] > 0
                if legal:
                    self._deal(kind)
            else:  # the king's and the peasants' draws, from tables (none once over)
                legal = action in self._legal_actions()
                if legal:
                    self._apply(action)
            if legal:
                self._history.append(action)
                self._legal = None
                return
        super().apply_action(action)

    def _legal_actions(self) -> Sequence[Action]:
        game = self.game
        phase = self.phase
        if phase == PLAY_PHASE:
            return self.legal_actions()
        if phase == DEAL_PHASE:
            return [a for a, c in zip(game.deal_actions, self.deck, strict=True) if c]
        if phase == PEASANT_PHASE:
            rats, weasels = self.peasants_left
            return game.peasant_choices[rats, weasels]
        if phase == KING_PHASE:
            return game.king_choices
        return ()

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Deals by card type (count / deck size), peasants by the peasant deck, the king 1/2."""
        game = self.game
        phase = self.phase
        if phase == DEAL_PHASE:
            # The pairs of each deck size are made once (LittleDropOfPoisonGame.deal_rows_of).
            size = self.deck_size
            rows = game.deal_rows[size] or game.deal_rows_of(size)
            deck = self.deck
            return list(compress(map(getitem, rows, deck), deck))
        if phase == PEASANT_PHASE:
            rats, weasels = self.peasants_left
            return list(game.peasant_draws[rats, weasels])
        if phase == KING_PHASE:
            return list(game.king_draws)
        return []

    def _apply(self, action: Action) -> None:
        game = self.game
        phase = self.phase
        if phase == DEAL_PHASE:
            self._deal(action - game.DEAL)
        elif phase == PLAY_PHASE:
            self._play(action)
        elif phase == PEASANT_PHASE:
            kind = action - game.PEASANT
            seat = self.kinds.index(-1)
            self.kinds = self.kinds.copy()
            self.kinds[seat] = kind
            self.peasants_left = self.peasants_left.copy()
            self.peasants_left[kind] -= 1
            self.log = (self.log, (E_PEASANT, seat, kind))
            if seat == game.num_players - 1:
                # The characters are on the table: with a deck that can kill
                # none of them, the assassination round is over before it starts.
                reason = self._no_kill_left()
                if reason:
                    self._end_assassination_round(reason)
                else:
                    self._new_poison_round()
        else:
            self.king = action - game.CROWN
            self.log = (self.log, (E_KING, -1, self.king))
            self.phase = PEASANT_PHASE

    def _deal(self, kind: int) -> None:
        """Deal a card of type ``kind`` to the seat whose deal it is."""
        seat = self.deal_order[self.deal_index]
        self.deck[kind] -= 1
        self.deck_size -= 1
        self.hands[seat * self.game.num_types + kind] += 1
        self.held[seat] |= 1 << kind
        self.log = (self.log, (E_DEAL, seat, kind))
        self.deal_index += 1
        if self.deck_size and self.deal_index < len(self.deal_order):
            return  # the usual case: another deal follows (the phase and player stay)
        self._next_deal()

    def _play(self, action: Action) -> None:
        """A seat's choice in its turn: a target, a card, done or pass."""
        game = self.game
        seat = self.player
        if action < game.ADD:
            self.turn_target = action
            self.play_target[seat] = action
            self.log = (self.log, (E_TARGET, seat, action))
        elif action < game.DONE:
            kind = action - game.ADD
            at = seat * game.num_types + kind
            self.hands[at] -= 1
            if not self.hands[at]:
                self.held[seat] &= ~(1 << kind)
            self.plays[at] += 1
            self.played[seat] += (kind,)
            self.log = (self.log, (E_CARD, seat, kind))
        elif action == game.DONE:
            self.log = (self.log, (E_DONE, seat, 0))
            self._end_turn()
        else:
            self.log = (self.log, (E_PASS, seat, 0))
            self._end_turn()

    def _clone_into(self, other: State) -> None:
        assert isinstance(other, LittleDropOfPoisonState)
        # alive, discard, kinds, peasants_left, round_points, scores, table and
        # venom are shared: every change replaces them with a new list (copy on write).
        other._public = self._public
        other._resample_facts = None
        other.round_start = self.round_start
        other.alive = self.alive
        other.assassination_round = self.assassination_round
        other.deal_index = self.deal_index
        other.deal_order = self.deal_order
        other.deck = self.deck.copy()
        other.deck_size = self.deck_size
        other.discard = self.discard
        other.discard_size = self.discard_size
        other.hands = self.hands.copy()
        other.held = self.held.copy()
        other.king = self.king
        other.king_alive = self.king_alive
        other.kinds = self.kinds
        other.last_reveal = self.last_reveal
        other.log = self.log
        other.peasants_left = self.peasants_left
        other.phase = self.phase
        other.play_target = self.play_target.copy()
        other.player = self.player
        other.plays = self.plays.copy()
        other.played = self.played.copy()
        other.poison_round = self.poison_round
        other.round_points = self.round_points
        other.scores = self.scores
        other.start_seat = self.start_seat
        other.table = self.table
        other.venom = self.venom
        other.targets = self.targets
        other.turn_index = self.turn_index
        other.turn_order = self.turn_order
        other.turn_target = self.turn_target

    # -- notation ---------------------------------------------------------------

    def action_to_string(self, action: Action) -> str:
        """``on 2``, ``on king``, ``b1``, ``done``, ``pass``; chance: ``b1 to 2``,
        ``rat to 2``, ``rat king``."""
        game = self.game
        if action < game.ADD:
            return f"on {game.character_name(action)}"
        if action < game.DONE:
            return game.codes[action - game.ADD]
        if action == game.DONE:
            return "done"
        if action == game.PASS:
            return "pass"
        if action < game.PEASANT:
            code = game.codes[action - game.DEAL]
            if self.phase == DEAL_PHASE:
                return f"{code} to {self.deal_order[self.deal_index]}"
            return code
        if action < game.CROWN:
            kind = KINDS[action - game.PEASANT]
            if self.phase == PEASANT_PHASE:
                return f"{kind} to {self.kinds.index(-1)}"
            return kind
        return f"{KINDS[action - game.CROWN]} king"

    def _parse_action(self, text: str) -> Action | None:
        game = self.game
        lowered = " ".join(text.lower().split())
        phase = self.phase
        if phase == PLAY_PHASE:
            if lowered in ("done", "pass"):
                return game.DONE if lowered == "done" else game.PASS
            match = _TARGET_TEXT.fullmatch(lowered)
            if match:
                who = match.group(1)
                if who in ("king", "k"):
                    return game.KING
                seat = int(who)
                return seat if seat < game.num_players else None
            code = lowered.removeprefix("+").strip()
            if code in game.codes:
                return game.ADD + game.codes.index(code)
            return None
        seat_named = -1
        match = _CHANCE_TO.fullmatch(lowered)
        if match:
            lowered, seat_named = match.group(1), int(match.group(2))
        lowered = lowered.removeprefix("deal ").strip()
        if phase == DEAL_PHASE:
            if seat_named >= 0 and seat_named != self.deal_order[self.deal_index]:
                return None
            if lowered in game.codes:
                return game.DEAL + game.codes.index(lowered)
            return None
        if phase == PEASANT_PHASE:
            if seat_named >= 0 and seat_named != self.kinds.index(-1):
                return None
            if lowered in KINDS:
                return game.PEASANT + KINDS.index(lowered)
            return None
        if phase == KING_PHASE and seat_named < 0:
            word = lowered.removesuffix(" king")
            if word in KINDS:
                return game.CROWN + KINDS.index(word)
        return None

    def action_label(self, action: Action) -> str:
        """The English of :meth:`action_words`."""
        return str(self.action_words(action))

    def action_words(self, action: Action) -> Words:
        """``Play on the king``, ``Play on your own peasant``, ``Play on seat 2's
        peasant`` (the seat as data), ``Add blue 3``, ``Add universal antidote``,
        ``Done``, ``Pass``; a chance action (never offered to a seat) reads as
        its notation."""
        game = self.game
        if action < game.KING:
            if action == self.player:
                return say("Play on your own peasant")
            return say("Play on {owner}'s peasant", owner=seat_words(action))
        if action == game.KING:
            return say("Play on the king")
        if action < game.DONE:
            return say("Add {card}", card=game.deck.types[action - game.ADD].name)
        if action == game.DONE:
            return say("Done")
        if action == game.PASS:
            return say("Pass")
        return Words(self.action_to_string(action))

    def action_move(self, action: Action) -> dict[str, JSON]:
        """An action as data, its kind that of its event (rules.md, "What the
        server sends"): ``target`` (``on``: ``"king"`` or the seat as text, as
        the observation's table names characters; ``seat``: the peasant's seat,
        None for the king), ``card`` (``card``: its code), ``done``, ``pass``;
        chance: ``deal`` (``to``, ``card``), ``peasant`` (``seat``,
        ``peasant``), ``king`` (``king``)."""
        game = self.game
        if action <= game.KING:
            on = game.character_name(action)
            return {"kind": "target", "on": on, "seat": None if action == game.KING else action}
        if action < game.DONE:
            return {"kind": "card", "card": game.codes[action - game.ADD]}
        if action == game.DONE:
            return {"kind": "done"}
        if action == game.PASS:
            return {"kind": "pass"}
        if action < game.PEASANT:
            to = self.deal_order[self.deal_index] if self.phase == DEAL_PHASE else None
            return {"kind": "deal", "to": to, "card": game.codes[action - game.DEAL]}
        if action < game.CROWN:
            owner = self.kinds.index(-1) if self.phase == PEASANT_PHASE else None
            return {"kind": "peasant", "seat": owner, "peasant": KINDS[action - game.PEASANT]}
        return {"kind": "king", "king": KINDS[action - game.CROWN]}

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        """The event of :meth:`describe_action`: a dealt card and a card added face
        down are read by their seat alone; the rest is told to all (``events.py``)."""
        return describe(self, action, actor, viewer)

    def event_audience(self, action: Action, viewer: Player | None) -> Hashable:
        """A dealt card is read by its seat alone, a card added face down by
        the seat that adds it; everything else is told to all alike."""
        game = self.game
        if self.phase == DEAL_PHASE and self.player == CHANCE:
            return viewer == self.deal_order[self.deal_index]
        if game.ADD <= action < game.DONE:
            return viewer == self.player
        return None

    # -- what each seat knows ---------------------------------------------------

    def _entries(self) -> list[tuple[int, int, Any]]:
        entries = []
        node = self.log
        while node:
            node, entry = node
            entries.append(entry)
        entries.reverse()
        return entries

    def observation(self, player: Player | None) -> dict[str, JSON]:
        """The table, the characters, the scores; the seat's own hand and face-down play.

        The values of the public keys are made once per position and shared by
        every observation of it (a server asks every viewer in turn): read
        them, never change them. The dict itself is the caller's own."""
        # Shared, not copied: a copy (through JSON text, as this once did) cost
        # about 200 µs per viewer and move, the largest part of a server's view.
        cached = self._public
        moves = len(self._history)
        if cached is not None and cached[0] == moves:
            public = cached[1]
        else:
            public = self._public_observation()
            self._public = (moves, public)
        obs: dict[str, JSON] = {**public, "seat": player}
        game = self.game
        if player is not None and 0 <= player < game.num_players:
            t = game.num_types
            base = player * t
            obs["hand"] = game.cards_json(self.hands[base : base + t])
            obs["my_play"] = game.cards_json(self.plays[base : base + t])
        return obs

    def _public_observation(self) -> dict[str, JSON]:
        game = self.game
        n, t = game.num_players, game.num_types
        names = game.character_names
        kinds, alive, scores, points = self.kinds, self.alive, self.scores, self.round_points
        hand_size, play_target, played = self.hand_size, self.play_target, self.played
        seats: list[JSON] = [
            {
                "seat": s,
                "kind": KINDS[kinds[s]] if kinds[s] >= 0 else None,
                "alive": alive[s],
                "score": scores[s],
                "round_points": points[s],
                "hand": hand_size[s],
                "played_on": names[play_target[s]] if play_target[s] >= 0 else None,
                "played": len(played[s]),
            }
            for s in range(n)
        ]
        table: dict[str, JSON] = {}
        all_cards = self.table
        for character in range(n + 1):
            base = character * t
            cards = all_cards[base : base + t]
            if not any(cards):
                table[names[character]] = {"cards": {}, "blocked": []}
                continue
            mask = self._blocked(character)
            blocked = [name for k, name in enumerate(game.deck.colours) if mask >> k & 1]
            table[names[character]] = {"cards": game.cards_json(cards), "blocked": blocked}
        obs: dict[str, JSON] = {
            "game": game.name,
            "players": n,
            "target": game.target,
            "phase": PHASE_NAMES[self.phase],
            "to_move": self.player if self.player >= 0 else None,
            "assassination_round": self.assassination_round,
            "poison_round": self.poison_round,
            "starting_seat": self.start_seat,
            "king": KINDS[self.king] if self.king >= 0 else None,
            "king_alive": self.king_alive,
            "king_lethal": game.king_lethal,
            "peasant_lethal": PEASANT_LETHAL,
            "seats": seats,
            "table": table,
            "deck": self.deck_size,
            "discard": game.cards_json(self.discard),
            "discard_count": self.discard_size,
            "cards": list(game.codes),
            # what each code means, so a front end draws a card from data and
            # never reads its code apart
            "card_types": {
                card.code: {"kind": card.kind, "colours": list(card.colours), "drops": card.drops}
                for card in game.deck.types
            },
            "colours": list(game.deck.colours),
            "last_reveal": None
            if self.last_reveal is None
            else self._reveal_json(self.last_reveal[0]),
        }
        outcome = self.outcome()
        obs["outcome"] = None if outcome is None else outcome.to_json()
        return obs

    def _reveal_json(self, reveal: Reveal) -> JSON:
        game = self.game
        return {
            "assassination_round": reveal.assassination_round,
            "poison_round": reveal.poison_round,
            "plays": [
                {"seat": q, "on": game.character_name(c), "cards": game.cards_json(cards)}
                for q, c, cards in reveal.plays
            ],
            "deaths": [
                {"character": game.character_name(c), "killers": list(killers)}
                for c, killers in reveal.deaths
            ],
            "points": list(reveal.points),
            "discarded_hands": [
                {"seat": q, "cards": game.cards_json(cards)} for q, cards in reveal.hands
            ],
        }

    def _reveal_text(self, reveal: Reveal) -> str:
        game = self.game
        plays = ", ".join(
            f"{q} on {game.character_name(c)}: {game.cards_text(cards)}"
            for q, c, cards in reveal.plays
        )
        deaths = ", ".join(
            f"{game.character_name(c)} by {'+'.join(map(str, k)) or 'nobody'}"
            for c, k in reveal.deaths
        )
        hands = ", ".join(f"{q}: {game.cards_text(cards)}" for q, cards in reveal.hands)
        points = " ".join(map(str, reveal.points))
        return f"reveal [{plays}] dead [{deaths or '-'}] hands [{hands or '-'}] points [{points}]"

    def information_state_string(self, player: Player) -> str:
        """Every event in order, with other seats' deals and face-down cards as ``?``."""
        # Each reveal's log entry keeps, per seat, the seat's text up to it as a
        # linked list of the stretches between reveals (log nodes are shared by
        # clones and never change, so neither does that text). A call writes out
        # only the entries after the last reveal already kept for the seat, and
        # joins the stretches: each line is kept once per seat, so the memory is
        # linear in the game's length, and so is a call's time, in C (the join).
        recent: list[tuple[int, int, Any]] = []
        kept: Stretches | None = None
        node = self.log
        while node:
            node, entry = node
            if entry[0] == E_REVEAL:
                kept = entry[2][1].seats.get(player)
                if kept is not None:
                    break
            recent.append(entry)
        start = 0
        recent.reverse()
        for index, (code, _seat, value) in enumerate(recent):
            if code == E_REVEAL:
                kept = (kept, self._info_lines(recent[start : index + 1], player))
                value[1].seats[player] = kept
                start = index + 1
        parts = [self._info_lines(recent[start:], player)] if start < len(recent) else []
        while kept is not None:
            kept, text = kept
            parts.append(text)
        parts.append(f"seat {player} of {self.game.num_players}")
        parts.reverse()
        return "\n".join(parts)

    def _info_lines(self, entries: Sequence[tuple[int, int, Any]], player: Player) -> str:
        """The lines of ``entries`` as ``player`` reads them, one line each."""
        game = self.game
        codes = game.codes
        lines = []
        for code, seat, value in entries:
            if code == E_KING:
                lines.append(f"{KINDS[value]} king")
            elif code == E_PEASANT:
                lines.append(f"{KINDS[value]} to {seat}")
            elif code == E_DEAL:
                lines.append(f"{codes[value] if seat == player else '?'} to {seat}")
            elif code == E_TARGET:
                lines.append(f"{seat}: on {game.character_name(value)}")
            elif code == E_CARD:
                lines.append(f"{seat}: {codes[value] if seat == player else '?'}")
            elif code == E_DONE:
                lines.append(f"{seat}: done")
            elif code == E_PASS:
                lines.append(f"{seat}: pass")
            elif code == E_REVEAL:
                texts: RevealTexts = value[1]
                if texts.line is None:
                    texts.line = self._reveal_text(value[0])
                lines.append(texts.line)
            elif code == E_REFILL:
                lines.append(f"refill {game.cards_text(value)}")
            else:
                lines.append(f"end of assassination round: {value}")
        return "\n".join(lines)

    def observation_tensor(self, player: Player) -> list[float]:
        """Every fact of ``observation(player)``, as numbers (the game's constants,
        which are the same in every position, aside):

        - per seat: alive, rat, weasel, score and round points (over the target),
          hand size and cards played this round (over 10), the character played
          on, one-hot (N+1);
        - the king: rat, weasel, alive;
        - per character: the face-up cards per type, the blocked colours;
        - own hand and own face-down play per type, the discard pile per type,
          the deck's size (over the deck's);
        - the phase one-hot, the seat to move one-hot, own seat one-hot;
        - the assassination round and the poison round (over their limits), the
          starting seat one-hot;
        - the last reveal (all zero before the first): 1, its assassination and
          poison round (over their limits); per seat the character it played on
          one-hot (N+1) and its cards per type; per character whether it died
          and, per seat, whether that seat killed it; the points gained per seat
          (over the target); per seat the hand it died holding, per type.

        The order of the lists in the observation is not a fact of its own: the
        reveal's plays are in turn order from its starting seat (the current
        one, or the one before it when the reveal was in the previous
        assassination round), its deaths by character, the killers in turn order.
        """
        game = self.game
        n, t, c = game.num_players, game.num_types, game.num_colours
        target = float(game.target)
        hand_size = self.hand_size
        out: list[float] = []
        for s in range(n):
            out += [
                float(self.alive[s]),
                float(self.kinds[s] == RAT),
                float(self.kinds[s] == WEASEL),
                self.scores[s] / target,
                self.round_points[s] / target,
                hand_size[s] / 10.0,
                len(self.played[s]) / 10.0,
            ]
            out += _one_hot(n + 1, self.play_target[s])
        out += [float(self.king == RAT), float(self.king == WEASEL), float(self.king_alive)]
        for character in range(n + 1):
            out += [float(x) for x in self.table[character * t : character * t + t]]
            blocked = self._blocked(character)
            out += [float(blocked >> k & 1) for k in range(c)]
        if 0 <= player < n:
            out += [float(x) for x in self.hands[player * t : player * t + t]]
            out += [float(x) for x in self.plays[player * t : player * t + t]]
        else:
            out += [0.0] * (2 * t)
        out += [float(x) for x in self.discard]
        out.append(self.deck_size / max(1, game.deck_size))
        out += _one_hot(len(PHASE_NAMES), self.phase)
        out += _one_hot(n, self.player)
        out += _one_hot(n, player)
        out.append(self.assassination_round / game.max_assassination_rounds)
        out.append(self.poison_round / game.max_poison_rounds)
        out += _one_hot(n, self.start_seat)
        out += self._reveal_tensor()
        return out

    def information_state_tensor(self, player: Player) -> list[float]:
        """Everything ``player`` has seen (``information_state_string(player)``) as
        numbers of a fixed layout, all in [0, 1]:

        - the asking seat, one-hot (N);
        - overflow: 1 once the game has played more poison rounds than there are
          slots (from then on the last slot is cleared and reused for each new
          poison round, and the tensor no longer has perfect recall);
        - a slot per poison round of the whole game, in order (as many as
          ``game.infostate_slots()``, at most 65,536 numbers in all), each:

          - whether an assassination round starts here (1), the king's kind (2)
            and each seat's peasant kind (2N), one-hot, set in the first slot of
            an assassination round only (an assassination round that ends before
            its first poison round keeps a slot of its own with these alone);
          - the cards dealt so far this poison round (over 2N); the asking
            seat's first and second card dealt, one-hot by type (2T);
          - per seat the character it chose (one-hot, N+1), the cards it added
            (over the most a hand holds in the k-th poison round of its
            assassination round, k+1), whether its turn is over (done or pass: a
            pass adds no card);
          - the types of the cards the asking seat added, in order, (type + 1) /
            T each (as many as a hand can hold at the round limit);
          - whether the reveal came; per seat the cards it played, per type; per
            seat the hand it was killed holding in this reveal, per type (NT each).

        Card counts are over the deck's copies of their type.

        Left out is what the rules make of these (every character's deaths and
        killers, the points, the refills of the deck, how an assassination
        round ends): the same facts give the same such events.

        The tensor is mostly zeros and is made from its nonzero entries
        (:meth:`write_information_state_tensor` writes them into an array).
        """
        indices, values = self._infostate_entries(player)
        out = [0.0] * self.game.information_state_tensor_size()
        for at, value in zip(indices.tolist(), values.tolist(), strict=True):
            out[at] = value
        return out

    def write_information_state_tensor(self, player: Player, out: Any) -> None:
        """:meth:`information_state_tensor` written into ``out``, a NumPy array of
        its size: zeros, then the few nonzero entries (no list of every number)."""
        indices, values = self._infostate_entries(player)
        out.fill(0.0)
        out[indices] = values

    def _infostate_entries(self, player: Player) -> tuple[Any, Any]:
        """The nonzero entries of ``player``'s information-state tensor: their
        indices and values as NumPy arrays, every index once.

        As for the string, each reveal's log entry keeps the seat's tensor up to
        it as a linked list of stretches (:class:`TensorStretch`: the entries the
        stretch wrote, and where the scan stands after it), so a call scans only
        the log after the last reveal already kept and joins the stretches."""
        import numpy as np  # here, not at the top: importing apothecary loads no NumPy

        game = self.game
        slots = game.infostate_slots()
        key = (player, slots)
        recent: list[tuple[int, int, Any]] = []
        kept: TensorStretch | None = None
        node = self.log
        while node:
            node, entry = node
            if entry[0] == E_REVEAL:
                kept = entry[2][1].tensors.get(key)
                if kept is not None:
                    break
            recent.append(entry)
        recent.reverse()
        slot, poison_round = (-1, 0) if kept is None else (kept.slot, kept.poison_round)
        width = game.slot_width()
        last = game.num_players + 1 + (slots - 1) * width
        start = 0
        for index, entry in enumerate(recent):
            if entry[0] == E_REVEAL:
                writes: dict[int, float] = {}
                slot, poison_round, clears = self._scan_infostate(
                    recent[start : index + 1], player, slot, poison_round, writes
                )
                count = 1 if kept is None else kept.stretches + 1
                kept = TensorStretch(
                    kept,
                    np.fromiter(writes, np.intp, len(writes)),
                    np.fromiter(writes.values(), np.float64, len(writes)),
                    clears,
                    slot,
                    poison_round,
                    count,
                    None,
                )
                if count % _JOIN_EVERY == 0:
                    # Every so often a stretch keeps everything up to it joined, so
                    # a call joins at most _JOIN_EVERY stretches, not the whole game.
                    joined = _join_stretches([], [], kept, False, last, width)
                    kept = kept._replace(joined=joined)
                entry[2][1].tensors[key] = kept
                start = index + 1
        writes = {player: 1.0}
        void = self._scan_infostate(recent[start:], player, slot, poison_round, writes)[2]
        indices = [np.fromiter(writes, np.intp, len(writes))]
        values = [np.fromiter(writes.values(), np.float64, len(writes))]
        return _join_stretches(indices, values, kept, void, last, width)

    def _scan_infostate(
        self,
        entries: Sequence[tuple[int, int, Any]],
        player: Player,
        slot: int,
        poison_round: int,
        writes: dict[int, float],
    ) -> tuple[int, int, bool]:
        """Scan ``entries`` (from the game's start, or just after a reveal of
        ``poison_round`` which filled ``slot``) into ``writes`` (index: value, the
        last value written to each index); the slot and poison round after them,
        and whether the last slot was cleared for reuse."""
        game = self.game
        n, t = game.num_players, game.num_types
        copies = game.start_counts
        width = game.slot_width()
        slots = game.infostate_slots()
        first = n + 1  # where slot 0 starts
        last = first + (slots - 1) * width
        base = first + slot * width  # the current slot
        fresh = False  # the current slot was opened by a king and awaits its poison round
        slot_open = False
        cleared = False
        deals = mine_dealt = mine_added = 0
        added = [0] * n
        seat_width = n + 3
        most = 1
        deals_at, turns, mine, reveal, hands, _width = game.slot_layout()

        def next_slot() -> int:
            nonlocal slot, cleared
            slot += 1
            if slot < slots:
                return first + slot * width
            slot = slots - 1
            writes[n] = 1.0
            for at in [at for at in writes if last <= at < last + width]:
                del writes[at]
            cleared = True
            return last

        for code, seat, value in entries:
            if code == E_KING:
                base = next_slot()
                writes[base] = 1.0
                writes[base + 1 + value] = 1.0
                fresh = True
                slot_open = False
                poison_round = 0
                continue
            if code == E_PEASANT:
                writes[base + 3 + 2 * seat + value] = 1.0
                continue
            if code in (E_REFILL, E_ROUND_END):
                continue  # the rules' consequences of public facts
            if not slot_open:
                # the first event of a poison round: a deal, or a turn when no card is left
                if not fresh:
                    base = next_slot()
                fresh = False
                poison_round += 1
                most = game.most_in_hand(poison_round)
                slot_open = True
                deals = mine_dealt = mine_added = 0
                added = [0] * n
            if code == E_DEAL:
                deals += 1
                writes[base + deals_at] = deals / (2 * n)
                if seat == player:
                    writes[base + deals_at + 1 + mine_dealt * t + value] = 1.0
                    mine_dealt += 1
            elif code == E_TARGET:
                writes[base + turns + seat * seat_width + value] = 1.0
            elif code == E_CARD:
                added[seat] += 1
                writes[base + turns + seat * seat_width + n + 1] = added[seat] / most
                if seat == player:
                    writes[base + mine + mine_added] = (value + 1) / t
                    mine_added += 1
            elif code in (E_DONE, E_PASS):
                writes[base + turns + seat * seat_width + n + 2] = 1.0
            else:  # E_REVEAL: a slot's parts of it are written here only, so zeros are left out
                shown: Reveal = value[0]
                writes[base + reveal] = 1.0
                for q, _character, cards in shown.plays:
                    at = base + reveal + 1 + q * t
                    for k, (x, m) in enumerate(zip(cards, copies, strict=True)):
                        if x:
                            writes[at + k] = x / m
                for q, cards in shown.hands:
                    at = base + hands + q * t
                    for k, (x, m) in enumerate(zip(cards, copies, strict=True)):
                        if x:
                            writes[at + k] = x / m
                slot_open = False
        return slot, poison_round, cleared

    def _reveal_tensor(self) -> list[float]:
        """The last reveal's part of :meth:`observation_tensor`."""
        game = self.game
        n, t = game.num_players, game.num_types
        size = 3 + n * (n + 1 + t) + (n + 1) * (n + 1) + n + n * t
        if self.last_reveal is None:
            return [0.0] * size
        reveal = self.last_reveal[0]
        out = [
            1.0,
            reveal.assassination_round / game.max_assassination_rounds,
            reveal.poison_round / game.max_poison_rounds,
        ]
        plays: list[tuple[int, tuple[int, ...]] | None] = [None] * n
        for q, character, cards in reveal.plays:
            plays[q] = (character, cards)
        for play in plays:
            if play is None:
                out += [0.0] * (n + 1 + t)
            else:
                out += _one_hot(n + 1, play[0])
                out += [float(x) for x in play[1]]
        killers_of: dict[int, tuple[int, ...]] = dict(reveal.deaths)
        for character in range(n + 1):
            killers = killers_of.get(character)
            out.append(float(killers is not None))
            out += [float(killers is not None and q in killers) for q in range(n)]
        out += [p / game.target for p in reveal.points]
        hands: list[tuple[int, ...] | None] = [None] * n
        for q, cards in reveal.hands:
            hands[q] = cards
        for hand in hands:
            out += [0.0] * t if hand is None else [float(x) for x in hand]
        assert len(out) == size
        return out

    def resample_from_infostate(self, player: Player, rng: random.Random) -> State:
        """Redeal every card ``player`` has not seen, consistently with what it saw
        (the redeal is :mod:`.resample`'s; here the history it rewrote is replayed)."""
        game = self.game
        # What the seat knows is kept on the state for the next draw from the same
        # position (the history only grows, so its length tells whether it is current).
        cached = self._resample_facts
        if cached is None or cached[0] != len(self._history) or cached[1] != player:
            known = KnownCards(
                self._entries(),
                self.history(),
                player,
                game.num_types,
                game.start_counts,
                self.assassination_round,
            )
            cached = self._resample_facts = (len(self._history), player, known)
        known = cached[2]
        actions = redeal(known, game.DEAL, game.ADD, rng)
        # Only the current assassination round is replayed, from its first
        # position (which holds nothing hidden); the log of the earlier rounds
        # is rewritten entry by entry. The rewritten history is legal by
        # construction, so it is replayed without the per-action legality check.
        replay = self._round_start_state()
        log: tuple[object, ...] = ()
        last_reveal: tuple[Reveal, RevealTexts] | None = None
        index = 0
        for code, seat, value in known.entries[: known.round_start_entry]:
            if code == E_DEAL:
                value = actions[index] - game.DEAL
            elif code == E_CARD:
                value = actions[index] - game.ADD
            elif code == E_REVEAL:
                # The texts start afresh, but for what the drawn world shares with
                # this one: the reveal's line and the seat's own history.
                texts: RevealTexts = value[1]
                mine = texts.seats.get(player)
                seats = {} if mine is None else {player: mine}
                tensors = {k: v for k, v in texts.tensors.items() if k[0] == player}
                value = last_reveal = (value[0], RevealTexts(texts.line, seats, tensors))
            log = (log, (code, seat, value))
            if code < ACTION_ENTRIES:
                index += 1
        replay.log = log
        replay.last_reveal = last_reveal
        replay._history = actions[: known.round_start_action]
        replay._legal = None
        for action in actions[known.round_start_action :]:
            replay._apply(action)
            replay._history.append(action)
        assert min(replay.deck) >= 0 and min(replay.hands) >= 0
        return replay

    # -- the end ----------------------------------------------------------------

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.phase == OVER_PHASE

    def outcome(self) -> Outcome | None:
        """Highest score wins; tie: most points in the last assassination round; then shared."""
        if self.phase != OVER_PHASE:
            return None
        best = max(self.scores)
        tied = [s for s in range(self.game.num_players) if self.scores[s] == best]
        reason = say("{who} has the highest score ({best})", who=seat_words(tied[0]), best=best)
        if len(tied) > 1:
            last = max(self.round_points[s] for s in tied)
            winners = [s for s in tied if self.round_points[s] == last]
            if len(winners) < len(tied):
                reason = say(
                    "tied at {best}; most points in the last assassination round ({last})",
                    best=best,
                    last=last,
                )
            else:
                reason = say(
                    "tied at {best} and at {last} in the last assassination round: shared",
                    best=best,
                    last=last,
                )
            tied = winners
        game = self.game
        if best < game.target and self.assassination_round < game.max_assassination_rounds:
            reason = say_n(
                "{reason}; nobody reached {target} within {count} action",
                "{reason}; nobody reached {target} within {count} actions",
                game.max_actions,
                reason=reason,
                target=game.target,
            )
        elif best < game.target:
            reason = say_n(
                "{reason}; nobody reached {target} within {count} assassination round",
                "{reason}; nobody reached {target} within {count} assassination rounds",
                game.max_assassination_rounds,
                reason=reason,
                target=game.target,
            )
        return Outcome.told(tuple(tied), tuple(float(s) for s in self.scores), reason)

    # -- views --------------------------------------------------------------------

    def __str__(self) -> str:
        game = self.game
        n, t = game.num_players, game.num_types
        lines = [
            f"assassination round {self.assassination_round}, poison round "
            f"{self.poison_round}, starting seat {self.start_seat}, phase "
            f"{PHASE_NAMES[self.phase]}, to move {self.player}",
            f"king {KINDS[self.king] if self.king >= 0 else '?'}"
            f"{'' if self.king_alive else ' (dead)'}: "
            f"{game.cards_text(self.table[n * t : n * t + t])}",
        ]
        for s in range(n):
            kind = KINDS[self.kinds[s]] if self.kinds[s] >= 0 else "?"
            target = self.play_target[s]
            play = (
                f" played on {game.character_name(target)}: "
                f"{game.cards_text(self.plays[s * t : s * t + t])}"
                if target >= 0
                else ""
            )
            lines.append(
                f"seat {s} {kind}{'' if self.alive[s] else ' (dead)'} score {self.scores[s]}"
                f" (+{self.round_points[s]}) hand {game.cards_text(self.hands[s * t : s * t + t])}"
                f" on it: {game.cards_text(self.table[s * t : s * t + t])}{play}"
            )
        lines.append(f"deck {game.cards_text(self.deck)} | discard {game.cards_text(self.discard)}")
        lines.append(
            f"deals {self.deal_order[self.deal_index :]} turns {self.turn_order} "
            f"turn {self.turn_index} target {self.turn_target}"
        )
        return "\n".join(lines)

    def render(self, player: Player | None) -> str:
        """A text view built only from :meth:`observation`."""
        obs = self.observation(player)
        lines = [
            f"Assassination round {obs['assassination_round']}, poison round "
            f"{obs['poison_round']} (starting seat {obs['starting_seat']})",
            f"King: {obs['king'] or '?'} king{'' if obs['king_alive'] else ' (dead)'}, "
            f"dies at {obs['king_lethal']} drops; peasants at {obs['peasant_lethal']}",
        ]
        table = obs["table"]
        king = table["king"]
        lines.append(f"  on the king: {_cards_line(king['cards'])}{_blocked(king['blocked'])}")
        for seat in obs["seats"]:
            s = seat["seat"]
            mark = ">" if obs["to_move"] == s else " "
            here = table[str(s)]
            played = (
                f", played {seat['played']} on {seat['played_on']}" if seat["played_on"] else ""
            )
            you = " (you)" if s == obs["seat"] else ""
            lines.append(
                f"{mark} seat {s}{you}: {seat['kind'] or '?'}"
                f"{'' if seat['alive'] else ' DEAD'}, {seat['score']} points, "
                f"{seat['hand']} cards{played}; on it: {_cards_line(here['cards'])}"
                f"{_blocked(here['blocked'])}"
            )
        lines.append(f"Deck {obs['deck']}, discards {obs['discard_count']}")
        if "hand" in obs:
            lines.append(f"Your hand: {_cards_line(obs['hand'])}")
            if obs["my_play"]:
                lines.append(f"Your face-down play: {_cards_line(obs['my_play'])}")
        reveal = obs["last_reveal"]
        if reveal:
            deaths = ", ".join(
                f"{d['character']} (by {', '.join(map(str, d['killers'])) or 'nobody'})"
                for d in reveal["deaths"]
            )
            lines.append(f"Last reveal: died {deaths or 'nobody'}; points {reveal['points']}")
        if obs["outcome"]:
            lines.append(f"Game over: winners {obs['outcome']['winners']}")
        return "\n".join(lines)


def _one_hot(size: int, index: int) -> list[float]:
    """``size`` zeros with a 1 at ``index``, none when it is out of range (-1, CHANCE)."""
    out = [0.0] * size
    if 0 <= index < size:
        out[index] = 1.0
    return out


def _cards_line(cards: dict[str, int]) -> str:
    parts = [f"{code}x{count}" if count > 1 else code for code, count in cards.items()]
    return " ".join(parts) if parts else "nothing"


def _blocked(colours: list[str]) -> str:
    return f" [blocked: {', '.join(colours)}]" if colours else ""
