"""Playing many games: the shared match loop, tournaments, statistics and reports.

Ratings (openskill), plots (matplotlib) and the Ray backend are imported only
by the functions that use them.
"""

from apothecary.arena.match import MatchResult, Tally, play_game, run_match
from apothecary.arena.tournament import (
    GameResult,
    TournamentError,
    TournamentFileError,
    TournamentSpec,
    load_tournament,
    make_backend,
    plan,
    run_tournament,
)

__all__ = [
    "GameResult",
    "MatchResult",
    "Tally",
    "TournamentError",
    "TournamentFileError",
    "TournamentSpec",
    "load_tournament",
    "make_backend",
    "plan",
    "play_game",
    "run_match",
    "run_tournament",
]
