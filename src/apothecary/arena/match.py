"""The one match loop every experiment uses (OpenSpiel's ``evaluate_bots``).

:func:`play_game` plays one game between bots, drawing chance from an rng.
:func:`run_match` plays many with seats rotated, keeps records if asked, and
summarises per bot and per seat with 95% confidence intervals.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apothecary import bots as bot_registry
from apothecary.core.bot import Bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import CHANCE, Game, State, sample_chance
from apothecary.core.records import Record
from apothecary.core.registry import load

Z95 = 1.959963984540054


def play_game(game: Game, seats: Sequence[Bot], rng: random.Random) -> State:
    """Play one game to its end; ``seats[i]`` acts for seat i, chance comes from ``rng``."""
    state = game.new_initial_state()
    for bot in seats:
        bot.restart_at(state)
    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            action = sample_chance(state, rng)
        else:
            action = seats[player].step(state)
        for bot in seats:
            bot.inform_action(state, player, action)
        state.apply_action(action)
    return state


@dataclass
class Tally:
    """Win shares and scores of one bot (or one seat) over many games."""

    wins: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    def add(self, win_share: float, score: float) -> None:
        """Count one appearance."""
        self.wins.append(win_share)
        self.scores.append(score)

    @property
    def games(self) -> int:
        """Appearances counted."""
        return len(self.wins)

    def win_rate(self) -> tuple[float, float, float]:
        """Mean win share and its 95% Wilson interval (a shared win by k counts 1/k)."""
        return wilson(sum(self.wins), len(self.wins))

    def mean_score(self) -> tuple[float, float, float]:
        """Mean score and its 95% normal-approximation interval."""
        return mean_interval(self.scores)


def wilson(successes: float, n: int) -> tuple[float, float, float]:
    """Proportion with its 95% Wilson score interval: (p, low, high)."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    p = successes / n
    denominator = 1 + Z95 * Z95 / n
    centre = (p + Z95 * Z95 / (2 * n)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / denominator
    return (p, max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean with its 95% normal-approximation interval: (mean, low, high)."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return (mean, mean, mean)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return (mean, mean - half, mean + half)


@dataclass
class MatchResult:
    """Everything :func:`run_match` measured."""

    game: str
    players: int
    options: dict[str, Any]
    lineup: list[str]
    games: int = 0
    by_bot: dict[str, Tally] = field(default_factory=dict)
    by_seat: list[Tally] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)

    def table(self) -> str:
        """The summary as aligned text."""
        lines = [
            f"{self.game}, {self.players} players, {self.games} games"
            + (f", options {self.options}" if self.options else ""),
            f"{'':<12}{'seats':>6}  {'win rate (95% CI)':<26}{'mean score (95% CI)':<26}",
        ]
        rows = [(name, tally) for name, tally in self.by_bot.items()]
        rows += [(f"seat {i}", tally) for i, tally in enumerate(self.by_seat)]
        for name, tally in rows:
            p, lo, hi = tally.win_rate()
            m, mlo, mhi = tally.mean_score()
            lines.append(
                f"{name:<12}{tally.games:>6}  {p:6.3f} [{lo:.3f}, {hi:.3f}]"
                f"{'':<5}{m:7.2f} [{mlo:.2f}, {mhi:.2f}]"
            )
        if self.lengths:
            lines.append(f"mean game length: {sum(self.lengths) / len(self.lengths):.1f} actions")
        return "\n".join(lines)


def lineup_for(bots: Sequence[str], players: int) -> list[str]:
    """Seat the named bots in order; the last one named fills the remaining seats."""
    if not bots:
        raise BadOptionError("name at least one bot")
    if len(bots) > players:
        raise BadOptionError(f"{len(bots)} bots named for {players} seats")
    return [*bots, *[bots[-1]] * (players - len(bots))]


def run_match(
    game_name: str,
    players: int | None = None,
    bots: Sequence[str] = ("random",),
    games: int = 100,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    record_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """Play ``games`` games, rotating the lineup one seat per game, and summarise.

    Everything is checked (game, options, bots, record directory) before the
    first game. Game i draws chance and bot seeds from ``(seed, i)`` alone, so
    the same arguments give the same games.
    """
    game = load(game_name, players, **(options or {}))
    lineup = lineup_for(bots, game.num_players)
    for name in set(lineup):
        bot_registry.load(name, game, 0, seed=0)  # unknown names fail now, not mid-run
    out: Path | None = None
    if record_dir is not None:
        out = Path(record_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise BadOptionError(f"cannot write records to {out}: {error.strerror}") from None
    result = MatchResult(game.name, game.num_players, dict(game.options), lineup)
    result.by_bot = {name: Tally() for name in dict.fromkeys(lineup)}
    result.by_seat = [Tally() for _ in range(game.num_players)]
    for index in range(games):
        rng = random.Random(f"{seed}:{index}")
        names = [lineup[(seat - index) % game.num_players] for seat in range(game.num_players)]
        seats = [
            bot_registry.load(name, game, seat, seed=rng.getrandbits(32))
            for seat, name in enumerate(names)
        ]
        final = play_game(game, seats, rng)
        returns = final.returns()
        outcome = final.outcome()
        assert outcome is not None
        for seat, name in enumerate(names):
            result.by_bot[name].add(returns[seat], outcome.scores[seat])
            result.by_seat[seat].add(returns[seat], outcome.scores[seat])
        result.lengths.append(final.move_number())
        result.games += 1
        if out is not None:
            Record.from_state(final, seats=names).save(out / f"game-{index:05d}.json")
        if progress is not None:
            progress(index + 1)
    return result
