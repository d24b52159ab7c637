"""Tea, Scones and Arsenic: eat the most scones without reaching the lethal dose.

The box holds 6 kinds of scone, 6 of each, with doses 0, 0, 1, 1, 2, 3 on the
back. A turn is a choice of kind (or of a scone someone put back and that is
still marked), a chance event for its dose (seen only by the drawer), then
"eat" or "put back for a sugar cube". Stopping starts honour rounds for the
others; the game ends when nobody alive is still playing or the box is empty.
See ``rules.md`` beside this module for the rules in full and the notation.

Action ids (dense, fixed per configuration):

====================  =========================================
``0..3``              chance: the drawn scone's dose
``4``                 stop
``5``                 shuffle the box before drawing
``6..11``             draw an unmarked scone of kind 1..6
``12``                eat
``13`` / ``14``       put back / put back and shuffle
``15`` / ``16``       use the little spoon / let the scone be eaten
``17..``              draw the i-th marked (put-back) scone
====================  =========================================
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import replace

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
from apothecary.core.words import seat as seat_ref
from apothecary.games.tea_scones_arsenic.events import describe
from apothecary.games.tea_scones_arsenic.facts import (
    BACK,
    BACK_SHUFFLE,
    DECIDE,
    DOSE,
    DOSE_BASE,
    DOSE_COUNTS,
    DRAW_BASE,
    EAT,
    KINDS,
    LETHAL_DOSE,
    MARKED_BASE,
    MAX_DOSE,
    OVER,
    PASS,
    PHASE_NAMES,
    SCONES,
    SHUFFLE,
    SPOON,
    SPOON_WINDOW,
    STOP,
    SUGAR_CUBES,
    TURN,
    EatenScone,
    MarkedScone,
    longest_cup,
)
from apothecary.games.tea_scones_arsenic.resample import Resampler

__all__ = [
    "BACK",
    "BACK_SHUFFLE",
    "DECIDE",
    "DOSE",
    "DOSE_BASE",
    "DOSE_COUNTS",
    "DRAW_BASE",
    "EAT",
    "KINDS",
    "LETHAL_DOSE",
    "MARKED_BASE",
    "MAX_DOSE",
    "OVER",
    "PASS",
    "PHASE_NAMES",
    "SCONES",
    "SHUFFLE",
    "SPOON",
    "SPOON_WINDOW",
    "STOP",
    "SUGAR_CUBES",
    "TURN",
    "EatenScone",
    "MarkedScone",
    "TeaSconesArsenic",
    "TeaSconesArsenicState",
]


@register
class TeaSconesArsenic(Game):
    """Tea, Scones and Arsenic for 1 to 6 players, with the optional Little Spoon."""

    info = GameInfo(
        name="tea-scones-arsenic",
        title="Tea, Scones and Arsenic",
        min_players=1,
        max_players=6,
        default_players=4,
        has_chance=True,
        has_hidden_information=True,
        summary="Eat the most scones without reaching the lethal dose of arsenic.",
    )
    option_specs = (
        OptionSpec(
            "little_spoon",
            bool,
            False,
            "once per game each player may send back a scone another player chose to eat",
        ),
    )

    def _configure(self) -> None:
        n = self.num_players
        if n == 1:
            # Alone at the table the player has seen every dose that was drawn;
            # only the future is unknown, so no resample can differ from the truth.
            self.info = replace(self.info, has_hidden_information=False)  # type: ignore[misc]
        self.lethal_dose: int = LETHAL_DOSE[n]
        self.little_spoon: bool = bool(self.options["little_spoon"])
        # Honour turns each other player owes after a stop.
        self.honour_turns: int = 1 if n == 6 else 2
        # Marks come from put-backs (a cube each) and spoons (one each): this
        # many marked scones can be in the box at once, at most.
        self.max_marked: int = min(SCONES, SUGAR_CUBES * n + (n if self.little_spoon else 0))
        # The most scones one cup can hold: the cup slots of the tensor.
        self.longest_cup: int = longest_cup(self.lethal_dose)
        # The information-state tensor's turn slots: every turn ends in an eat
        # (36 scones), a paid put-back (a cube), a spoon or a stop (once a seat).
        self.turns: int = SCONES + (SUGAR_CUBES + 1 + (1 if self.little_spoon else 0)) * n

    def num_distinct_actions(self) -> int:
        """Chance doses, the fixed player actions and one id per marked-scone slot."""
        return MARKED_BASE + self.max_marked

    def max_game_length(self) -> int:
        """Turns are bounded by eats, cube-paid put-backs, spoons and stops."""
        n = self.num_players
        turns = SCONES + SUGAR_CUBES * n + (n if self.little_spoon else 0)
        # shuffle, draw, dose, decide, and up to n-1 spoon answers per turn
        return turns * (4 + n - 1) + n

    def observation_tensor_size(self) -> int:
        """See :meth:`TeaSconesArsenicState.observation_tensor` for the layout."""
        n = self.num_players
        seat = _SEAT_FLAGS + KINDS + self.longest_cup * _SCONE_WIDTH
        marked = 1 + KINDS + n + 5
        return n * seat + KINDS + self.max_marked * marked + _SCONE_WIDTH + 5 + _FLAGS

    def observation_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Every number lies in [0, 1] but a seat's known total: -1 while unknown,
        up to the heaviest death (two under the lethal dose, then a 3) over the
        lethal dose; scones and scores up to the fullest cup; honour turns up to
        the number owed."""
        n = self.num_players
        size = self.observation_tensor_size()
        low, high = [0.0] * size, [1.0] * size
        seat = _SEAT_FLAGS + KINDS + self.longest_cup * _SCONE_WIDTH
        for q in range(n):
            base = q * seat
            low[base + _TOTAL] = -1.0
            high[base + _TOTAL] = _heaviest_total(self.lethal_dose) / self.lethal_dose
            high[base + _HONOUR] = self.honour_turns / 2
            high[base + _SCONES] = high[base + _SCORE] = self.longest_cup / SCONES
        return low, high

    def information_state_tensor_size(self) -> int:
        """See :meth:`TeaSconesArsenicState.information_state_tensor` for the layout."""
        n = self.num_players
        return 3 * n + 2 + self.turns * self._turn_width()

    def _turn_width(self) -> int:
        """Numbers per turn slot of the information-state tensor."""
        n = self.num_players
        return n + _TURN_ACTIONS + self.max_marked + 1 + 4 + 2 * n + 3

    def information_state_tensor_bounds(self) -> tuple[list[float], list[float]]:
        """Every number of the information-state tensor lies in [0, 1]."""
        size = self.information_state_tensor_size()
        return [0.0] * size, [1.0] * size

    def new_initial_state(self) -> TeaSconesArsenicState:
        """The box full and shuffled, seat 0 to play."""
        return TeaSconesArsenicState(self)


class TeaSconesArsenicState(State):
    """A position: the box (unmarked counts by kind and dose, marked scones), the
    scone in hand, every cup, cubes, spoons, stops, deaths and honour turns owed."""

    __slots__ = (
        "_resampler",
        "_rules",
        "_trail",
        "alive",
        "box_count",
        "cubes",
        "eat_off",
        "eat_off_seats",
        "eaten",
        "fresh_turn",
        "hand_dose",
        "hand_kind",
        "hand_known",
        "honour",
        "last_mover",
        "main_game_over",
        "marked",
        "notices",
        "phase",
        "pool",
        "public_totals",
        "result",
        "scones",
        "spoons",
        "stopped",
        "to_move",
        "totals",
        "turn_player",
        "unmarked",
    )

    def __init__(self, game: TeaSconesArsenic) -> None:
        super().__init__(game)
        n = game.num_players
        # The configuration, read through one field so a clone copies one reference.
        self._rules = game
        self.phase = TURN
        self.turn_player = 0
        self.to_move = 0
        self.fresh_turn = True
        self.eat_off = False
        self.eat_off_seats: tuple[int, ...] = ()
        # pool[kind * 4 + dose]: unmarked scones still in the box
        self.pool: list[int] = list(DOSE_COUNTS) * KINDS
        self.unmarked: list[int] = [sum(DOSE_COUNTS)] * KINDS
        self.marked: tuple[MarkedScone, ...] = ()
        self.box_count = SCONES
        self.hand_kind = -1
        self.hand_dose = -1
        self.hand_known = 0
        self.eaten: tuple[EatenScone, ...] = ()
        # Per-seat values are tuples, replaced when they change: they change
        # rarely next to how often a search clones the state.
        self.scones: tuple[int, ...] = (0,) * n
        self.totals: tuple[int, ...] = (0,) * n
        self.cubes: tuple[int, ...] = (SUGAR_CUBES,) * n
        self.spoons: tuple[int, ...] = (1 if game.little_spoon else 0,) * n
        self.stopped: tuple[int, ...] = (0,) * n
        self.alive: tuple[int, ...] = (1,) * n
        self.honour: tuple[int, ...] = (0,) * n
        # -1 while hidden; a total becomes public at death and at the end.
        self.public_totals: tuple[int, ...] = (-1,) * n
        self.last_mover = 0
        self.main_game_over = False
        # (move index, text): public events that hidden doses caused.
        self.notices: tuple[tuple[int, str], ...] = ()
        self.result: Outcome | None = None
        # Per history entry: the acting seat (the drawer, for a dose), plus for a
        # marked draw the dose the drawer saw, as actor | (dose + 1) << 3.
        self._trail: list[int] = []
        # (history length, seat, Resampler) of the last resample_from_infostate:
        # a search draws many worlds from one position, and the part of a draw
        # that needs no randomness is the same for all of them.
        self._resampler: tuple[int, int, Resampler] | None = None

    # -- rules -----------------------------------------------------------------

    @property
    def lethal_dose(self) -> int:
        """The dose at which a player dies in this game."""
        return self._rules.lethal_dose

    def current_player(self) -> Player:
        """The seat to act, CHANCE while a dose is being drawn, TERMINAL at the end."""
        return self.to_move

    def is_chance_node(self) -> bool:
        """Whether a dose is being drawn (read directly: asked at every action)."""
        return self.to_move == CHANCE

    def stopping_allowed(self) -> bool:
        """Whether no honour turn is owed by anyone still playing."""
        if self.eat_off or self.main_game_over:
            return False
        # Only players still playing ever owe turns: a stop needs all debts paid,
        # and a death cancels the dead player's.
        return not any(self.honour)

    def _legal_actions(self) -> Sequence[Action]:
        # Tuples, most of them made once (the base class keeps a tuple as it is).
        phase = self.phase
        if phase == TURN:
            marked = len(self.marked)
            unmarked = self.unmarked
            # Every kind is left until one runs out, late in a game.
            if 0 in unmarked:
                actions = tuple([DRAW_BASE + k for k in range(KINDS) if unmarked[k]])
            else:
                actions = _EVERY_DRAW
            if self.fresh_turn:
                stop = not self.eat_off and self.stopping_allowed()
                actions = _TURN_OPENINGS[stop][marked > 0] + actions
            if marked:
                actions += _MARKED_DRAWS[marked]
            return actions
        if phase == DOSE:
            base = self.hand_kind * 4
            return _DOSES_LEFT[tuple(self.pool[base : base + 4])][0]
        if phase == DECIDE:
            if self.eat_off or not self.cubes[self.turn_player]:
                return _EAT_ONLY
            return _EAT_OR_BACK
        if phase == SPOON_WINDOW:
            return _SPOON_OR_PASS
        return ()

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """The dose of a scone drawn by kind, weighted by the unmarked doses left."""
        if self.phase != DOSE:
            return []
        base = self.hand_kind * 4
        # The kind's unmarked doses (their sum is its unmarked count) fix the
        # outcomes; a new list each call, as callers may change it.
        return list(_DOSES_LEFT[tuple(self.pool[base : base + 4])][1])

    def _apply(self, action: Action) -> None:
        phase = self.phase
        p = self.turn_player
        if phase == DOSE:
            self._trail.append(p)
            k = self.hand_kind
            # unmarked[k] already went down at the draw: the scone left the box then.
            self.pool[k * 4 + action] -= 1
            self.hand_dose = action
            self.hand_known = 1 << p
            self.phase = DECIDE
            self.to_move = p
        elif phase == TURN:
            if action >= MARKED_BASE:
                i = action - MARKED_BASE
                marked = self.marked
                kind, dose, _by, known = marked[i]
                self.marked = marked[:i] + marked[i + 1 :]
                self.hand_kind = kind
                self.hand_dose = dose
                self.hand_known = known | (1 << p)
                self.box_count -= 1
                self.fresh_turn = False
                self.phase = DECIDE
                self._trail.append(p | (dose + 1) << 3)
                return
            self._trail.append(p)
            if action >= DRAW_BASE:
                self.hand_kind = kind = action - DRAW_BASE
                # The scone is in hand: the box's count of its kind and its total
                # both drop now, before chance draws its dose.
                self.unmarked[kind] -= 1
                self.box_count -= 1
                self.fresh_turn = False
                self.phase = DOSE
                self.to_move = CHANCE
            elif action == SHUFFLE:
                self._shuffle()
                self.fresh_turn = False
            else:  # STOP
                self.stopped = stopped = _with(self.stopped, p, 1)
                owed = self._rules.honour_turns
                alive, honour = self.alive, self.honour
                self.honour = tuple(
                    owed if alive[q] and not stopped[q] else honour[q]
                    for q in range(self._rules.num_players)
                )
                self._end_turn()
        elif phase == DECIDE:
            self._trail.append(p)
            if action == EAT:
                if self._rules.little_spoon and not self.eat_off:
                    asker = self._next_spoon_holder(p)
                    if asker >= 0:
                        self.phase = SPOON_WINDOW
                        self.to_move = asker
                        return
                self._eat()
            else:
                self.cubes = _with(self.cubes, p, self.cubes[p] - 1)
                self._put_back()
                if action == BACK_SHUFFLE:
                    self._shuffle()
                self._end_turn()
        else:  # SPOON_WINDOW
            asker = self.to_move
            self._trail.append(asker)
            if action == SPOON:
                self.spoons = _with(self.spoons, asker, 0)
                self._put_back()
                self._end_turn()
            else:
                following = self._next_spoon_holder(asker)
                if following >= 0:
                    self.to_move = following
                else:
                    self._eat()

    def _next_spoon_holder(self, after: int) -> int:
        """The next seat clockwise after ``after`` (stopping before the eater) that
        is alive and still holds a spoon, or -1."""
        eater = self.turn_player
        n = self._rules.num_players
        q = (after + 1) % n
        while q != eater:
            if self.alive[q] and self.spoons[q]:
                return q
            q = (q + 1) % n
        return -1

    def _put_back(self) -> None:
        # A spooned scone is marked as put back by the eater, like a paid one.
        self.marked += ((self.hand_kind, self.hand_dose, self.turn_player, self.hand_known),)
        self.box_count += 1
        self.hand_kind = -1

    def _shuffle(self) -> None:
        pool, unmarked = self.pool, self.unmarked
        for kind, dose, _by, _known in self.marked:
            pool[kind * 4 + dose] += 1
            unmarked[kind] += 1
        self.marked = ()

    def _eat(self) -> None:
        p = self.turn_player
        dose = self.hand_dose
        self.eaten += ((p, self.hand_kind, dose, self.hand_known),)
        self.hand_kind = -1
        self.scones = _with(self.scones, p, self.scones[p] + 1)
        total = self.totals[p] + dose
        self.totals = _with(self.totals, p, total)
        if total >= self._rules.lethal_dose:
            self.alive = _with(self.alive, p, 0)
            self.honour = _with(self.honour, p, 0)
            self.public_totals = _with(self.public_totals, p, total)
            self._notice(f"seat {p} dies at dose {total}")
        self._end_turn()

    def _notice(self, text: str) -> None:
        self.notices += ((len(self._history), text),)

    def _end_turn(self) -> None:
        p = self.turn_player
        n = self._rules.num_players
        alive = self.alive
        self.hand_kind = -1
        if self.eat_off:
            left = [q for q in self.eat_off_seats if alive[q]]
            if len(left) == 1:
                last = say("{who} is the last one standing in the eat-off", who=seat_ref(left[0]))
                self._finish(tuple(left), last)
                return
            if not self.box_count:
                self._finish(tuple(left), say("the box is empty during the eat-off: a shared win"))
                return
            q = (p + 1) % n
            while not (alive[q] and q in self.eat_off_seats):
                q = (q + 1) % n
            self._start_turn(q)
            return
        if self.honour[p]:
            self.honour = _with(self.honour, p, self.honour[p] - 1)
        self.last_mover = p
        stopped = self.stopped
        if self.box_count:
            for step in range(1, n + 1):
                q = (p + step) % n
                if alive[q] and not stopped[q]:
                    self._start_turn(q)
                    return
        self._end_main_game()

    def _start_turn(self, seat: int) -> None:
        self.turn_player = seat
        self.to_move = seat
        self.phase = TURN
        self.fresh_turn = True

    def _end_main_game(self) -> None:
        """Everyone turns their cup over; most scones, then most arsenic, then the eat-off."""
        self.main_game_over = True
        n = self._rules.num_players
        alive, scones, totals = self.alive, self.scones, self.totals
        survivors = [q for q in range(n) if alive[q]]
        self.public_totals = tuple(
            totals[q] if alive[q] else self.public_totals[q] for q in range(n)
        )
        ending = (
            say("the box is empty") if not self.box_count else say("nobody alive is still eating")
        )
        self._notice(f"main game over; totals {list(self.public_totals)}")
        if n == 1:  # solo: no rival to beat; the score is the scones eaten, if alive
            if not survivors:
                self._finish((), say("{who} reached the lethal dose", who=seat_ref(0)))
            else:
                if not self.box_count:
                    lived = say_n(
                        "{who} ate the whole box and lived, with {count} scone",
                        "{who} ate the whole box and lived, with {count} scones",
                        scones[0],
                        who=seat_ref(0),
                    )
                else:
                    lived = say_n(
                        "{who} stopped and lived, with {count} scone",
                        "{who} stopped and lived, with {count} scones",
                        scones[0],
                        who=seat_ref(0),
                    )
                self._finish((0,), lived)
            return
        if not survivors:
            self._finish((), say("{ending}, and nobody survived", ending=ending))
            return
        most = max(scones[q] for q in survivors)
        leaders = [q for q in survivors if scones[q] == most]
        heaviest = max(totals[q] for q in leaders)
        tied = tuple(q for q in leaders if totals[q] == heaviest)
        if len(tied) == 1:
            if len(leaders) == 1:
                wins = say(
                    "{ending}; {who} wins with most scones", ending=ending, who=seat_ref(tied[0])
                )
            else:
                wins = say(
                    "{ending}; {who} wins with most scones, then most arsenic",
                    ending=ending,
                    who=seat_ref(tied[0]),
                )
            self._finish(tied, wins)
            return
        if not self.box_count:
            self._finish(
                tied, say("{ending}; tied on scones and arsenic: a shared win", ending=ending)
            )
            return
        self.eat_off = True
        self.eat_off_seats = tied
        q = (self.last_mover + 1) % n
        while q not in tied:
            q = (q + 1) % n
        self._start_turn(q)

    def _finish(self, winners: tuple[int, ...], reason: Words) -> None:
        if self.eat_off:
            # Every total is turned over at the very end; the eat-off's scones
            # were face down, so this tells the others something new.
            self._notice(f"game over; totals {list(self.totals)}")
        self.phase = OVER
        self.to_move = TERMINAL
        self.hand_kind = -1
        self.public_totals = self.totals
        scores = tuple(
            float(self.scones[q]) if self.alive[q] else 0.0 for q in range(self._rules.num_players)
        )
        self.result = Outcome.told(winners, scores, reason)

    def _clone_into(self, other: State) -> None:
        assert isinstance(other, TeaSconesArsenicState)
        other._rules = self._rules
        other.phase = self.phase
        other.turn_player = self.turn_player
        other.to_move = self.to_move
        other.fresh_turn = self.fresh_turn
        other.eat_off = self.eat_off
        other.eat_off_seats = self.eat_off_seats
        other.pool = self.pool.copy()
        other.unmarked = self.unmarked.copy()
        other.marked = self.marked
        other.box_count = self.box_count
        other.hand_kind = self.hand_kind
        other.hand_dose = self.hand_dose
        other.hand_known = self.hand_known
        other.eaten = self.eaten
        other.scones = self.scones
        other.totals = self.totals
        other.cubes = self.cubes
        other.spoons = self.spoons
        other.stopped = self.stopped
        other.alive = self.alive
        other.honour = self.honour
        other.public_totals = self.public_totals
        other.last_mover = self.last_mover
        other.main_game_over = self.main_game_over
        other.notices = self.notices
        other.result = self.result
        other._trail = self._trail.copy()
        other._resampler = None

    def is_terminal(self) -> bool:
        """Whether the game (eat-off included) is over."""
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        """Winners, scores (scones eaten by survivors, 0 for the dead) and how it ended."""
        return self.result

    # -- notation ----------------------------------------------------------------

    def action_to_string(self, action: Action) -> str:
        """``dose2``, ``stop``, ``shuffle``, ``d3``, ``d3@1``, ``eat``, ``back``,
        ``back+shuffle``, ``spoon``, ``pass``."""
        if DOSE_BASE <= action < STOP:
            return f"dose{action}"
        if action >= MARKED_BASE:
            return self._marked_name(action - MARKED_BASE)
        if DRAW_BASE <= action < EAT:
            return f"d{action - DRAW_BASE + 1}"
        return _FIXED_NAMES[action]

    def _marked_name(self, slot: int) -> str:
        if slot >= len(self.marked):
            return f"m{slot + 1}"
        kind, _dose, by, _known = self.marked[slot]
        same = sum(1 for m in self.marked[:slot] if m[0] == kind and m[2] == by)
        name = f"d{kind + 1}@{by}"
        return name if same == 0 else f"{name}.{same + 1}"

    def _parse_action(self, text: str) -> Action | None:
        word = "".join(text.lower().split())
        if word in _ALIASES:
            return _ALIASES[word]
        for prefix in ("dose", "="):
            if word.startswith(prefix):
                dose = _number(word[len(prefix) :], MAX_DOSE)
                return None if dose is None else DOSE_BASE + dose
        if word.startswith("m"):
            slot = _number(word[1:], self._rules.max_marked)
            return None if slot is None or slot == 0 else MARKED_BASE + slot - 1
        if len(word) == 2 and word[0] == "d" and word[1] in "123456":
            return DRAW_BASE + int(word[1]) - 1
        if word.startswith("d") and "@" in word:
            for slot in range(len(self.marked)):
                if self._marked_name(slot) == word or (
                    word.endswith(".1") and self._marked_name(slot) == word[:-2]
                ):
                    return MARKED_BASE + slot
        return None

    def action_label(self, action: Action) -> str:
        """``Stop eating``, ``Shuffle the box``, ``Take a kind-3 scone``, ``Take the
        marked kind-3 scone seat 1 put back``, ``Eat the kind-3 scone``, ``Put it
        back for a sugar cube``, ``Use the little spoon on seat 2's scone``...:
        the English of :meth:`action_words`."""
        return str(self.action_words(action))

    def action_words(self, action: Action) -> Words:
        """The label of ``action`` with its seats as data.

        Only the choice: never the dose of a scone (what a scone taken by kind
        holds is drawn after the choice, and a marked scone's dose is known to
        some seats only)."""
        if DOSE_BASE <= action < STOP:
            return say("Dose {dose}", dose=action - DOSE_BASE)  # chance: never offered to a seat
        if action >= MARKED_BASE:
            slot = action - MARKED_BASE
            if slot >= len(self.marked):
                return say("Take marked scone {number}", number=slot + 1)
            kind, _dose, by, _known = self.marked[slot]
            alike = [i for i, m in enumerate(self.marked) if m[0] == kind and m[2] == by]
            which = f"{_ordinal(alike.index(slot) + 1)} " if len(alike) > 1 else ""
            return say(
                "Take the {which}marked kind-{scone} scone {by} put back",
                which=which,
                scone=kind + 1,
                by=seat_ref(by),
            )
        if DRAW_BASE <= action < EAT:
            return say("Take a kind-{scone} scone", scone=action - DRAW_BASE + 1)
        if action == EAT:
            if self.hand_kind >= 0:
                return say("Eat the kind-{scone} scone", scone=self.hand_kind + 1)
            return say("Eat the scone")
        if action == BACK:
            return say("Put it back for a sugar cube")
        if action == BACK_SHUFFLE:
            return say("Put it back for a sugar cube and shuffle the box")
        eater = seat_ref(self.turn_player)
        if action == SPOON:
            return say("Use the little spoon on {eater}'s scone", eater=eater)
        if action == PASS:
            return say("Let {eater} eat", eater=eater)
        return say("Stop eating") if action == STOP else say("Shuffle the box")

    def action_move(self, action: Action) -> dict[str, JSON]:
        """``action`` as data (rules.md, "What the server sends"): ``{"kind":
        "draw", "scone": 1..6, "marked": None, "by": None}`` for a scone taken by
        kind, the same with the marked scone's index in ``box.marked`` and the
        seat that put it back for a marked one; ``stop``, ``shuffle``, ``eat``;
        ``back`` with ``shuffle``; ``spoon`` and ``pass`` with the ``eater``;
        ``dose`` with the ``dose`` (chance only)."""
        if DOSE_BASE <= action < STOP:
            return {"kind": "dose", "dose": action - DOSE_BASE}
        if action >= MARKED_BASE:
            slot = action - MARKED_BASE
            known = slot < len(self.marked)
            return {
                "kind": "draw",
                "scone": self.marked[slot][0] + 1 if known else None,
                "marked": slot,
                "by": self.marked[slot][2] if known else None,
            }
        if DRAW_BASE <= action < EAT:
            return {"kind": "draw", "scone": action - DRAW_BASE + 1, "marked": None, "by": None}
        if action in (BACK, BACK_SHUFFLE):
            return {"kind": "back", "shuffle": action == BACK_SHUFFLE}
        if action in (SPOON, PASS):
            return {"kind": _FIXED_NAMES[action], "eater": self.turn_player}
        return {"kind": _FIXED_NAMES[action]}

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        """The event of :meth:`describe_action`: a dose is read only by those who
        saw it; every choice, death and the end are told to all (``events.py``)."""
        return describe(self, action, actor, viewer)

    # -- what each seat knows ------------------------------------------------------

    def _dose_for(self, dose: int, known: int, player: Player | None) -> int | None:
        if player is not None and player >= 0 and known >> player & 1:
            return dose
        return None

    def _total_for(self, seat: int, player: Player | None) -> int | None:
        """The total dose of ``seat`` as ``player`` knows it: its own always and
        as it is now ("A player can look at his Scones at any time", the eat-off
        included), anyone's once public (at death, at the end of the main game:
        that total, since eat-off scones stay face down), else None."""
        if seat == player:
            return self.totals[seat]
        total = self.public_totals[seat]
        return None if total == -1 else total

    def observation(self, player: Player | None) -> dict[str, JSON]:
        """The table as ``player`` sees it: every public fact, plus the doses that
        seat has seen (its own cup, its hand, scones it put back or drew)."""
        n = self._rules.num_players
        seats: list[dict[str, JSON]] = []
        cups: list[list[JSON]] = [[] for _ in range(n)]
        for eater, kind, dose, known in self.eaten:
            cups[eater].append({"kind": kind + 1, "dose": self._dose_for(dose, known, player)})
        for q in range(n):
            cup = cups[q]
            total = self._total_for(q, player)
            seats.append(
                {
                    "alive": bool(self.alive[q]),
                    "stopped": bool(self.stopped[q]),
                    "cubes": self.cubes[q],
                    "spoon": bool(self.spoons[q]),
                    "honour_turns_left": self.honour[q],
                    "scones": self.scones[q],
                    "cup": cup,
                    "total": total,
                }
            )
        hand: JSON = None
        if self.hand_kind >= 0:
            hand = {
                "kind": self.hand_kind + 1,
                "dose": None
                if self.phase == DOSE
                else self._dose_for(self.hand_dose, self.hand_known, player),
            }
        result = self.result
        return {
            "players": n,
            "seat": player,
            "lethal_dose": self._rules.lethal_dose,
            "little_spoon": self._rules.little_spoon,
            "phase": PHASE_NAMES[self.phase],
            "turn": None if self.phase == OVER else self.turn_player,
            "to_move": self.to_move if self.to_move >= 0 else None,
            "stopping_allowed": self.phase == TURN and self.fresh_turn and self.stopping_allowed(),
            "eat_off": list(self.eat_off_seats) if self.eat_off else None,
            "main_game_over": self.main_game_over,
            "box": {
                "unmarked": list(self.unmarked),
                "marked": [
                    {"kind": kind + 1, "by": by, "dose": self._dose_for(dose, known, player)}
                    for kind, dose, by, known in self.marked
                ],
                "scones": self.box_count,
            },
            "hand": hand,
            "seats": seats,
            "outcome": None if result is None else result.to_json(),
        }

    def information_state_string(self, player: Player) -> str:
        """Every action in order as ``player`` saw it: others' doses as ``?``, plus
        the public events (deaths, the end of the main game) where they happened."""
        parts = [
            (f"{mark & 7}:dose{action}" if mark & 7 == player else _HIDDEN_DOSE[mark & 7])
            if action < STOP
            else (
                f"{mark & 7}:{action}={(mark >> 3) - 1}"
                if mark & 7 == player and action >= MARKED_BASE
                else _PUBLIC_ACTION[mark & 7][action]
            )
            for action, mark in zip(self._history, self._trail, strict=True)
        ]
        for index, text in reversed(self.notices):
            parts.insert(index + 1, f"[{text}]")
        head = (
            f"tsa n={self._rules.num_players} spoon={int(self._rules.little_spoon)} seat={player} "
        )
        return head + " ".join(parts)

    def observation_tensor(self, player: Player) -> list[float]:
        """Every fact of ``observation(player)`` as numbers, in a fixed layout.

        Per seat: alive, stopped, cubes, spoon, honour turns owed, scones, its
        total as the player knows it (-1 unknown), to move, is the player, is
        the turn's player, in the eat-off, winner, score; the count of each
        kind in its cup; then its cup scone by scone in the order eaten, each
        a kind and a dose (or "unknown") one-hot, empty slots all zero. Then
        the unmarked count of each kind, the marked scones in the box's order
        (present, kind, who put it back, dose or unknown), the hand (kind, dose
        or unknown), the phase and the flags (eat-off, main game over, fresh
        turn, stopping allowed, scones in the box, the player's turn, scones
        eaten). What is left out is fixed by the game and the seat asking (the
        number of players, the lethal dose, the spoon option, the seat), and
        the outcome's reason, which the rest of the table decides.
        """
        n = self._rules.num_players
        lethal = self._rules.lethal_dose
        slots = self._rules.longest_cup
        result = self.result
        over = self.phase == OVER
        out: list[float] = []
        cups: list[list[float]] = [[] for _ in range(n)]
        kinds = [[0.0] * KINDS for _ in range(n)]
        for eater, kind, dose, known in self.eaten:
            cups[eater] += _scone_row(kind, self._dose_for(dose, known, player))
            kinds[eater][kind] += 1 / 6
        for q in range(n):
            total = self._total_for(q, player)
            out += [
                float(self.alive[q]),
                float(self.stopped[q]),
                self.cubes[q] / SUGAR_CUBES,
                float(self.spoons[q]),
                self.honour[q] / 2,
                self.scones[q] / SCONES,
                -1.0 if total is None else total / lethal,
                float(self.to_move == q),
                float(player == q),
                float(self.turn_player == q and not over),
                float(self.eat_off and q in self.eat_off_seats),
                float(result is not None and q in result.winners),
                0.0 if result is None else result.scores[q] / SCONES,
            ]
            out += kinds[q]
            out += cups[q]
            out += [0.0] * (slots * _SCONE_WIDTH - len(cups[q]))
        out += [c / 6 for c in self.unmarked]
        max_marked = self._rules.max_marked
        for slot in range(max_marked):
            row = [0.0] * (1 + KINDS + n + 5)
            if slot < len(self.marked):
                kind, dose, by, known = self.marked[slot]
                row[0] = 1.0
                row[1 + kind] = 1.0
                row[1 + KINDS + by] = 1.0
                seen = self._dose_for(dose, known, player)
                row[1 + KINDS + n + (4 if seen is None else seen)] = 1.0
            out += row
        if self.hand_kind >= 0:
            seen = None
            if self.phase != DOSE:
                seen = self._dose_for(self.hand_dose, self.hand_known, player)
            out += _scone_row(self.hand_kind, seen)
        else:
            out += [0.0] * _SCONE_WIDTH
        phase = [0.0] * 5
        phase[self.phase] = 1.0
        out += phase
        out += [
            float(self.eat_off),
            float(self.main_game_over),
            float(self.fresh_turn),
            float(self.phase == TURN and self.fresh_turn and self.stopping_allowed()),
            self.box_count / SCONES,
            float(self.turn_player == player and not over),
            len(self.eaten) / SCONES,
        ]
        return out

    def information_state_tensor(self, player: Player) -> list[float]:
        """Everything ``player`` has seen, turn by turn: what
        ``information_state_string(player)`` says, as numbers of a fixed layout.

        A header: the asking seat (one-hot), whether the main game is over, and
        each seat's total as turned over then (over the heaviest possible total);
        then whether the game ended in the eat-off, and each seat's total as
        turned over at that end (the eat-off's scones were face down).
        Then one slot per turn, as many as a game can hold (every turn ends in an
        eat, a paid put-back, a spoon or a stop): the turn's player (one-hot);
        which of stop, shuffle, draw of kind 1-6, eat, put back, put back and
        shuffle it played and which marked slot it drew; whether the dose of a
        scone taken by kind has been drawn; the dose the asking seat saw, when
        the scone is its own (drawn by kind or marked); which seats let the
        scone be eaten and which used the little spoon; and, for the turn in
        which its player died, the public total at death over the lethal dose
        (0, 1 or 2 more). Turns are read off the history alone: a stop, a
        shuffle, or a draw not just after a shuffle starts one.
        """
        rules = self._rules
        n = rules.num_players
        width = rules._turn_width()
        out = [0.0] * rules.information_state_tensor_size()
        out[player] = 1.0
        header = 3 * n + 2
        act = n  # offsets inside a turn slot
        drawn = act + _TURN_ACTIONS + rules.max_marked
        seen = drawn + 1
        passed = seen + 4
        spooned = passed + n
        death = spooned + n
        turn = -1
        base = header - width
        after_shuffle = False
        last_turn = [-1] * n
        history = self._history
        for action, mark in zip(history, self._trail, strict=True):
            actor = mark & 7
            if action < STOP:  # the chance dose of a scone taken by kind
                out[base + drawn] = 1.0
                if actor == player:
                    out[base + seen + action] = 1.0
                continue
            draw = action >= MARKED_BASE or DRAW_BASE <= action < EAT
            if action in (STOP, SHUFFLE) or (draw and not after_shuffle):
                turn += 1
                base = header + turn * width
                out[base + actor] = 1.0
                last_turn[actor] = turn
            after_shuffle = action == SHUFFLE
            if action == PASS:
                out[base + passed + actor] = 1.0
            elif action == SPOON:
                out[base + spooned + actor] = 1.0
            elif action >= MARKED_BASE:
                out[base + act + _TURN_ACTIONS + action - MARKED_BASE] = 1.0
                if actor == player:
                    out[base + seen + (mark >> 3) - 1] = 1.0
            else:
                out[base + act + action - STOP] = 1.0
        lethal = rules.lethal_dose
        for q in range(n):
            if not self.alive[q]:
                # a dead seat plays no turn after the one it died in
                excess = self.public_totals[q] - lethal
                out[header + last_turn[q] * width + death + excess] = 1.0
        if self.main_game_over:
            out[n] = 1.0
            heaviest = _heaviest_total(lethal)
            for q, total in enumerate(self._main_game_totals()):
                out[n + 1 + q] = total / heaviest
            if self.phase == OVER and self.eat_off:
                # the cups turned over again at the end of the eat-off
                out[2 * n + 1] = 1.0
                for q, total in enumerate(self.totals):
                    out[2 * n + 2 + q] = total / heaviest
        return out

    def _main_game_totals(self) -> list[int]:
        """Every seat's total as turned over at the end of the main game: the
        eat-off's scones (each an eat, with no spoon in the eat-off) left out."""
        index = next(i for i, text in self.notices if text.startswith("main game over"))
        eat_off = self._history[index + 1 :].count(EAT)
        totals = [0] * self._rules.num_players
        for eater, _kind, dose, _known in self.eaten[: len(self.eaten) - eat_off]:
            totals[eater] += dose
        return totals

    def resample_from_infostate(self, player: Player, rng: random.Random) -> State:
        """Doses the seat has not seen, redrawn consistently with everything it knows,
        written back into the history's chance outcomes and replayed."""
        cached = self._resampler
        if cached is None or cached[0] != len(self._history) or cached[1] != player:
            cached = self._resampler = (len(self._history), player, Resampler(self, player))
        history = cached[2].history(rng)
        state = self.game.new_initial_state()
        # The redrawn history is legal (every dose is one the pool still held),
        # so the replay skips the legality checks, as apply_action would pass.
        for action in history:
            state._apply(action)
            state._history.append(action)
        state._legal = None
        return state

    # -- text ----------------------------------------------------------------------

    def __str__(self) -> str:
        lines = [
            f"phase={PHASE_NAMES[self.phase]} turn={self.turn_player} to_move={self.to_move}"
            f" fresh={int(self.fresh_turn)} eat_off={list(self.eat_off_seats)}"
            f" main_over={int(self.main_game_over)} last={self.last_mover}",
            f"pool={self.pool} box={self.box_count}",
            f"marked={list(self.marked)}",
            f"hand={self.hand_kind},{self.hand_dose},{self.hand_known}",
            f"eaten={list(self.eaten)}",
            f"scones={list(self.scones)} totals={list(self.totals)} cubes={list(self.cubes)}"
            f" spoons={list(self.spoons)} stopped={list(self.stopped)} alive={list(self.alive)}"
            f" honour={list(self.honour)} public={list(self.public_totals)}",
            f"notices={list(self.notices)}",
            f"result={self.result}",
        ]
        return "\n".join(lines)

    def render(self, player: Player | None) -> str:
        """The table as text, built from ``observation(player)`` only."""
        from apothecary.games.tea_scones_arsenic.view import render_observation

        return render_observation(self.observation(player))


# Legal actions that recur, made once (see _legal_actions).
_EVERY_DRAW = tuple(DRAW_BASE + k for k in range(KINDS))
_TURN_OPENINGS = (((), (SHUFFLE,)), ((STOP,), (STOP, SHUFFLE)))
"""Indexed by whether stopping is allowed, then whether any scone is marked."""
_MARKED_DRAWS = tuple(tuple(range(MARKED_BASE, MARKED_BASE + m)) for m in range(SCONES + 1))
_EAT_ONLY = (EAT,)
_EAT_OR_BACK = (EAT, BACK, BACK_SHUFFLE)
_SPOON_OR_PASS = (SPOON, PASS)


def _doses_left(
    counts: tuple[int, ...],
) -> tuple[tuple[Action, ...], tuple[tuple[Action, float], ...]]:
    """The doses a kind with these unmarked counts (of doses 0..3) can give,
    and each with its probability (the count over the kind's unmarked total)."""
    total = sum(counts)
    doses = tuple(d for d in range(4) if counts[d])
    return doses, tuple((d, counts[d] / total) for d in doses)


_DOSES_LEFT = {
    counts: _doses_left(counts)
    for counts in itertools.product(*(range(c + 1) for c in DOSE_COUNTS))
    if any(counts)
}
"""By a kind's unmarked counts of doses 0..3: its dose outcomes (a chance node's
legal actions, then with their probabilities)."""

_SEAT_FLAGS = 13
"""Numbers per seat before its cup in the tensor (see ``observation_tensor``)."""
_SCONE_WIDTH = KINDS + 5
"""One scone in the tensor: its kind one-hot, then its dose 0..3 or unknown."""
_FLAGS = 7
"""The flags that end the tensor."""
_HONOUR, _SCONES, _TOTAL, _SCORE = 4, 5, 6, 12
"""Where a seat's honour turns, scones, known total and score sit among its flags."""
_TURN_ACTIONS = BACK_SHUFFLE - STOP + 1
"""Stop, shuffle, draw of kind 1-6, eat, put back, put back and shuffle: the
actions of a turn slot of the information-state tensor, one bit each."""


def _heaviest_total(lethal: int) -> int:
    """The greatest total a cup can hold: just under the lethal dose, then a 3
    (or every dose of the box, when that is less)."""
    return min(lethal - 1 + MAX_DOSE, KINDS * sum(d * c for d, c in enumerate(DOSE_COUNTS)))


def _scone_row(kind: int, dose: int | None) -> list[float]:
    """One scone as the tensor holds it: kind one-hot, dose (or unknown) one-hot."""
    row = [0.0] * _SCONE_WIDTH
    row[kind] = 1.0
    row[KINDS + (4 if dose is None else dose)] = 1.0
    return row


def _number(text: str, most: int) -> int | None:
    """``text`` as a number from 0 to ``most``, or None: ASCII digits only (no
    superscripts, no other scripts' digits), and never more digits than
    ``most`` has, so that no long run of digits is ever turned into an int."""
    if not text or not text.isascii() or not text.isdigit() or len(text) > len(str(most)):
        return None
    value = int(text)
    return value if value <= most else None


def _ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``12th``, ``21st``."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _with(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    """``values`` with one entry replaced."""
    return (*values[:index], value, *values[index + 1 :])


_FIXED_NAMES = {
    STOP: "stop",
    SHUFFLE: "shuffle",
    EAT: "eat",
    BACK: "back",
    BACK_SHUFFLE: "back+shuffle",
    SPOON: "spoon",
    PASS: "pass",
}

_HIDDEN_DOSE = tuple(f"{seat}:dose?" for seat in range(8))
_PUBLIC_ACTION = tuple(tuple(f"{seat}:{action}" for action in range(64)) for seat in range(8))

_ALIASES: dict[str, int] = {
    "stop": STOP,
    "shuffle": SHUFFLE,
    "sh": SHUFFLE,
    "eat": EAT,
    "e": EAT,
    "back": BACK,
    "b": BACK,
    "back+shuffle": BACK_SHUFFLE,
    "backshuffle": BACK_SHUFFLE,
    "back+sh": BACK_SHUFFLE,
    "bs": BACK_SHUFFLE,
    "spoon": SPOON,
    "pass": PASS,
}
