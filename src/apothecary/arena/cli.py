"""The arena's commands: ``apothecary simulate``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from apothecary.cli_common import parse_options, user_errors


def register(app: typer.Typer) -> None:
    """Add the arena's commands to the ``apothecary`` command line."""
    app.command("simulate")(user_errors(simulate_command))


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
