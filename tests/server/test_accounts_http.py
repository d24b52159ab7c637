"""Accounts over real HTTP, against real ``apothecary serve`` processes: the cookie's
flags (``Secure`` behind TLS too), a cross-site POST refused, the sign-in rate limit,
one account's session never acting for another, a session made on one process good
on another (one database), and no password anywhere in the logs, the responses or
the database."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serving import cluster_flags, server_process, sqlite_url
from test_accounts import GOOD, SAME, every_row

from apothecary.server.routes.account import COOKIE
from apothecary.server.store import Store

ROOMY = ("--sign-in-per-address", "1000", "--sign-in-per-account", "1000")
"""Flags that lift the sign-in limits (every test client is 127.0.0.1)."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server process on a SQLite file, for the tests that can share it."""
    with server_process(sqlite_url(tmp_path_factory.mktemp("accounts")), *ROOMY) as (url, _):
        yield url


def unique(stem: str) -> str:
    """A user name no other test of the module's shared server has."""
    return f"{stem}{secrets.token_hex(3)}"


@contextlib.contextmanager
def signed_up(base: str, name: str, password: str = GOOD) -> Iterator[httpx.Client]:
    """A client signed in to a new account on the server at ``base``."""
    with httpx.Client(base_url=base, timeout=30) as client:
        made = client.post(
            "/api/account/sign-up", json={"name": name, "password": password}, headers=SAME
        )
        assert made.status_code == 201, made.text
        yield client


def test_the_session_cookie_is_httponly_samesite_and_not_readable_by_scripts(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as client:
        name = unique("flags")
        made = client.post(
            "/api/account/sign-up", json={"name": name, "password": GOOD}, headers=SAME
        )
        cookie = made.headers["set-cookie"]
        parts = [part.strip().lower() for part in cookie.split(";")]
        assert parts[0].startswith(f"{COOKIE}=") and len(parts[0]) > len(COOKIE) + 40
        assert "httponly" in parts and "samesite=lax" in parts and "path=/" in parts
        assert f"max-age={30 * 86400}" in parts
        assert "secure" not in parts  # plain HTTP: a Secure cookie would never come back
        assert made.headers["cache-control"] == "no-store"
        signed_in = client.post(
            "/api/account/sign-in", json={"name": name, "password": GOOD}, headers=SAME
        )
        assert "httponly" in signed_in.headers["set-cookie"].lower()
        out = client.post("/api/account/sign-out", headers=SAME)
        assert "max-age=0" in out.headers["set-cookie"].lower()


def test_the_cookie_is_secure_behind_a_local_tls_proxy_or_an_https_public_url(
    base: str, tmp_path: Path
) -> None:
    """docs/accounts.md#sessions: ``Secure`` when the request came over TLS, as a TLS
    proxy on this machine says with ``X-Forwarded-Proto: https``, or when
    ``--public-url`` is https; and a passkey's relying party is that site."""

    def flags_of(answer: httpx.Response) -> list[str]:
        return [part.strip().lower() for part in answer.headers["set-cookie"].split(";")]

    with httpx.Client(base_url=base, timeout=30) as client:
        body = {"name": unique("proxied"), "password": GOOD}
        proxied = {**SAME, "X-Forwarded-Proto": "https"}
        made = client.post("/api/account/sign-up", json=body, headers=proxied)
        assert made.status_code == 201 and "secure" in flags_of(made)
        # A passkey's options name the site the request came to.
        host = {**proxied, "Host": "localhost"}
        options = client.post("/api/account/passkeys/sign-in/options", json={}, headers=host)
        assert options.json()["options"]["rpId"] == "localhost"
    public = ("--public-url", "https://games.example.org", *ROOMY)
    with (
        server_process(sqlite_url(tmp_path), *public) as (url, _),
        httpx.Client(base_url=url, headers={"Host": "games.example.org"}, timeout=30) as client,
    ):
        body = {"name": "ann", "password": GOOD}
        made = client.post("/api/account/sign-up", json=body, headers=SAME)
        assert made.status_code == 201 and "secure" in flags_of(made)
        # httpx sends no Secure cookie over plain http (the proxy's side): sent by hand.
        session = {**SAME, "Cookie": made.headers["set-cookie"].split(";")[0]}
        options = client.post(
            "/api/account/passkeys/register/options", json={"password": GOOD}, headers=session
        )
        assert options.json()["options"]["rp"]["id"] == "games.example.org", options.text


def test_a_cross_site_post_is_refused_and_the_session_lives_on(base: str) -> None:
    with signed_up(base, unique("victim")) as client:
        forged = [
            {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
            {"Origin": "https://evil.example", "Content-Type": "text/plain"},  # a form's POST
            {"Sec-Fetch-Site": "cross-site", "X-Apothecary": "1"},
        ]
        for headers in forged:
            for path in ("/api/account/sign-out-everywhere", "/api/account/delete"):
                refused = client.post(path, headers=headers, content=b'{"password": "x"}')
                assert refused.status_code == 403, (path, headers, refused.text)
                assert refused.json()["error"] == "cross_site"
        assert client.get("/api/account").json()["user"] is not None


def test_sign_in_is_rate_limited_per_account_and_per_address(tmp_path: Path) -> None:
    flags = ("--sign-in-per-account", "3", "--sign-in-per-address", "6")
    with server_process(sqlite_url(tmp_path), *flags) as (url, _):
        with signed_up(url, "ann"):  # one attempt of the address's six
            pass
        with httpx.Client(base_url=url, timeout=30) as client:

            def attempt(name: str, password: str = "wrong wrong wrong") -> httpx.Response:
                body = {"name": name, "password": password}
                return client.post("/api/account/sign-in", json=body, headers=SAME)

            assert [attempt("ann").status_code for _ in range(3)] == [401, 401, 401]
            limited = attempt("ann", GOOD)  # the right password, too late
            assert limited.status_code == 429 and limited.json()["error"] == "too_many_attempts"
            assert "account" in limited.json()["message"]
            assert limited.headers["retry-after"] == "60"
            assert attempt("bob").status_code == 401  # the sixth from this address
            address = attempt("carol")
            assert address.status_code == 429 and "address" in address.json()["message"]


def test_one_accounts_session_never_acts_for_another(base: str) -> None:
    alice, bob = unique("alice"), unique("bob")
    alice_password, bob_password = "alice's long passphrase", "bob's own long passphrase"
    with signed_up(base, alice, alice_password) as a, signed_up(base, bob, bob_password) as b:
        assert a.get("/api/account").json()["user"]["name"] == alice
        assert b.get("/api/account").json()["user"]["name"] == bob
        # Bob's session with Alice's password changes nothing of Alice's (nor Bob's).
        hijack = {"current": alice_password, "new": "mallory was here again"}
        assert b.post("/api/account/password", json=hijack, headers=SAME).status_code == 401
        deleting = b.post("/api/account/delete", json={"password": alice_password}, headers=SAME)
        assert deleting.status_code == 401
        # Bob signs out everywhere: his sessions only.
        assert b.post("/api/account/sign-out-everywhere", headers=SAME).json()["sessions_ended"]
        assert a.get("/api/account").json()["user"]["name"] == alice
        assert b.get("/api/account").json()["user"] is None
        # A token that is not a session's (forged, or cut short) signs nobody in.
        token = a.cookies[COOKIE]
        for forged in ("forged", token[:-1], token.upper(), "x" * 200):
            with httpx.Client(base_url=base, cookies={COOKIE: forged}, timeout=30) as other:
                assert other.get("/api/account").json()["user"] is None


def test_a_session_and_the_sign_in_limit_hold_across_processes(
    postgres_db_url: str, redis_url: str
) -> None:
    prefix = f"t{secrets.token_hex(4)}"
    limits = ("--sign-in-per-address", "1000", "--sign-in-per-account", "4")
    flags = (*cluster_flags(redis_url, prefix), *limits)
    with (
        server_process(postgres_db_url, *flags) as (one, _),
        server_process(postgres_db_url, *flags) as (two, _),
        signed_up(one, "ann") as here,
    ):
        token = here.cookies[COOKIE]
        with httpx.Client(base_url=two, cookies={COOKIE: token}, timeout=30) as there:
            assert there.get("/api/account").json()["user"]["name"] == "ann"
            # Signing out on the second ends the session on the first too.
            assert there.post("/api/account/sign-out", headers=SAME).status_code == 200
        assert here.get("/api/account").json()["user"] is None
        # And an account made on one signs in on the other.
        with httpx.Client(base_url=two, timeout=30) as there:
            body = {"name": "ANN", "password": GOOD}
            answer = there.post("/api/account/sign-in", json=body, headers=SAME)
            assert answer.status_code == 200 and COOKIE in there.cookies
        # The sign-in limit is one count for both: 4 tries for a name, wherever they land.
        wrong = {"name": "bob", "password": "wrong wrong wrong"}
        tries = [
            httpx.post(f"{where}/api/account/sign-in", json=wrong, headers=SAME).status_code
            for where in (one, two, one, two, one)
        ]
        assert tries == [401, 401, 401, 401, 429]


def test_passwords_never_appear_in_logs_responses_or_the_database(tmp_path: Path) -> None:
    planted = "Planted-Secret-" + secrets.token_hex(8)  # unique: found only if leaked
    changed = "Changed-Secret-" + secrets.token_hex(8)
    short, shorter = "S" + secrets.token_hex(4), "T" + secrets.token_hex(2)
    url = sqlite_url(tmp_path)
    log = tmp_path / "server.log"
    seen: list[str] = []
    debug = server_process(url, *ROOMY, "--log-level", "debug", log_path=log)
    with debug as (base, _), httpx.Client(base_url=base, timeout=30) as client:

        def send(path: str, body: object, headers: dict[str, str] = SAME) -> None:
            answer = client.post(path, json=body, headers=headers)
            seen.append(f"{answer.status_code} {answer.headers} {answer.text}")

        send("/api/account/sign-up", {"name": "ann", "password": planted})
        send("/api/account/sign-up", {"name": "ann", "password": planted})  # taken
        send("/api/account/sign-up", {"name": "bad name", "password": planted})
        send("/api/account/sign-up", {"name": "bob", "password": short})  # short
        send("/api/account/sign-up", {"name": "bob", "password": planted * 30})  # long
        send("/api/account/sign-up", {"name": "bob", "password": [planted]})  # not text
        send("/api/account/sign-in", {"name": "ann", "password": planted + "x"})
        send("/api/account/sign-in", {"name": "ann", "password": planted})
        send("/api/account/sign-in", {"name": "ann", "password": planted}, {})  # cross-site
        send("/api/account/password", {"current": planted + "x", "new": changed})
        send("/api/account/password", {"current": planted, "new": shorter})
        send("/api/account/password", {"current": planted, "new": changed})
        send("/api/account/delete", {"password": planted})
        seen.append(client.get("/api/account").text)
    assert any("ann" in answer for answer in seen)  # the answers were read
    text = log.read_text(encoding="utf-8")
    assert "/api/account/sign-in" in text  # the log is the debug one, with every request
    database = Store(url)
    try:
        rows = every_row(database)
    finally:
        database.close()
    assert "$argon2id$" in rows  # the hashes are there ...
    for secret in (planted, changed, short, shorter):
        for where, found in (("log", text), ("database", rows), ("responses", "\n".join(seen))):
            assert secret not in found, f"a password is in the {where}"
