"""``GET /api/games/{name}/rules?lang=...``: the rules page in a language, or in
English when the game has no page in it; a ``lang`` that is no language tag is
a clear 400 (docs/protocol.md's error body)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from serving import app_client, sqlite_url

import apothecary

GAME = "in-vino-morte"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(sqlite_url(tmp_path)) as test_client:
        yield test_client


@pytest.mark.parametrize("lang", ["fr", "de", "es", "de-AT"])
def test_the_route_serves_the_translated_page(client: TestClient, lang: str) -> None:
    response = client.get(f"/api/games/{GAME}/rules", params={"lang": lang})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    translated = apothecary.game_class(GAME).rules_page(lang)
    assert translated is not None and translated != apothecary.game_class(GAME).rules_page()
    assert response.text == translated


@pytest.mark.parametrize("query", ["", "?lang=", "?lang=en", "?lang=ja"])
def test_no_language_or_an_untranslated_one_is_english(client: TestClient, query: str) -> None:
    response = client.get(f"/api/games/{GAME}/rules{query}")
    assert response.status_code == 200
    assert response.text == apothecary.game_class(GAME).rules_page()


def test_a_lang_that_is_no_language_tag_is_refused_by_code(client: TestClient) -> None:
    response = client.get(f"/api/games/{GAME}/rules", params={"lang": "../../etc"})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "bad_language" and "not a language tag" in body["message"]
    too_long = client.get(f"/api/games/{GAME}/rules", params={"lang": "x" * 36})
    assert too_long.status_code == 422  # the query's length limit, before any lookup
