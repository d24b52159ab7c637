"""The conformance suite passes a correct game and catches each planted bug."""

from __future__ import annotations

from collections.abc import Hashable

import pytest
from toy_high_card.game import ToyGame, ToyState

import apothecary
from apothecary.core.errors import ApothecaryError
from apothecary.core.game import JSON, Action, Game, Player, State
from apothecary.core.registry import load
from apothecary.core.words import Words
from apothecary.games.in_vino_morte.rules import (
    CARD_NAMES,
    DRINK,
    InVinoMorteGame,
    InVinoMorteState,
)
from apothecary.testing import ConformanceError, check_game


def check_toy(bug: str) -> None:
    check_game("toy-high-card", games=30, seed=3, game_factory=lambda: ToyGame(bug=bug))


def test_a_correct_game_passes() -> None:
    report = check_game("toy-high-card", games=30, seed=3, game_factory=ToyGame)
    assert report.games == 30
    assert report.resamples > 30
    assert 0 < report.resamples_differing < report.resamples
    assert all(3 <= n <= 4 for n in report.lengths)


@pytest.mark.parametrize(
    ("bug", "message"),
    [
        ("leak", "changed seat"),
        ("unsorted", "not sorted"),
        ("chance", "sum to"),
        ("resampler", "changed seat"),
        ("peeks", "depends on more than the seat's information"),
        ("clone", "share something mutable"),
        ("notation", "parses to"),
        ("length", "max_game_length"),
        ("event_leak", "describe_action of the last action tells seat"),
        ("event_actor", "the actor reads notation None"),
        ("label_leak", "a leak in the label"),
        ("label_twins", "two legal actions share a label"),
        ("obs_bounds", r"observation_tensor\(0\): element \d is 1.0, outside"),
        ("bounds_form", "gives 10 lows and 9 highs for a tensor of 10"),
        ("ist_length", r"information_state_tensor\(0\) has 9 values, not 10"),
        ("ist_bounds", r"information_state_tensor\(0\): element \d is 2.0, outside"),
        ("ist_leak", "changed seat 0's information_state_tensor"),
        ("ist_forgets", "the tensor must have perfect recall"),
        ("ist_written", r"write_information_state_tensor\(\d\) wrote other numbers"),
    ],
)
def test_each_planted_bug_is_caught(bug: str, message: str) -> None:
    with pytest.raises(ConformanceError, match=message):
        check_toy(bug)


def test_a_correct_game_has_its_information_states_checked() -> None:
    report = check_game("toy-high-card", games=30, seed=3, game_factory=ToyGame)
    # Every position of these short games, the chance ones included.
    assert report.information_states == report.steps + report.games


def test_an_information_state_tensor_with_a_secret_is_caught_without_resamples() -> None:
    """With no resample to compare against, the index over all games still sees
    one information state string given two tensors (a hidden card in them)."""
    with pytest.raises(ConformanceError, match="holds something the seat does not know"):
        check_game(
            "toy-high-card",
            games=30,
            seed=3,
            resample_every=0,
            game_factory=lambda: ToyGame(bug="ist_leak"),
        )


def test_a_long_games_information_states_are_checked_on_an_allowance() -> None:
    """Poison Pot's tensor is as long as its longest game: on the radius-4 board
    with 3 players, 11,163 numbers a seat, 33,489 a position. At 8,192 numbers
    of allowance a step, about one position in four is checked, and the last."""
    report = check_game("poison-pot", players=3, games=1, seed=1, radius=4)
    per_position = 3 * load("poison-pot", players=3, radius=4).information_state_tensor_size()
    assert per_position == 33_489
    assert report.steps == 180
    assert report.information_states == report.steps * 8192 // per_position + 1 == 45


class _NoTensorsGame(ToyGame):
    """The toy as a game from another package might be: no information-state
    tensor and no bounds (the base class's methods)."""

    observation_tensor_bounds = Game.observation_tensor_bounds
    information_state_tensor_size = Game.information_state_tensor_size
    information_state_tensor_bounds = Game.information_state_tensor_bounds


def test_a_game_without_information_state_tensors_or_bounds_is_checked_without_them() -> None:
    game = _NoTensorsGame()
    assert not game.provides_information_state_tensor and not game.declares_tensor_bounds
    with pytest.raises(NotImplementedError, match="defines no information-state tensor"):
        game.information_state_tensor_size()
    report = check_game("toy-high-card", games=30, seed=3, game_factory=_NoTensorsGame)
    assert report.games == 30 and report.information_states == 0


@pytest.mark.parametrize("name", apothecary.games())
def test_every_game_here_defines_its_tensors_and_their_bounds(name: str) -> None:
    """The base class leaves the information-state tensor and the bounds to a
    game (a game from another package may lack them); every game of this
    package defines all of them, so its conformance run checks them."""
    game = load(name)
    assert game.provides_information_state_tensor and game.declares_tensor_bounds
    state_class = type(game.new_initial_state())
    assert state_class.information_state_tensor is not State.information_state_tensor
    report = check_game(name, games=1, seed=2, max_steps_per_game=40)
    assert report.information_states > 0


def test_a_failure_names_the_moves_to_replay_it() -> None:
    with pytest.raises(ConformanceError) as caught:
        check_toy("leak")
    text = str(caught.value)
    assert "seed=3" in text
    assert "actions: ['deal" in text


class _TellingDealState(InVinoMorteState):
    """In Vino Morte whose events tell every viewer what the dealer poured."""

    __slots__ = ()

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        event = super()._describe_action(action, actor, viewer)
        if event["kind"] == "deal":
            told = f" ({self.action_to_string(action)})"
            event["text"] += told
            event["words"] = [*event["words"], told]  # a leak in both, as a front end reads it
        return event


class _TellingDealGame(InVinoMorteGame):
    def new_initial_state(self) -> _TellingDealState:
        return _TellingDealState(self)


def test_an_event_that_tells_a_secret_is_caught_even_when_observations_keep_it() -> None:
    """The dealer's pour is secret in In Vino Morte; an event that names it to
    the other seats breaks no observation, but a world the seat cannot tell
    from the game reads differently, and the suite says so."""
    check_game("in-vino-morte", players=3, games=3, seed=1)  # the real events pass
    with pytest.raises(ConformanceError, match="a leak in the event"):
        check_game(
            "in-vino-morte", games=3, seed=1, game_factory=lambda: _TellingDealGame(players=3)
        )


class _OneAudienceState(InVinoMorteState):
    """In Vino Morte that says every viewer reads the same event, the dealer's
    secret pour included: a server would show the pour to everyone."""

    __slots__ = ()

    def event_audience(self, action: Action, viewer: Player | None) -> Hashable:
        return None


class _OneAudienceGame(InVinoMorteGame):
    def new_initial_state(self) -> _OneAudienceState:
        return _OneAudienceState(self)


def test_an_audience_that_joins_viewers_who_read_otherwise_is_caught() -> None:
    """Viewers of one audience share the event a server logs; joining the
    dealer with the others would give them the dealer's event, and the suite
    compares each viewer's shared event with its own describe_action."""
    state = InVinoMorteGame(players=3).new_initial_state()
    action = state.legal_actions()[0]
    # Seats, then a spectator: the real audiences give each its own reading.
    assert state.describe_action_for_all(action) == [
        state.describe_action(action, v) for v in (0, 1, 2, None)
    ]
    with pytest.raises(ConformanceError, match="event_audience puts it with viewers"):
        check_game(
            "in-vino-morte", games=3, seed=1, game_factory=lambda: _OneAudienceGame(players=3)
        )


class _TellingDrinkState(InVinoMorteState):
    """In Vino Morte whose drink button says what the glass holds."""

    __slots__ = ()

    def action_words(self, action: Action) -> Words:
        # The game's labels are its words' English (action_label reads these).
        words = super().action_words(action)
        if action == DRINK:
            words += f" ({CARD_NAMES[self.card[self.current_player()]]})"
        return words


class _TellingDrinkGame(InVinoMorteGame):
    def new_initial_state(self) -> _TellingDrinkState:
        return _TellingDrinkState(self)


def test_a_label_that_tells_a_secret_is_caught() -> None:
    """Rulebook: "Players may not look at their own cards." A drink button that
    reads "Drink your glass (poison)" breaks no observation and no event, but
    a world the drinker cannot tell from the game labels it otherwise."""
    check_game("in-vino-morte", players=3, games=3, seed=1)  # the real labels pass
    with pytest.raises(ConformanceError, match="a leak in the label"):
        check_game(
            "in-vino-morte", games=3, seed=1, game_factory=lambda: _TellingDrinkGame(players=3)
        )


class _BlindTensorState(ToyState):
    """The toy whose tensor forgets the other seat's card shown at the end."""

    __slots__ = ()

    def observation_tensor(self, player: Player) -> list[float]:
        return [*super().observation_tensor(player)[:7], 0.0, 0.0, 0.0]


class _BlindTensorGame(ToyGame):
    def new_initial_state(self) -> _BlindTensorState:
        return _BlindTensorState(self)


def test_a_tensor_that_drops_a_fact_of_the_observation_is_caught() -> None:
    """Two showdowns that differ only in the other seat's card (which both
    observations show) must not give a seat the same tensor."""
    with pytest.raises(ConformanceError, match=r"differs in \['cards'\]") as caught:
        check_game("toy-high-card", games=30, seed=3, game_factory=_BlindTensorGame)
    assert "the tensor must hold every fact of the observation" in str(caught.value)


class _SwapBlindState(InVinoMorteState):
    """In Vino Morte with the tensor it had before issue 16: only whether each
    seat has taken its turn, not what the turn was (``swap 2`` and ``swap 3``
    looked alike to every seat)."""

    __slots__ = ()

    def observation_tensor(self, player: Player) -> list[float]:
        tensor = super().observation_tensor(player)
        n = self.game.num_players
        start = 11 * n + 9
        blank = (n - 1) * (6 + n)
        return tensor[:start] + [0.0] * blank + tensor[start + blank :]


class _SwapBlindGame(InVinoMorteGame):
    def new_initial_state(self) -> _SwapBlindState:
        return _SwapBlindState(self)


def test_in_vino_morte_tensors_that_cannot_tell_swaps_apart_are_caught() -> None:
    check_game("in-vino-morte", players=4, games=3, seed=1)  # the real tensor passes
    with pytest.raises(ConformanceError, match=r"differs in \['events'"):
        check_game("in-vino-morte", games=3, seed=1, game_factory=lambda: _SwapBlindGame(players=4))


class _CountingRefusalsState(ToyState):
    """The toy whose observations count the inputs it refused: a refusal that
    changes what a seat sees, though not the state's text or history."""

    __slots__ = ("refusals",)

    def __init__(self, game: ToyGame) -> None:
        super().__init__(game)
        self.refusals = 0

    def _clone_into(self, other: State) -> None:
        super()._clone_into(other)
        assert isinstance(other, _CountingRefusalsState)
        other.refusals = self.refusals

    def _refuse_or_apply(self, action: Action | str) -> None:
        try:
            super()._refuse_or_apply(action)
        except ApothecaryError:
            self.refusals += 1
            raise

    def observation(self, player: Player | None) -> dict[str, JSON]:
        view = super().observation(player)
        if self.refusals:  # from the first refusal on
            view["refused"] = self.refusals
        return view


class _CountingRefusalsGame(ToyGame):
    def new_initial_state(self) -> _CountingRefusalsState:
        return _CountingRefusalsState(self)


def test_a_refusal_that_changes_only_what_seats_see_is_caught() -> None:
    """Refused inputs are looked at quickly one by one (text, history, mover,
    legal actions), and the whole state, views included, is compared after
    them (by the copies, and once at the end of the step): a change only the
    views show is still caught."""
    with pytest.raises(
        ConformanceError, match=r"differs from its original|changed the state's observations"
    ):
        check_game("toy-high-card", games=3, seed=3, game_factory=_CountingRefusalsGame)
