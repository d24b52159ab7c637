"""Passkeys (docs/accounts.md#passkeys) against the server's real verification, with
a software authenticator (tests/support/soft_authenticator.py) signing real answers:
register while signed in, sign in with no name and with one, list and remove;
and the refusals: a forged signature, a replayed answer, another origin or RP ID,
an expired challenge, a signature count that does not grow (a cloned
authenticator), another account's challenge or passkey, a cross-site request."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi.testclient import TestClient
from serving import sqlite_url
from soft_authenticator import SoftAuthenticator, b64
from test_accounts import GOOD, QUICK, SAME, client_on, every_row, sign_up

from apothecary.server.accounts import Accounts
from apothecary.server.passkeys import (
    CHALLENGE_SECONDS,
    PasskeyExpired,
    PasskeyRefused,
    Passkeys,
    RelyingParty,
)
from apothecary.server.routes.account import COOKIE
from apothecary.server.store import Store, passkey_challenges

BASE = "/api/account/passkeys"


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with client_on(sqlite_url(tmp_path)) as made:
        yield made


def register(client: TestClient, device: SoftAuthenticator, label: str | None = None) -> Any:
    """Register ``device``'s passkey to the signed-in account; the server's answer."""
    options = client.post(f"{BASE}/register/options", json={"password": GOOD}, headers=SAME)
    assert options.status_code == 200, options.text
    body: dict[str, Any] = {"credential": device.create(options.json()["options"])}
    if label is not None:
        body["label"] = label
    return client.post(f"{BASE}/register", json=body, headers=SAME)


def sign_in_options(client: TestClient, name: str | None = None) -> dict[str, Any]:
    answer = client.post(f"{BASE}/sign-in/options", json={"name": name}, headers=SAME)
    assert answer.status_code == 200, answer.text
    options: dict[str, Any] = answer.json()["options"]
    return options


def passkey_sign_in(client: TestClient, credential: dict[str, Any]) -> Any:
    return client.post(f"{BASE}/sign-in", json={"credential": credential}, headers=SAME)


def signed_up_with_passkey(client: TestClient, name: str) -> SoftAuthenticator:
    """An account ``name`` with one passkey, then signed out."""
    assert sign_up(client, name).status_code == 201
    device = SoftAuthenticator()
    made = register(client, device, "laptop")
    assert made.status_code == 201, made.text
    client.post("/api/account/sign-out", headers=SAME)
    assert client.get("/api/account").json() == {"user": None}
    return device


def refused(answer: Any, code: str, words: str) -> None:
    assert answer.status_code == 401, answer.text
    assert answer.json()["error"] == code and words in answer.json()["message"]


def test_register_then_sign_in_with_no_user_name(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    options = sign_in_options(client)
    assert options["allowCredentials"] == []  # discoverable: the authenticator offers its own
    assert options["userVerification"] == "required"
    signed = passkey_sign_in(client, device.get(options))
    assert signed.status_code == 200, signed.text
    assert signed.json()["user"]["name"] == "Ottoline"
    assert "httponly" in signed.headers["set-cookie"].lower()
    assert client.get("/api/account").json()["user"]["name"] == "Ottoline"
    listed = client.get(BASE).json()["passkeys"]
    assert [(key["label"], key["id"]) for key in listed] == [("laptop", b64(device.credential_id))]
    assert listed[0]["last_used"] is not None


def test_with_a_user_name_only_its_passkeys_are_offered(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    mine = sign_in_options(client, "ottoline")
    assert [entry["id"] for entry in mine["allowCredentials"]] == [b64(device.credential_id)]
    nobody = sign_in_options(client, "nobodyatall")  # no account: nothing offered, nothing said
    assert nobody["allowCredentials"] == []
    assert passkey_sign_in(client, device.get(mine)).status_code == 200


def test_a_forged_signature_is_refused_and_signs_nobody_in(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    forger = ec.generate_private_key(ec.SECP256R1())
    forged = device.get(sign_in_options(client), signer=forger)
    refused(passkey_sign_in(client, forged), "bad_passkey", "signature")
    assert COOKIE not in client.cookies
    assert client.get("/api/account").json() == {"user": None}


def test_a_replayed_answer_is_refused(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    answer = device.get(sign_in_options(client))
    assert passkey_sign_in(client, answer).status_code == 200
    client.post("/api/account/sign-out", headers=SAME)
    refused(passkey_sign_in(client, answer), "bad_passkey", "no challenge waiting")
    assert client.get("/api/account").json() == {"user": None}


def test_a_failed_answer_spends_its_challenge(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    options = sign_in_options(client)
    forger = ec.generate_private_key(ec.SECP256R1())
    refused(passkey_sign_in(client, device.get(options, signer=forger)), "bad_passkey", "")
    # The right signature on that challenge, after a wrong one, finds it gone.
    refused(passkey_sign_in(client, device.get(options)), "bad_passkey", "no challenge waiting")


def test_an_answer_from_another_origin_is_refused(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    phished = device.get(sign_in_options(client), origin="https://evil.example")
    refused(passkey_sign_in(client, phished), "bad_passkey", "origin")
    assert client.get("/api/account").json() == {"user": None}


def test_a_registration_from_another_origin_or_rp_id_is_refused(client: TestClient) -> None:
    assert sign_up(client, "Ottoline").status_code == 201
    for bend, words in (
        ({"origin": "https://evil.example"}, "origin"),
        ({"rp_id": "evil.example"}, "RP ID"),
    ):
        options = client.post(
            f"{BASE}/register/options", json={"password": GOOD}, headers=SAME
        ).json()["options"]
        answer = SoftAuthenticator().create(options, **bend)
        refused(
            client.post(f"{BASE}/register", json={"credential": answer}, headers=SAME),
            "bad_passkey",
            words,
        )
    assert client.get(BASE).json() == {"passkeys": []}


def test_a_signature_count_that_does_not_grow_is_refused(client: TestClient) -> None:
    """WebAuthn §6.1.1: a count not above the stored one may mean a cloned authenticator."""
    device = signed_up_with_passkey(client, "Ottoline")
    assert passkey_sign_in(client, device.get(sign_in_options(client), count=7)).status_code == 200
    client.post("/api/account/sign-out", headers=SAME)
    clone = device.get(sign_in_options(client), count=7)
    refused(passkey_sign_in(client, clone), "bad_passkey", "sign count")
    assert client.get("/api/account").json() == {"user": None}


def test_an_expired_challenge_is_refused_saying_so(tmp_path: Path) -> None:
    store = Store(sqlite_url(tmp_path))
    store.migrate()
    accounts = Accounts(store, QUICK)
    passkeys = Passkeys(accounts)
    rp = RelyingParty.of("http://testserver")
    device = SoftAuthenticator()

    async def run() -> None:
        _user, token = await accounts.sign_up("Ottoline", GOOD, "test", 1000.0)
        session = await accounts.session(token, 1000.0)
        assert session is not None
        late = 1000.0 + CHALLENGE_SECONDS + 1
        options = await passkeys.register_options(session, GOOD, "test", rp, 1000.0)
        with pytest.raises(PasskeyExpired, match="expired"):
            await passkeys.register(session, device.create(_json(options)), None, rp, late)
        options = await passkeys.register_options(session, GOOD, "test", rp, 1000.0)
        await passkeys.register(session, device.create(_json(options)), None, rp, 1010.0)
        options = await passkeys.sign_in_options(None, "test", rp, 2000.0)
        with pytest.raises(PasskeyExpired, match="expired"):
            await passkeys.sign_in(device.get(_json(options)), rp, 2000.0 + CHALLENGE_SECONDS)
        # In time, the same passkey signs in.
        options = await passkeys.sign_in_options(None, "test", rp, 3000.0)
        user, _token = await passkeys.sign_in(device.get(_json(options)), rp, 3001.0)
        assert user.name == "Ottoline"

    try:
        asyncio.run(run())
        with store.engine.connect() as connection:  # expired challenges are swept
            left = connection.execute(passkey_challenges.select()).all()
        assert left == []
    finally:
        store.close()


def _json(text: str) -> dict[str, Any]:
    import json

    found: dict[str, Any] = json.loads(text)
    return found


def test_not_a_passkeys_answer_is_refused_clearly(client: TestClient) -> None:
    for credential in ({}, {"response": {}}, {"response": {"clientDataJSON": "%%%"}}, {"id": 1}):
        refused(passkey_sign_in(client, credential), "bad_passkey", "not a passkey's answer")
    with pytest.raises(PasskeyRefused):
        from apothecary.server.passkeys import answered_challenge

        answered_challenge({"response": {"clientDataJSON": "bm90IGpzb24"}})  # "not json"


def test_one_accounts_challenge_or_passkey_is_not_anothers(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    with client_on(url) as ann, client_on(url) as bob:
        assert sign_up(ann, "Ann1").status_code == 201
        assert sign_up(bob, "Bob1").status_code == 201
        options = ann.post(
            f"{BASE}/register/options", json={"password": GOOD}, headers=SAME
        ).json()["options"]
        answer = SoftAuthenticator().create(options)
        # Bob's session answers Ann's challenge: refused, and nothing is Bob's.
        stolen = bob.post(f"{BASE}/register", json={"credential": answer}, headers=SAME)
        refused(stolen, "bad_passkey", "another account")
        assert bob.get(BASE).json() == {"passkeys": []}
        device = SoftAuthenticator()
        assert register(ann, device).status_code == 201
        key = ann.get(BASE).json()["passkeys"][0]["id"]
        gone = bob.post(f"{BASE}/{key}/delete", headers=SAME)
        assert gone.status_code == 404 and gone.json()["error"] == "no_passkey"
        assert len(ann.get(BASE).json()["passkeys"]) == 1
        assert ann.post(f"{BASE}/{key}/delete", headers=SAME).status_code == 200
        assert ann.get(BASE).json() == {"passkeys": []}
        # A removed passkey signs in no more.
        refused(passkey_sign_in(bob, device.get(sign_in_options(bob))), "bad_passkey", "no account")


def test_passkey_routes_need_a_session_and_refuse_cross_site_requests(client: TestClient) -> None:
    assert client.get(BASE).status_code == 401
    assert sign_up(client, "Ottoline").status_code == 201
    # A session alone does not add a passkey: the password is asked again.
    wrong = client.post(
        f"{BASE}/register/options", json={"password": "not it at all"}, headers=SAME
    )
    assert wrong.status_code == 401 and wrong.json()["error"] == "bad_credentials"
    client.post("/api/account/sign-out", headers=SAME)
    assert (
        client.post(f"{BASE}/register/options", json={"password": GOOD}, headers=SAME).status_code
        == 401
    )
    no_header = client.post(f"{BASE}/sign-in/options", json={})
    assert no_header.status_code == 403 and no_header.json()["error"] == "cross_site"
    cross = client.post(
        f"{BASE}/sign-in", json={"credential": {}}, headers={**SAME, "Sec-Fetch-Site": "cross-site"}
    )
    assert cross.status_code == 403 and cross.json()["error"] == "cross_site"


def test_deleting_the_account_deletes_its_passkeys(client: TestClient) -> None:
    device = signed_up_with_passkey(client, "Ottoline")
    store: Store = client.app.state.hub.store  # type: ignore[attr-defined]
    signed = passkey_sign_in(client, device.get(sign_in_options(client)))
    assert signed.status_code == 200
    handle = device.user_handle
    assert handle is not None and handle in every_row(store)  # the check can see a handle
    assert (
        client.post("/api/account/delete", json={"password": GOOD}, headers=SAME).status_code == 200
    )
    rows = every_row(store)
    assert handle not in rows and b64(device.credential_id) not in rows and "Ottoline" not in rows
    refused(
        passkey_sign_in(client, device.get(sign_in_options(client))), "bad_passkey", "no account"
    )


def test_a_challenge_given_by_one_process_is_answered_on_another(db_url: str) -> None:
    """Two apps on one database, as two server processes: the challenge is in the
    store, so either answers it, and only once between them."""
    with client_on(db_url) as one, client_on(db_url) as two:
        device = signed_up_with_passkey(one, "Ottoline")
        options = sign_in_options(one)
        answer = device.get(options)
        signed = passkey_sign_in(two, answer)
        assert signed.status_code == 200, signed.text
        assert two.get("/api/account").json()["user"]["name"] == "Ottoline"
        refused(passkey_sign_in(one, answer), "bad_passkey", "no challenge waiting")
        # The session two made is good on one too (sessions are in the store as well).
        one.cookies.set(COOKIE, two.cookies[COOKIE])
        assert one.get("/api/account").json()["user"]["name"] == "Ottoline"
