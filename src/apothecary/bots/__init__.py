"""Bots for every game: the generic ones, those each game registers, and levels.

``load(name, game, seat, seed=..., **budget)`` is what every front end calls;
``name`` is a bot (``random``, ``ismcts``, a game's own such as ``rules``) or
a difficulty level (``easy``, ``medium``, ``hard``).
"""

from __future__ import annotations

from typing import Any

from apothecary.bots.ismcts import ISMCTSBot
from apothecary.bots.rollout import CarelessBot, RolloutBot
from apothecary.core.bot import (
    Bot,
    BotEntry,
    Level,
    RandomBot,
    game_bots,
    game_levels,
    room_budgets,
)
from apothecary.core.errors import BadOptionError, UnknownBotError, quote
from apothecary.core.game import Game, Player, parse_decimal, parse_whole_number
from apothecary.core.manifest import resolve
from apothecary.core.registry import manifest

GENERIC: dict[str, BotEntry] = {
    "random": BotEntry("random", RandomBot, "uniformly random legal actions", quick=True),
    "ismcts": BotEntry(
        "ismcts",
        ISMCTSBot,
        "information-set MCTS; budget: iterations=N or seconds=S, exploration=C",
    ),
    "rollout": BotEntry(
        "rollout",
        RolloutBot,
        "tries every move in drawn worlds, a base bot playing out; rollouts=N, policy=BOT",
    ),
    "careless": BotEntry(
        "careless",
        CarelessBot,
        "a base bot that plays a random move with probability mistakes=P; policy=BOT",
    ),
}

LEVEL_NAMES = ("easy", "medium", "hard")

HARD_ROLLOUTS = 60
"""Playouts a move for the default hard level (see docs/bots.md for what it costs)."""


def entries(game_name: str) -> dict[str, BotEntry]:
    """Every bot available for ``game_name``: generic first, then the game's own.

    The game's own register themselves when the modules its manifest names in
    ``bots`` are imported, which happens here, on first use.
    """
    for module in manifest(game_name).bots:
        resolve(module)
    return {**GENERIC, **game_bots(game_name)}


def levels(game_name: str) -> dict[str, Level]:
    """The difficulty levels of ``game_name``, easiest first.

    A game may define its own, in its manifest's ``levels`` (or with
    :func:`~apothecary.core.bot.register_level`). Otherwise, for a game with a
    rule-based bot, easy is that bot blundering half its moves (``careless``), medium is the
    rule-based bot and hard improves on it by playouts (``rollout``); the
    strength ladder in docs/bots.md measures that each beats the one below.
    A game without one gets ISMCTS with 100, 500 and 2,000 iterations a move.
    """
    available = entries(game_name)  # imports the game's bots, which may register levels
    own = {**game_levels(game_name), **manifest(game_name).levels}
    if "rules" in available:
        defaults = {
            "easy": Level(
                "easy", "careless", {"mistakes": 0.5}, "the rules bot, half its moves random"
            ),
            "medium": Level("medium", "rules", {}, "the rules bot"),
            "hard": Level(
                "hard",
                "rollout",
                {"rollouts": HARD_ROLLOUTS, "margin": 2.0},
                f"the rules bot improved by {HARD_ROLLOUTS} playouts a move",
            ),
        }
    else:
        defaults = {
            name: Level(name, "ismcts", {"iterations": n}, f"ISMCTS, {n:,} iterations a move")
            for name, n in zip(LEVEL_NAMES, (100, 500, 2000), strict=True)
        }
    return {name: own.get(name, defaults[name]) for name in LEVEL_NAMES}


def names(game_name: str) -> list[str]:
    """Every name ``load`` accepts for ``game_name``: bots, then levels."""
    return [*entries(game_name), *LEVEL_NAMES]


MAX_BUDGET_TEXT = 200
"""The longest value in a bot spec's budget, in characters (a number, a bot's name)."""


def parse_spec(spec: str) -> tuple[str, dict[str, int | float | str]]:
    """Split ``"name:key=value,key=value"`` into the name and its budget.

    Values are read as int, then float, then left as text, so a tournament's
    ``--bots rollout:rollouts=50,policy=rules`` names a bot and its budget in
    one word. Numbers are ASCII digits (``٣`` is text, not 3, and a number of
    thousands of digits is text too, which the bot then refuses).
    """
    if not isinstance(spec, str):
        raise BadOptionError(f"a bot is named by text, got {quote(spec)}")
    name, _, rest = spec.partition(":")
    budget: dict[str, int | float | str] = {}
    for item in filter(None, rest.split(",")):
        key, equals, text = item.partition("=")
        if not equals or not key.strip() or not text.strip():
            raise BadOptionError(
                f"bot {quote(spec)}: expected name:key=value,key=value, got {quote(item)}"
            )
        if len(text) > MAX_BUDGET_TEXT:
            raise BadOptionError(
                f"bot {quote(spec)}: the value of {quote(key.strip())} is {len(text):,} "
                f"characters long; at most {MAX_BUDGET_TEXT}"
            )
        number = parse_whole_number(text)
        value: int | float | str = number if number is not None else text.strip()
        if number is None:
            decimal = parse_decimal(text)
            value = decimal if decimal is not None else text.strip()
        budget[key.strip()] = value
    return name.strip(), budget


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of bots, keeping each bot's budget whole.

    ``"rollout:rollouts=30,margin=1,rules"`` is two bots: a piece with ``=``
    and no ``:`` continues the budget of the bot before it.
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def load_for_room(name: str, game: Game, seat: Player, seed: int | None = None) -> Bot:
    """Bot or level ``name`` as a server room plays it: a named bot whose game
    registered a room budget (:func:`~apothecary.core.bot.register_room_budget`)
    thinks with that budget, scaled to the game's size, or is refused
    (BadOptionError) for a game too large for it. Levels are the game's own."""
    entries(game.name)  # the game's bots, which register their room budgets
    scaled = room_budgets(game.name).get(name)
    return load(name, game, seat, seed, **({} if scaled is None else scaled(game)))


def load(name: str, game: Game, seat: Player, seed: int | None = None, **budget: Any) -> Bot:
    """Make bot or level ``name`` for ``seat`` of ``game``.

    ``name`` may carry a budget, ``"ismcts:iterations=100"``; keyword
    arguments override it. Raises UnknownBotError for an unknown name,
    BadOptionError for a budget the bot does not take or a seat the game does
    not have.
    """
    name, spec_budget = parse_spec(name)
    budget = {**spec_budget, **budget}
    if not 0 <= seat < game.num_players:
        raise BadOptionError(f"seat {seat}: {game.name} has seats 0 to {game.num_players - 1}")
    if name in LEVEL_NAMES:
        level = levels(game.name)[name]
        name, budget = level.bot, {**level.budget, **budget}
    available = entries(game.name)
    if name not in available:
        raise UnknownBotError(
            f"unknown bot {quote(name)} for {game.name}; available: "
            f"{', '.join([*available, *LEVEL_NAMES])}"
        )
    try:
        return available[name].factory(game, seat, seed, **budget)
    except TypeError as error:
        if budget and "unexpected keyword argument" in str(error):
            raise BadOptionError(
                f"bot {name!r} takes no budget {', '.join(sorted(budget))}"
            ) from None
        raise


__all__ = [
    "Bot",
    "CarelessBot",
    "ISMCTSBot",
    "RandomBot",
    "RolloutBot",
    "entries",
    "levels",
    "load",
    "names",
    "parse_spec",
    "split_specs",
]
