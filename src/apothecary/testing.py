"""The conformance suite every game must pass, public for anyone adding a game.

>>> from apothecary.testing import check_game
>>> report = check_game("my-game", players=2, games=3, seed=1)  # doctest: +SKIP

:func:`check_game` plays seeded random games and checks the protocol's
promises at every step (see its docstring). A failure raises
:class:`ConformanceError` with the game, its settings, the seed and the moves
that lead to the problem, so it can be replayed.
"""

from __future__ import annotations

import copy
import json
import math
import operator
import pickle
import random
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from apothecary.core.errors import BadOptionError, IllegalActionError, MalformedActionError
from apothecary.core.game import CHANCE, JSON, TERMINAL, Game, Player, State, sample_chance
from apothecary.core.records import Record
from apothecary.core.registry import load
from apothecary.core.words import read as read_words

_NOT_NOTATION = "%% not an action %%"
_YOU = re.compile(r"\byou\b", re.IGNORECASE)


class ConformanceError(AssertionError):
    """A game broke a promise of the protocol."""


@dataclass
class ConformanceReport:
    """What :func:`check_game` looked at."""

    game: str
    settings: dict[str, Any]
    games: int = 0
    steps: int = 0
    chance_steps: int = 0
    resamples: int = 0
    resamples_differing: int = 0
    information_states: int = 0
    """Positions whose information-state tensors (every seat's) were checked."""
    lengths: list[int] = field(default_factory=list)


def decision_positions(
    game: Game, count: int, rng: random.Random, keep: float = 1.0
) -> list[State]:
    """Copies of ``count`` positions with more than one legal action, met in
    uniformly random play drawn from ``rng``; each is kept with probability
    ``keep`` (with ``keep=1`` no draw is spent on it), so that a long game
    does not fill the sample alone."""
    found: list[State] = []
    while len(found) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            if len(state.legal_actions()) > 1 and (keep >= 1 or rng.random() < keep):
                found.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return found


def check_game(
    name: str,
    players: int | None = None,
    *,
    games: int = 10,
    seed: int = 0,
    resample_every: int = 1,
    min_steps: int = 0,
    max_steps_per_game: int | None = None,
    game_factory: Callable[[], Game] | None = None,
    **options: Any,
) -> ConformanceReport:
    """Play ``games`` seeded random games of ``name`` and check at every step that:

    - the current player is a seat, CHANCE or TERMINAL, and TERMINAL exactly at the end;
    - at a decision, legal actions are non-empty, sorted, unique and in range;
    - at a chance node, outcomes are sorted, unique, in range, with positive
      probabilities summing to 1, and equal to the legal actions;
    - every legal action's notation parses back to it;
    - at a decision, ``action_label`` gives every legal action a non-empty
      str, no two alike (at a chance node it only has to answer with a str);
    - an illegal id, an out-of-range id, a non-int and malformed notation raise
      the right error and leave the state exactly as it was;
    - a clone, ``copy.copy`` and ``copy.deepcopy`` equal their original and are
      independent of it (playing on one leaves the original as it was), and a
      state survives pickling (it is sent to worker processes) at every pickle
      protocol: one protocol in turn, as often as the allowance below pays
      for, all of them at the end;
    - observations (every seat and a spectator) are JSON values that survive a
      JSON round trip, and tensors have the declared length and finite values,
      within the game's declared ``observation_tensor_bounds`` (when it
      declares them: every game of this package does);
    - for a game that defines information-state tensors (every game of this
      package; see ``Game.provides_information_state_tensor``): the declared
      bounds have the tensor's length with ``low <= high``; every seat's
      tensor has the declared length (fixed for the configuration) and
      finite values within the bounds; it is the same (as float32) in every
      world the seat cannot tell from the game (its resamples); and it has
      perfect recall: over all the games played, two positions give a seat the
      same tensor exactly when they give it the same information state string;
    - a tensor holds what its observation holds: two positions met in any of
      the games played whose ``observation(seat)`` differ give that seat
      different ``observation_tensor(seat)``, compared as float32 (what the
      adapters hand a learning agent, which sees only the tensor);
    - ``resample_from_infostate(p)`` (every ``resample_every`` steps, seats in
      turn) gives seat p the same observation, information state and (on its
      turn) legal actions and their labels, gives a spectator the same
      observation, has a history that replays to it (as often as the
      allowance below pays for), and now and then can be played on to the
      end; and it uses nothing but the seat's information and the rng:
      resampling the resample with the same seed gives the same state;
    - each game ends within ``max_game_length`` with an outcome and returns
      (a configuration with no longest game raises BadOptionError there, and
      is then only checked to end);
    - the game's record survives JSON and replays to identical observations for
      every seat at every step;
    - for a game with hidden information, some resample differs from the truth;
    - ``describe_action`` (every seat and a spectator, for every action played)
      gives a JSON event that survives a round trip, with an int ``actor`` (the
      seat to move), a ``text`` in words that names no one ``you`` and a
      ``notation`` that is a str or None, and that is the action's notation for
      the actor itself; and at the resamples whose world is replayed, the
      replay tells the last action to seat p and to a spectator exactly as the
      true game did: an event, like an observation, may depend only on what
      its viewer knows once the action is played;
    - the labels of the seat to move are the same in every world it cannot
      tell from the game (checked at every resample of that seat, and at the
      other resample steps in one more world drawn for it, labels only): a
      label is read before its action is chosen, so it may tell the mover
      nothing its information does not (that a drink is poison, a dose...).

    A step costs the suite what it costs the game: the checks whose work grows
    with the game's length (replaying a resampled world's history and its last
    event, loading a pickle, which replays, and playing a world on to its end)
    run on an allowance of actions per step checked (100, 32 and 16), so a
    game shorter than about a hundred actions gets them at every step and a
    long one at steps spread over all of it. Information-state tensors, whose
    length is the longest game's, run on an allowance of numbers per step
    (8,192, so every step of a short game), and at every game's end; so does
    the comparison of a resample's tensor with the game's, on one of its own.
    Refused inputs, moves on copies and pickles are each followed by a quick
    look at the state (its text, history, mover and legal actions), and the
    whole fingerprint, views included, is compared once per step.

    More games than ``games`` are played until ``min_steps`` actions were
    checked (short games need many to meet every situation). With
    ``max_steps_per_game``, a game is checked only up to that many actions
    (its record still replays), to look at the openings of long games cheaply.
    ``game_factory`` replaces :func:`apothecary.load` (used to test the suite itself).
    """
    game = game_factory() if game_factory is not None else load(name, players, **options)
    report = ConformanceReport(game=game.name, settings=game.settings())
    tensors = _TensorIndex()
    layout = _tensor_layout(game)
    recall = _RecallIndex()
    index = 0
    while index < games or report.steps < min_steps:
        rng = random.Random(f"{seed}:{index}")
        label = f"seed={seed} game={index}"
        where = _Where(game, label, game.new_initial_state(), tensors, layout, recall)
        _check_one_game(game, rng, report, resample_every, max_steps_per_game, where)
        report.games += 1
        index += 1
    if game.info.has_hidden_information and report.resamples and not report.resamples_differing:
        raise ConformanceError(
            f"{game!r}: the game has hidden information but none of "
            f"{report.resamples} resamples differed from the true state"
        )
    return report


def _check_one_game(
    game: Game,
    rng: random.Random,
    report: ConformanceReport,
    resample_every: int,
    max_steps: int | None,
    where: _Where,
) -> None:
    state = where.state
    seats: list[Player | None] = [*range(game.num_players), None]
    # Per step, a digest of every viewer's observation, for the record's replay
    # (digests, not the observations: a long game would hold them all).
    observed: list[tuple[int, ...]] = []
    # Per viewer (seats, then the spectator), the event of the last action played.
    events: list[dict[str, JSON]] | None = None
    while True:
        where.state = state
        where.step()
        views, digests, tensors = _check_position(state, where)
        observed.append(digests)
        if state.is_terminal() or (max_steps is not None and state.move_number() >= max_steps):
            _check_information_states(state, report, where)
            break
        due = where.information_states.afford(where.layout.cost)
        if where.longest is not None and state.move_number() >= where.longest:
            where.fail(f"game not over after max_game_length={where.longest} actions")
        if resample_every and state.move_number() % resample_every == 0:
            seat = state.move_number() % game.num_players
            _check_resample(state, seat, rng, report, where, events)
            mover = state.current_player()
            if mover >= 0 and mover != seat and game.info.has_hidden_information:
                _check_mover_labels(state, mover, where)
        before = fingerprint(state)
        _check_bad_input(state, rng, before, where)
        _check_clone(state, rng, before, where)
        # Each refusal and each move on a copy was followed by a quick look
        # (the state's text, history, mover and legal actions); one full
        # fingerprint now covers the views too, since each costs the game's
        # own time and a long game's information states are long.
        if fingerprint(state) != before:
            where.fail(
                "a refused input, a move on a copy or pickling changed the state's "
                "observations or information states (its text and history stayed the same)"
            )
        # Last, so that a fault a narrower check explains (a leak into the
        # observation, say) is reported as that.
        where.tensors.check(tensors, views, where)
        if due:
            _check_information_states(state, report, where)
        if state.current_player() == CHANCE:
            report.chance_steps += 1
            action = sample_chance(state, rng)
        else:
            action = rng.choice(state.legal_actions())
        events = [_check_event(state, action, seat, where) for seat in seats]
        _check_audiences(state, action, events, where)
        state.apply_action(action)
        report.steps += 1
    if state.is_terminal():
        _expect_error(state, state.history()[-1], IllegalActionError, where, "action after the end")
    where.state = state
    final = fingerprint(state)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        _check_pickle(state, protocol, final, where)
    for how, what in ((copy.copy, "copy.copy(state)"), (copy.deepcopy, "copy.deepcopy(state)")):
        _check_copy(state, how(state), what, final, rng, where)
    if fingerprint(state) != final:
        where.fail("pickling or copying the finished game changed its views")
    _check_resample(state, rng.randrange(game.num_players), rng, report, where, events)
    where.tensors.check(tensors, views, where)
    report.lengths.append(state.move_number())
    _check_record(state, observed, seats, where)


class _TensorIndex:
    """For every tensor a seat was given in the games checked so far, what the
    seat's observation was then: a tensor met again with another observation
    dropped a fact of it.

    Only digests are kept (a hash of the float32 tensor; per top-level key of
    the observation, a hash of its JSON, packed), so that a position costs
    about a hundred bytes and a failure can still name the keys that differ.
    """

    def __init__(self) -> None:
        self.seen: dict[tuple[Player, int], tuple[tuple[str, ...], bytes, str]] = {}
        # One tuple per distinct set of keys, shared by every entry that has it.
        self.key_sets: dict[tuple[str, ...], tuple[str, ...]] = {}

    def check(self, tensors: list[list[float]], observations: list[JSON], where: _Where) -> None:
        """Fail if a seat's tensor (``tensors[seat]``) stood for another of its
        observations (``observations[seat]``) before."""
        for seat, tensor in enumerate(tensors):
            self._check_seat(seat, tensor, observations[seat], where)

    def _check_seat(
        self, seat: Player, tensor: list[float], observation: JSON, where: _Where
    ) -> None:
        parts = observation if isinstance(observation, dict) else {"": observation}
        keys = tuple(str(k) for k in parts)
        keys = self.key_sets.setdefault(keys, keys)
        digests = array("q", (hash(json.dumps(v, sort_keys=True)) for v in parts.values()))
        packed = digests.tobytes()
        key = (seat, hash(array("f", tensor).tobytes()))
        first = self.seen.setdefault(key, (keys, packed, where.at()))
        if first[0] != keys or first[1] != packed:
            before = dict(zip(first[0], array("q", first[1]), strict=True))
            now = dict(zip(keys, digests, strict=True))
            differ = [k for k in sorted(set(now) | set(before)) if now.get(k) != before.get(k)]
            where.fail(
                f"observation_tensor({seat}) is the same (as float32) as the tensor seat "
                f"{seat} was given {first[2]}, but its observation differs in {differ}: "
                "a learning agent sees only the tensor, so the tensor must hold every "
                "fact of the observation"
            )


class _Budget:
    """An allowance for checks whose work grows with the game's length
    (replaying a history, playing a game out): each step checked adds
    ``per_step`` actions of credit, and such a check runs only when the credit
    covers it, then spends what it cost.

    So the suite's work per step stays bounded by a constant, as the game's
    own work per step is, however long a game runs: a game shorter than about
    ``per_step`` actions gets every check at every step, as before; a long one
    gets the same checks at steps spread over the whole game, every few steps
    instead of every step.
    """

    def __init__(self, per_step: int) -> None:
        self.per_step = per_step
        self.credit = 0

    def step(self) -> None:
        """One more step checked."""
        self.credit += self.per_step

    def afford(self, cost: int) -> bool:
        """Whether a check of ``cost`` actions runs now; if so, it is paid for."""
        if cost > self.credit:
            return False
        self.credit -= cost
        return True


_REPLAY_CREDIT = 100
"""Actions per step for replaying resampled worlds' histories (and the last
action's event in them)."""
_PICKLE_CREDIT = 32
"""Actions per step for pickling (a pickled state is replayed when loaded)."""
_PLAY_ON_CREDIT = 16
"""Actions per step for playing resampled worlds on to their end."""
_INFORMATION_STATE_CREDIT = 8192
"""Numbers per step for information-state tensors (every seat's, at one
position); their length is the longest game's, so a long game's cost more."""


@dataclass(frozen=True)
class _Layout:
    """A game's declared tensor sizes and bounds, read once per check."""

    observation_bounds: tuple[list[float], list[float]] | None
    information_state_size: int | None
    """None when the game defines no information-state tensor (or, as for its
    longest game, the configuration has no fixed length)."""
    information_state_bounds: tuple[list[float], list[float]] | None
    cost: int
    """Numbers in every seat's information-state tensor at one position."""


def _tensor_layout(game: Game) -> _Layout:
    """The game's declared sizes and bounds, each checked for its form."""
    observation_bounds = None
    if game.declares_tensor_bounds:
        observation_bounds = game.observation_tensor_bounds()
        _check_bounds_form(game, "observation", observation_bounds, game.observation_tensor_size())
    size = bounds = None
    if game.provides_information_state_tensor:
        try:
            size = game.information_state_tensor_size()
        except BadOptionError:
            size = None  # as for max_game_length: a game with no longest length
        if size is not None:
            bounds = game.information_state_tensor_bounds()
            _check_bounds_form(game, "information_state", bounds, size)
    cost = (size or 0) * game.num_players
    return _Layout(observation_bounds, size, bounds, cost)


def _check_bounds_form(
    game: Game, prefix: str, bounds: tuple[list[float], list[float]], size: int
) -> None:
    low, high = bounds
    what = f"{game!r}: {prefix}_tensor_bounds()"
    if len(low) != size or len(high) != size:
        raise ConformanceError(
            f"{what} gives {len(low)} lows and {len(high)} highs for a tensor of {size}"
        )
    wrong = next((i for i, (a, b) in enumerate(zip(low, high, strict=True)) if not a <= b), None)
    if wrong is not None:
        raise ConformanceError(
            f"{what}: element {wrong} has low {low[wrong]} above high {high[wrong]}"
        )


def _outside(tensor: list[float], bounds: tuple[list[float], list[float]]) -> str | None:
    """None if every value of ``tensor`` lies within ``bounds``, else which does not."""
    low, high = bounds
    if all(map(operator.le, low, tensor)) and all(map(operator.le, tensor, high)):
        return None
    i = next(
        i for i, (a, x, b) in enumerate(zip(low, tensor, high, strict=True)) if not a <= x <= b
    )
    return f"element {i} is {tensor[i]}, outside its declared bounds [{low[i]}, {high[i]}]"


def _float32_digest(tensor: list[float]) -> int:
    """A hash of ``tensor`` as float32: what the adapters hand a learning agent."""
    return hash(array("f", tensor).tobytes())


class _RecallIndex:
    """Per seat, which information state string each information-state tensor
    stood for, and the reverse, as digests: a tensor met again with another
    string forgot something (no perfect recall); a string met again with
    another tensor put something in it the seat does not know."""

    def __init__(self) -> None:
        self.by_tensor: dict[tuple[Player, int], tuple[int, str]] = {}
        self.by_string: dict[tuple[Player, int], tuple[int, str]] = {}

    def check(self, seat: Player, tensor: list[float], text: str, where: _Where) -> None:
        """Fail if ``tensor`` and ``text`` (seat's) disagree with what was met before."""
        mine, theirs = _float32_digest(tensor), hash(text)
        what = f"information_state_tensor({seat})"
        checks = (
            (
                self.by_tensor,
                mine,
                theirs,
                f"{what} is the same (as float32) as the tensor seat {seat} was given "
                "{at}, but its information_state_string differs: the tensor must have "
                "perfect recall, as the string has",
            ),
            (
                self.by_string,
                theirs,
                mine,
                f"{what} differs from the tensor seat {seat} was given {{at}}, where its "
                "information_state_string was the same: the tensor holds something the "
                "seat does not know",
            ),
        )
        for index, key, value, problem in checks:
            first = index.setdefault((seat, key), (value, where.at()))
            if first[0] != value:
                where.fail(problem.replace("{at}", first[1]))


def _check_information_states(state: State, report: ConformanceReport, where: _Where) -> None:
    """Every seat's information-state tensor at ``state``: its length, values
    and bounds, and its agreement with the seat's information state string."""
    layout = where.layout
    size, bounds = layout.information_state_size, layout.information_state_bounds
    if size is None or bounds is None:
        return
    for seat in range(state.game.num_players):
        tensor = state.information_state_tensor(seat)
        what = f"information_state_tensor({seat})"
        if len(tensor) != size:
            where.fail(f"{what} has {len(tensor)} values, not {size}")
        _check_numbers(tensor, bounds, what, where)
        where.recall.check(seat, tensor, state.information_state_string(seat), where)
        _check_written_tensor(state, seat, tensor, where)
    report.information_states += 1


def _check_written_tensor(state: State, seat: Player, tensor: list[float], where: _Where) -> None:
    """``write_information_state_tensor`` (what OpenSpiel's observer reads) writes
    the list's numbers as float32, into an array that held other numbers."""
    import numpy as np  # here: the conformance suite's other checks need no NumPy

    out = np.full(len(tensor), 0.5, np.float32)  # not zeros: every number must be written
    state.write_information_state_tensor(seat, out)
    if out.tobytes() != array("f", tensor).tobytes():
        where.fail(
            f"write_information_state_tensor({seat}) wrote other numbers than "
            f"information_state_tensor({seat}) (as float32)"
        )


def _check_numbers(
    tensor: list[float],
    bounds: tuple[list[float], list[float]] | None,
    what: str,
    where: _Where,
) -> None:
    """Numbers, finite, and within ``bounds`` when there are any."""
    # The few distinct types first, then finiteness, both mostly in C.
    kinds = set(map(type, tensor))
    numbers = all(issubclass(kind, float | int) for kind in kinds)
    if not numbers or not all(map(math.isfinite, tensor)):
        where.fail(f"{what} has a non-finite or non-number value")
    if bounds is not None:
        outside = _outside(tensor, bounds)
        if outside is not None:
            where.fail(f"{what}: {outside}")


def _longest(game: Game) -> int | None:
    """The game's ``max_game_length()``, or None when it has none (it says so
    with BadOptionError: a rule set whose games may go on for ever)."""
    try:
        return game.max_game_length()
    except BadOptionError:
        return None


class _Where:
    """One game's context: enough for a failure message that can be replayed,
    and the allowances of its checks that grow with the game's length."""

    def __init__(
        self,
        game: Game,
        label: str,
        state: State,
        tensors: _TensorIndex | None = None,
        layout: _Layout | None = None,
        recall: _RecallIndex | None = None,
    ) -> None:
        self.game = game
        self.label = label
        self.state = state
        self.tensors = tensors if tensors is not None else _TensorIndex()
        self.layout = layout if layout is not None else _tensor_layout(game)
        self.recall = recall if recall is not None else _RecallIndex()
        self.information_states = _Budget(_INFORMATION_STATE_CREDIT)
        # Its own allowance: the comparison costs less than a whole position's
        # check and would otherwise take all of it.
        self.resampled_states = _Budget(_INFORMATION_STATE_CREDIT)
        self.replays = _Budget(_REPLAY_CREDIT)
        self.pickles = _Budget(_PICKLE_CREDIT)
        self.pickled = 0
        """How many pickle checks ran: the next one uses the next protocol."""
        self.play_ons = _Budget(_PLAY_ON_CREDIT)
        self.longest: int | None = _longest(game)
        """``game.max_game_length()``, or None for a game with no longest length."""

    def step(self) -> None:
        """One more step checked: every allowance grows."""
        budgets = (self.replays, self.pickles, self.play_ons)
        for budget in (*budgets, self.information_states, self.resampled_states):
            budget.step()

    def at(self) -> str:
        """Where the check is, in words: the game and the number of actions."""
        return f"in {self.label} after {self.state.move_number()} actions"

    def fail(self, problem: str) -> None:
        try:
            moves = self.state.history_notation()
        except Exception:  # the notation itself may be what is broken
            moves = [str(a) for a in self.state.history()]
        raise ConformanceError(
            f"{self.game!r} ({self.label}) after {len(moves)} actions: {problem}\n"
            f"  actions: {moves}"
        )


def _looks_the_same(state: State, before: tuple[Any, ...]) -> bool:
    """Whether ``state`` still matches the first parts of its :func:`fingerprint`
    ``before``: its text, history, mover and legal actions (a quick look)."""
    return (
        str(state) == before[0]
        and state.move_number() == len(before[1])
        and state.history()[-1:] == before[1][-1:]
        and state.current_player() == before[2]
        and state.legal_actions() == before[3]
    )


def fingerprint(state: State) -> tuple[Any, ...]:
    """Everything observable about a state, to detect any change."""
    n = state.game.num_players
    return (
        str(state),
        state.history(),
        state.current_player(),
        state.legal_actions(),
        [state.observation(p) for p in [*range(n), None]],
        [state.information_state_string(p) for p in range(n)],
    )


def _view_digests(views: list[JSON]) -> tuple[int, ...]:
    """A hash of each observation's canonical JSON."""
    return tuple(hash(json.dumps(view, sort_keys=True)) for view in views)


def _check_position(
    state: State, where: _Where
) -> tuple[list[JSON], tuple[int, ...], list[list[float]]]:
    """Check one position's answers; returns every viewer's observation (the
    seats', then a spectator's), their :func:`_view_digests` and every seat's
    tensor."""
    game = state.game
    player = state.current_player()
    n_actions = game.num_distinct_actions()
    if state.is_terminal() != (player == TERMINAL):
        where.fail(f"is_terminal()={state.is_terminal()} but current_player()={player}")
    if player not in (CHANCE, TERMINAL) and not 0 <= player < game.num_players:
        where.fail(f"current_player() is {player}, not a seat, CHANCE or TERMINAL")
    legal = state.legal_actions()
    if state.is_terminal():
        outcome = state.outcome()
        if outcome is None:
            where.fail("terminal state has no outcome()")
        else:
            if any(not 0 <= w < game.num_players for w in outcome.winners):
                where.fail(f"outcome winners {outcome.winners} are not all seats")
            if len(outcome.scores) != game.num_players:
                where.fail(f"outcome has {len(outcome.scores)} scores for {game.num_players}")
        if legal:
            where.fail(f"legal actions at the end of the game: {legal}")
        returns = state.returns()
        if len(returns) != game.num_players or not all(math.isfinite(r) for r in returns):
            where.fail(f"returns() {returns} is not one finite float per seat")
    else:
        if state.outcome() is not None:
            where.fail("outcome() is not None before the end")
        if not legal:
            where.fail("no legal actions at a non-terminal state")
        if legal != sorted(set(legal)):
            where.fail(f"legal actions not sorted and unique: {legal}")
        if any(not isinstance(a, int) or not 0 <= a < n_actions for a in legal):
            where.fail(f"legal actions out of range 0..{n_actions - 1}: {legal}")
    if player == CHANCE:
        outcomes = state.chance_outcomes()
        actions = [a for a, _ in outcomes]
        if actions != legal:
            where.fail(f"chance outcomes {actions} differ from legal actions {legal}")
        if any(not p > 0 for _, p in outcomes):
            where.fail(f"chance probabilities must be positive: {outcomes}")
        if abs(sum(p for _, p in outcomes) - 1.0) > 1e-9:
            where.fail(f"chance probabilities sum to {sum(p for _, p in outcomes)}, not 1")
    elif state.chance_outcomes():
        where.fail("chance_outcomes() is not empty at a decision node")
    for action in legal:
        text = state.action_to_string(action)
        try:
            back = state.string_to_action(text)
        except MalformedActionError as error:
            where.fail(f"notation {text!r} of action {action} does not parse: {error}")
        if back != action:
            where.fail(f"notation {text!r} of action {action} parses to {back}")
    if player != TERMINAL:
        _check_labels(state, legal, player == CHANCE, where)
    size = game.observation_tensor_size()
    tensors: list[list[float]] = []
    views: list[JSON] = []
    digests: list[int] = []
    for seat in [*range(game.num_players), None]:
        observation = state.observation(seat)
        views.append(observation)
        try:
            encoded = json.dumps(observation, sort_keys=True)
        except (TypeError, ValueError) as error:
            where.fail(f"observation({seat}) is not JSON-serialisable: {error}")
        if json.loads(encoded) != observation:
            where.fail(f"observation({seat}) changes in a JSON round trip (tuples? int keys?)")
        digests.append(hash(encoded))
        if seat is not None:
            tensor = state.observation_tensor(seat)
            if len(tensor) != size:
                where.fail(f"observation_tensor({seat}) has {len(tensor)} values, not {size}")
            bounds = where.layout.observation_bounds
            _check_numbers(tensor, bounds, f"observation_tensor({seat})", where)
            tensors.append(tensor)
            if not isinstance(state.information_state_string(seat), str):
                where.fail(f"information_state_string({seat}) is not a str")
    return views, tuple(digests), tensors


def _labels(state: State, legal: list[int], where: _Where) -> list[Any]:
    """``action_label`` of each of ``legal``; an exception is a failure."""
    labels: list[Any] = []
    for action in legal:
        try:
            labels.append(state.action_label(action))
        except Exception as error:
            where.fail(
                f"action_label({state.action_to_string(action)!r}) raised "
                f"{type(error).__name__}: {error}"
            )
    return labels


def _check_labels(state: State, legal: list[int], chance: bool, where: _Where) -> None:
    """Labels are button words: a str for every action, and at a decision
    non-empty and no two alike (a chance action is never offered, so its label
    only has to exist)."""
    labels = _labels(state, legal, where)
    for action, label in zip(legal, labels, strict=True):
        if not isinstance(label, str) or (not chance and not label.strip()):
            where.fail(
                f"action_label({state.action_to_string(action)!r}) is {label!r}, "
                "not a non-empty str"
            )
        elif not chance:
            _check_move(state, action, label, where)
    if not chance and len(set(labels)) != len(labels):
        twins = sorted({label for label in labels if labels.count(label) > 1})
        where.fail(f"two legal actions share a label: {twins} (a button must tell them apart)")


def _check_move(state: State, action: int, label: str, where: _Where) -> None:
    """A decision's words read as its label, and its move is JSON data with a
    ``kind`` (docs/protocol.md: what a front end finds a move by)."""
    notation = state.action_to_string(action)
    try:
        words = state.action_words(action)
        move = state.action_move(action)
    except Exception as error:
        where.fail(f"action_words/action_move({notation!r}) raised {type(error).__name__}: {error}")
        return
    if str(words) != label:
        where.fail(f"action_words({notation!r}) reads {str(words)!r}, but its label is {label!r}")
    if not isinstance(move, dict) or not isinstance(move.get("kind"), str):
        where.fail(f"action_move({notation!r}) is {move!r}, not a dict with a str 'kind'")
    else:
        try:
            json.dumps(move)
        except (TypeError, ValueError) as error:
            where.fail(f"action_move({notation!r}) is not JSON: {error}")


def _expect_error(
    state: State,
    bad: Any,
    error: type[Exception],
    where: _Where,
    what: str,
    before: tuple[Any, ...] | None = None,
) -> None:
    """Offering ``bad`` raises ``error`` and leaves the state as ``before``: its
    fingerprint, all of it when computed here, a quick look when given (the
    caller then compares all of it once after several checks)."""
    given = before is not None
    if before is None:
        before = fingerprint(state)
    try:
        state.apply_action(bad)
    except error:
        pass
    except Exception as other:
        where.fail(f"{what} {bad!r} raised {type(other).__name__}, not {error.__name__}: {other}")
    else:
        where.fail(f"{what} {bad!r} was accepted")
    if not _looks_the_same(state, before) or (not given and fingerprint(state) != before):
        where.fail(f"{what} {bad!r} changed the state although it was refused")


def _check_bad_input(
    state: State, rng: random.Random, before: tuple[Any, ...], where: _Where
) -> None:
    legal = set(state.legal_actions())
    n_actions = state.game.num_distinct_actions()
    illegal = [a for a in range(n_actions) if a not in legal]
    bad: list[tuple[Any, type[Exception], str]] = [
        (n_actions, MalformedActionError, "out-of-range action"),
        (-7, MalformedActionError, "negative action"),
        (1.5, MalformedActionError, "non-int action"),
        (_NOT_NOTATION, MalformedActionError, "malformed notation"),
    ]
    if illegal:
        bad.insert(0, (rng.choice(illegal), IllegalActionError, "illegal action"))
    for action, error, what in bad:
        _expect_error(state, action, error, where, what, before)


def _check_clone(state: State, rng: random.Random, before: tuple[Any, ...], where: _Where) -> None:
    _check_copy(state, state.clone(), "clone()", before, rng, where)
    # copy.copy and copy.deepcopy must be clone(): the default copy.copy shares
    # the mutable fields, so playing on it would corrupt the original.
    _check_copy(state, copy.copy(state), "copy.copy(state)", before, rng, where)
    _check_copy(state, copy.deepcopy(state), "copy.deepcopy(state)", before, rng, where)
    # States travel to worker processes (bots thinking, parallel tournaments).
    # Loading one replays its history, so it is checked as often as its
    # allowance pays for, one protocol in turn (and all of them at the end).
    if where.pickles.afford(state.move_number() + 1):
        _check_pickle(state, where.pickled % (pickle.HIGHEST_PROTOCOL + 1), before, where)
        where.pickled += 1


def _check_copy(
    state: State,
    copied: State,
    what: str,
    before: tuple[Any, ...],
    rng: random.Random,
    where: _Where,
) -> None:
    """``copied`` equals ``state`` and playing on it leaves ``state`` as it was."""
    if copied is state:
        where.fail(f"{what} is the state itself, not a copy")
    if fingerprint(copied) != before:
        where.fail(f"{what} differs from its original")
    if copied.is_terminal():
        return
    if copied.current_player() == CHANCE:
        copied.apply_action(sample_chance(copied, rng))
    else:
        copied.apply_action(rng.choice(copied.legal_actions()))
    if not _looks_the_same(state, before):
        where.fail(f"playing on {what} changed the original: they share something mutable")


def _check_pickle(state: State, protocol: int, before: tuple[Any, ...], where: _Where) -> None:
    """``state`` survives a pickle round trip at ``protocol``."""
    try:
        loaded = pickle.loads(pickle.dumps(state, protocol=protocol))
    except Exception as error:
        where.fail(f"pickling at protocol {protocol} failed: {type(error).__name__}: {error}")
    if type(loaded) is not type(state):
        where.fail(
            f"a state pickled at protocol {protocol} came back as a {type(loaded).__name__}, "
            f"not a {type(state).__name__}"
        )
    if fingerprint(loaded) != before:
        where.fail(
            f"a state pickled at protocol {protocol} and unpickled differs from the original"
        )
    if not _looks_the_same(state, before):
        where.fail(f"pickling at protocol {protocol} changed the state")


def _check_event(state: State, action: int, viewer: Player | None, where: _Where) -> dict[str, Any]:
    """``state.describe_action(action, viewer)``, checked for its form."""
    what = f"describe_action({state.action_to_string(action)!r}, {viewer})"
    try:
        event = state.describe_action(action, viewer)
    except Exception as error:
        where.fail(f"{what} raised {type(error).__name__}: {error}")
    try:
        encoded = json.dumps(event, sort_keys=True)
    except (TypeError, ValueError) as error:
        where.fail(f"{what} is not JSON-serialisable: {error}")
    if not isinstance(event, dict) or json.loads(encoded) != event:
        where.fail(f"{what} is not a dict that survives a JSON round trip: {event!r}")
    actor, text, notation = event.get("actor"), event.get("text"), event.get("notation", ...)
    if type(actor) is not int or actor != state.current_player():
        where.fail(f"{what}: actor {actor!r} is not the player to move, {state.current_player()}")
    if not isinstance(text, str) or not text.strip():
        where.fail(f"{what}: text {text!r} is not a sentence")
    elif _YOU.search(text):
        where.fail(f"{what}: text {text!r} says 'you'; events name seats as 'seat N'")
    if notation is not None and not isinstance(notation, str):
        where.fail(f"{what}: notation {notation!r} is neither a str nor None")
    if viewer == actor and notation != state.action_to_string(action):
        where.fail(f"{what}: the actor reads notation {notation!r}, not its own action's")
    _check_event_words(event, what, where)
    return event


def _check_audiences(
    state: State, action: int, events: list[dict[str, Any]], where: _Where
) -> None:
    """``describe_action_for_all`` (what a server logs) gives every viewer what
    ``describe_action`` tells it: the game's ``event_audience`` puts together
    only viewers who read the same event."""
    what = f"describe_action_for_all({state.action_to_string(action)!r})"
    try:
        shared = state.describe_action_for_all(action)
    except Exception as error:
        where.fail(f"{what} raised {type(error).__name__}: {error}")
    viewers: list[Player | None] = [*range(state.game.num_players), None]
    if len(shared) != len(viewers):
        where.fail(f"{what} gives {len(shared)} events for {len(viewers)} viewers")
    for viewer, alone, together in zip(viewers, events, shared, strict=True):
        if together != alone:
            who = "a spectator" if viewer is None else f"seat {viewer}"
            where.fail(
                f"{what} tells {who} {together!r}, but describe_action tells it {alone!r}: "
                "event_audience puts it with viewers who read another event"
            )


def _check_event_words(event: dict[str, Any], what: str, where: _Where) -> None:
    """An event's ``words`` read as its text without the ``then`` clauses, and
    ``then_words`` as those clauses (what a client shows, seats by name)."""
    then = event.get("then", [])
    try:
        own = read_words(event.get("words"))
        clauses = [read_words(w) for w in event.get("then_words", [])]
    except ValueError as error:
        where.fail(f"{what}: {error}")
        return
    if isinstance(then, list) and clauses != then:
        where.fail(f"{what}: then_words read {clauses!r}, but then is {then!r}")
    whole = "; ".join([own, *clauses])
    if whole != event.get("text"):
        where.fail(f"{what}: its words read {whole!r}, but its text is {event.get('text')!r}")


def _check_resample(
    state: State,
    seat: Player,
    rng: random.Random,
    report: ConformanceReport,
    where: _Where,
    events: list[dict[str, Any]] | None = None,
) -> None:
    draw_seed = rng.random()
    sample = state.resample_from_infostate(seat, random.Random(draw_seed))
    report.resamples += 1
    if str(sample) != str(state):
        report.resamples_differing += 1
    what = f"resample_from_infostate({seat})"
    if sample.observation(seat) != state.observation(seat):
        where.fail(f"{what} changed seat {seat}'s observation (a leak, or a bad resampler)")
    if sample.observation(None) != state.observation(None):
        where.fail(f"{what} changed the spectator's observation")
    if sample.information_state_string(seat) != state.information_state_string(seat):
        where.fail(f"{what} changed seat {seat}'s information state")
    if sample.current_player() != state.current_player():
        where.fail(f"{what} changed whose turn it is")
    if state.current_player() == seat:
        _check_world_labels(state, sample, what, where)
    if where.layout.information_state_size is not None and where.resampled_states.afford(
        2 * where.layout.information_state_size
    ):
        told = sample.information_state_tensor(seat)
        if _float32_digest(told) != _float32_digest(state.information_state_tensor(seat)):
            where.fail(
                f"{what} changed seat {seat}'s information_state_tensor: the tensor must be "
                "the same in every world the seat cannot tell from the game (a leak)"
            )
    # Fair by construction: a resampler may use only the seat's information
    # and the rng, so a state the seat cannot tell from this one (its own
    # resample) must give the same draw for the same seed.
    again = sample.resample_from_infostate(seat, random.Random(draw_seed))
    if str(again) != str(sample):
        where.fail(
            f"resample_from_infostate({seat}) depends on more than the seat's information: "
            "resampling its own resample with the same seed gave a different state"
        )
    history = sample.history()
    if where.replays.afford(len(history) + 1):
        _check_world_replay(state, sample, history, seat, what, where, events)
    # Play on from a resample now and then: the state must be a working game.
    if where.play_ons.credit > 0:
        steps = 0
        while not sample.is_terminal():
            if sample.current_player() == CHANCE:
                sample.apply_action(sample_chance(sample, rng))
            else:
                sample.apply_action(rng.choice(sample.legal_actions()))
            steps += 1
            if where.longest is not None and sample.move_number() > where.longest:
                where.fail(f"play from {what} runs past max_game_length")
        where.play_ons.credit -= steps


def _check_world_replay(
    state: State,
    sample: State,
    history: list[int],
    seat: Player,
    what: str,
    where: _Where,
    events: list[dict[str, Any]] | None,
) -> None:
    """The resampled world ``sample`` (drawn by ``what``) is what its history
    replays to, and its last action reads to ``seat`` and to a spectator as
    the true one did (``events``)."""
    replay = state.game.new_initial_state()
    # The world's last action must read as the true one did, to the seat and
    # to a spectator (when both histories are as long, as in every game here,
    # the last actions match one for one).
    last = len(history) - 1 if events is not None and len(history) == state.move_number() else -1
    for index, action in enumerate(history):
        if index == last:
            assert events is not None
            for viewer, truth in ((seat, events[seat]), (None, events[-1])):
                told = replay.describe_action(action, viewer)
                if told != truth:
                    who = "a spectator" if viewer is None else f"seat {viewer}"
                    where.fail(
                        f"{what}: describe_action of the last action tells {who} {told!r} "
                        f"in a world it cannot tell from the game, which told it {truth!r} "
                        "(a leak in the event)"
                    )
        try:
            replay.apply_action(action)
        except IllegalActionError as error:
            where.fail(f"{what}: its history does not replay: {error}")
    if str(replay) != str(sample):
        where.fail(f"{what}: replaying its history gives a different state")


def _check_mover_labels(state: State, mover: Player, where: _Where) -> None:
    """The labels of the seat to move, in one world drawn for it: a cheap check
    for the steps where the seats resampled in turn pass the mover by. Its rng
    is its own (from the label and the step), so the game's draws are as they
    would be without it."""
    world_rng = random.Random(f"{where.label}:{state.move_number()}:labels")
    sample = state.resample_from_infostate(mover, world_rng)
    _check_world_labels(state, sample, f"resample_from_infostate({mover})", where)


def _check_world_labels(state: State, sample: State, what: str, where: _Where) -> None:
    """The seat to move has the same legal actions in ``sample`` (a world drawn
    for it by ``what``) as in ``state``, and, since labels are read before the
    choice, its buttons read the same in every world it cannot tell from this one."""
    legal = state.legal_actions()
    if sample.legal_actions() != legal:
        where.fail(f"{what} changed the legal actions of the seat to move")
    labels = _labels(state, legal, where)
    drawn = _labels(sample, legal, where)
    if drawn != labels:
        diff = [(t, d) for t, d in zip(labels, drawn, strict=True) if t != d]
        where.fail(
            f"{what}: the seat to move reads other action labels in a world it "
            f"cannot tell from the game (a leak in the label): {diff[:3]} (game's, world's)"
        )


def _check_record(
    state: State, observed: list[tuple[int, ...]], seats: list[Player | None], where: _Where
) -> None:
    record = Record.from_state(state)
    again = Record.loads(record.dumps())
    for step, replayed in enumerate(again.states(state.game)):
        seen = [replayed.observation(seat) for seat in seats]
        if _view_digests(seen) != observed[step]:
            where.fail(f"the record's replay differs from the game at step {step}")
    final = again.replay(game=state.game)
    if str(final) != str(state):
        where.fail("the record's replay ends in a different state")
