"""The command line and the terminal app in the person's language (issue #32,
item 2: "the terminal app and the command line in the person's language").

The language comes from ``--lang`` (the global option or ``play``'s), else the
environment in gettext's order (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
``LANG``), else English; the terminal's words are the ``terminal`` gettext
domain, checked like the browser's (a planted fault in it is caught)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from apothecary.cli import app, command
from apothecary.cli_common import translate_help
from apothecary.core.errors import UnknownLanguageError
from apothecary.core.registry import games
from apothecary.i18n.terminal import _, choose, from_command_line
from apothecary.server.cli import SERVE_HELP

runner = CliRunner()
APP = Path(sys.executable).with_name("apothecary")


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """Each test leaves the process in English, its help texts too."""
    yield
    choose("en")
    command()


def test_the_global_lang_option_says_the_help_in_french() -> None:
    result = runner.invoke(app, ["--lang", "fr", "play", "--help"])
    assert result.exit_code == 0, result.output
    assert "Jouez dans le terminal contre des bots" in result.output
    assert "Votre place" in result.output  # --seat's help
    assert "Play in the terminal" not in result.output


def run(*args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    """The ``apothecary`` script itself, in an environment of ``environ`` only."""
    env = {"PATH": os.environ.get("PATH", ""), "COLUMNS": "200", **environ}
    return subprocess.run(
        [str(APP), *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_the_environment_chooses_german_before_the_help_is_built() -> None:
    result = run("--help", LANG="de_DE.UTF-8")
    assert result.returncode == 0, result.stderr
    assert "Listet die Spiele mit ihrer Spielerzahl auf." in result.stdout
    choose("es")  # chosen before the command line is built, as main() does
    inside = runner.invoke(app, ["games", "--help"])
    assert "Lista los juegos con su número de jugadores." in inside.output, inside.output


def test_messages_and_errors_are_said_in_the_chosen_language() -> None:
    game = games()[0]
    listed = runner.invoke(app, ["--lang", "de", "games"])
    assert listed.exit_code == 0 and " Spieler " in listed.output, listed.output
    wrong = runner.invoke(app, ["--lang", "fr", "play", game, "--bot-delay", "99"])
    assert wrong.exit_code == 2
    assert wrong.output.startswith("erreur : --bot-delay 99"), wrong.output
    assert "donnez un nombre de secondes de 0 à 10" in wrong.output
    spanish = runner.invoke(app, ["play", game, "--lang", "es", "--option", "nonsense"])
    assert spanish.exit_code == 2
    assert "escríbela como nombre=valor" in spanish.output, spanish.output


def test_an_unknown_language_is_a_clear_error_naming_those_there_are() -> None:
    result = run("--lang", "xx", "games", LANG="fr_FR.UTF-8")
    assert result.returncode == 2
    assert result.stderr == "error: no language 'xx'; apothecary speaks de, en, es, fr\n"
    assert not result.stdout
    with pytest.raises(UnknownLanguageError, match="apothecary speaks"):
        from_command_line(["play", "--lang=klingon"])
    with pytest.raises(UnknownLanguageError, match="no language 'ja-JP'"):
        from_command_line(["rules", "--lang", "ja-JP"])  # a tag of a language not spoken


@pytest.mark.parametrize(
    ("argv", "environ", "wanted"),
    [
        (["play", "--lang", "es"], {"LANG": "fr_FR.UTF-8"}, "es"),  # --lang over the environment
        (["--lang=de", "play"], {}, "de"),
        (["rules", "--lang", "de-CH"], {}, "de"),  # a tag counts by its language
        (["--lang=es_MX.UTF-8", "games"], {"LANG": "fr_FR"}, "es"),
        (["games"], {"LANGUAGE": "de:fr", "LANG": "es_ES.UTF-8"}, "de"),  # LANGUAGE first
        (["games"], {"LC_ALL": "fr_CA.UTF-8", "LANG": "de_DE"}, "fr"),  # LC_ALL over LANG
        (["games"], {"LC_MESSAGES": "es_MX", "LANG": "de_DE"}, "es"),
        (["games"], {"LANG": "C"}, "en"),
        (["games"], {"LANG": "ja_JP.UTF-8"}, "en"),  # none we have: English
        (["simulate", "--", "--lang", "fr"], {}, "en"),  # after --, an argument
    ],
)
def test_the_language_is_lang_else_the_environment_else_english(
    argv: list[str], environ: dict[str, str], wanted: str
) -> None:
    assert from_command_line(argv, environ) == wanted


def test_placeholders_are_filled_in_the_translation() -> None:
    choose("fr")
    assert _("seat {number} (you)", number=2) == "place 2 (vous)"
    choose("de")
    assert _("{names} and {last}", names="a, b", last="c") == "a, b und c"


def test_the_front_ends_commands_say_their_help_in_the_chosen_language() -> None:
    served = runner.invoke(app, ["--lang", "fr", "serve", "--help"])
    assert served.exit_code == 0, served.output
    assert "Lancer le serveur de jeu" in served.output  # the command's help
    assert "L'adresse où écouter." in served.output  # --host's
    assert "Run the game server" not in served.output
    simulated = run("--lang", "de", "simulate", "--help")
    assert simulated.returncode == 0, simulated.stderr
    assert "Bots gegeneinander spielen lassen" in simulated.stdout
    assert "Wie viele Partien." in simulated.stdout  # -n's help
    assert "How many games." not in simulated.stdout
    analysed = run("analyse", "--help", LANG="es_ES.UTF-8")
    assert "Valorar cada jugada de una partida" in analysed.stdout, analysed.stderr
    # and their messages: a table too big for the game, refused in German
    game = games()[0]
    refused = runner.invoke(app, ["--lang", "de", "solve", game, "--players", "99"])
    assert refused.exit_code == 2
    assert f"{game}: 99 Spieler; es wird mit" in refused.output, refused.output


def english_help(root: object, where: str = "apothecary") -> Iterator[str]:
    """Where a help text of ``root``'s tree is still English in the chosen
    language: a command or an option whose help was never marked ``T_``
    (click's own ``--help`` aside, said by click)."""
    kept = getattr(root, "_apothecary_english_help", {})
    said = getattr(root, "help", None)
    if said and (kept.get("help") is None or said == kept["help"]):
        yield where
    for param in getattr(root, "params", ()):
        english = getattr(param, "_apothecary_english_help", {}).get("help")
        if getattr(param, "help", None) and param.name != "help" and param.help == english:
            yield f"{where} {param.name}"
    for name, sub in getattr(root, "commands", {}).items():
        yield from english_help(sub, f"{where} {name}")


def test_no_command_or_option_help_is_left_in_english() -> None:
    choose("fr")
    assert list(english_help(command())) == []
    # planted: a command whose help and option help were never marked
    planted = typer.Typer(add_completion=False)

    @planted.command("planted", help="Left in English.")
    def _planted(depth: int = typer.Option(1, help="Also English.")) -> None:
        """Never run."""

    @planted.command("other", help=SERVE_HELP)
    def _other() -> None:
        """A second command, so the tree is a group; its help is marked."""

    tree = typer.main.get_command(planted)
    translate_help(tree)
    assert sorted(english_help(tree)) == ["apothecary planted", "apothecary planted depth"]
