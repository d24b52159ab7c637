"""Friends over HTTP (``/api/friends``): the list with who is online, requests
and their answers, blocks, and invitations to rooms. The rules are
:mod:`apothecary.server.friends`'; the session and the cross-site check are the
account routes' (:class:`~apothecary.server.routes.account.SameOrigin` treats
this prefix as an account's, so a state-changing request needs ``X-Apothecary``).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from pydantic import BaseModel, Field

from apothecary.server.accounts import NAME_MAX
from apothecary.server.friends import Friends
from apothecary.server.routes.account import CHANGES, FRIENDS_PREFIX, SessionDep
from apothecary.server.routes.deps import Code


async def _no_store(response: Response) -> None:
    # Every answer is one account's own: never cached.
    response.headers["Cache-Control"] = "no-store"


router = APIRouter(prefix=FRIENDS_PREFIX, tags=["friends"], dependencies=[Depends(_no_store)])


async def _friends(request: Request) -> Friends:
    friends: Friends = request.app.state.friends
    return friends


FriendsDep = Annotated[Friends, Depends(_friends)]

UserName = Annotated[
    str, Path(min_length=1, max_length=NAME_MAX, description="The other account's user name.")
]


class Person(BaseModel):
    """Another account, by user name."""

    name: str = Field(min_length=1, max_length=NAME_MAX, description="Their user name.")


class Invite(BaseModel):
    """An invitation of a friend to a room."""

    name: str = Field(min_length=1, max_length=NAME_MAX, description="The friend's user name.")
    room: str = Field(pattern=r"^[A-Za-z0-9_-]{1,32}$", description="The room's code.")


class Asked(BaseModel):
    """What came of a friend request."""

    state: str = Field(description="'requested', or 'friends' when they had asked you too.")


@router.get("", summary="Your friends (who is online), requests, blocks and invitations")
async def listing(friends: FriendsDep, session: SessionDep) -> dict[str, Any]:
    """``friends`` (``name``, ``online``, ``since``), ``incoming`` and ``outgoing``
    requests, ``blocked``, and ``invitations`` to rooms that are not over."""
    return await friends.listing(session.user, time.time())


@router.post("/requests", summary="Ask someone to be your friend", dependencies=CHANGES)
async def ask(friends: FriendsDep, session: SessionDep, body: Person) -> Asked:
    """404 ``user_not_found``, 400 ``yourself``, 403 ``blocked``."""
    return Asked(state=await friends.ask(session.user, body.name, time.time()))


@router.post("/requests/{name}/accept", summary="Accept a friend request", dependencies=CHANGES)
async def accept(friends: FriendsDep, session: SessionDep, name: UserName) -> dict[str, bool]:
    """404 ``no_request`` when ``name`` did not ask."""
    await friends.accept(session.user, name, time.time())
    return {"ok": True}


@router.post("/requests/{name}/decline", summary="Decline a friend request", dependencies=CHANGES)
async def decline(friends: FriendsDep, session: SessionDep, name: UserName) -> dict[str, bool]:
    """404 ``no_request`` when ``name`` did not ask."""
    await friends.decline(session.user, name)
    return {"ok": True}


@router.delete(
    "/{name}", summary="End a friendship, or withdraw your request", dependencies=CHANGES
)
async def remove(friends: FriendsDep, session: SessionDep, name: UserName) -> dict[str, bool]:
    """Their invitations to you and yours to them go too."""
    await friends.remove(session.user, name)
    return {"ok": True}


@router.post("/blocks", summary="Block someone", dependencies=CHANGES)
async def block(friends: FriendsDep, session: SessionDep, body: Person) -> dict[str, bool]:
    """They can no longer ask you, invite you or sit at rooms you host; a
    friendship with them ends."""
    await friends.block(session.user, body.name, time.time())
    return {"ok": True}


@router.delete("/blocks/{name}", summary="Lift a block", dependencies=CHANGES)
async def unblock(friends: FriendsDep, session: SessionDep, name: UserName) -> dict[str, bool]:
    """No friendship comes back."""
    await friends.unblock(session.user, name)
    return {"ok": True}


@router.post("/invitations", summary="Invite a friend to a room", dependencies=CHANGES)
async def invite(friends: FriendsDep, session: SessionDep, body: Invite) -> dict[str, bool]:
    """403 ``not_friends`` or ``blocked``; 404 ``no_room`` for a room gone or over."""
    await friends.invite(session.user, body.name, body.room, time.time())
    return {"ok": True}


@router.delete("/invitations/{code}", summary="Dismiss an invitation", dependencies=CHANGES)
async def dismiss(friends: FriendsDep, session: SessionDep, code: Code) -> dict[str, bool]:
    """Nothing if there was none."""
    await friends.dismiss(session.user, code)
    return {"ok": True}
