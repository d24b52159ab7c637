"""Passkeys in a real browser (Debian's Chromium) over a real server, with Chromium's
virtual authenticator (the DevTools protocol's WebAuthn domain: a platform
authenticator, CTAP2, that keeps discoverable credentials and verifies the user):
sign up, add a passkey on the account page, sign out, sign in with the passkey
with no user name and then with one, remove it, and see it refused after.

The page is opened as ``localhost``: a passkey's RP ID is a host name, never an IP
address, and http is a secure context only on localhost."""

from __future__ import annotations

from typing import Any

from test_account_pages import PASSWORD, fill, header_says
from test_csp import _violations, _watch
from test_lobby import _axe, _describe

VIRTUAL = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}
"""A platform authenticator, as a laptop's fingerprint reader: it keeps discoverable
credentials and says the user was verified."""


def virtual_authenticator(page: Any) -> tuple[Any, str]:
    """The page's DevTools session and a new virtual authenticator's id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": VIRTUAL})
    return cdp, made["authenticatorId"]


def signed_in_as(page: Any, name: str) -> None:
    page.locator("h1", has_text=f"Signed in as {name}").wait_for()
    header_says(page, name)


def test_a_passkey_is_added_signs_in_with_and_without_a_name_and_is_removed(
    page: Any, web_server: str
) -> None:
    base = web_server.replace("127.0.0.1", "localhost")
    console = _watch(page)
    cdp, authenticator = virtual_authenticator(page)
    page.goto(f"{base}/account")
    fill(page, "sign-up", name="Artemisia", password=PASSWORD)
    signed_in_as(page, "Artemisia")
    page.locator("#passkey-list", has_text="No passkeys yet").wait_for()

    page.fill("#passkey-label", "laptop")
    page.fill("#passkey-password", "not the passphrase")
    page.locator("#add-passkey").click()  # a session alone adds no way in
    page.locator("#passkeys .form-error", has_text="not the account's password").wait_for()
    page.fill("#passkey-password", PASSWORD)
    page.locator("#add-passkey").click()
    page.locator("#passkey-list .passkey", has_text="laptop").wait_for()
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(held) == 1 and held[0]["isResidentCredential"]  # discoverable: no name needed
    assert held[0]["rpId"] == "localhost"

    # Signed out, no user name typed: the authenticator offers the passkey it holds.
    page.locator("#sign-out").click()
    page.locator("#sign-in").wait_for()
    header_says(page, "Sign in")
    page.locator("#passkey-sign-in").click()
    signed_in_as(page, "Artemisia")

    # With the user name typed, only that account's passkeys are asked for.
    page.locator("#sign-out").click()
    page.fill("#sign-in-name", "artemisia")
    page.locator("#passkey-sign-in").click()
    signed_in_as(page, "Artemisia")
    page.locator("#passkey-list .passkey", has_text="last used").wait_for()
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert held[0]["signCount"] >= 2  # each sign-in counted, as the server checks

    page.locator("#passkey-list .passkey button").click()
    page.locator("#passkey-list", has_text="No passkeys yet").wait_for()
    page.locator("#sign-out").click()
    page.locator("#passkey-sign-in").click()  # the authenticator still has it; the server does not
    page.locator("#passkey .form-error", has_text="no account's").wait_for()
    header_says(page, "Sign in")
    assert _violations(page, console) == []
    assert page.errors == []


def test_a_cancelled_passkey_says_so(page: Any, web_server: str) -> None:
    base = web_server.replace("127.0.0.1", "localhost")
    virtual_authenticator(page)  # it holds no passkey of this site
    page.goto(f"{base}/account")
    page.locator("#passkey-sign-in").click()
    page.locator("#passkey .form-error", has_text="No passkey was used").wait_for()


def test_the_passkey_panels_have_no_serious_accessibility_violations(
    page: Any, web_server: str
) -> None:
    base = web_server.replace("127.0.0.1", "localhost")
    page.goto(f"{base}/account")
    page.locator("#passkey").wait_for()
    violations = _axe(page)
    assert not violations, _describe(violations)
    fill(page, "sign-up", name="axe_passkeys", password=PASSWORD)
    page.locator("#passkeys").wait_for()
    violations = _axe(page)
    assert not violations, _describe(violations)
