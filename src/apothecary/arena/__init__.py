"""Playing many games: the shared match loop, statistics and (later) tournaments."""

from apothecary.arena.match import MatchResult, Tally, play_game, run_match

__all__ = ["MatchResult", "Tally", "play_game", "run_match"]
