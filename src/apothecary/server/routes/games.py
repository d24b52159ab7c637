"""The games the server has: their options, bot levels and rules pages."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import PlainTextResponse

from apothecary import bots as bot_registry
from apothecary.core.registry import game_class, games, manifest
from apothecary.server import tables

router = APIRouter(prefix="/api/games")

Name = Annotated[str, Path(max_length=64)]


@router.get("", summary="Every game, its options and bot levels")
async def list_games() -> list[dict[str, Any]]:
    """Every registered game."""
    return [game_info(name) for name in games()]


@router.get("/{name}", summary="One game, its options and bot levels")
async def one_game(name: Name) -> dict[str, Any]:
    """One game."""
    return game_info(name)


@router.get(
    "/{name}/rules", summary="A game's rules page (Markdown)", response_class=PlainTextResponse
)
async def rules(
    name: Name,
    lang: Annotated[
        str | None,
        Query(
            max_length=35,
            description="A language tag (fr, de-CH...): the page in that language, "
            "or in English when it has no translation.",
        ),
    ] = None,
) -> str:
    """The game's rules page in ``lang`` (or English), or its title alone."""
    cls = game_class(name)
    return cls.rules_page(lang) or f"# {cls.info.title}\n"


def game_info(name: str) -> dict[str, Any]:
    """What the lobby shows of a game."""
    cls = game_class(name)
    info = cls.info
    return {
        "name": info.name,
        "title": info.title,
        "summary": info.summary,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "default_players": info.default_players,
        "has_hidden_information": info.has_hidden_information,
        "options": [
            {
                "name": spec.name,
                "type": spec.type.__name__,
                "default": spec.default,
                "help": spec.help,
                "choices": None if spec.choices is None else list(spec.choices),
                "minimum": spec.minimum,
                "maximum": spec.maximum,
                "room_maximum": spec.maximum if spec.room_maximum is None else spec.room_maximum,
                "room_default": spec.room_default,
            }
            for spec in cls.option_specs
        ],
        "levels": [
            {"name": level.name, "help": level.help} for level in bot_registry.levels(name).values()
        ],
        "bots": [{"name": e.name, "help": e.help} for e in bot_registry.entries(name).values()],
        "rules": f"/api/games/{name}/rules",
        "table": tables.table_urls(name),
        "tutorial": manifest(name).tutorial is not None,
    }
