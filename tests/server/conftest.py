"""Fixtures shared by the server tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database, once a SQLite file and once a real PostgreSQL
    (``postgres_db_url``): a test taking it runs on both."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'db.sqlite3'}"
    url: str = request.getfixturevalue("postgres_db_url")
    return url
