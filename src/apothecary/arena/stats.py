"""Ratings across a whole tournament (openskill's Plackett-Luce model).

Imported only by the commands that need it: openskill is an optional extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from apothecary.arena.tournament import GameResult


@dataclass(frozen=True)
class BotRating:
    """One bot's rating after every game: skill ``mu``, uncertainty ``sigma``."""

    name: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """A conservative skill estimate, ``mu - 3 sigma`` (what to rank by)."""
        return self.mu - 3 * self.sigma


def ratings(results: Sequence[GameResult]) -> list[BotRating]:
    """Rate every bot over ``results`` in game order, best first.

    Each game is one free-for-all match between its seats, ranked by win
    share. A bot that fills several seats plays each of them (so a seat of
    "random" that wins beats the other "random" seats too), then moves by the
    mean of its seats' updates: one game, one update per bot. Games with a
    single distinct bot say nothing about skill and are skipped.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - the study extra is missing
        from apothecary.arena.tournament import TournamentError

        raise TournamentError("ratings need openskill: pip install 'apothecary[study]'") from None

    model = PlackettLuce()
    current: dict[str, Any] = {}
    played: dict[str, int] = {}
    for result in results:
        names = result.seats
        if len(set(names)) < 2:
            continue
        for name in names:
            if name not in current:
                current[name] = model.rating(name=name)
        rated = model.rate([[current[name]] for name in names], scores=list(result.returns))
        updates: dict[str, list[Any]] = {}
        for name, team in zip(names, rated, strict=True):
            updates.setdefault(name, []).append(team[0])
        for name, seats in updates.items():
            # A bot in several seats moves by the mean of its seats' updates.
            mu = sum(r.mu for r in seats) / len(seats)
            sigma = sum(r.sigma for r in seats) / len(seats)
            current[name] = model.rating(mu=mu, sigma=sigma, name=name)
            played[name] = played.get(name, 0) + 1
    rows = [
        BotRating(name, float(r.mu), float(r.sigma), played[name]) for name, r in current.items()
    ]
    return sorted(rows, key=lambda row: row.ordinal, reverse=True)


def ratings_table(rows: Sequence[BotRating]) -> str:
    """Ratings as aligned text."""
    if not rows:
        return "ratings: every game had a single bot at the table; nothing to rate"
    lines = [f"{'rating (openskill)':<24}{'mu':>8}{'sigma':>8}{'mu-3σ':>8}{'games':>8}"]
    for row in rows:
        lines.append(f"{row.name:<24}{row.mu:8.2f}{row.sigma:8.2f}{row.ordinal:8.2f}{row.games:8d}")
    return "\n".join(lines)
