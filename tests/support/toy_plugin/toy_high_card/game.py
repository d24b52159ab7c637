"""A tiny hidden-information game for testing the core, with bugs to plant.

High card: chance deals seat 0 then seat 1 one card each from {0, 1, 2}
(face down, each seat sees only its own). Seat 0 bets or checks; after a bet,
seat 1 calls or folds. A fold gives seat 0 the win; otherwise the higher card
wins. The cards are revealed at the end.

``ToyGame(bug=...)`` plants one bug for the conformance suite to catch.
"""

from __future__ import annotations

import random
from typing import Any

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

DEAL = (0, 1, 2)  # "deal 0", "deal 1", "deal 2"
BET, CHECK, CALL, FOLD = 3, 4, 5, 6
MOVE_NAMES = {BET: "bet", CHECK: "check", CALL: "call", FOLD: "fold"}
BUGS = (
    "none",
    "leak",
    "unsorted",
    "chance",
    "resampler",
    "peeks",
    "clone",
    "notation",
    "length",
    "event_leak",
    "event_actor",
    "label_leak",
    "label_twins",
    "ist_length",
    "ist_bounds",
    "ist_leak",
    "ist_forgets",
    "ist_written",
    "obs_bounds",
    "bounds_form",
)


class ToyGame(Game):
    """High card, for tests; never registered."""

    info = GameInfo(
        name="toy-high-card",
        title="Toy High Card",
        min_players=2,
        max_players=2,
        default_players=2,
        has_chance=True,
        has_hidden_information=True,
    )
    option_specs = (OptionSpec("bug", str, "none", "a bug to plant", choices=BUGS),)

    def num_distinct_actions(self) -> int:
        return 7

    def max_game_length(self) -> int:
        return 1 if self.options["bug"] == "length" else 4

    def observation_tensor_size(self) -> int:
        return 10

    def observation_tensor_bounds(self) -> tuple[list[float], list[float]]:
        # bug=obs_bounds declares the cards' marks always 0, which they are not.
        high = [0.0] * 3 + [1.0] * 7 if self.options["bug"] == "obs_bounds" else [1.0] * 10
        return [0.0] * 10, high

    def information_state_tensor_size(self) -> int:
        return 10

    def information_state_tensor_bounds(self) -> tuple[list[float], list[float]]:
        if self.options["bug"] == "bounds_form":
            return [0.0] * 10, [1.0] * 9
        return [0.0] * 10, [1.0] * 10

    def new_initial_state(self) -> ToyState:
        return ToyState(self)


class ToyState(State):
    """A position of toy high card."""

    __slots__ = ("cards", "moves")

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.cards: list[int] = []
        self.moves: list[Action] = []

    @property
    def bug(self) -> str:
        return str(self.game.options["bug"])

    def current_player(self) -> Player:
        if len(self.cards) < 2:
            return CHANCE
        if self.is_terminal():
            return TERMINAL
        return 0 if not self.moves else 1

    def is_terminal(self) -> bool:
        return len(self.cards) == 2 and (self.moves == [CHECK] or len(self.moves) == 2)

    def _legal_actions(self) -> list[Action]:
        if self.is_terminal():
            return []
        if len(self.cards) < 2:
            actions = [c for c in DEAL if c not in self.cards]
        elif not self.moves:
            actions = [BET, CHECK]
        else:
            actions = [CALL, FOLD]
        return actions[::-1] if self.bug == "unsorted" else actions

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.current_player() != CHANCE:
            return []
        remaining = [c for c in DEAL if c not in self.cards]
        p = 1.0 / len(remaining) * (0.9 if self.bug == "chance" else 1.0)
        return [(c, p) for c in remaining]

    def _apply(self, action: Action) -> None:
        if len(self.cards) < 2:
            self.cards.append(action)
        else:
            self.moves.append(action)

    def _clone_into(self, other: State) -> None:
        assert isinstance(other, ToyState)
        other.cards = self.cards.copy()
        other.moves = self.moves if self.bug == "clone" else self.moves.copy()

    def action_to_string(self, action: Action) -> str:
        if action in DEAL:
            return f"deal {action}"
        if self.bug == "notation" and action == FOLD:
            return "call"
        return MOVE_NAMES[action]

    def _parse_action(self, text: str) -> Action | None:
        words = text.lower().split()
        if len(words) == 2 and words[0] == "deal" and words[1] in ("0", "1", "2"):
            return int(words[1])
        for action, name in MOVE_NAMES.items():
            if words == [name]:
                return action
        return None

    def _describe_action(
        self, action: Action, actor: Player, viewer: Player | None
    ) -> dict[str, JSON]:
        event = super()._describe_action(action, actor, viewer)
        if self.bug == "event_leak" and action in DEAL:
            # Tells every viewer which card was dealt: a secret of the seat it went to.
            event["text"] = f"chance deals card {action}"
            event["words"] = [event["text"]]
        if self.bug == "event_actor" and actor == viewer:
            event["notation"] = None  # the actor is not told its own move
        return event

    def action_label(self, action: Action) -> str:
        if action in DEAL:
            return f"Deal card {action}"
        if self.bug == "label_leak" and action == BET:
            # Tells seat 0, before it bets, the card seat 1 holds face down.
            return f"Bet against card {self.cards[1]}"
        if self.bug == "label_twins" and action in (CALL, FOLD):
            return "Answer the bet"  # two buttons that read alike
        return MOVE_NAMES[action].capitalize()

    def observation(self, player: Player | None) -> dict[str, JSON]:
        view: dict[str, Any] = {"moves": [MOVE_NAMES[m] for m in self.moves]}
        if player is not None and len(self.cards) > player:
            view["my_card"] = self.cards[player]
        if self.bug == "leak" and player is not None and len(self.cards) == 2:
            view["other_card"] = self.cards[1 - player]
        if self.is_terminal():
            view["cards"] = list(self.cards)
        return view

    def information_state_string(self, player: Player) -> str:
        return self.observation_string(player)

    def observation_tensor(self, player: Player) -> list[float]:
        # My card, the moves made, and at the end the other seat's card.
        tensor = [0.0] * 10
        if len(self.cards) > player:
            tensor[self.cards[player]] = 1.0
        for move in self.moves:
            tensor[move] = 1.0
        if self.is_terminal():
            tensor[7 + self.cards[1 - player]] = 1.0
        return tensor

    def information_state_tensor(self, player: Player) -> list[float]:
        # The observation is the seat's whole history here (its card, the moves
        # in order, which the moves made give, and the showdown).
        # (ToyState's own: tests that change the observation tensor keep this one.)
        tensor = ToyState.observation_tensor(self, player)
        bug = self.bug
        if bug == "ist_length":
            return tensor[:9]
        if bug == "ist_bounds" and len(self.cards) > player:
            tensor[self.cards[player]] = 2.0
        if bug == "ist_leak" and len(self.cards) == 2 and not self.is_terminal():
            tensor[7 + self.cards[1 - player]] = 1.0  # the other seat's card, face down
        if bug == "ist_forgets":
            tensor[3:7] = [0.0] * 4  # the moves
        return tensor

    def write_information_state_tensor(self, player: Player, out: Any) -> None:
        if self.bug != "ist_written":
            super().write_information_state_tensor(player, out)
            return
        # A sparse write that forgets to clear the array first.
        for at, value in enumerate(self.information_state_tensor(player)):
            if value:
                out[at] = value

    def resample_from_infostate(self, player: Player, rng: random.Random) -> ToyState:
        if self.is_terminal() or len(self.cards) < 2:
            cards = self.cards.copy()
            if len(cards) == 1 and player == 1:
                cards = [rng.choice(DEAL)]
        else:
            mine = self.cards[player]
            choices = [c for c in DEAL if c != mine]
            if self.bug == "peeks":  # an unfair resampler: its draw depends on the hidden card
                choices.sort(key=lambda c: c != self.cards[1 - player])
            other = rng.choice(choices)
            if self.bug == "resampler":
                mine, other = other, mine
            cards = [mine, other] if player == 0 else [other, mine]
        sample = ToyState(self.game)
        for action in [*cards, *self.moves]:
            sample.apply_action(action)
        return sample

    def outcome(self) -> Outcome | None:
        if not self.is_terminal():
            return None
        if self.moves[-1] == FOLD:
            winner, reason = 0, "seat 1 folded"
        else:
            winner = 0 if self.cards[0] > self.cards[1] else 1
            reason = "the higher card won the showdown"
        scores = tuple(1.0 if seat == winner else 0.0 for seat in range(2))
        return Outcome(winners=(winner,), scores=scores, reason=reason)

    def __str__(self) -> str:
        return f"cards={self.cards} moves={[MOVE_NAMES[m] for m in self.moves]}"
