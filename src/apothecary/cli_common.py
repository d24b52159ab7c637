"""Helpers every command of the ``apothecary`` command line shares."""

from __future__ import annotations

import functools
import importlib.util
import re
import unicodedata
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import typer

from apothecary.core.errors import ApothecaryError, BadOptionError
from apothecary.core.game import OptionSpec
from apothecary.core.registry import game_class
from apothecary.i18n import DEFAULT
from apothecary.i18n.terminal import T_, _, choose, chosen

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn the project's input errors into one line on stderr and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except ApothecaryError as error:
            typer.echo(_("error: {error}", error=error), err=True)
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
            raise BadOptionError(_("--option {pair}: write it as name=value", pair=repr(pair)))
        if key not in specs:
            known = ", ".join(specs) or _("none")
            raise BadOptionError(
                _(
                    "{game}: unknown option {key}; its options are: {known}",
                    game=game_name,
                    key=repr(key),
                    known=known,
                )
            )
        values[key] = specs[key].parse(text)
    return values


def describe_options(specs: tuple[OptionSpec, ...]) -> str:
    """The options of a game as a plain-text table."""
    if not specs:
        return _("Options: none")
    lines = [_("Options (--option name=value):")]
    for spec in specs:
        default = str(spec.default).lower() if spec.type is bool else spec.default
        lines.append(f"  {spec.name} = {default!s:<10} {spec.help} ({spec.allowed()})")
    return "\n".join(lines)


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` safe to print on a terminal: control characters (an escape
    sequence in a seat name could clear the screen or fake output) written
    as ``\\x1b``-style escapes; newlines kept when ``keep_newlines``."""

    def escape(char: str) -> str:
        if char == "\n" and keep_newlines:
            return char
        if unicodedata.category(char) in ("Cc", "Cf") or char in "\u2028\u2029":
            return char.encode("unicode_escape").decode("ascii")
        return char

    return "".join(escape(char) for char in text)


def without_action_ids(message: str) -> str:
    """An error message without the engine's internal action ids (``'d4-a1'
    (action 12)`` reads ``'d4-a1'``): a player knows moves by their notation."""
    return re.sub(r" \(action \d+\)", "", message)


EXTRAS_HINT = T_(
    "pip install -e '.[{extra}]' in a checkout (.venv/bin/pip there), "
    "or pip install 'apothecary[{extra}]' for an installed package"
)
"""How to install an optional extra, for both ways of having apothecary."""


def needs_extra(extra: str, modules: tuple[str, ...], what: str) -> None:
    """Raise a one-line error naming the install command when any of ``modules``
    (the optional dependencies of ``what``) is missing; do nothing otherwise.
    Called before any work starts, so nothing is played for nothing."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtraError(
            _(
                "{what} needs the [{extra}] extra ({missing} missing): {hint}",
                what=what,
                extra=extra,
                missing=", ".join(missing),
                hint=_(EXTRAS_HINT, extra=extra),
            )
        )


class MissingExtraError(ApothecaryError):
    """An optional dependency that a command needs is not installed."""


def choose_language(
    ctx: typer.Context, _param: typer.CallbackParam, value: str | None
) -> str | None:
    """The ``--lang`` options' callback: make ``value`` the language and say
    the help in it (an unknown one is a usage error naming those there are)."""
    if value is None:
        # The language came from the environment (or was chosen before the
        # command line was built): the help is said in it all the same.
        if chosen() != DEFAULT:
            translate_help(ctx.find_root().command)
        return None
    try:
        choose(value)
    except ApothecaryError as error:
        raise typer.BadParameter(str(error)) from None
    translate_help(ctx.find_root().command)
    return value


_ENGLISH = "_apothecary_english_help"
"""Where :func:`translate_help` keeps a text's English, its catalogs' key."""


def _said(owner: object, attribute: str) -> None:
    """Set ``owner.attribute`` to its English (kept on first sight) in the chosen language."""
    kept: dict[str, str | None] = owner.__dict__.setdefault(_ENGLISH, {})
    if attribute not in kept:
        kept[attribute] = getattr(owner, attribute, None)
    english = kept[attribute]
    if english:
        setattr(owner, attribute, _(english))


def translate_help(command: object) -> None:
    """Say every help text of ``command`` and its subcommands (commands,
    options, arguments) in the chosen language: each marked ``T_`` where it
    is defined; a text the catalogs lack stays English. Can be run again for
    another language: each text's English is kept for it."""
    _said(command, "help")
    _said(command, "short_help")
    # Typed loosely: typer ships its own copy of click, whose classes it
    # does not export; a command's params and a group's commands are all we read.
    for param in getattr(command, "params", ()):
        _said(param, "help")
    for sub in getattr(command, "commands", {}).values():
        translate_help(sub)
