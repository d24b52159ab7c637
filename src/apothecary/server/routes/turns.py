"""Turn-based play over HTTP (docs/turn-based.md): the account's e-mail address for
your-turn mails (``/api/account/email``), the mail's link that gives a device its
seat (``POST /api/turn-link``), and the one-click unsubscribe (``/unsubscribe``).
The mails themselves are :mod:`apothecary.server.turnmail`'s.
"""

from __future__ import annotations

import asyncio
import html
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from apothecary.server import turnmail
from apothecary.server.routes.account import CHANGES, PREFIX, SessionDep
from apothecary.server.store import Store
from apothecary.server.turnmail import EMAIL_MAX, VACATION_DAYS, BadLink


async def _no_store(response: Response) -> None:
    # An address, a seat's token, an unsubscribe: one person's own, never cached.
    response.headers["Cache-Control"] = "no-store"


router = APIRouter(tags=["turn-based"], dependencies=[Depends(_no_store)])


async def _store(request: Request) -> Store:
    store: Store = request.app.state.hub.store
    return store


StoreDep = Annotated[Store, Depends(_store)]


async def _now(request: Request) -> float:
    # The hub's clock, which the turn timers run on (a test's moves by hand).
    now: float = request.app.state.hub.config.clock()
    return now


NowDep = Annotated[float, Depends(_now)]

Token = Annotated[str, Query(min_length=1, max_length=64, description="The mail's token.")]


class MailSettings(BaseModel):
    """The account's address for your-turn mails, and whether it wants them."""

    email: str | None = Field(
        default=None, max_length=EMAIL_MAX, description="The address; none or empty: none."
    )
    turn_mail: bool = Field(default=True, description="Mail me when it is my turn.")


class TurnLink(BaseModel):
    """The token of a your-turn mail's link (after ``#turn=`` in it)."""

    link: str = Field(min_length=1, max_length=64, description="The link's token.")


class LinkedSeat(BaseModel):
    """The seat a your-turn link opens."""

    room: str = Field(description="The room's code.")
    token: str = Field(description="The seat token (send it in the socket's hello).")
    user: str = Field(description="The account the seat belongs to.")


@router.get(PREFIX + "/email", summary="The account's address for your-turn mails")
async def mail_settings(store: StoreDep, session: SessionDep) -> MailSettings:
    """The address (or none) and whether your-turn mails are wanted."""
    found = await asyncio.to_thread(turnmail.mail_settings, store, session.user.id)
    return MailSettings(**found)


@router.post(PREFIX + "/email", summary="Set the address for your-turn mails", dependencies=CHANGES)
async def set_mail(store: StoreDep, session: SessionDep, body: MailSettings) -> MailSettings:
    """The settings as kept (400 ``bad_email`` for an address that is not one)."""
    kept = await store.run(turnmail.set_mail, store, session.user.id, body.email, body.turn_mail)
    return MailSettings(**kept)


class Vacation(BaseModel):
    """The account's vacation."""

    until: float | None = Field(description="When it ends (Unix seconds); none: not on one.")
    days_left: int = Field(description="Vacation days this calendar year still has.")


class GoAway(BaseModel):
    """Days of vacation to take."""

    days: int = Field(
        ge=0,
        le=VACATION_DAYS,
        description="Days more (after any running vacation); 0 ends the vacation.",
    )


@router.get(PREFIX + "/vacation", summary="The account's vacation")
async def get_vacation(store: StoreDep, session: SessionDep, now: NowDep) -> Vacation:
    """Until when it runs, and the days left this year."""
    found = await asyncio.to_thread(turnmail.vacation, store, session.user.id, now)
    return Vacation(**found)


@router.post(PREFIX + "/vacation", summary="Go on vacation, or end it", dependencies=CHANGES)
async def set_vacation(store: StoreDep, session: SessionDep, body: GoAway, now: NowDep) -> Vacation:
    """While on vacation, the clock of your turns in turn-based rooms waits (409
    ``vacation_spent`` for more days than the year has left)."""
    kept = await store.run(turnmail.set_vacation, store, session.user.id, body.days, now)
    return Vacation(**kept)


@router.post("/api/turn-link", summary="The seat a your-turn mail's link opens")
async def turn_link(store: StoreDep, body: TurnLink) -> LinkedSeat:
    """The room and its seat token, for this device to play the seat (404
    ``bad_link`` for a link too old, unknown, or whose seat is no longer the account's)."""
    seat: dict[str, Any] = await asyncio.to_thread(turnmail.redeem, store, body.link, time.time())
    return LinkedSeat(**seat)


def _page(title: str, text: str, status: int = 200) -> HTMLResponse:
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} · apothecary</title>"
        '<link rel="stylesheet" href="/static/style.css"></head>'
        f'<body><main class="panel notice"><h1>{html.escape(title)}</h1>'
        f'<p>{html.escape(text)}</p><p><a href="/">Go to the lobby</a></p></main></body></html>'
    )
    return HTMLResponse(body, status_code=status)


async def _unsubscribe(store: Store, token: str) -> HTMLResponse:
    try:
        name = await store.run(turnmail.unsubscribe, store, token)
    except BadLink as error:
        return _page("Not unsubscribed", str(error), status=404)
    return _page(
        "Unsubscribed",
        f"{name} will get no more your-turn e-mails. Turn them on again on the account page.",
    )


PAGE: dict[int | str, dict[str, Any]] = {
    404: {"description": "No account's token", "content": {"text/html": {}}}
}
"""The unsubscribe routes answer an HTML page, a refusal too."""


@router.get(
    "/unsubscribe",
    summary="No more your-turn mails, in one click",
    response_class=HTMLResponse,
    responses=PAGE,
)
async def unsubscribe_page(store: StoreDep, token: Token) -> HTMLResponse:
    """The mail's unsubscribe link: done at once, no sign-in needed (the token is
    the proof); a page says so."""
    return await _unsubscribe(store, token)


@router.post(
    "/unsubscribe",
    summary="The same, for mail programs (RFC 8058)",
    response_class=HTMLResponse,
    responses=PAGE,
)
async def unsubscribe_post(store: StoreDep, token: Token) -> HTMLResponse:
    """A mail program's own unsubscribe button (``List-Unsubscribe-Post``)."""
    return await _unsubscribe(store, token)
