"""The one match loop every experiment uses (OpenSpiel's ``evaluate_bots``).

:func:`play_game` plays one game between bots, drawing chance from an rng.
:func:`run_match` plays many with seats rotated, keeps records if asked, and
summarises per bot and per seat with 95% confidence intervals. It is a
one-variant, in-memory tournament: the games themselves are scheduled and
played by :mod:`apothecary.arena.tournament`, which ``apothecary tournament``
uses too, so both commands play exactly the same games for the same seed.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apothecary.core.bot import Bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import CHANCE, Game, State, sample_chance
from apothecary.core.records import Record

if TYPE_CHECKING:
    from apothecary.arena.tournament import GameResult, TournamentSpec

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
    """Everything measured over the games of one option set."""

    game: str
    players: int
    options: dict[str, Any]
    lineup: list[str]
    games: int = 0
    by_bot: dict[str, Tally] = field(default_factory=dict)
    by_seat: list[Tally] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    pairwise: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    """``(a, b)`` -> ``[a's points, meetings]``: per meeting of a and b in one game
    (seat against seat), 1 when a's win share was higher, 1/2 when equal."""
    by_bot_seat: dict[tuple[str, int], Tally] = field(default_factory=dict)
    """``(bot, seat)`` -> that bot's games in that seat."""

    def add_game(
        self, names: Sequence[str], returns: Sequence[float], scores: Sequence[float], length: int
    ) -> None:
        """Count one finished game: who sat where, win shares, scores, its length."""
        if not self.by_seat:
            self.by_seat = [Tally() for _ in range(self.players)]
        for seat, name in enumerate(names):
            self.by_bot.setdefault(name, Tally()).add(returns[seat], scores[seat])
            self.by_seat[seat].add(returns[seat], scores[seat])
            self.by_bot_seat.setdefault((name, seat), Tally()).add(returns[seat], scores[seat])
        for a, b in itertools.permutations(range(len(names)), 2):
            if names[a] == names[b]:
                continue
            points = 1.0 if returns[a] > returns[b] else 0.5 if returns[a] == returns[b] else 0.0
            cell = self.pairwise.setdefault((names[a], names[b]), [0.0, 0])
            cell[0] += points
            cell[1] += 1
        self.lengths.append(length)
        self.games += 1

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

    def pairwise_table(self) -> str:
        """Head-to-head results as aligned text (empty when every seat ran the same bot)."""
        if not self.pairwise:
            return ""
        order = {name: i for i, name in enumerate(self.by_bot)}
        lines = [f"{'head to head':<24}{'meetings':>9}  {'ahead (95% CI)':<24}"]
        for (a, b), (points, meetings) in self.pairwise.items():
            if order[a] > order[b]:
                continue  # b vs a is the same meetings seen from the other side
            p, lo, hi = wilson(points, int(meetings))
            lines.append(f"{a + ' vs ' + b:<24}{int(meetings):>9}  {p:6.3f} [{lo:.3f}, {hi:.3f}]")
        return "\n".join(lines)


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_match`, carrying the summary of the games that finished."""

    def __init__(self, result: MatchResult, planned: int) -> None:
        super().__init__()
        self.result = result
        self.planned = planned


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
    workers: int = 1,
) -> MatchResult:
    """Play ``games`` games, rotating the lineup one seat per game, and summarise.

    Everything is checked (game, options, bots, record directory) before the
    first game. Game i draws chance and bot seeds from ``(seed, i)`` alone, so
    the same arguments give the same games, with any number of ``workers``.
    ``record_dir`` receives one plain JSON record per game (``game-00000.json``).
    """
    from apothecary.arena.tournament import make_backend, plan, run_tournament

    game = load_checked(game_name, players, options)
    lineup = lineup_for(bots, game.num_players)
    spec = plan(game_name, game.num_players, lineup, games, seed, [dict(options or {})])
    out: Path | None = None
    if record_dir is not None:
        out = Path(record_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise BadOptionError(f"cannot write records to {out}: {error.strerror}") from None

    def keep(result: GameResult) -> None:
        if out is not None:
            Record.from_json(result.record).save(out / f"game-{result.index:05d}.json")

    run = run_tournament(
        spec, backend=make_backend("local", workers), on_game=keep, progress=progress
    )
    summary = summarise(spec, run.results)[0]
    if run.interrupted:
        raise MatchInterrupted(summary, games)
    return summary


def load_checked(game_name: str, players: int | None, options: dict[str, Any] | None) -> Game:
    """The configured game, raising the registry's errors for bad settings."""
    from apothecary.core.registry import load

    return load(game_name, players, **(options or {}))


def summarise(spec: TournamentSpec, results: Sequence[GameResult]) -> list[MatchResult]:
    """One :class:`MatchResult` per option set of a tournament, games counted in order."""
    summaries = [
        MatchResult(
            spec.game,
            spec.players,
            _changed(spec, options),
            list(spec.tables()[0]),
            by_bot={name: Tally() for name in spec.bots},
            by_seat=[Tally() for _ in range(spec.players)],
        )
        for options in spec.variants
    ]
    for result in results:
        summaries[result.variant].add_game(
            result.seats, result.returns, result.scores, result.length
        )
    return summaries


def _changed(spec: TournamentSpec, options: dict[str, Any]) -> dict[str, Any]:
    # Name only the options that differ from the game's defaults, as the user
    # would have typed them; the full set is in tournament.json.
    from apothecary.core.registry import game_class

    defaults = {o.name: o.default for o in game_class(spec.game).option_specs}
    return {k: v for k, v in options.items() if defaults.get(k) != v}
