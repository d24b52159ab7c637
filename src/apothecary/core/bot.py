"""The bot protocol, and the registry through which games add their own bots.

A bot reads a state only through the public protocol and acts on its seat's
information alone. Per-game bots live in their game's package and register
here, so :mod:`apothecary.bots` and the front ends never import a game.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from apothecary.core.errors import IllegalActionError
from apothecary.core.game import Action, Game, Player, State


class Bot(ABC):
    """Something that chooses actions for one seat (OpenSpiel's ``Bot``)."""

    searches: bool = False
    """Whether the bot looks ahead by playing positions out itself. Such a bot
    may not be another search's playout policy: each of its moves would cost a
    whole search, multiplied by the outer search's playouts, with no bound on
    the whole."""

    def __init__(self, game: Game, seat: Player, seed: int | None = None) -> None:
        self.game = game
        self.seat = seat
        self.rng = random.Random(seed)

    def step(self, state: State) -> Action:
        """Choose an action for :attr:`seat`, which must be the seat to move."""
        if state.current_player() != self.seat:
            raise IllegalActionError(
                f"bot for seat {self.seat} asked to act, but "
                f"current player is {state.current_player()}"
            )
        return self._choose(state)

    @abstractmethod
    def _choose(self, state: State) -> Action:
        """Choose among ``state.legal_actions()`` using only this seat's knowledge."""

    def inform_action(self, state: State, player: Player, action: Action) -> None:
        """Told of every action as it is played (``state`` is before it)."""

    def restart_at(self, state: State) -> None:
        """Told that play restarts from ``state`` (a new game or a jump)."""


class RandomBot(Bot):
    """Uniformly random among the legal actions."""

    def _choose(self, state: State) -> Action:
        return self.rng.choice(state.legal_actions())


BotFactory = Callable[..., Bot]
"""Makes a bot: ``factory(game, seat, seed, **budget)``."""


@dataclass(frozen=True)
class BotEntry:
    """A registered bot: how to make it and one line about it."""

    name: str
    factory: BotFactory
    help: str
    quick: bool = False
    """It answers in well under a second at any size the game allows, searching
    nothing that grows with the game (a rules bot, a table lookup): a server
    whose bots think in a thread, which cannot be stopped, may seat it."""


@dataclass(frozen=True)
class Level:
    """A named difficulty: which bot plays it, with what budget."""

    name: str
    bot: str
    budget: dict[str, int | float | str]
    help: str


RoomBudget = Callable[["Game"], dict[str, int | float | str]]
"""The budget a named bot thinks with in a server room of a game, scaled to
the game's size (its options, its seats); it raises BadOptionError, saying the
largest size it plays, for a game too large for the bot to answer in time."""

_GAME_BOTS: dict[str, dict[str, BotEntry]] = {}
_GAME_LEVELS: dict[str, dict[str, Level]] = {}
_ROOM_BUDGETS: dict[str, dict[str, RoomBudget]] = {}


def register_bot(
    game_name: str, name: str, factory: BotFactory, help: str, *, quick: bool = False
) -> None:
    """Make ``factory`` available as bot ``name`` for ``game_name`` (``quick``:
    see :attr:`BotEntry.quick`)."""
    _GAME_BOTS.setdefault(game_name, {})[name] = BotEntry(name, factory, help, quick)


def game_bots(game_name: str) -> dict[str, BotEntry]:
    """The bots a game registered, by name."""
    return dict(_GAME_BOTS.get(game_name, {}))


def register_level(
    game_name: str, level: str, bot: str, budget: dict[str, int | float | str], help: str
) -> None:
    """Make difficulty ``level`` of ``game_name`` play ``bot`` with ``budget``."""
    _GAME_LEVELS.setdefault(game_name, {})[level] = Level(level, bot, dict(budget), help)


def game_levels(game_name: str) -> dict[str, Level]:
    """The difficulty levels a game defined for itself, by name."""
    return dict(_GAME_LEVELS.get(game_name, {}))


def register_room_budget(game_name: str, bot: str, budget: RoomBudget) -> None:
    """Make bot ``bot`` think with ``budget(game)`` when a room of ``game_name``
    names it (a search bot's own defaults can cost minutes a move on a big table)."""
    _ROOM_BUDGETS.setdefault(game_name, {})[bot] = budget


def room_budgets(game_name: str) -> dict[str, RoomBudget]:
    """The room budgets a game registered, by bot name."""
    return dict(_ROOM_BUDGETS.get(game_name, {}))
