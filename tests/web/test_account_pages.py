"""The account pages in a real browser over a real server: sign up from the
header's link, see the name in the header, sign out, a wrong password told, sign
in, delete the account; the session cookie is one no script can read, and the
pages stay within the CSP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_csp import _violations, _watch
from test_lobby import _axe, _describe

from apothecary.server.routes.account import COOKIE

PASSWORD = "a long enough passphrase"


def fill(page: Any, form: str, **values: str) -> None:
    """Type ``values`` into the form's fields and submit it."""
    for name, value in values.items():
        page.fill(f"#{form}-{name}", value)
    page.locator(f"#{form} button[type=submit]").click()


def header_says(page: Any, words: str) -> None:
    page.locator("#account-link", has_text=words).wait_for()


def test_sign_up_sign_out_sign_in_and_delete_in_the_browser(
    page: Any, browser: Any, web_server: str, artifacts: Path
) -> None:
    console = _watch(page)
    page.goto(f"{web_server}/")
    page.wait_for_selector(".game-card")
    header_says(page, "Sign in")
    page.locator("#account-link").click()
    page.locator("#sign-up").wait_for()
    page.screenshot(path=artifacts / "account-signed-out.png")

    fill(page, "sign-up", name="Lucrezia", password="too short")
    page.locator("#sign-up .form-error", has_text="at least 12").wait_for()
    fill(page, "sign-up", name="Lucrezia", password=PASSWORD)
    page.locator("h1", has_text="Signed in as Lucrezia").wait_for()
    header_says(page, "Lucrezia")
    page.screenshot(path=artifacts / "account-signed-in.png")

    cookie = next(c for c in page.context.cookies() if c["name"] == COOKIE)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and not cookie["secure"]
    assert COOKIE not in page.evaluate("document.cookie")  # no script can read it

    # Another browser (a fresh context) is not signed in.
    other = browser.new_context()
    try:
        stranger = other.new_page()
        stranger.goto(f"{web_server}/account")
        stranger.locator("#sign-in").wait_for()
        header_says(stranger, "Sign in")
    finally:
        other.close()

    # The lobby still works signed in: its own POSTs pass the cross-site check.
    page.goto(f"{web_server}/")
    header_says(page, "Lucrezia")
    page.fill("#host-name", "Lucrezia")
    page.locator("#setup button[type=submit]").click()
    page.wait_for_url("**/rooms/*")
    page.locator("#room").wait_for()

    page.goto(f"{web_server}/account")
    page.locator("#sign-out").click()
    page.locator("#sign-in").wait_for()
    header_says(page, "Sign in")
    fill(page, "sign-in", name="lucrezia", password="not the passphrase")
    page.locator("#sign-in .form-error", has_text="do not sign in").wait_for()
    page.screenshot(path=artifacts / "account-wrong-password.png")
    fill(page, "sign-in", name="lucrezia", password=PASSWORD)
    page.locator("h1", has_text="Signed in as Lucrezia").wait_for()

    fill(page, "delete-account", password=PASSWORD)
    page.locator("#sign-up").wait_for()
    header_says(page, "Sign in")
    fill(page, "sign-in", name="Lucrezia", password=PASSWORD)
    page.locator("#sign-in .form-error", has_text="do not sign in").wait_for()
    assert _violations(page, console) == []
    assert page.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_account_pages_have_no_serious_accessibility_violations(
    page: Any, web_server: str, scheme: str
) -> None:
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{web_server}/account")
    page.locator("#sign-up").wait_for()
    violations = _axe(page)
    assert not violations, _describe(violations)
    fill(page, "sign-up", name=f"axe_{scheme}", password=PASSWORD)
    page.locator("#delete-account").wait_for()
    violations = _axe(page)
    assert not violations, _describe(violations)
