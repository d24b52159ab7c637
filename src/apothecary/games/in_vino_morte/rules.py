"""In Vino Morte: a dealer hands out face-down glasses of Wine and Poison; each
other player, once, drinks or swaps; then every glass still covered is revealed.
The last player alive wins. Includes the Caseus Vitae (cheese) variant.

Seats are numbered clockwise, so a seat's left neighbour is the next number and
its right neighbour the previous one. Seat 0 deals the first round.

There is no chance in this game: the deal is the dealer's own decision, made
seat by seat (clockwise from the dealer's left, the dealer last), so the whole
game is a sequence of player decisions and needs no chance nodes. What makes it
a game of hidden information is that only the dealer sees the covered glasses.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Hashable, Sequence
from typing import ClassVar

from apothecary.core.errors import BadOptionError
from apothecary.core.game import (
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
from apothecary.core.words import Words, say, say_in
from apothecary.core.words import seat as seat_ref
from apothecary.core.words import seats as seats_ref

# -- cards and actions ----------------------------------------------------------

NO_CARD = -1
WINE = 0
POISON = 1
CARD_NAMES = ("wine", "poison")
# Kinds of journal entries (see InVinoMorteState.journal).
JOURNAL_DEAL, JOURNAL_TURN, JOURNAL_REVEAL = 0, 1, 2

DEAL_WINE = 0
DEAL_POISON = 1
DEAL_WINE_CHEESE = 2
DEAL_POISON_CHEESE = 3
DRINK = 4
SWAP_BASE = 5
"""``SWAP_BASE + seat``: swap glasses with that seat; then ``steal_base + seat``."""

DEAL_PHASE = 0
TURN_PHASE = 1
OVER_PHASE = 2
PHASE_NAMES = ("deal", "turns", "over")

DECKS = {"8+8": (8, 8), "9+9": (9, 9)}

NO_ROUND_LIMIT = 0
"""``round_limit=0``: rounds go on until at most one player is left."""

# The observation tensor's blocks (see InVinoMorteState.observation_tensor).
_SEAT_PLANES = 11
_TABLE_NUMBERS = 9
_TURN_NUMBERS = 6
"""Per turn, before its one number per seat: drink, swap, steal, Wine, Poison, died."""
_ROUND_SCALE = 100
"""What the round is divided by in the tensor when there is no round limit."""
_IST_TURN = 3
"""Per turn in the information-state tensor, before its two numbers per seat:
drink, the drink showed Wine, showed Poison (then swapped with, stolen from)."""


def cheese_limit(players_in_round: int) -> int:
    """The most Cheese the dealer may hand out to a round of this many players."""
    if players_in_round <= 2:
        return 0
    if players_in_round <= 4:
        return 1
    if players_in_round <= 6:
        return 2
    return 3


def deal_can_finish(wine: int, poison: int, left: int, deck_wine: int, deck_poison: int) -> bool:
    """Whether ``left`` more glasses can be dealt after ``wine`` and ``poison`` so
    that the round has at least one of each and stays within the deck."""
    # The Wines still to come, m, must satisfy every bound at once.
    low = max(0, 1 - wine, poison + left - deck_poison)
    high = min(left, deck_wine - wine, poison + left - 1)
    return low <= high


# -- the game -------------------------------------------------------------------


@register
class InVinoMorteGame(Game):
    """In Vino Morte for 2-9 players (the published game starts at 3)."""

    info: ClassVar[GameInfo] = GameInfo(
        name="in-vino-morte",
        title="In Vino Morte",
        min_players=2,
        max_players=9,
        default_players=4,
        has_chance=False,
        has_hidden_information=True,
        summary="The dealer pours Wine and Poison; drink, or swap glasses, and be the last alive.",
    )
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "deck",
            str,
            "8+8",
            "Wine + Poison cards in the deck: the published 16 cards, or the "
            "rulebook's component line of 9 + 9",
            choices=("8+8", "9+9"),
        ),
        OptionSpec(
            "cheese",
            bool,
            False,
            "Caseus Vitae: the dealer may hand out face-up Cheese, which reverses drinks",
        ),
        OptionSpec(
            "cheese_on_reveal",
            bool,
            True,
            "with cheese: Cheese also reverses the result of the final reveal",
        ),
        OptionSpec(
            "round_limit",
            int,
            NO_ROUND_LIMIT,
            "rounds before the game stops with the survivors sharing the win "
            "(only reachable with cheese, where a round may kill nobody); 0, the "
            "default, is no limit: play until one player remains, as the rulebook "
            "says. A cap makes every game end within that many rounds (research "
            "tools such as OpenSpiel need a longest game). A game server's room "
            "with cheese plays 0 as 1000 rounds, and takes at most 1000",
            minimum=0,
            maximum=10000,
            # A round is at most 2n - 1 actions (17 at 9 seats): 1,000 rounds stay
            # under a server's 20,000 actions a record. Not bounded: cheese with no
            # limit (0, the default). Random play ends soon (at 9 seats at most 53
            # actions in 300 seeded games), but a table whose dealers all pour
            # Poison with Cheese kills nobody, round after round, for ever
            # (benchmarks/long_games.py plays that). So a room with cheese left
            # at no limit plays 1,000 rounds, never an unbounded game.
            room_maximum=1000,
            room_default=1000,
        ),
    )

    deck_wine: int
    deck_poison: int
    cheese: bool
    cheese_on_reveal: bool
    round_limit: int
    """The round after which the survivors share the win, or NO_ROUND_LIMIT."""
    steal_base: int
    """``steal_base + seat``: steal that seat's cheese."""
    clockwise_from_left: tuple[tuple[int, ...], ...]
    """Per seat: every seat clockwise from its left, ending with itself."""
    counter_clockwise: tuple[tuple[int, ...], ...]
    """Per seat: every seat counter-clockwise from its right, ending with itself."""
    deal_actions: tuple[tuple[tuple[tuple[Action, ...], ...], ...], ...]
    """``deal_actions[glasses][wine][poison]``: the plain deals (Wine, Poison)
    legal with ``wine`` and ``poison`` glasses dealt of a round's ``glasses``."""
    turn_actions: tuple[tuple[Action, ...], ...]
    """``turn_actions[seats]``, ``seats`` a bit set: drink, then a swap with
    each of those seats (a turn's legal actions without the steals)."""

    def _configure(self) -> None:
        self.deck_wine, self.deck_poison = DECKS[str(self.options["deck"])]
        self.cheese = bool(self.options["cheese"])
        self.cheese_on_reveal = bool(self.options["cheese_on_reveal"])
        self.round_limit = int(self.options["round_limit"])
        if self.num_players > self.deck_wine + self.deck_poison:
            raise BadOptionError(
                f"in-vino-morte: {self.num_players} players need more than the "
                f"{self.deck_wine + self.deck_poison} cards of the deck"
            )
        self.steal_base = SWAP_BASE + self.num_players
        n = self.num_players
        self.clockwise_from_left = tuple(
            tuple((seat + k) % n for k in range(1, n + 1)) for seat in range(n)
        )
        self.counter_clockwise = tuple(
            tuple((seat - k) % n for k in range(1, n + 1)) for seat in range(n)
        )
        # Legal actions looked up, not worked out: a deal's depend only on the
        # counts dealt, a turn's (steals aside) only on which other seats hold
        # a glass not yet drunk, and both are asked for at every action.
        self.deal_actions = tuple(
            tuple(
                tuple(
                    tuple(
                        deal
                        for deal, w, p in ((DEAL_WINE, 1, 0), (DEAL_POISON, 0, 1))
                        if deal_can_finish(
                            wine + w,
                            poison + p,
                            glasses - wine - poison - 1,
                            self.deck_wine,
                            self.deck_poison,
                        )
                    )
                    for poison in range(glasses - wine)
                )
                for wine in range(glasses)
            )
            for glasses in range(n + 1)
        )
        self.turn_actions = tuple(
            (DRINK, *(SWAP_BASE + seat for seat in range(n) if seats >> seat & 1))
            for seats in range(1 << n)
        )

    def num_distinct_actions(self) -> int:
        """4 kinds of deal, drink, a swap per seat and (with cheese) a steal per seat."""
        return SWAP_BASE + 2 * self.num_players

    def max_game_length(self) -> int:
        """Each round deals to its players and gives all but the dealer one turn.

        Without cheese every round kills its Poison holder, so there are at most
        ``players - 1`` rounds; with cheese the round limit bounds the game.
        With cheese and no round limit no length bounds it (a round may kill
        nobody, again and again): raises BadOptionError saying to set one.
        """
        n = self.num_players
        limit = self.round_limit
        if not self.cheese:
            rounds = n - 1 if limit == NO_ROUND_LIMIT else min(limit, n - 1)
            return sum(2 * alive - 1 for alive in range(n, n - rounds, -1))
        if limit == NO_ROUND_LIMIT:
            raise BadOptionError(
                "in-vino-morte: with cheese=true and round_limit=0 (no limit) a game "
                "has no longest length, since a round with Cheese may kill nobody; "
                "set round_limit (1 to 10000) to play where one is needed"
            )
        return limit * (2 * n - 1)

    def observation_tensor_size(self) -> int:
        """See :meth:`InVinoMorteState.observation_tensor` for the layout."""
        n = self.num_players
        return _SEAT_PLANES * n + _TABLE_NUMBERS + (n - 1) * (_TURN_NUMBERS + n) + 2 + 7 * n

    def most_rounds(self) -> int:
        """The most rounds a game can last: ``players - 1`` without cheese (each
        round kills its Poison holder), the round limit with it; with cheese and
        no limit none, and BadOptionError says so (as :meth:`max_game_length`)."""
        n = self.num_players
        limit = self.round_limit
        if not self.cheese:
            return n - 1 if limit == NO_ROUND_LIMIT else min(limit, n - 1)
        self.max_game_length()  # raises when there is no limit
        return limit

    def _round_block(self) -> int:
        """Numbers per round in the information-state tensor."""
        n = self.num_players
        return n + 4 * n + (n - 1) * (_IST_TURN + 2 * n) + 3 * n

    def information_state_tensor_size(self) -> int:
        """The viewer, then one block per round the game can last; see
        :meth:`InVinoMorteState.information_state_tensor` for the layout.
        With cheese and no round limit there is no such length (BadOptionError)."""
        return self.num_players + self.most_rounds() * self._round_block()

    def information_state_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Every number is a mark, 0 or 1. (Marks a configuration never sets,
        the Cheese ones without cheese, are declared [0, 1] too: Gymnasium's
        checker warns of a Box whose low equals its high somewhere.)"""
        size = self.information_state_tensor_size()
        return [0.0] * size, [1.0] * size

    def observation_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Every number lies in [0, 1] but the round's and the last round's
        numbers, which lie in [0, top]: :meth:`most_rounds` on the round's
        scale, or no upper bound (``inf``) with cheese and no round limit,
        where a game may last any number of rounds."""
        n = self.num_players
        scale = float(self.round_limit or _ROUND_SCALE)
        try:
            top = self.most_rounds() / scale
        except BadOptionError:
            top = math.inf
        high = [1.0] * self.observation_tensor_size()
        # The round, after the seats' planes and the phase; the last round's
        # number, after the turns and the mark that there was a last round.
        high[_SEAT_PLANES * n + 3] = top
        high[_SEAT_PLANES * n + _TABLE_NUMBERS + (n - 1) * (_TURN_NUMBERS + n) + 1] = top
        return [0.0] * len(high), high

    def new_initial_state(self) -> InVinoMorteState:
        """The first round, seat 0 about to deal."""
        return InVinoMorteState(self)


# -- the state ------------------------------------------------------------------


class InVinoMorteState(State):
    """A position: who lives, the round's dealer, the glasses and the cheese."""

    __slots__ = (
        "_public",
        "alive",
        "card",
        "cheese",
        "dealer",
        "drunk",
        "events",
        "info_texts",
        "journal",
        "last_round",
        "open_seats",
        "order",
        "phase",
        "poison_dealt",
        "round",
        "round_start",
        "step",
        "wine_dealt",
        "winners",
    )

    game: InVinoMorteGame
    # The round's fields, which _start_round sets (the first round's too).
    phase: int
    order: tuple[int, ...]
    """The round's seats clockwise from the dealer's left, the dealer last."""
    step: int
    card: list[int]
    cheese: list[bool]
    drunk: list[bool]
    open_seats: int
    """The seats holding a glass not yet drunk, as a bit set (bit ``seat``):
    kept beside ``card`` and ``drunk`` so a turn's swaps are looked up."""
    wine_dealt: int
    poison_dealt: int
    events: list[tuple[int, int, int]]
    round_start: int

    def __init__(self, game: InVinoMorteGame) -> None:
        super().__init__(game)
        self._public: tuple[int, dict[str, JSON], dict[str, JSON]] | None = None
        """(move number, the observation's keys before ``glasses``, those
        after) of the last observation: what every viewer reads alike."""
        self.alive = [True] * game.num_players
        self.round = 0
        self.dealer = 0
        self.winners: tuple[int, ...] = ()
        self.last_round: tuple[JSON, ...] | None = None
        # Everything any seat has seen, one entry per event, for
        # information_state_string: kept as the game goes so that the key costs
        # a join, not a replay of the game. A list appended to in place (a
        # clone copies it, as it copies the history): extending a tuple copied
        # it on every action, which made a long game quadratic.
        self.journal: list[tuple[int, ...]] = []
        # Per seat, the information state string of the journal's first k
        # entries, as (k, text): the journal only grows, so a later call only
        # adds lines. Replaced, never changed, so clones may share it.
        self.info_texts: dict[int, tuple[int, str]] = {}
        self._start_round(0, pending=0)

    # -- the round ----------------------------------------------------------------

    def _start_round(self, dealer: int, pending: int) -> None:
        """Begin a round; ``pending`` is 1 when called while the base class has yet
        to append the action that ended the last round to the history."""
        game = self.game
        n = game.num_players
        self.round += 1
        self.dealer = dealer
        self.phase = DEAL_PHASE
        # Clockwise from the dealer's left, the dealer last: the deal order, and
        # without its last seat the turn order. While nobody has died (the
        # first round) that is every seat, as the game has it already.
        alive = self.alive
        order = game.clockwise_from_left[dealer]
        if False in alive:
            order = tuple([s for s in order if alive[s]])
        self.order = order
        self.step = 0
        self.card = [NO_CARD] * n
        self.cheese = [False] * n
        self.drunk = [False] * n
        self.open_seats = 0
        self.wine_dealt = 0
        self.poison_dealt = 0
        self.events = []
        self.round_start = len(self._history) + pending

    def _dies(self, seat: int, on_reveal: bool) -> bool:
        poisoned = self.card[seat] == POISON
        if self.cheese[seat] and (not on_reveal or self.game.cheese_on_reveal):
            return not poisoned
        return poisoned

    def _end_round(self) -> None:
        """Everyone who has not drunk reveals; then the game ends or a new dealer deals."""
        # Once per round, so in short games (two or three players) about as
        # often as an action: built in single passes, with loops not generators.
        order, alive, card, drunk = self.order, self.alive, self.card, self.drunk
        revealed = tuple([seat for seat in order if not drunk[seat]])
        shown: list[int] = []
        for seat in revealed:
            shown += (seat, card[seat])
            if self._dies(seat, on_reveal=True):
                alive[seat] = False
        died = tuple([s for s in order if not alive[s]])
        self.last_round = (self.round, self.dealer, tuple(card), tuple(self.cheese), revealed, died)
        self.journal.append((JOURNAL_REVEAL, len(died), *died, *shown))
        survivors = [s for s in order if alive[s]]
        if len(survivors) == 1:
            self.winners = (survivors[0],)
        elif not survivors:
            self.winners = tuple(sorted(order))
        elif self.round == self.game.round_limit:
            self.winners = tuple(sorted(survivors))
        else:
            for dealer in self.game.counter_clockwise[self.dealer]:
                if alive[dealer]:
                    break
            self._start_round(dealer, pending=1)
            return
        self.phase = OVER_PHASE

    # -- the protocol: whose turn, what is legal, doing it ------------------------

    def current_player(self) -> Player:
        """The dealer while dealing, then each non-dealer in turn; TERMINAL at the end."""
        if self.phase == DEAL_PHASE:
            return self.dealer
        if self.phase == TURN_PHASE:
            return self.order[self.step]
        return TERMINAL

    def is_chance_node(self) -> bool:
        """Never: nothing in this game is left to chance (asked at every action)."""
        return False

    def _legal_actions(self) -> Sequence[Action]:
        # Tuples from the game's tables (the base class keeps a tuple as it is).
        game = self.game
        phase = self.phase
        if phase == DEAL_PHASE:
            # The deal so far fixes which glasses can still make a legal round.
            legal = game.deal_actions[len(self.order)][self.wine_dealt][self.poison_dealt]
            if game.cheese and sum(self.cheese) < cheese_limit(len(self.order)):
                return legal + tuple([a + 2 for a in legal])
            return legal
        if phase == TURN_PHASE:
            me = self.order[self.step]
            # Drink, or swap with any other seat whose glass is still undrunk.
            legal = game.turn_actions[self.open_seats & ~(1 << me)]
            cheese = self.cheese
            if game.cheese and not cheese[me]:
                alive = self.alive
                steal_base = game.steal_base
                steals = [steal_base + s for s in range(game.num_players) if cheese[s] and alive[s]]
                return legal + tuple(steals)
            return legal
        return ()

    def _apply(self, action: Action) -> None:
        step = self.step
        order = self.order
        if self.phase == DEAL_PHASE:
            seat = order[step]
            self.journal.append((JOURNAL_DEAL, self.round, self.dealer, seat, action, step))
            kind = action & 1
            self.card[seat] = kind
            self.open_seats |= 1 << seat
            if kind == POISON:
                self.poison_dealt += 1
            else:
                self.wine_dealt += 1
            if action >= DEAL_WINE_CHEESE:
                self.cheese[seat] = True
            step += 1
            if step == len(order):
                self.phase = TURN_PHASE
                step = 0
            self.step = step
            return
        me = order[step]
        if action == DRINK:
            self.drunk[me] = True
            self.open_seats &= ~(1 << me)
            card = self.card[me]
            # As _dies with on_reveal=False: Cheese reverses a drink.
            died = (card == POISON) != self.cheese[me]
            if died:
                self.alive[me] = False
            self.events.append((me, DRINK, card * 2 + died))
            self.journal.append((JOURNAL_TURN, me, action, card))
        elif action < self.game.steal_base:
            other = action - SWAP_BASE
            self.card[me], self.card[other] = self.card[other], self.card[me]
            self.events.append((me, action, 0))
            self.journal.append((JOURNAL_TURN, me, action, NO_CARD))
        else:
            other = action - self.game.steal_base
            self.cheese[other] = False
            self.cheese[me] = True
            self.events.append((me, action, 0))
            self.journal.append((JOURNAL_TURN, me, action, NO_CARD))
        self.step = step + 1
        if step + 2 == len(order):
            self._end_round()

    def _turns_taken(self) -> list[bool]:
        # Every turn leaves exactly one public event.
        taken = [False] * self.game.num_players
        for seat, _, _ in self.events:
            taken[seat] = True
        return taken

    def _clone_into(self, other: State) -> None:
        assert isinstance(other, InVinoMorteState)
        other.alive = self.alive.copy()
        other.round = self.round
        other.dealer = self.dealer
        other.winners = self.winners
        other.last_round = self.last_round
        other.phase = self.phase
        other.order = self.order
        other.step = self.step
        other.card = self.card.copy()
        other.cheese = self.cheese.copy()
        other.drunk = self.drunk.copy()
        other.open_seats = self.open_seats
        other.wine_dealt = self.wine_dealt
        other.poison_dealt = self.poison_dealt
        other.events = self.events.copy()
        other.round_start = self.round_start
        other.journal = self.journal.copy()
        other.info_texts = self.info_texts
        other._public = None  # a copy may be changed by hand (a resampled deal)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """Always empty: nothing in this game is left to chance."""
        return []

    def is_terminal(self) -> bool:
        """Whether at most one player is left (or everyone died, or the round limit hit)."""
        return self.phase == OVER_PHASE

    def returns(self) -> list[float]:
        """As the base class computes it from :meth:`outcome`, without writing the
        outcome's reason (searches ask for returns at the end of every playout)."""
        result = [0.0] * self.game.num_players
        if self.phase == OVER_PHASE and self.winners:
            share = 1.0 / len(self.winners)
            for seat in self.winners:
                result[seat] = share
        return result

    def outcome(self) -> Outcome | None:
        """The last player alive; or those who died together in the last round."""
        if self.phase != OVER_PHASE:
            return None
        n = self.game.num_players
        scores = tuple(1.0 if s in self.winners else 0.0 for s in range(n))
        if len(self.winners) == 1:
            reason = say(
                "{who} is the last player alive after round {round}",
                who=seat_ref(self.winners[0]),
                round=self.round,
            )
        elif all(not self.alive[s] for s in self.winners):
            reason = say(
                "everyone left died in round {round}: {who} share the win",
                round=self.round,
                who=seats_ref(self.winners),
            )
        else:
            reason = say(
                "the round limit ({limit}) was reached: survivors {who} share the win",
                limit=self.game.round_limit,
                who=seats_ref(self.winners),
            )
        return Outcome.told(self.winners, scores, reason)

    # -- notation -----------------------------------------------------------------

    def action_to_string(self, action: Action) -> str:
        """``deal 2 wine``, ``deal 0 poison+cheese``, ``drink``, ``swap 3``, ``steal 1``."""
        game = self.game
        if action < DRINK:
            text = CARD_NAMES[action & 1] + ("+cheese" if action >= DEAL_WINE_CHEESE else "")
            if self.phase == DEAL_PHASE:
                return f"deal {self.order[self.step]} {text}"
            return f"deal {text}"
        if action == DRINK:
            return "drink"
        if action < game.steal_base:
            return f"swap {action - SWAP_BASE}"
        return f"steal {action - game.steal_base}"

    # Seats are ASCII digits, a few at most (re.ASCII: \s is ASCII space too).
    _DEAL = re.compile(
        r"^(?:deal\s*)?(?:([0-9]{1,3})\s*)?(wine|w|poison|p)\s*(\+?\s*(?:cheese|c))?$", re.ASCII
    )
    _SEAT = re.compile(r"^(swap|s|steal|c)\s*(?:with\s+|from\s+)?([0-9]{1,3})$", re.ASCII)

    def _parse_action(self, text: str) -> Action | None:
        text = text.lower().strip()
        if text in ("drink", "d"):
            return DRINK
        n = self.game.num_players
        match = self._SEAT.match(text)
        if match:
            seat = int(match.group(2))
            if seat >= n:
                return None
            if match.group(1) in ("swap", "s"):
                return SWAP_BASE + seat
            return self.game.steal_base + seat
        match = self._DEAL.match(text)
        if match:
            if match.group(1) is not None and (
                self.phase != DEAL_PHASE or int(match.group(1)) != self.order[self.step]
            ):
                return None
            kind = WINE if match.group(2).startswith("w") else POISON
            return kind + (2 if match.group(3) else 0)
        return None

    def action_label(self, action: Action) -> str:
        """The English of :meth:`action_words`."""
        return str(self.action_words(action))

    def action_words(self, action: Action) -> Words:
        """``Pour poison for seat 2, with cheese``, ``Drink your glass``, ``Swap
        glasses with seat 0 (the dealer)``, ``Steal seat 1's cheese``, with
        the seats as data.

        A label names the choice and nothing the mover cannot see: the drink
        reads the same whatever the glass holds (only the dealer knows)."""
        game = self.game
        if action < DRINK:
            # Translators: what a dealer pours, in "Pour {glass} for {to}".
            glass = say_in("poured", "poison") if action & 1 else say_in("poured", "wine")
            cheese = action >= DEAL_WINE_CHEESE
            if self.phase != DEAL_PHASE:
                if cheese:
                    return say("Pour {glass}, with cheese", glass=glass)
                return say("Pour {glass}", glass=glass)
            to = self.order[self.step]
            if to == self.dealer:
                if cheese:
                    return say("Pour {glass} into your own glass, with cheese", glass=glass)
                return say("Pour {glass} into your own glass", glass=glass)
            if cheese:
                return say("Pour {glass} for {to}, with cheese", glass=glass, to=seat_ref(to))
            return say("Pour {glass} for {to}", glass=glass, to=seat_ref(to))
        if action == DRINK:
            return say("Drink your glass")
        if action < game.steal_base:
            other = action - SWAP_BASE
            if other == self.dealer and self.phase == TURN_PHASE:
                return say("Swap glasses with {other} (the dealer)", other=seat_ref(other))
            return say("Swap glasses with {other}", other=seat_ref(other))
        return say("Steal {other}'s cheese", other=seat_ref(action - game.steal_base))

    def action_move(self, action: Action) -> dict[str, JSON]:
        """The action as data (rules.md, "What the server sends"):
        ``{"kind": "deal", "to", "glass", "cheese"}`` (``to`` the seat dealt,
        None outside a deal), ``{"kind": "drink"}``, ``{"kind": "swap",
        "with"}`` and ``{"kind": "steal", "from"}``, seats as numbers."""
        game = self.game
        if action < DRINK:
            to = self.order[self.step] if self.phase == DEAL_PHASE else None
            glass = CARD_NAMES[action & 1]
            return {"kind": "deal", "to": to, "glass": glass, "cheese": action >= DEAL_WINE_CHEESE}
        if action == DRINK:
            return {"kind": "drink"}
        if action < game.steal_base:
            return {"kind": "swap", "with": action - SWAP_BASE}
        return {"kind": "steal", "from": action - game.steal_base}

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        """The event of :meth:`describe_action`: only the dealer reads what it poured;
        drinks, swaps, steals and the reveal are told to all (keys: ``events.py``)."""
        from apothecary.games.in_vino_morte.events import describe

        return describe(self, action, actor, viewer)

    def event_audience(self, action: Action, viewer: Player | None) -> Hashable:
        """Only a deal has a secret, the dealer's: the dealer reads one event,
        everyone else another; every other action reads the same for all."""
        return self.phase == DEAL_PHASE and viewer == self.dealer

    # -- what each seat knows -----------------------------------------------------

    def _sees_cards(self, player: Player | None) -> bool:
        """The dealer sees every glass of the round; at the end everything is public."""
        return self.phase == OVER_PHASE or (player == self.dealer and player is not None)

    def observation(self, player: Player | None) -> dict[str, JSON]:
        """The table as ``player`` sees it: covered glasses only for the dealer.

        All but ``seat`` and ``glasses`` is what every viewer reads: it is made
        once per position and its values are shared by every observation of
        it (read them, never change them)."""
        moves = self.move_number()
        cached = self._public
        if cached is None or cached[0] != moves:
            cached = self._public = (moves, *self._public_observation())
        sees = self._sees_cards(player)
        glasses: list[str | None] = []
        for s in range(self.game.num_players):
            card = self.card[s]
            if self.phase == OVER_PHASE or card == NO_CARD:
                glasses.append(None)
            elif sees or self.drunk[s]:
                glasses.append(CARD_NAMES[card])
            else:
                glasses.append("covered")
        return {"seat": player, **cached[1], "glasses": glasses, **cached[2]}

    def _public_observation(self) -> tuple[dict[str, JSON], dict[str, JSON]]:
        """The observation's keys before ``glasses`` and after, but ``seat``."""
        game = self.game
        n = game.num_players
        in_round = [s in self.order for s in range(n)] if self.phase != OVER_PHASE else [False] * n
        # The round's turns in the events' schema (events.py: ``actor``,
        # ``kind`` and the keys of the kind), so a client reads one schema.
        events: list[JSON] = []
        for actor, action, result in self.events:
            if action == DRINK:
                card, died = result >> 1, bool(result & 1)
                events.append(
                    {
                        "actor": actor,
                        "kind": "drink",
                        "glass": CARD_NAMES[card],
                        # Cheese reverses a drink, so what it held follows from the rest.
                        "cheese": (card == POISON) != died,
                        "died": died,
                    }
                )
            elif action < game.steal_base:
                events.append({"actor": actor, "kind": "swap", "with": action - SWAP_BASE})
            else:
                events.append({"actor": actor, "kind": "steal", "from": action - game.steal_base})
        last: JSON = None
        if self.last_round is not None:
            number, dealer, cards, cheese, revealed, died = self.last_round
            last = {
                "round": number,
                "dealer": dealer,
                "glasses": [None if c == NO_CARD else CARD_NAMES[c] for c in cards],
                "cheese": list(cheese),
                "revealed": list(revealed),
                "died": list(died),
            }
        to_move = self.current_player()
        outcome = self.outcome()
        before: dict[str, JSON] = {
            "players": n,
            "round": self.round,
            "phase": PHASE_NAMES[self.phase],
            "dealer": self.dealer,
            "to_move": None if to_move == TERMINAL else to_move,
            "deck": {"wine": game.deck_wine, "poison": game.deck_poison},
            "cheese_rule": game.cheese,
            "cheese_on_reveal": game.cheese_on_reveal,
            "cheese_limit": cheese_limit(len(self.order)) if game.cheese else 0,
            "alive": self.alive.copy(),
            "in_round": in_round,
            "deal_order": list(self.order),
        }
        after: dict[str, JSON] = {
            "drunk": self.drunk.copy() if self.phase != OVER_PHASE else [False] * n,
            "cheese": self.cheese.copy() if self.phase != OVER_PHASE else [False] * n,
            "turn_taken": self._turns_taken(),
            "events": events,
            "last_round": last,
            "outcome": None if outcome is None else outcome.to_json(),
        }
        return before, after

    def information_state_string(self, player: Player) -> str:
        """Every event ``player`` has seen, in order: deals (with the glass for the
        dealer), drinks and their results, swaps, steals and each round's reveal."""
        journal = self.journal
        cached = self.info_texts.get(player)
        if cached is not None and cached[0] == len(journal):
            return cached[1]
        steal_base = self.game.steal_base
        if cached is None:
            lines = [f"seat {player}"]
            start = 0
        else:
            lines = [cached[1]]
            start = cached[0]
        for index in range(start, len(journal)):
            entry = journal[index]
            key = (steal_base, player, entry)
            line = _JOURNAL_LINES.get(key)
            if line is None:
                line = _JOURNAL_LINES[key] = _journal_line(entry, player, steal_base)
                if len(_JOURNAL_LINES) > 100_000:  # bounded: long cheese games
                    _JOURNAL_LINES.clear()
            lines.append(line)
        text = "\n".join(lines)
        # A new dict, not an update: clones made earlier share the old one.
        self.info_texts = {**self.info_texts, player: (len(journal), text)}
        return text

    def observation_tensor(self, player: Player) -> list[float]:
        """Every fact of :meth:`observation` as numbers, in five blocks:

        - per seat (11): alive, in the round, the dealer, dealt a glass, drunk,
          Wine seen, Poison seen, holds Cheese, has taken its turn, is the
          viewer, is to move;
        - the table (9): the phase (deal, turns, over), the round (divided by
          the round limit, or by 100 when there is none), the round's Cheese
          limit / 3, the deck's Wine / 9 and Poison / 9, the Cheese rule and
          Cheese on the reveal;
        - this round's turns, one block per turn in order (the k-th turn is
          the deal order's k-th seat's, so the actor is known): drink, swap,
          steal, the drink showed Wine, showed Poison, the drinker died, then
          one number per seat, the seat swapped with or stolen from;
        - the last round's reveal: whether there was one and its number (on
          the round's scale), then per seat: its dealer, Wine, Poison, held
          Cheese, revealed, died;
        - per seat, a winner (all 0 before the end).

        The deal order is the seats of the round clockwise from the dealer's
        left, so the dealer and the "in the round" marks give it.
        """
        game = self.game
        n = game.num_players
        sees = self._sees_cards(player)
        to_move = self.current_player()
        over = self.phase == OVER_PHASE
        taken = self._turns_taken()
        scale = float(game.round_limit or _ROUND_SCALE)
        tensor: list[float] = []
        for s in range(n):
            card = self.card[s]
            visible = not over and card != NO_CARD and (sees or self.drunk[s])
            tensor += [
                float(self.alive[s]),
                float(not over and s in self.order),
                float(s == self.dealer),
                float(not over and card != NO_CARD),
                float(not over and self.drunk[s]),
                float(visible and card == WINE),
                float(visible and card == POISON),
                float(not over and self.cheese[s]),
                float(taken[s]),
                float(s == player),
                float(s == to_move),
            ]
        tensor += [
            float(self.phase == DEAL_PHASE),
            float(self.phase == TURN_PHASE),
            float(over),
            self.round / scale,
            (cheese_limit(len(self.order)) if game.cheese else 0) / 3.0,
            game.deck_wine / 9.0,
            game.deck_poison / 9.0,
            float(game.cheese),
            float(game.cheese_on_reveal),
        ]
        turns = [0.0] * ((n - 1) * (_TURN_NUMBERS + n))
        for k, (_, action, result) in enumerate(self.events):
            at = k * (_TURN_NUMBERS + n)
            if action == DRINK:
                turns[at] = 1.0
                turns[at + 3 + (result >> 1)] = 1.0
                turns[at + 5] = float(result & 1)
            elif action < game.steal_base:
                turns[at + 1] = 1.0
                turns[at + _TURN_NUMBERS + action - SWAP_BASE] = 1.0
            else:
                turns[at + 2] = 1.0
                turns[at + _TURN_NUMBERS + action - game.steal_base] = 1.0
        tensor += turns
        last = [0.0] * (2 + 6 * n)
        if self.last_round is not None:
            number, dealer, cards, cheese, revealed, died = self.last_round
            last[0] = 1.0
            last[1] = number / scale
            for s in range(n):
                at = 2 + 6 * s
                last[at] = float(s == dealer)
                if cards[s] != NO_CARD:
                    last[at + 1 + cards[s]] = 1.0
                last[at + 3] = float(cheese[s])
                last[at + 4] = float(s in revealed)
                last[at + 5] = float(s in died)
        tensor += last
        tensor += [float(over and s in self.winners) for s in range(n)]
        return tensor

    def information_state_tensor(self, player: Player) -> list[float]:
        """Everything :meth:`information_state_string` holds, as 0s and 1s: the
        viewer (one per seat), then one block per round the game can last (see
        :meth:`InVinoMorteGame.most_rounds`), all 0 until the round starts:

        - the round's dealer (one per seat);
        - per seat (4): dealt a glass, with Cheese, and, for the dealer only,
          that it was Wine, Poison;
        - per turn in order (``players - 1`` blocks; the k-th turn is the deal
          order's k-th seat's, which the dealer and the seats alive give):
          drink, the drink showed Wine, showed Poison, then one number per seat,
          the seat swapped with, then one per seat, the seat stolen from;
        - the reveal, per seat (3): revealed Wine, revealed Poison, died.

        The deals, turns and reveals are the seat's journal of the game, so
        two positions give a seat the same tensor exactly when they give it the
        same information state string.
        """
        game = self.game
        n = game.num_players
        block = game._round_block()
        turn_size = _IST_TURN + 2 * n
        steal_base = game.steal_base
        tensor = [0.0] * game.information_state_tensor_size()
        tensor[player] = 1.0
        at = n - block  # the current round's block; the first deal moves it on
        turn = 0
        for entry in self.journal:
            what = entry[0]
            if what == JOURNAL_DEAL:
                _, _, dealer, seat, action, step = entry
                if step == 0:
                    at += block
                    turn = 0
                    tensor[at + dealer] = 1.0
                deal = at + n + 4 * seat
                tensor[deal] = 1.0
                tensor[deal + 1] = float(action >= DEAL_WINE_CHEESE)
                if player == dealer:
                    tensor[deal + 2 + (action & 1)] = 1.0
            elif what == JOURNAL_TURN:
                _, _, action, card = entry
                where = at + 5 * n + turn * turn_size
                if action == DRINK:
                    tensor[where] = 1.0
                    tensor[where + 1 + card] = 1.0
                elif action < steal_base:
                    tensor[where + _IST_TURN + action - SWAP_BASE] = 1.0
                else:
                    tensor[where + _IST_TURN + n + action - steal_base] = 1.0
                turn += 1
            else:
                count = entry[1]
                reveal = at + 5 * n + (n - 1) * turn_size
                for seat in entry[2 : 2 + count]:
                    tensor[reveal + 3 * seat + 2] = 1.0
                pairs = entry[2 + count :]
                for i in range(0, len(pairs), 2):
                    tensor[reveal + 3 * pairs[i] + pairs[i + 1]] = 1.0
        return tensor

    def resample_from_infostate(self, player: Player, rng: random.Random) -> State:
        """Redraw the covered glasses of this round as ``player`` may imagine them.

        Earlier rounds ended with every glass face-up, so only this round's deal is
        hidden, and only from non-dealers. The draw is uniform over the deals that
        agree with everything public: the glasses drunk (traced back through the
        public swaps to the seat they were dealt to), at least one Wine and one
        Poison, and the deck's counts.
        """
        if self.phase == OVER_PHASE or player == self.dealer:
            return self.clone()
        game = self.game
        dealt = self.step if self.phase == DEAL_PHASE else len(self.order)
        # Which deal slot's glass sits at each seat now: replay the public swaps.
        slot_at = {seat: i for i, seat in enumerate(self.order[:dealt])}
        known: dict[int, int] = {}
        for seat, action, result in self.events:
            if action == DRINK:
                known[slot_at[seat]] = result >> 1
            elif action < game.steal_base:
                other = action - SWAP_BASE
                slot_at[seat], slot_at[other] = slot_at[other], slot_at[seat]
        free = [i for i in range(dealt) if i not in known]
        known_wine = sum(1 for kind in known.values() if kind == WINE)
        known_poison = len(known) - known_wine
        left = len(self.order) - dealt
        weights = []
        for wine in range(len(free) + 1):
            ok = deal_can_finish(
                known_wine + wine,
                known_poison + len(free) - wine,
                left,
                game.deck_wine,
                game.deck_poison,
            )
            weights.append(math.comb(len(free), wine) if ok else 0)
        wine_count = rng.choices(range(len(free) + 1), weights=weights)[0]
        wine_slots = set(rng.sample(free, wine_count))
        history = self.history()
        kinds = []
        for i in range(dealt):
            kind = known.get(i, WINE if i in wine_slots else POISON)
            kinds.append(kind)
            cheese = history[self.round_start + i] >= DEAL_WINE_CHEESE
            history[self.round_start + i] = kind + (2 if cheese else 0)
        # The state that replaying this history gives, made directly: only this
        # round's glasses (at the seats the public swaps took them to), the
        # deal's counts and the deal entries of the journal differ from ours.
        state = self.clone()
        assert isinstance(state, InVinoMorteState)
        state._history = history
        state._legal = None
        card = state.card
        for seat, slot in slot_at.items():
            card[seat] = kinds[slot]
        state.wine_dealt = kinds.count(WINE)
        state.poison_dealt = dealt - state.wine_dealt
        journal = state.journal
        for index in range(len(journal) - 1, -1, -1):
            entry = journal[index]
            if entry[0] == JOURNAL_REVEAL:
                break
            if entry[0] == JOURNAL_DEAL:
                step = entry[5]
                journal[index] = (*entry[:4], history[self.round_start + step], step)
        # Other seats' texts may show the redrawn glasses (the dealer's does).
        mine = self.info_texts.get(player)
        state.info_texts = {} if mine is None else {player: mine}
        return state

    # -- for people ----------------------------------------------------------------

    def render(self, player: Player | None) -> str:
        """The table as ``player`` sees it, one line per seat."""
        view = self.observation(player)
        lines = []
        if view["phase"] == "over":
            lines.append(f"Game over: {view['outcome']['reason']}")
        else:
            lines.append(
                f"Round {view['round']}, dealer seat {view['dealer']}, "
                f"{view['phase']}: seat {view['to_move']} to act"
            )
        for s in range(view["players"]):
            status = "alive" if view["alive"][s] else "dead"
            glass = view["glasses"][s]
            marks = []
            if s == view["dealer"] and view["phase"] != "over":
                marks.append("dealer")
            if view["cheese"][s]:
                marks.append("cheese")
            if view["turn_taken"][s]:
                marks.append("has played")
            if s == view["seat"]:
                marks.append("you")
            glass_text = "-" if glass is None else glass
            if view["drunk"][s]:
                glass_text += " (drunk)"
            lines.append(f"  seat {s}: {status:<5} glass {glass_text:<16} {', '.join(marks)}")
        for event in view["events"]:
            lines.append("  " + _event_text(event))
        last = view["last_round"]
        if last is not None:
            shown = ", ".join(f"{s} {last['glasses'][s]}" for s in last["revealed"])
            died = _seat_list(last["died"]) or "nobody"
            lines.append(f"Round {last['round']} reveal: {shown}; died: {died}")
        return "\n".join(lines)

    def __str__(self) -> str:
        """Everything, covered glasses included."""
        glasses = " ".join(
            ("." if c == NO_CARD else "WP"[c] + ("*" if self.drunk[s] else ""))
            + ("c" if self.cheese[s] else "")
            + ("" if self.alive[s] else "x")
            for s, c in enumerate(self.card)
        )
        return (
            f"round {self.round} dealer {self.dealer} {PHASE_NAMES[self.phase]} step {self.step} "
            f"order {list(self.order)} glasses [{glasses}] winners {list(self.winners)}"
        )


# Lines of information state strings by (steal_base, seat, journal entry): the
# same few entries recur across the many worlds a search draws, so each line is
# formatted once.
_JOURNAL_LINES: dict[tuple[int, int, tuple[int, ...]], str] = {}


def _journal_line(entry: tuple[int, ...], player: int, steal_base: int) -> str:
    """The text ``player`` sees for one journal entry (one or two lines)."""
    out: list[str] = []
    what = entry[0]
    if what == JOURNAL_DEAL:
        _, round_number, dealer, seat, action, step = entry
        if step == 0:
            out.append(f"round {round_number} dealer {dealer}")
        if player == dealer:
            text = CARD_NAMES[action & 1] + ("+cheese" if action >= DEAL_WINE_CHEESE else "")
            out.append(f"deal {seat} {text}")
        else:
            out.append(f"deal {seat}" + (" +cheese" if action >= DEAL_WINE_CHEESE else ""))
    elif what == JOURNAL_TURN:
        _, me, action, card = entry
        if action == DRINK:
            out.append(f"{me} drink: {CARD_NAMES[card]}")
        elif action < steal_base:
            out.append(f"{me} swap {action - SWAP_BASE}")
        else:
            out.append(f"{me} steal {action - steal_base}")
    else:
        count = entry[1]
        died = entry[2 : 2 + count]
        pairs = entry[2 + count :]
        shown = " ".join(f"{pairs[i]}={CARD_NAMES[pairs[i + 1]]}" for i in range(0, len(pairs), 2))
        out.append(f"reveal {shown}; died {_seat_list(died) or 'none'}")
    return "\n".join(out)


def _seat_list(seats: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seats)


def _event_text(event: dict[str, JSON]) -> str:
    if event["kind"] == "drink":
        fate = "and dies" if event["died"] else "and lives"
        return f"seat {event['actor']} drinks {event['glass']} {fate}"
    if event["kind"] == "swap":
        return f"seat {event['actor']} swaps glasses with seat {event['with']}"
    return f"seat {event['actor']} steals the cheese of seat {event['from']}"
