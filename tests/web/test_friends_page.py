"""Friends in a real browser over a real server (issue #31: "Invite a friend by user name
to a room; a friends list with who is online; block a person so they cannot invite you or
sit at your rooms"): two accounts in two browser contexts befriend on the Friends panel,
one invites the other from a room's lobby, the other follows the invitation from their
lobby to the room and sits down; then a block ends the friendship and the seat."""

from __future__ import annotations

from typing import Any

from test_account_pages import fill
from test_csp import _violations, _watch
from test_lobby import _axe, _describe
from test_my_games import signed_up


def new_room(page: Any, base: str) -> str:
    """A two-seat room created by the page's signed-in account (so its host): its code."""
    made = page.request.post(
        f"{base}/api/rooms",
        data={"game": "poison-pot", "players": 2},
        headers={"X-Apothecary": "1", "Origin": base},
    )
    assert made.status == 201, made.text()
    code: str = made.json()["code"]
    return code


def test_two_accounts_befriend_and_one_follows_the_others_invitation(
    browser: Any, page: Any, web_server: str
) -> None:
    console = _watch(page)
    signed_up(page, web_server, "Rosalind")
    other = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        friend = other.new_page()
        friend_console = _watch(friend)
        signed_up(friend, web_server, "Benedikt")

        # Rosalind asks on her Friends panel; Benedikt accepts on his.
        fill(page, "add-friend", name="Benedikt")
        page.locator("#outgoing-Benedikt").wait_for()
        friend.reload()
        friend.locator("#incoming-Rosalind button", has_text="Accept").click()
        row = friend.locator("#friend-Rosalind")
        row.wait_for()
        # Rosalind's page polls the server, so her session is in use: online.
        assert "online" in row.locator(".presence").inner_text()
        page.reload()
        page.locator("#friend-Benedikt").wait_for()
        page.locator("#add-friend-name").fill("nobody-here")  # a refusal shown in the form
        page.locator("#add-friend button[type=submit]").click()
        page.locator("#add-friend .form-error", has_text="nobody-here").wait_for()
        violations = _axe(page)  # the panel with a friend listed and a refusal shown
        assert not violations, _describe(violations)

        # Rosalind opens her room and invites Benedikt by user name from its lobby.
        code = new_room(page, web_server)
        page.goto(f"{web_server}/rooms/{code}")
        fill(page, "invite-friend-form", name="Benedikt")
        page.locator(".toast", has_text="Benedikt").first.wait_for()

        # Benedikt's lobby shows the invitation; he follows it and sits down.
        friend.goto(f"{web_server}/")
        invitation = friend.locator(f"#invitations li[data-room='{code}']")
        invitation.wait_for()
        assert "Rosalind" in invitation.inner_text()
        invitation.locator(f"#join-{code}").click()
        friend.wait_for_url(f"**/rooms/{code}")
        friend.fill("#join-name", "Benedikt")
        friend.locator("#join-form button[type=submit]").click()
        friend.locator("#room[data-you='0']").wait_for()

        # Rosalind blocks Benedikt: the friendship ends on both sides and he is refused
        # a seat at the next room she hosts.
        page.goto(f"{web_server}/account")
        page.locator("#friend-Benedikt button", has_text="Block").click()
        page.locator("#blocked-Benedikt").wait_for()
        assert page.locator("#friend-Benedikt").count() == 0
        friend.goto(f"{web_server}/account")
        friend.locator("#friends-lists", has_text="No friends yet").wait_for()
        closed = new_room(page, web_server)
        friend.goto(f"{web_server}/rooms/{closed}")
        friend.fill("#join-name", "Benedikt")
        friend.locator("#join-form button[type=submit]").click()
        friend.locator(".toast", has_text="blocked you").wait_for()
        assert _violations(friend, friend_console) == []
    finally:
        other.close()
    assert _violations(page, console) == []
    assert page.errors == []
