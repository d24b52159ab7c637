"""The ``apothecary`` command line: list games, read rules, simulate, replay.

A user error (unknown game, bad option, unreadable record...) is one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer

from apothecary.core.errors import ApothecaryError, BadOptionError
from apothecary.core.game import OptionSpec
from apothecary.core.records import Record
from apothecary.core.registry import game_class, games

app = typer.Typer(
    name="apothecary",
    help="Four poison-themed tabletop games: rules engines, bots, play and study.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn the project's input errors into one line on stderr and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except ApothecaryError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def parse_options(game_name: str, pairs: list[str]) -> dict[str, Any]:
    """Turn ``["k=v", ...]`` into typed option values for ``game_name``."""
    specs = {spec.name: spec for spec in game_class(game_name).option_specs}
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep:
            raise BadOptionError(f"--option {pair!r}: write it as name=value")
        if key not in specs:
            known = ", ".join(specs) or "none"
            raise BadOptionError(f"{game_name}: unknown option {key!r}; its options are: {known}")
        values[key] = specs[key].parse(text)
    return values


def describe_options(specs: tuple[OptionSpec, ...]) -> str:
    """The options of a game as a plain-text table."""
    if not specs:
        return "Options: none"
    lines = ["Options (--option name=value):"]
    for spec in specs:
        default = str(spec.default).lower() if spec.type is bool else spec.default
        lines.append(f"  {spec.name} = {default!s:<10} {spec.help} ({spec.allowed()})")
    return "\n".join(lines)


@app.command("games")
@user_errors
def games_command() -> None:
    """List the games with their player counts."""
    for name in games():
        info = game_class(name).info
        typer.echo(
            f"{name:<24}{info.title:<26}{info.min_players}-{info.max_players} players"
            f"  {info.summary}"
        )


@app.command("rules")
@user_errors
def rules_command(game: Annotated[str, typer.Argument(help="A game name (see 'games').")]) -> None:
    """Print a game's rules page and its options."""
    cls = game_class(game)
    text = cls.rules_page() or f"# {cls.info.title}\n"
    typer.echo(text.rstrip())
    typer.echo("")
    typer.echo(describe_options(cls.option_specs))


@app.command("simulate")
@user_errors
def simulate_command(
    game: Annotated[str, typer.Argument(help="A game name (see 'games').")],
    players: Annotated[int | None, typer.Option("--players", "-p", help="Seats.")] = None,
    n: Annotated[int, typer.Option("-n", "--games", min=1, help="How many games.")] = 100,
    bots: Annotated[
        str, typer.Option(help="Bots in seat order, comma-separated; the last fills the rest.")
    ] = "random",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A game option, name=value.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed: the same seed plays the same games.")] = 0,
    record: Annotated[
        Path | None, typer.Option(help="Write every game's record into this folder.")
    ] = None,
) -> None:
    """Play bots against each other, seats rotated, and report win rates and scores."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from apothecary.arena import run_match

    options = parse_options(game, option or [])
    bot_names = [b.strip() for b in bots.split(",") if b.strip()]
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as bar:
        task = bar.add_task(game, total=n)
        result = run_match(
            game,
            players=players,
            bots=bot_names,
            games=n,
            seed=seed,
            options=options,
            record_dir=record,
            progress=lambda done: bar.update(task, completed=done),
        )
    typer.echo(result.table())


@app.command("replay")
@user_errors
def replay_command(
    file: Annotated[Path, typer.Argument(help="A game record (JSON).")],
    at: Annotated[
        int | None, typer.Option(help="Show the position after this many actions.")
    ] = None,
    seat: Annotated[
        int | None, typer.Option(help="Show this seat's view (default: a spectator's).")
    ] = None,
) -> None:
    """Rebuild a game from its record and print a seat's view and the outcome."""
    record = Record.load(file)
    state = record.replay(upto=at)
    if seat is not None and not 0 <= seat < state.game.num_players:
        raise BadOptionError(f"--seat {seat}: the game has seats 0 to {state.game.num_players - 1}")
    typer.echo(f"{state.game!r}, after {state.move_number()} of {len(record.actions)} actions")
    typer.echo(state.render(seat))
    outcome = state.outcome()
    if outcome is not None:
        winners = ", ".join(f"seat {w} ({record.seats[w]})" for w in outcome.winners) or "nobody"
        typer.echo(f"Outcome: {outcome.reason} Winner: {winners}. Scores: {list(outcome.scores)}")


def main() -> None:
    """Entry point of the ``apothecary`` script."""
    app()


__all__ = ["app", "main"]
