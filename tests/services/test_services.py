"""The real-service fixtures of tests/support/services.py: they give working, isolated servers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

import services

SUPPORT = Path(services.__file__).resolve().parent


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _require(find: Callable[[], object], service: str) -> None:
    """The fixtures' rule for tests that start servers themselves: fail in CI, else skip."""
    try:
        find()
    except services.ServiceMissing as exc:
        services.missing(service, str(exc))


def test_free_port_can_be_bound() -> None:
    port = services.free_port()
    assert 1024 <= port <= 65535
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


# --- PostgreSQL ---------------------------------------------------------------------------------


def test_postgres_url_is_a_psycopg_url_on_loopback(postgres_url: str) -> None:
    url = make_url(postgres_url)
    assert url.drivername == "postgresql+psycopg"
    if not os.environ.get("APOTHECARY_TEST_POSTGRES"):
        assert url.host == "127.0.0.1"


def test_postgres_round_trip(postgres_db_url: str) -> None:
    engine = create_engine(postgres_db_url)
    try:
        with engine.begin() as conn:
            assert conn.dialect.name == "postgresql"
            conn.execute(text("CREATE TABLE potions (id serial PRIMARY KEY, name text NOT NULL)"))
            conn.execute(
                text("INSERT INTO potions (name) VALUES (:name)"),
                [{"name": "hemlock"}, {"name": "belladonna"}],
            )
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, name FROM potions ORDER BY id")).all()
            version = conn.execute(text("SHOW server_version_num")).scalar_one()
    finally:
        engine.dispose()
    assert [tuple(row) for row in rows] == [(1, "hemlock"), (2, "belladonna")]
    assert int(version) >= 130000  # DROP DATABASE ... WITH (FORCE) needs 13


@pytest.mark.parametrize("attempt", range(3))
def test_each_test_gets_a_fresh_empty_database(postgres_db_url: str, attempt: int) -> None:
    # The same table name every time: a database left over from another test would already
    # have it (or a row in it).
    engine = create_engine(postgres_db_url)
    try:
        assert inspect(engine).get_table_names() == []
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE shared_name (attempt int)"))
            conn.execute(text("INSERT INTO shared_name VALUES (:a)"), {"a": attempt})
        with engine.connect() as conn:
            assert conn.execute(text("SELECT attempt FROM shared_name")).scalars().all() == [
                attempt
            ]
    finally:
        engine.dispose()


def test_per_test_databases_are_separate_and_dropped(
    postgres_url: str, postgres_db_url: str
) -> None:
    mine = make_url(postgres_db_url).database
    assert mine != make_url(postgres_url).database
    engine = create_engine(postgres_db_url)
    session_engine = create_engine(postgres_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE only_here (x int)"))
        assert "only_here" not in inspect(session_engine).get_table_names()
        if os.environ.get("APOTHECARY_TEST_POSTGRES"):
            return  # a shared server holds other workers' databases too
        with session_engine.connect() as conn:
            names = conn.execute(
                text("SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%'")
            ).scalars()
            # Earlier tests on this worker's server have dropped theirs.
            assert set(names) == {mine}
    finally:
        engine.dispose()
        session_engine.dispose()


# --- Redis --------------------------------------------------------------------------------------


def test_redis_round_trip_and_pubsub(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        key = f"apothecary-test:{os.getpid()}:{time.monotonic_ns()}"
        client.set(key, "arsenic")
        assert client.get(key) == b"arsenic"
        client.delete(key)

        # Pub/sub is what the multi-process fan-out uses.
        pubsub = client.pubsub()  # type: ignore[no-untyped-call]
        pubsub.subscribe(key)
        first = pubsub.get_message(timeout=5)
        assert first is not None and first["type"] == "subscribe"
        assert client.publish(key, "a move") == 1
        message = pubsub.get_message(timeout=5)
        assert message is not None and message["data"] == b"a move"
        pubsub.close()
    finally:
        client.close()


# --- Chromium -----------------------------------------------------------------------------------


def test_chromium_renders_a_page_headless(chromium_path: str, tmp_path: Path) -> None:
    # --no-sandbox: Chromium's sandbox refuses to run as root (CI runs as root).
    done = subprocess.run(
        [
            chromium_path,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            "data:text/html,<p id=x>hemlock</p>",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert '<p id="x">hemlock</p>' in done.stdout, done.stderr[-2000:]


# --- the rules for missing services, and cleanup after a crash -------------------------------

MISSING_TESTS = """
def test_pg(postgres_url):
    pass

def test_redis(redis_url):
    pass

def test_chromium(chromium_path):
    pass
"""


def _run_inner_pytest(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    """Run pytest on three tests whose services point at missing binaries."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # its own rootdir, not the project's
    (tmp_path / "test_missing.py").write_text(MISSING_TESTS)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "APOTHECARY_"))}
    env.pop("CI", None)
    env.update(
        PYTHONPATH=str(SUPPORT),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        APOTHECARY_PG_BIN=str(tmp_path / "no-postgres"),
        APOTHECARY_REDIS_SERVER=str(tmp_path / "no-redis-server"),
        APOTHECARY_CHROMIUM=str(tmp_path / "no-chromium"),
    )
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "services", "-q", "-rA", "test_missing.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_missing_services_fail_in_ci(tmp_path: Path) -> None:
    done = _run_inner_pytest(tmp_path, ci=True)
    assert done.returncode == 1, done.stdout
    assert "3 errors" in done.stdout, done.stdout
    for service in ("PostgreSQL", "Redis", "Chromium"):
        assert f"CI=true and {service} is not available" in done.stdout, done.stdout


def test_missing_services_skip_elsewhere(tmp_path: Path) -> None:
    done = _run_inner_pytest(tmp_path, ci=False)
    assert done.returncode == 0, done.stdout
    assert "3 skipped" in done.stdout, done.stdout
    assert "Install it with: apt-get install" in done.stdout, done.stdout


CRASHING_SESSION = """
import json, sys, time
from sqlalchemy import create_engine, text
import redis
import services

# Entered and never exited, as in a test process that is killed. (Keep the context managers:
# were they garbage-collected, their generators would close and tidy up on their own.)
pg_server, redis_server = services.postgres_server(), services.redis_server()
pg, rd = pg_server.__enter__(), redis_server.__enter__()
engine = create_engine(pg)
with engine.connect() as conn:
    pg_data = conn.execute(text("SHOW data_directory")).scalar_one()
engine.dispose()
client = redis.Redis.from_url(rd)
rd_dir = client.config_get("dir")["dir"]
client.close()
print(json.dumps({"pg": pg, "pg_data": pg_data, "redis": rd, "redis_dir": rd_dir}), flush=True)
time.sleep(600)
"""


def test_servers_are_cleaned_up_when_the_test_process_is_killed() -> None:
    if os.environ.get("APOTHECARY_TEST_POSTGRES") or os.environ.get("APOTHECARY_TEST_REDIS"):
        pytest.skip("the servers come from the environment; the fixtures start none")
    _require(services.find_pg_bin, "PostgreSQL")
    _require(services.find_redis_server, "Redis")
    env = {**os.environ, "PYTHONPATH": str(SUPPORT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CRASHING_SESSION],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        started = json.loads(child.stdout.readline())
    finally:
        # SIGKILL: no finalizer, no atexit. Only the reapers can clean up now.
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    pg_port = make_url(started["pg"]).port
    assert pg_port is not None
    redis_port = int(started["redis"].rsplit(":", 1)[1].split("/")[0])
    folders = [Path(started["pg_data"]).parent, Path(started["redis_dir"])]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        gone = not any(_listening(p) for p in (pg_port, redis_port))
        if gone and not any(f.exists() for f in folders):
            break
        time.sleep(0.1)
    assert not _listening(pg_port), "PostgreSQL survived its test process"
    assert not _listening(redis_port), "Redis survived its test process"
    assert not any(f.exists() for f in folders), folders
