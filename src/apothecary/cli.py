"""The ``apothecary`` command line: list games, read rules, simulate, replay.

A user error (unknown game, bad option, unreadable record...) is one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Annotated

import typer

from apothecary import __version__
from apothecary.cli_common import (
    EXTRAS_HINT,
    describe_options,
    printable,
    user_errors,
    without_action_ids,
)
from apothecary.core.errors import BadOptionError, RecordError
from apothecary.core.records import Record
from apothecary.core.registry import game_class, games

app = typer.Typer(
    name="apothecary",
    help="Four poison-themed tabletop games: rules engines, bots, play and study.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"apothecary {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Four poison-themed tabletop games: rules engines, bots, play and study."""


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
def rules_command(
    game: Annotated[str, typer.Argument(help="A game name (see 'games').")],
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang", help="The page's language (fr, de, es...); English when untranslated."
        ),
    ] = None,
) -> None:
    """Print a game's rules page, laid out for the terminal, and its options."""
    from rich.console import Console
    from rich.markdown import Markdown

    cls = game_class(game)
    text = cls.rules_page(lang) or f"# {cls.info.title}\n"
    # Rich lays the page out (headings, tables, lists) on a terminal, and
    # writes plain text with no colour codes when the output is a pipe or a file.
    Console(soft_wrap=False).print(Markdown(text.rstrip()))
    typer.echo("")
    typer.echo(describe_options(cls.option_specs))


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
    web: Annotated[
        bool,
        typer.Option(
            "--web", help="Serve the browser replay viewer of a finished game ([web] extra)."
        ),
    ] = False,
) -> None:
    """Rebuild a game from its record and print a seat's view and the outcome."""
    if web:
        _replay_in_browser(file)
        return
    record = Record.load(file)
    try:
        state = record.replay(upto=at)
    except RecordError as error:
        # Moves are named by their notation, never by the engine's action ids.
        raise RecordError(without_action_ids(str(error)), error.index) from None
    if seat is not None and not 0 <= seat < state.game.num_players:
        raise BadOptionError(f"--seat {seat}: the game has seats 0 to {state.game.num_players - 1}")
    typer.echo(f"{state.game!r}, after {state.move_number()} of {len(record.actions)} actions")
    # Everything from the record is escaped: a control character in a seat
    # name or a reason must not reach the terminal as one.
    typer.echo(printable(state.render(seat), keep_newlines=True))
    outcome = state.outcome()
    if outcome is not None:
        winners = (
            ", ".join(f"seat {w} ({printable(record.seats[w])})" for w in outcome.winners)
            or "nobody"
        )
        typer.echo(
            f"Outcome: {printable(outcome.reason)} Winner: {winners}. "
            f"Scores: {list(outcome.scores)}"
        )


def _replay_in_browser(file: Path) -> None:
    try:
        from apothecary.server.replays import serve_record
    except ModuleNotFoundError as error:
        raise BadOptionError(
            f"--web needs the [web] extra ({error.name} is missing): "
            + EXTRAS_HINT.format(extra="web")
        ) from None
    serve_record(file)


# Front ends add their own commands: each module here, when installed, has a
# ``register(app)``. Discovery keeps this file free of their imports (the TUI
# and the arena load heavy dependencies only when their command runs).
FRONT_ENDS = (
    "apothecary.arena.cli",
    "apothecary.tui.cli",
    "apothecary.server.cli",
    "apothecary.analysis.cli",
    "apothecary.bots.solvers.cli",
)


def _register_front_ends() -> None:
    for module_name in FRONT_ENDS:
        if importlib.util.find_spec(module_name.rsplit(".", 1)[0]) is None:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue
        module.register(app)


_register_front_ends()


def main() -> None:
    """Entry point of the ``apothecary`` script."""
    app()


__all__ = ["app", "main"]


if __name__ == "__main__":
    main()
