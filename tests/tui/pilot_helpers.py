"""What the pilot tests of the terminal app share: run an app, wait for it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from apothecary.tui.app import GameScreen, PlayApp
from apothecary.tui.session import Session

Test = Callable[[PlayApp, Pilot[None]], Coroutine[Any, Any, None]]


def run_app(app: PlayApp, test: Test, size: tuple[int, int] = (90, 30)) -> None:
    """Run ``app`` headless at ``size`` and drive it with ``test``."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await test(app, pilot)

    asyncio.run(main())


async def until(pilot: Pilot[None], ready: Callable[[], bool], seconds: float = 60) -> None:
    """Let the app run until ``ready()``; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, "the app did not get there in time"
        await pilot.pause(0.005)


def text_of(app: PlayApp, selector: str) -> str:
    """The text of a Static on the current screen."""
    return str(app.screen.query_one(selector, Static).content)


def my_turn(app: PlayApp, session: Session, seat: int = 0) -> bool:
    """Whether ``seat`` is to move and its view and list of moves are up."""
    screen = app.screen
    return (
        isinstance(screen, GameScreen)
        and not session.is_over()
        and session.to_move() == seat
        and not screen.hidden
        and not screen.query_one("#actions", OptionList).disabled
    )
