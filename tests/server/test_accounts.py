"""Accounts in one process: the rules for names and passwords, sessions and their
timeouts, the cross-site check, the rate limits, deletion, and the migration that
brings the tables in. The promises about HTTP between processes are in
test_accounts_http.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient
from serving import FAST, app_client, sqlite_url
from test_store import HEAD, played_room, schema_drift

from apothecary.core.errors import BadOptionError
from apothecary.server.accounts import (
    AccountConfig,
    Accounts,
    BadUserName,
    TooManyAttempts,
    WeakPassword,
    check_password,
    check_user_name,
    common_passwords,
    token_hash,
)
from apothecary.server.app import WebConfig
from apothecary.server.routes.account import COOKIE, HEADER
from apothecary.server.store import (
    Store,
    account_sessions,
    alembic_config,
    sign_in_attempts,
    users,
)

GOOD = "correct horse battery"
"""A password that passes every rule."""

SAME = {HEADER: "1"}
"""What the server's own pages send with every state-changing request."""

QUICK = AccountConfig(
    hash_time_cost=1, hash_memory_kib=1024, attempts_per_account=1000, attempts_per_address=1000
)
"""Cheap hashes for tests that hash a lot (the parameters are argon2id's all the same),
and the sign-in limits lifted for the tests not about them."""


def client_on(url: str, accounts: AccountConfig = QUICK, **web: Any) -> TestClient:
    """A TestClient over a new app at ``url`` with these account rules."""
    return app_client(url, FAST, WebConfig(accounts=accounts, **web))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_on(sqlite_url(tmp_path)) as made:
        yield made


def sign_up(client: TestClient, name: str, password: str = GOOD) -> Any:
    return client.post(
        "/api/account/sign-up", json={"name": name, "password": password}, headers=SAME
    )


def sign_in(client: TestClient, name: str, password: str = GOOD) -> Any:
    return client.post(
        "/api/account/sign-in", json={"name": name, "password": password}, headers=SAME
    )


# -- the rules --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ann", "Ann_Lee", "a.b-c", "0wl", "x" * 24])
def test_user_names_that_fit_the_rules(name: str) -> None:
    assert check_user_name(name) == name


@pytest.mark.parametrize(
    "name", ["an", "x" * 25, "_ann", ".ann", "ann lee", "ann@home", "pаul", "émile", "", "ann\n"]
)
def test_user_names_that_break_the_rules(name: str) -> None:
    with pytest.raises(BadUserName):
        check_user_name(name)


def test_a_user_name_is_taken_whatever_its_case(client: TestClient) -> None:
    assert sign_up(client, "Mallory").status_code == 201
    again = sign_up(client, "mALLORY")
    assert again.status_code == 409 and again.json()["error"] == "name_taken"
    # Signing in folds case too, and the account keeps the name as it was typed.
    assert sign_in(client, "MALLORY").json()["user"]["name"] == "Mallory"


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("short pass", "at least 12"),
        ("q1w2e3r4t5y6", "most common"),  # on the list, and 12 characters
        ("Q1W2E3R4T5Y6", "most common"),  # in any case
        ("annabelle_lee", "user name"),
        ("x" * 257, "at most 256"),
    ],
)
def test_weak_passwords_are_refused_saying_why(password: str, why: str) -> None:
    with pytest.raises(WeakPassword, match=why) as refused:
        check_password(password, "Annabelle_Lee", 12)
    assert password not in str(refused.value)


def test_the_common_password_list_is_the_shipped_one() -> None:
    found = common_passwords()
    assert len(found) == 10_000 and "password" in found and "iloveyou" in found
    assert min(len(word) for word in found) >= 8


def test_a_password_is_normalised_so_another_keyboard_signs_in(client: TestClient) -> None:
    wide = "ｃｏｒｒｅｃｔ ｈｏｒｓｅ ｂａｔｔｅｒｙ"  # fullwidth letters: NFKC makes them ASCII
    assert sign_up(client, "wide", wide).status_code == 201
    assert sign_in(client, "wide", GOOD).status_code == 200


def test_a_minimum_below_eight_is_refused() -> None:
    with pytest.raises(BadOptionError):
        AccountConfig(min_password_length=7)


# -- sessions ---------------------------------------------------------------------------------


def test_sign_up_signs_in_and_sign_out_ends_the_session(client: TestClient) -> None:
    assert client.get("/api/account").json() == {"user": None}
    made = sign_up(client, "ann")
    assert made.status_code == 201 and made.json()["user"]["name"] == "ann"
    assert client.get("/api/account").json() == made.json()
    token = client.cookies[COOKIE]
    assert client.post("/api/account/sign-out", headers=SAME).status_code == 200
    assert COOKIE not in client.cookies
    client.cookies.set(COOKIE, token)  # the old token, kept by someone
    assert client.get("/api/account").json() == {"user": None}
    gone = client.post("/api/account/sign-out-everywhere", headers=SAME)
    assert gone.status_code == 401 and gone.json()["error"] == "not_signed_in"


def test_sign_in_rotates_the_token(client: TestClient) -> None:
    sign_up(client, "ann")
    before = client.cookies[COOKIE]
    assert sign_in(client, "ann").status_code == 200
    after = client.cookies[COOKIE]
    assert after != before
    client.cookies.set(COOKIE, before)
    assert client.get("/api/account").json()["user"] is None


def test_wrong_credentials_say_nothing_of_which_part_was_wrong(client: TestClient) -> None:
    sign_up(client, "ann")
    wrong_password = sign_in(client, "ann", "not the password at all")
    no_such_name = sign_in(client, "nobody", GOOD)
    bad_name = sign_in(client, "no body", GOOD)
    answers = [r.json() for r in (wrong_password, no_such_name, bad_name)]
    assert all(r.status_code == 401 for r in (wrong_password, no_such_name, bad_name))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["error"] == "bad_credentials"


def test_sign_out_everywhere_ends_every_device(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    with client_on(url) as phone, client_on(url) as laptop:
        sign_up(phone, "ann")
        sign_in(laptop, "ann")
        assert laptop.get("/api/account").json()["user"] is not None
        ended = phone.post("/api/account/sign-out-everywhere", headers=SAME)
        assert ended.status_code == 200 and ended.json()["sessions_ended"] == 2
        assert phone.get("/api/account").json()["user"] is None
        assert laptop.get("/api/account").json()["user"] is None


def test_a_new_password_ends_the_other_sessions_and_the_old_password(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    new = "a brand new passphrase"
    with client_on(url) as phone, client_on(url) as laptop:
        sign_up(phone, "ann")
        sign_in(laptop, "ann")
        wrong = phone.post(
            "/api/account/password", json={"current": "not it at all", "new": new}, headers=SAME
        )
        assert wrong.status_code == 401 and laptop.get("/api/account").json()["user"] is not None
        weak = phone.post(
            "/api/account/password", json={"current": GOOD, "new": "password"}, headers=SAME
        )
        assert weak.status_code == 400 and weak.json()["error"] == "weak_password"
        changed = phone.post(
            "/api/account/password", json={"current": GOOD, "new": new}, headers=SAME
        )
        assert changed.status_code == 200
        assert phone.get("/api/account").json()["user"] is not None  # a new session here
        assert laptop.get("/api/account").json()["user"] is None
        assert sign_in(laptop, "ann", GOOD).status_code == 401
        assert sign_in(laptop, "ann", new).status_code == 200


def _accounts(url: str, config: AccountConfig) -> tuple[Store, Accounts]:
    store = Store(url)
    store.migrate()
    return store, Accounts(store, config)


def test_a_session_ends_when_idle_and_at_its_absolute_timeout(tmp_path: Path) -> None:
    config = AccountConfig(
        hash_time_cost=1,
        hash_memory_kib=1024,
        idle_seconds=100.0,
        session_seconds=1000.0,
        touch_seconds=10.0,
    )
    store, accounts = _accounts(sqlite_url(tmp_path), config)

    async def live(token: str, now: float) -> bool:
        found = await accounts.session(token, now)
        await store.run(lambda: None)  # the noted use is written before the next look
        return found is not None

    async def run() -> None:
        _, token = await accounts.sign_up("ann", GOOD, "a", 0.0)
        assert await live(token, 99.0)
        assert await live(token, 150.0)  # used at 99: not idle
        assert not await live(token, 250.0)  # idle since 150
        _, token = await accounts.sign_in("ann", GOOD, "a", 300.0)
        for now in range(350, 1300, 50):  # used every 50 s: never idle ...
            assert await live(token, float(now)), now
        assert not await live(token, 1301.0)  # ... but over at 300 + 1000

    try:
        asyncio.run(run())
    finally:
        store.close()


def test_a_stored_token_hash_is_not_a_token(client: TestClient) -> None:
    sign_up(client, "ann")
    token = client.cookies[COOKIE]
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    with store.engine.connect() as connection:
        kept = list(connection.execute(sa.select(account_sessions.c.token_hash)).scalars())
    assert kept == [token_hash(token)] and token not in kept
    client.cookies.set(COOKIE, kept[0])
    assert client.get("/api/account").json()["user"] is None


# -- cross-site requests ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},  # no custom header: a plain HTML form could send this
        {HEADER: "1", "Sec-Fetch-Site": "cross-site"},
        {HEADER: "1", "Sec-Fetch-Site": "same-site"},  # a sibling subdomain is another site
        {HEADER: "1", "Origin": "https://evil.example"},
        {HEADER: "1", "Origin": "null"},
    ],
)
def test_a_cross_site_request_is_refused_and_changes_nothing(
    client: TestClient, headers: dict[str, str]
) -> None:
    sign_up(client, "ann")
    refused = client.post("/api/account/sign-out-everywhere", headers=headers)
    assert refused.status_code == 403 and refused.json()["error"] == "cross_site"
    assert refused.headers["content-security-policy"]  # the Guard's headers still come
    assert client.get("/api/account").json()["user"] is not None
    forged_sign_in = client.post(
        "/api/account/sign-in", json={"name": "ann", "password": GOOD}, headers=headers
    )
    assert forged_sign_in.status_code == 403


def test_the_servers_own_pages_pass(client: TestClient) -> None:
    sign_up(client, "ann")
    own = {HEADER: "1", "Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"}
    assert client.post("/api/account/sign-out", headers=own).status_code == 200


def test_any_state_changing_request_with_the_cookie_is_checked(client: TestClient) -> None:
    body = {"game": "poison-pot", "host_name": None}
    cross_site = {"Sec-Fetch-Site": "cross-site"}
    # A guest's request carries no session: another site's page gains nothing by it.
    assert client.post("/api/rooms", json=body, headers=cross_site).status_code == 201
    sign_up(client, "ann")
    cross = client.post("/api/rooms", json=body, headers=cross_site)
    assert cross.status_code == 403 and cross.json()["error"] == "cross_site"
    evil = client.post("/api/rooms", json=body, headers={"Origin": "https://evil.example"})
    assert evil.status_code == 403
    # The lobby's own request (same origin, no custom header) passes.
    own = {"Sec-Fetch-Site": "same-origin", "Origin": "http://testserver"}
    assert client.post("/api/rooms", json=body, headers=own).status_code == 201
    assert client.get("/api/rooms", headers=cross_site).status_code == 200  # reading: never


# -- rate limits ------------------------------------------------------------------------------


def test_sign_in_attempts_are_limited_per_account_and_per_address(db_url: str) -> None:
    config = AccountConfig(attempts_per_account=3, attempts_per_address=5)
    store, accounts = _accounts(db_url, config)
    # Another process on the same database: it shares the counts.
    other = Accounts(Store(db_url), config)

    async def run() -> None:
        for address, where in (("1", accounts), ("2", other), ("3", accounts)):
            await where.throttle("ann", address, 60.0)  # one account, three addresses
        with pytest.raises(TooManyAttempts, match="for this account"):
            await other.throttle("ANN", "4", 61.0)  # the name's case buys no more
        await accounts.throttle("ann", "4", 120.0)  # the next minute: a new share
        for name in ("b1", "b2", "b3", "b4"):  # one address, many names (its fifth)
            await other.throttle(name, "4", 121.0)
        with pytest.raises(TooManyAttempts, match="from your address"):
            await accounts.throttle("b5", "4", 122.0)

    try:
        asyncio.run(run())
        with store.engine.connect() as connection:  # only the last minutes are kept
            kept = connection.execute(sa.select(sign_in_attempts.c.minute)).scalars()
            assert set(kept) <= {1, 2}
    finally:
        store.close()
        other.store.close()


def test_too_many_attempts_is_429_even_with_the_right_password(tmp_path: Path) -> None:
    config = AccountConfig(hash_time_cost=1, hash_memory_kib=1024, attempts_per_account=3)
    with client_on(sqlite_url(tmp_path), config) as client:
        sign_up(client, "ann")
        assert [sign_in(client, "ann", "wrong wrong wrong").status_code for _ in range(3)] == [
            401,
            401,
            401,
        ]
        limited = sign_in(client, "ann")
        assert limited.status_code == 429 and limited.json()["error"] == "too_many_attempts"


# -- deletion ---------------------------------------------------------------------------------


def every_row(store: Store) -> str:
    """Every row of every table of the database, as one text."""
    found = []
    with store.engine.connect() as connection:
        for name in sorted(sa.inspect(connection).get_table_names()):
            rows = connection.execute(sa.text(f"SELECT * FROM {name}")).all()
            found.append(f"{name}: {rows!r}")
    return "\n".join(found)


def test_deleting_an_account_leaves_no_row_and_frees_the_name(client: TestClient) -> None:
    sign_up(client, "Zebulon")
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    assert "Zebulon" in every_row(store)  # the check can see a name
    wrong = client.post("/api/account/delete", json={"password": "not it at all"}, headers=SAME)
    assert wrong.status_code == 401
    deleted = client.post("/api/account/delete", json={"password": GOOD}, headers=SAME)
    assert deleted.status_code == 200
    everything = every_row(store)
    assert "zebulon" not in everything.lower()
    with store.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(users)).scalar() == 0
        count = sa.select(sa.func.count()).select_from(account_sessions)
        assert connection.execute(count).scalar() == 0
    assert client.get("/api/account").json()["user"] is None
    assert sign_in(client, "Zebulon").status_code == 401
    assert sign_up(client, "zebulon").status_code == 201  # the name is free again


# -- the whole life, on SQLite and PostgreSQL -------------------------------------------------


def test_an_account_lives_and_dies_on_either_database(db_url: str) -> None:
    with client_on(db_url) as client:
        assert sign_up(client, "Ann").status_code == 201
        assert sign_up(client, "ann").status_code == 409
        assert sign_in(client, "ANN").status_code == 200
        new = {"current": GOOD, "new": "another fine passphrase"}
        assert client.post("/api/account/password", json=new, headers=SAME).status_code == 200
        gone = client.post("/api/account/delete", json={"password": new["new"]}, headers=SAME)
        assert gone.status_code == 200
        assert client.get("/api/account").json()["user"] is None


# -- the migration ----------------------------------------------------------------------------


def test_0007_adds_the_accounts_to_a_populated_database_and_goes_back(db_url: str) -> None:
    """A database at the previous head (0006) with a played room upgrades in
    place: the room is as it was, the accounts work, and going back drops them."""
    old = Store(db_url)
    with old.engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0006")
    room = played_room(old, 4)
    assert schema_drift(old) != []  # the planted difference: the tables 0007 adds
    old.close()
    with client_on(db_url) as client:  # the app migrates at start
        store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
        assert store.revision() == HEAD and schema_drift(store) == []
        loaded = store.load(room.code)
        assert loaded is not None and loaded.snapshot() == room.snapshot()
        assert sign_up(client, "ann").status_code == 201
        assert client.get("/api/account").json()["user"]["name"] == "ann"
    store = Store(db_url)
    try:
        with store.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "0006")
        tables = sa.inspect(store.engine).get_table_names()
        assert "users" not in tables and "account_sessions" not in tables
        assert store.load(room.code) is not None
    finally:
        store.close()


def test_a_hash_of_weaker_parameters_is_replaced_at_the_next_sign_in(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    store, weak = _accounts(url, AccountConfig(hash_time_cost=1, hash_memory_kib=1024))
    stronger = Accounts(store, AccountConfig(hash_time_cost=2, hash_memory_kib=2048))

    def stored() -> str:
        with store.engine.connect() as connection:
            return str(connection.execute(sa.select(users.c.password_hash)).scalar())

    try:
        asyncio.run(weak.sign_up("ann", GOOD, "a", 0.0))
        assert stored().startswith("$argon2id$") and "m=1024,t=1" in stored()
        asyncio.run(stronger.sign_in("ann", GOOD, "a", 1.0))
        assert "m=2048,t=2" in stored()
        asyncio.run(weak.sign_in("ann", GOOD, "a", 2.0))  # still the same password
    finally:
        store.close()
