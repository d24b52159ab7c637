"""Helpers every command of the ``apothecary`` command line shares."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import typer

from apothecary.core.errors import ApothecaryError, BadOptionError
from apothecary.core.game import OptionSpec
from apothecary.core.registry import game_class

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
