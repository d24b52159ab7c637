"""The arena's commands: ``simulate``, ``tournament``, ``report`` and ``extract``.

Heavy libraries (openskill, matplotlib, Ray) are imported inside the commands
that use them, so ``apothecary --help`` stays quick.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from apothecary.cli_common import needs_extra, parse_options, user_errors
from apothecary.core.errors import BadOptionError
from apothecary.i18n.terminal import T_, _

STUDY_RATINGS = ("openskill",)
"""What ratings need, from the ``study`` extra."""
STUDY_PLOTS = ("matplotlib",)
"""What the report's plots need, from the ``study`` extra."""


SIMULATE_HELP = T_(
    "Play bots against each other, seats rotated, and report win rates and scores.\n\n"
    "A quick in-memory 'tournament' of one option set; see 'tournament' for "
    "kept and resumable runs, ratings and reports."
)
"""``simulate``'s help (its docstring's words, marked for the catalogs)."""
TOURNAMENT_HELP = T_(
    "Play a tournament, keep every game's record, and report statistics and ratings.\n\n"
    "Seats rotate so every bot sits in every seat equally often. Ctrl-C keeps "
    "the finished games; the same command again resumes (a larger -n extends)."
)
"""``tournament``'s help."""
REPORT_HELP = T_(
    "Write a tournament's balance report: report.html (self-contained), "
    "report.md and plots/*.png in its folder."
)
"""``report``'s help."""
EXTRACT_HELP = T_("Take one game's record out of a tournament, for 'apothecary replay'.")
"""``extract``'s help."""


def register(app: typer.Typer) -> None:
    """Add the arena's commands to the ``apothecary`` command line."""
    app.command("simulate", help=SIMULATE_HELP)(user_errors(simulate_command))
    app.command("tournament", help=TOURNAMENT_HELP)(user_errors(tournament_command))
    app.command("report", help=REPORT_HELP)(user_errors(report_command))
    app.command("extract", help=EXTRACT_HELP)(user_errors(extract_command))


@contextmanager
def _progress_bar(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar with time left on stderr (only on a terminal); yields its updater."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),
        disable=not sys.stderr.isatty(),
    ) as bar:
        task = bar.add_task(label, total=total)
        first = True

        def update(done: int) -> None:
            nonlocal first
            if first:
                # Games from an earlier session must not count towards the
                # speed that the time-left estimate is drawn from.
                bar.reset(task, total=total, completed=done)
                first = False
            else:
                bar.update(task, completed=done)

        yield update


def _bot_list(bots: str) -> list[str]:
    from apothecary.bots import split_specs  # keeps `apothecary --help` quick

    return split_specs(bots)


def simulate_command(
    game: Annotated[str, typer.Argument(help=T_("A game name (see 'games')."))],
    players: Annotated[int | None, typer.Option("--players", "-p", help=T_("Seats."))] = None,
    n: Annotated[int, typer.Option("-n", "--games", min=1, help=T_("How many games."))] = 100,
    bots: Annotated[
        str, typer.Option(help=T_("Bots in seat order, comma-separated; the last fills the rest."))
    ] = "random",
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help=T_("A game option, name=value."))
    ] = None,
    seed: Annotated[int, typer.Option(help=T_("Seed: the same seed plays the same games."))] = 0,
    record: Annotated[
        Path | None, typer.Option(help=T_("Write every game's record into this folder."))
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, help=T_("Worker processes (same results)."))
    ] = 1,
) -> None:
    """Play bots against each other, seats rotated, and report win rates and scores.

    A quick in-memory 'tournament' of one option set; see 'tournament' for
    kept and resumable runs, ratings and reports.
    """
    from apothecary.arena import run_match
    from apothecary.arena.match import MatchInterrupted

    options = parse_options(game, option or [])
    try:
        with _progress_bar(game, n) as progress:
            result = run_match(
                game,
                players=players,
                bots=_bot_list(bots),
                games=n,
                seed=seed,
                options=options,
                record_dir=record,
                progress=progress,
                workers=workers,
            )
    except MatchInterrupted as stopped:
        # Ctrl-C: what finished is still worth reading.
        typer.echo(stopped.result.table())
        typer.echo(
            _(
                "interrupted: the summary covers the {finished} of {planned} games that finished",
                finished=stopped.result.games,
                planned=stopped.planned,
            ),
            err=True,
        )
        raise typer.Exit(130) from None
    typer.echo(result.table())


def parse_variant(game: str, text: str) -> dict[str, Any]:
    """One ``--variant``: ``"k=v k2=v2"`` (space-separated), or ``default``."""
    words = text.split()
    if words == ["default"] or not words:
        return {}
    return parse_options(game, words)


def default_out(game: str, players: int, bots: list[str], seed: int, variants: Any) -> Path:
    """``tournaments/GAME-Np-HASH``: the same settings find the same folder, so
    re-running a command resumes it, and different settings never collide."""
    settings = json.dumps([game, players, bots, seed, variants], sort_keys=True, default=str)
    digest = hashlib.sha256(settings.encode()).hexdigest()[:8]
    return Path("tournaments") / f"{game}-{players}p-{digest}"


def tournament_command(
    game: Annotated[str, typer.Argument(help=T_("A game name (see 'games')."))],
    players: Annotated[int | None, typer.Option("--players", "-p", help=T_("Seats."))] = None,
    bots: Annotated[
        str,
        typer.Option(
            help=T_(
                "Bots, comma-separated. Up to one per seat (the last fills the rest), "
                "or more than the seats for a round robin of every table of different bots."
            )
        ),
    ] = "random",
    n: Annotated[int, typer.Option("-n", "--games", min=1, help=T_("Games per option set."))] = 100,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help=T_("A game option for every game, name=value.")),
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option(
            "--variant",
            help=T_(
                "An option set to compare, 'k=v k2=v2' or 'default'; repeat it. "
                "Each is played -n games on top of the --option values."
            ),
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help=T_("Seed: the same seed plays the same games."))] = 0,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", "-w", help=T_("Worker processes or Ray tasks (default: all cores).")
        ),
    ] = None,
    backend: Annotated[str, typer.Option(help=T_("Where games run: local or ray."))] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            help=T_("A Ray cluster's address (with --backend ray); default: start Ray here.")
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help=T_(
                "Folder for the records; an existing tournament there is resumed "
                "(default: tournaments/GAME-Np-HASH, named from the settings)."
            )
        ),
    ] = None,
) -> None:
    """Play a tournament, keep every game's record, and report statistics and ratings.

    Seats rotate so every bot sits in every seat equally often. Ctrl-C keeps
    the finished games; the same command again resumes (a larger -n extends).
    """
    from apothecary.arena.match import summarise
    from apothecary.arena.stats import ratings, ratings_table
    from apothecary.arena.tournament import (
        TournamentStore,
        make_backend,
        plan,
        run_tournament,
    )

    # Before any game is played: the ratings at the end need openskill.
    needs_extra("study", STUDY_RATINGS, "tournament")
    base = parse_options(game, option or [])
    variants = [{**base, **parse_variant(game, v)} for v in (variant or ["default"])]
    if backend not in ("local", "ray"):
        raise BadOptionError(_("--backend {backend}: expected local or ray", backend=repr(backend)))
    if backend == "ray":
        needs_extra("ray", ("ray",), "--backend ray")
    if workers is not None and workers < 1:
        raise BadOptionError(_("--workers {workers}: use at least 1", workers=workers))
    spec = plan(game, players, _bot_list(bots), n, seed, variants)
    folder = out or default_out(spec.game, spec.players, list(spec.bots), seed, spec.variants)
    store, note = TournamentStore.open(folder, spec)
    if note:
        typer.echo(note, err=True)
    if spec.games % spec.balanced_multiple():
        typer.echo(
            _(
                "note: -n {games} is not a multiple of {multiple}, "
                "so seats are not exactly balanced between bots",
                games=spec.games,
                multiple=spec.balanced_multiple(),
            ),
            err=True,
        )
    runner = make_backend(backend, workers, ray_address)
    try:
        with _progress_bar(spec.game, spec.total) as progress:
            run = run_tournament(spec, backend=runner, store=store, progress=progress)
    finally:
        runner.close()
    for summary in summarise(spec, run.results):
        typer.echo(summary.table())
        pairs = summary.pairwise_table()
        if pairs:
            typer.echo(pairs)
        typer.echo("")
    typer.echo(ratings_table(ratings(run.results)))
    kept = {"kept": len(run.results), "total": spec.total, "folder": store.folder}
    typer.echo("\n" + _("{kept} of {total} games kept in {folder}", **kept))
    if run.interrupted:
        typer.echo(
            _(
                "interrupted: {kept} of {total} games kept in {folder}; "
                "run the same command again to resume",
                **kept,
            ),
            err=True,
        )
        raise typer.Exit(130)
    typer.echo(_("balance report: apothecary report {folder}", folder=store.folder))


def report_command(
    folder: Annotated[Path, typer.Argument(help=T_("A tournament folder (its --out)."))],
    html: Annotated[
        Path | None,
        typer.Option(help=T_("Where to write the HTML page (default: DIR/report.html).")),
    ] = None,
) -> None:
    """Write a tournament's balance report: report.html (self-contained),
    report.md and plots/*.png in its folder."""
    needs_extra("study", STUDY_RATINGS + STUDY_PLOTS, "report")
    from apothecary.arena.report import write_report

    for path in write_report(folder, html):
        typer.echo(str(path))


def extract_command(
    folder: Annotated[Path, typer.Argument(help=T_("A tournament folder (its --out)."))],
    index: Annotated[int, typer.Argument(help=T_("The game's number, from 0."))],
    to: Annotated[
        Path | None, typer.Option(help=T_("Write the record here (default: print it)."))
    ] = None,
) -> None:
    """Take one game's record out of a tournament, for 'apothecary replay'."""
    from apothecary.arena.tournament import TournamentError, load_tournament

    spec, results = load_tournament(folder)
    found = [r for r in results if r.index == index]
    if not found:
        raise TournamentError(
            _(
                "{folder} has no finished game {index} (games 0 to {last}, {finished} finished)",
                folder=folder,
                index=index,
                last=spec.total - 1,
                finished=len(results),
            )
        )
    record = found[0].to_record()
    if to is None:
        typer.echo(record.dumps())
        return
    try:
        record.save(to)
    except OSError as error:
        raise TournamentError(
            _("cannot write {path}: {reason}", path=to, reason=error.strerror)
        ) from None
    typer.echo(str(to))
