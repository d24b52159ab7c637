"""The ``analyse`` command: a record's decisions valued move by move."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from apothecary.cli_common import user_errors
from apothecary.core.records import Record
from apothecary.i18n.terminal import T_, _

ANALYSE_HELP = T_(
    "Value every move of a game as the strongest bot sees it from the mover's seat.\n\n"
    "One line per decision: the step, the seat, the move played and its value, "
    "the best move and its value, and the gap between them (exact where a "
    "solver knows the answer, marked '='; else estimated by playouts, '~')."
)
"""``analyse``'s help (its docstring's words, marked for the catalogs)."""


def register(app: typer.Typer) -> None:
    """Add ``analyse`` to the ``apothecary`` command line."""
    app.command("analyse", help=ANALYSE_HELP)(user_errors(analyse_command))


def analyse_command(
    file: Annotated[Path, typer.Argument(help=T_("A game record (JSON)."))],
    seat: Annotated[int | None, typer.Option(help=T_("Only this seat's decisions."))] = None,
    bot: Annotated[
        str, typer.Option(help=T_("The level or bot whose playout policy values the moves."))
    ] = "hard",
    playouts: Annotated[
        int | None, typer.Option(help=T_("Playouts per legal move (default 8)."))
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(help=T_("At most this many playouts a decision in all (fewer a move).")),
    ] = None,
    seed: Annotated[int, typer.Option(help=T_("Seed of the playouts."))] = 0,
    as_json: Annotated[
        bool, typer.Option("--json", help=T_("Print the analysis as JSON."))
    ] = False,
) -> None:
    """Value every move of a game as the strongest bot sees it from the mover's seat.

    One line per decision: the step, the seat, the move played and its value,
    the best move and its value, and the gap between them (exact where a
    solver knows the answer, marked '='; else estimated by playouts, '~').
    """
    from apothecary.analysis import analyse

    record = Record.load(file)
    interactive = not as_json and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if interactive:
            said = _("analysing: {done}/{total} decisions", done=done, total=total)
            typer.echo("\r" + said, err=True, nl=done == total)

    result = analyse(
        record,
        bot=bot,
        seat=seat,
        playouts=playouts,
        seed=seed,
        progress=progress,
        budget=budget,
    )
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=1))
        return
    plan = result.plan
    typer.echo(
        _(
            "{game}, {players} players; values are {unit}s for the mover, "
            "from its information only: exact (=) where solved, else estimated (~) by "
            "{policy} playouts, {playouts} a move",
            game=result.game,
            players=result.players,
            unit=result.unit,
            policy=plan.policy,
            playouts=plan.playouts,
        )
    )
    typer.echo(
        f"{'step':>5} {'seat':>4}  {'played':<22}{'value':>8}  {'best':<22}{'value':>8}{'gap':>8}"
    )
    for d in result.decisions:
        mark = "=" if d.method == "solver" else "~"
        played = d.played or {}
        typer.echo(
            f"{d.step:>5} {d.seat:>4}  {str(played.get('notation', '?'))[:21]:<22}"
            f"{mark}{float(played.get('value', 0.0)):>7.3f}  "
            f"{str(d.best['notation'])[:21]:<22}{mark}{float(d.best['value']):>7.3f}"
            f"{d.gap or 0.0:>8.3f}"
        )
    if result.decisions:
        total = sum(d.gap or 0.0 for d in result.decisions)
        typer.echo(
            _(
                "{count} decisions; total gap {gap}",
                count=len(result.decisions),
                gap=format(total, ".3f"),
            )
        )
