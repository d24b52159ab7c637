"""A software WebAuthn authenticator for server tests: it makes the JSON a browser
sends after ``navigator.credentials.create`` and ``.get`` (attestation "none", an
ES256 key), signed for real, so the server's verification is the one a browser's
answer meets. Each answer can be bent one way (another origin, another key's
signature, a signature count that does not grow) to check a refusal.

WebAuthn level 2: authenticator data is the RP ID's SHA-256, a flags byte, a
4-byte signature count and, at registration, the attested credential (AAGUID,
the id's length and the id, the COSE public key); an assertion's signature is
over the authenticator data followed by the SHA-256 of the clientDataJSON."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40
"""The flags: user present, user verified, attested credential data included."""


def b64(data: bytes) -> str:
    """base64url without padding, as WebAuthn's JSON has it."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _cose(key: ec.EllipticCurvePrivateKey) -> bytes:
    numbers = key.public_key().public_numbers()
    return cbor2.dumps(
        {
            1: 2,  # kty: EC2
            3: -7,  # alg: ES256
            -1: 1,  # crv: P-256
            -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big"),
        }
    )


@dataclass
class SoftAuthenticator:
    """One passkey's authenticator: its key, its credential id, its count."""

    origin: str = "http://testserver"
    rp_id: str = "testserver"
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    sign_count: int = 0
    user_handle: str | None = None

    def _client_data(self, kind: str, options: dict[str, Any], origin: str | None) -> bytes:
        return json.dumps(
            {
                "type": kind,
                "challenge": options["challenge"],
                "origin": origin or self.origin,
                "crossOrigin": False,
            }
        ).encode()

    def _auth_data(self, flags: int, rp_id: str | None, extra: bytes = b"") -> bytes:
        rp_hash = hashlib.sha256((rp_id or self.rp_id).encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.sign_count) + extra

    def create(
        self, options: dict[str, Any], origin: str | None = None, rp_id: str | None = None
    ) -> dict[str, Any]:
        """The answer to registration ``options`` (the server's JSON of them)."""
        self.user_handle = options["user"]["id"]
        attested = (
            bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id
        ) + _cose(self.key)
        auth_data = self._auth_data(UP | UV | AT, rp_id, attested)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(self._client_data("webauthn.create", options, origin)),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(
        self,
        options: dict[str, Any],
        origin: str | None = None,
        signer: ec.EllipticCurvePrivateKey | None = None,
        count: int | None = None,
    ) -> dict[str, Any]:
        """The answer to sign-in ``options``: the count goes up by one (or is
        ``count``), signed by this passkey's key (or ``signer``'s: a forgery)."""
        self.sign_count = self.sign_count + 1 if count is None else count
        client_data = self._client_data("webauthn.get", options, origin)
        auth_data = self._auth_data(UP | UV, None)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = (signer or self.key).sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": self.user_handle,
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
