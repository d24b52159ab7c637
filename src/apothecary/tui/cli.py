"""The ``play`` command: open the terminal app on a game, a saved game, or the menu.

Every setting is checked before the app starts, so a bad flag is one line on
stderr and exit code 2 like the rest of the command line. Textual itself is
imported only once the app is about to run, keeping ``apothecary --help`` quick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from apothecary.cli_common import parse_options, user_errors
from apothecary.core.errors import BadOptionError
from apothecary.core.records import Record
from apothecary.core.registry import load

if TYPE_CHECKING:
    from apothecary.tui.session import Session


@dataclass
class PlaySetup:
    """What ``play`` resolved its flags to; ``session`` None opens the menu."""

    session: Session | None
    save: Path | None
    bot_delay: float
    seed: int | None = None
    """For the menu: the seed its setup form starts with."""


MAX_BOT_DELAY = 10.0
"""The longest ``--bot-delay``: longer only looks like a hung app."""


def register(app: typer.Typer) -> None:
    """Add ``play`` to the ``apothecary`` command line."""
    app.command("play")(user_errors(play_command))


def plan(
    game: str | None,
    players: int | None,
    seat_bots: str | None,
    seat: int | None,
    option: list[str],
    seed: int | None,
    save: Path | None,
    resume: Path | None,
    bot_delay: float,
    learn: bool = False,
) -> PlaySetup:
    """Check the flags and make the session the app will play (no Textual here)."""
    from apothecary.tui.session import Session, plan_seats, seats_from_record

    if not (math.isfinite(bot_delay) and 0 <= bot_delay <= MAX_BOT_DELAY):
        raise BadOptionError(
            f"--bot-delay {bot_delay}: give a number of seconds from 0 to {MAX_BOT_DELAY:g}"
        )
    if learn:
        fixed = {
            "--players": players is not None,
            "--seat-bots": seat_bots is not None,
            "--seat": seat is not None,
            "--option": bool(option),
            "--seed": seed is not None,
            "--resume": resume is not None,
        }
        return PlaySetup(
            _lesson(game, [flag for flag, given in fixed.items() if given]), save, bot_delay
        )
    from apothecary.bots import split_specs  # keeps `apothecary --help` quick

    bot_list = split_specs(seat_bots) if seat_bots is not None else []
    if resume is not None:
        clash = [
            flag
            for flag, given in (("--players", players is not None), ("--option", bool(option)))
            if given
        ]
        if clash:
            raise BadOptionError(
                f"--resume takes the game's settings from the record; drop {clash[0]}"
            )
        record = Record.load(resume)
        if game is not None and game != record.game:
            raise BadOptionError(f"--resume {resume} is a game of {record.game}, not {game}")
        state = record.replay()
        if seat_bots is None and seat is None:
            seats = seats_from_record(record)
        else:
            seats = plan_seats(record.game, record.players, bot_list, seat or 0)
        return PlaySetup(Session(state.game, seats, seed, state), save, bot_delay)
    if game is None:
        given = [
            flag
            for flag, value in (
                ("--players", players is not None),
                ("--seat-bots", seat_bots is not None),
                ("--seat", seat is not None),
                ("--option", bool(option)),
            )
            if value
        ]
        if given:
            raise BadOptionError(f"{given[0]} needs a game: apothecary play GAME {given[0]} ...")
        return PlaySetup(None, save, bot_delay, seed)
    options = parse_options(game, option)
    configured = load(game, players=players, **options)
    seats = plan_seats(game, configured.num_players, bot_list, seat or 0)
    return PlaySetup(Session(configured, seats, seed), save, bot_delay)


def _lesson(game: str | None, clash: list[str]) -> Session:
    """The tutorial session of ``game`` (``--learn``), which fixes every setting."""
    from apothecary.core.registry import games
    from apothecary.core.tutorial import load_script
    from apothecary.tui.session import Session

    if game is None:
        raise BadOptionError("--learn needs a game: apothecary play GAME --learn")
    if clash:
        raise BadOptionError(
            f"--learn plays the game's lesson, which sets the table itself; drop {clash[0]}"
        )
    script = load_script(game) if game in games() else None
    if script is None:
        load(game)  # an unknown game is said as everywhere else
        raise BadOptionError(f"{game} has no learn-to-play lesson; play it without --learn")
    return Session.learn(script)


def check_save(setup: PlaySetup) -> None:
    """Refuse a ``--save`` path that cannot be written, before the app opens:
    the game's record is written there now, as it will be after every move."""
    if setup.save is None:
        return
    if setup.save.is_dir():
        raise BadOptionError(f"--save {setup.save}: that is a folder; give a file name")
    if setup.session is None:
        # The menu has no game yet: check the folder only.
        folder = setup.save.expanduser().resolve().parent
        if not folder.is_dir():
            raise BadOptionError(f"--save {setup.save}: there is no folder {folder}")
        return
    try:
        setup.session.save(setup.save)
    except OSError as error:
        raise BadOptionError(
            f"--save {setup.save}: cannot write there ({error.strerror or error})"
        ) from None


def play_command(
    game: Annotated[
        str | None, typer.Argument(help="A game name (see 'games'); none opens the menu.")
    ] = None,
    players: Annotated[int | None, typer.Option("--players", "-p", help="Seats.")] = None,
    seat_bots: Annotated[
        str | None,
        typer.Option(
            "--seat-bots",
            help="The other seats in order, comma-separated: easy, medium, hard, a bot "
            "name, or human (hot-seat at this keyboard). The last fills the rest "
            "(default: easy).",
        ),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option("--seat", help="Your seat; the others fill around it (default: 0)."),
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A game option, name=value.")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed for chance and bots (default: a secret random one, shown at the end). "
            "Whoever knows the seed can work out every hand chance deals."
        ),
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option(
            help="Keep the game's record in this file after every move (it holds every "
            "seat's secrets: keep it from the other players until the game is over)."
        ),
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Carry on a game from its saved record.")
    ] = None,
    bot_delay: Annotated[
        float,
        typer.Option(
            help=f"Seconds a bot's move takes at least, so you can follow (0 to {MAX_BOT_DELAY:g})."
        ),
    ] = 0.5,
    learn: Annotated[
        bool,
        typer.Option(
            "--learn",
            help="Learn to play: a short scripted first game with a coach, then a real "
            "game against easy bots if you like.",
        ),
    ] = False,
) -> None:
    """Play in the terminal against bots, or hot-seat with friends at one keyboard.

    You are seat 0 (or --seat); --seat-bots fills the other seats. Keys: ? rules,
    ctrl+s save a record, escape the action list, ctrl+q quit. --learn teaches the
    game with a coach.
    """
    setup = plan(game, players, seat_bots, seat, option or [], seed, save, resume, bot_delay, learn)
    check_save(setup)
    from apothecary.tui.app import PlayApp

    PlayApp(setup.session, setup.save, setup.bot_delay, setup.seed).run()
