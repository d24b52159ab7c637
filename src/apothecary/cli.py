"""The ``apothecary`` command line: list games, read rules, simulate, replay.

A user error (unknown game, bad option, unreadable record...) is one line on
stderr and exit code 2, never a traceback.

What a person reads is in their language (``--lang``, else the environment's;
:mod:`apothecary.i18n.terminal`). Help texts are marked ``T_`` where they are
defined and said in the chosen language as the command line starts
(:func:`apothecary.cli_common.translate_help`): the language is read from the
command line and the environment before click parses anything, so
``apothecary play --help`` is in French with ``LANG=fr_FR.UTF-8``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from apothecary import __version__
from apothecary.cli_common import (
    EXTRAS_HINT,
    choose_language,
    describe_options,
    printable,
    translate_help,
    user_errors,
    without_action_ids,
)
from apothecary.core.errors import BadOptionError, RecordError, UnknownLanguageError
from apothecary.core.records import Record
from apothecary.core.registry import game_class, games
from apothecary.i18n.terminal import T_, _, choose, chosen, from_command_line

LANG_HELP = T_("The language to read apothecary in (en, fr, de, es); default: the system's.")

app = typer.Typer(
    name="apothecary",
    help=T_("Four poison-themed tabletop games: rules engines, bots, play and study."),
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
            "--version",
            callback=_print_version,
            is_eager=True,
            help=T_("Print the version and exit."),
        ),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option("--lang", callback=choose_language, is_eager=True, help=LANG_HELP),
    ] = None,
) -> None:
    """Four poison-themed tabletop games: rules engines, bots, play and study."""


@app.command("games", help=T_("List the games with their player counts."))
@user_errors
def games_command() -> None:
    """List the games with their player counts."""
    for name in games():
        info = game_class(name).info
        count = _("{low}-{high} players", low=info.min_players, high=info.max_players)
        typer.echo(f"{name:<24}{info.title:<26}{count}  {info.summary}")


@app.command(
    "rules", help=T_("Print a game's rules page, laid out for the terminal, and its options.")
)
@user_errors
def rules_command(
    game: Annotated[str, typer.Argument(help=T_("A game name (see 'games')."))],
    lang: Annotated[
        str | None,
        typer.Option("--lang", callback=choose_language, is_eager=True, help=LANG_HELP),
    ] = None,
) -> None:
    """Print a game's rules page, laid out for the terminal, and its options."""
    from rich.console import Console
    from rich.markdown import Markdown

    cls = game_class(game)
    text = cls.rules_page(lang or chosen()) or f"# {cls.info.title}\n"
    # Rich lays the page out (headings, tables, lists) on a terminal, and
    # writes plain text with no colour codes when the output is a pipe or a file.
    Console(soft_wrap=False).print(Markdown(text.rstrip()))
    typer.echo("")
    typer.echo(describe_options(cls.option_specs))


@app.command(
    "replay",
    help=T_("Rebuild a game from its record and print a seat's view and the outcome."),
)
@user_errors
def replay_command(
    file: Annotated[Path, typer.Argument(help=T_("A game record (JSON)."))],
    at: Annotated[
        int | None, typer.Option(help=T_("Show the position after this many actions."))
    ] = None,
    seat: Annotated[
        int | None, typer.Option(help=T_("Show this seat's view (default: a spectator's)."))
    ] = None,
    web: Annotated[
        bool,
        typer.Option(
            "--web", help=T_("Serve the browser replay viewer of a finished game ([web] extra).")
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
        raise BadOptionError(
            _(
                "--seat {seat}: the game has seats 0 to {last}",
                seat=seat,
                last=state.game.num_players - 1,
            )
        )
    typer.echo(
        _(
            "{game}, after {done} of {total} actions",
            game=repr(state.game),
            done=state.move_number(),
            total=len(record.actions),
        )
    )
    # Everything from the record is escaped: a control character in a seat
    # name or a reason must not reach the terminal as one.
    typer.echo(printable(state.render(seat), keep_newlines=True))
    outcome = state.outcome()
    if outcome is not None:
        winners = ", ".join(
            _("seat {number} ({name})", number=w, name=printable(record.seats[w]))
            for w in outcome.winners
        ) or _("nobody")
        typer.echo(
            _(
                "Outcome: {reason} Winner: {winners}. Scores: {scores}",
                reason=printable(outcome.reason),
                winners=winners,
                scores=list(outcome.scores),
            )
        )


def _replay_in_browser(file: Path) -> None:
    try:
        from apothecary.server.replays import serve_record
    except ModuleNotFoundError as error:
        raise BadOptionError(
            _(
                "--web needs the [web] extra ({name} is missing): {hint}",
                name=error.name,
                hint=_(EXTRAS_HINT, extra="web"),
            )
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


def command() -> Any:
    """The command line as click runs it, its help in the chosen language."""
    root = typer.main.get_command(app)
    translate_help(root)
    return root


def main() -> None:
    """Entry point of the ``apothecary`` script: the language first (the help
    texts are said in it), then the command line."""
    try:
        choose(from_command_line(sys.argv[1:]))
    except UnknownLanguageError as error:
        typer.echo(_("error: {error}", error=error), err=True)
        raise SystemExit(2) from None
    command()(prog_name="apothecary")


__all__ = ["app", "command", "main"]


if __name__ == "__main__":
    main()
