"""Real services for the tests: a throwaway PostgreSQL cluster, a Redis server, Chromium.

Loaded as a pytest plugin by ``tests/conftest.py``, so every test can ask for

- ``postgres_url``: an SQLAlchemy URL (``postgresql+psycopg://...``) of a database on a real
  PostgreSQL server, shared by the tests of one pytest process (one xdist worker);
- ``postgres_db_url``: the URL of a fresh, empty database that exists only for one test;
- ``redis_url``: ``redis://127.0.0.1:PORT/0`` of a real Redis server, shared per process;
- ``chromium_path``: the Chromium binary (Debian's ``chromium``) for browser tests.

A service comes from the environment when ``APOTHECARY_TEST_POSTGRES``, ``APOTHECARY_TEST_REDIS``
or ``APOTHECARY_CHROMIUM`` is set. Otherwise the fixture starts its own server from the installed
binaries, in a temporary folder, on a free loopback port, and stops and deletes it when the
session ends. Each xdist worker starts its own server: a cluster starts in well under a second,
and nothing has to be shared, locked or reference-counted between workers.

When a service is not installed, the tests that need it are skipped on a developer's machine
(with the command that installs it), but *fail* when ``CI`` is true: CI must never pass by
quietly skipping the real-database tests. ``APOTHECARY_PG_BIN`` (the folder with ``initdb`` and
``pg_ctl``) and ``APOTHECARY_REDIS_SERVER`` (the ``redis-server`` binary) override where the
binaries are looked for; pointing them at a missing path is how the tests check that rule.

A test run that dies without tearing down (SIGKILL, an xdist worker crash, a CI timeout) must not
leave servers behind, because a service's finalizer never runs then. So every server is watched
by a small reaper process (this file run as a script) that holds a pipe from the test process;
when the pipe reaches end of file (the test process is gone, however it ended), the reaper stops
the server and deletes its folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn

import pytest

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

INSTALL_HINT = (
    "apt-get install -y --no-install-recommends postgresql redis-server chromium"
    " (or run `bash .ci/run`, which installs what is missing)"
)

#: How long a server may take to accept connections before the fixture gives up.
START_TIMEOUT = 60.0


class ServiceMissing(Exception):
    """A service's binaries are not installed (as opposed to installed but failing)."""


def in_ci() -> bool:
    """Whether we run under CI, where a missing service is an error, never a skip."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1"}


def missing(service: str, detail: str) -> NoReturn:
    """Fail (in CI) or skip (elsewhere) the requesting test because ``service`` is missing."""
    message = f"{service} is not available: {detail}. Install it with: {INSTALL_HINT}"
    if in_ci():
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now.

    The port is only free at the moment of asking: another process may take it before the
    caller binds it, so the servers below retry with a new port when they fail to start.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- running commands as an unprivileged user -------------------------------------------------


@dataclass(frozen=True)
class RunAs:
    """The user that runs a server's commands (``None`` fields: the current user)."""

    uid: int | None = None
    gid: int | None = None

    @classmethod
    def for_postgres(cls) -> RunAs:
        """PostgreSQL refuses to run as root: as root, run it as ``postgres`` (or ``nobody``).

        Debian's ``postgresql`` package creates the ``postgres`` system user; ``nobody`` is the
        fallback for a server installed some other way. Switching uid inside ``subprocess``
        needs no ``runuser``/``sudo`` binary and keeps the environment as it is.
        """
        if os.geteuid() != 0:
            return cls()
        for name in ("postgres", "nobody"):
            with contextlib.suppress(KeyError):
                entry = pwd.getpwnam(name)
                return cls(entry.pw_uid, entry.pw_gid)
        raise RuntimeError("running as root, and there is no 'postgres' or 'nobody' user")

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``subprocess`` that switch to this user."""
        if self.uid is None:
            return {}
        # extra_groups=[] drops root's supplementary groups along with its uid and gid.
        return {"user": self.uid, "group": self.gid, "extra_groups": []}

    def to_json(self) -> list[int | None]:
        """The form the reaper receives."""
        return [self.uid, self.gid]


def _run(argv: list[str], run_as: RunAs, timeout: float = START_TIMEOUT) -> str:
    """Run a command to completion; return its output, or raise with the output on failure."""
    done = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        # The user we switch to may not be able to enter the caller's working directory.
        cwd="/",
        check=False,
        **run_as.kwargs(),
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)} exited with {done.returncode}:\n{done.stdout}{done.stderr}"
        )
    output: str = done.stdout  # (mypy cannot pick the text overload through **kwargs)
    return output


def _service_dir(prefix: str, run_as: RunAs) -> Path:
    """A new temporary folder for one server, owned by the user that runs it.

    Short on purpose (PostgreSQL puts its Unix socket in it, and socket paths are limited to
    about 100 bytes), and directly under a temp dir that the server's user can enter: a root
    TMPDIR such as /root/tmp would not be, so as root we fall back to /tmp.
    """
    base = tempfile.gettempdir()
    if run_as.uid is not None and not _enterable_by_others(Path(base)):
        base = "/tmp"
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=base))
    if run_as.uid is not None and run_as.gid is not None:
        os.chown(path, run_as.uid, run_as.gid)
    return path


def _enterable_by_others(path: Path) -> bool:
    """Whether every folder from / down to ``path`` lets other users pass through."""
    full = path.resolve()
    return all(part.stat().st_mode & 0o001 for part in [full, *full.parents])


def _tail(path: Path, lines: int = 30) -> str:
    """The end of a log file, for error messages ("" when there is none)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# --- the reaper ---------------------------------------------------------------------------------


class Reaper:
    """A watchdog process that cleans up a server if this process dies without doing so.

    It reads cleanup actions, one JSON object a line, from a pipe whose only writer is this
    process. At end of file (we closed it, exited, or were killed) it performs the actions it
    holds, in reverse order. A clean teardown does its own cleanup first and then sends
    ``disarm``, so the reaper does nothing and, above all, never signals a recycled pid.

    The reaper runs in its own session, so a signal to our process group (Ctrl-C, a CI runner
    killing the job) does not take it down before it has cleaned up, and its output goes to
    /dev/null so it never holds a CI log pipe open.
    """

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--reap"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,
            text=True,
        )
        assert self._proc.stdin is not None
        self._pipe: IO[str] = self._proc.stdin

    def _send(self, action: dict[str, Any]) -> None:
        self._pipe.write(json.dumps(action) + "\n")
        self._pipe.flush()

    def run_on_death(self, argv: list[str], run_as: RunAs) -> None:
        """Run ``argv`` (as ``run_as``) should we die."""
        self._send({"run": argv, "as": run_as.to_json()})

    def kill_on_death(self, pid: int) -> None:
        """SIGKILL ``pid`` should we die."""
        self._send({"kill": pid})

    def kill_pidfile_on_death(self, pidfile: Path) -> None:
        """SIGKILL the process whose pid heads ``pidfile``, if that file still exists then."""
        self._send({"kill_pidfile": str(pidfile)})

    def remove_on_death(self, path: Path) -> None:
        """Delete the folder ``path`` should we die."""
        self._send({"rmtree": str(path)})

    def close(self, disarm: bool = True) -> None:
        """Let the reaper exit: doing nothing (``disarm``, we cleaned up) or its cleanup."""
        with contextlib.suppress(OSError):
            if disarm:
                self._send({"disarm": True})
            self._pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=10)


def _reap_main() -> None:
    """The reaper process: collect actions until end of file, then perform them."""
    # Ignore Ctrl-C and hang-ups: only the end of the pipe tells the reaper to act.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    actions: list[dict[str, Any]] = []
    for line in sys.stdin:
        action = json.loads(line)
        if action.get("disarm"):
            return
        actions.append(action)
    for action in reversed(actions):
        with contextlib.suppress(Exception):
            if "run" in action:
                uid, gid = action["as"]
                _run(action["run"], RunAs(uid, gid), timeout=30)
            elif "kill" in action:
                os.kill(action["kill"], signal.SIGKILL)
            elif "kill_pidfile" in action:
                _kill_pidfile(Path(action["kill_pidfile"]))
            elif "rmtree" in action:
                shutil.rmtree(action["rmtree"], ignore_errors=True)


def _kill_pidfile(pidfile: Path) -> None:
    """SIGKILL the process named on the first line of ``pidfile`` (nothing if it is gone)."""
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


# --- PostgreSQL ---------------------------------------------------------------------------------


def find_pg_bin() -> Path:
    """The folder with PostgreSQL's server binaries (``initdb``, ``pg_ctl``).

    ``APOTHECARY_PG_BIN`` wins when set. Debian keeps the binaries out of PATH, in
    /usr/lib/postgresql/<major>/bin; the newest major version is taken. Elsewhere (Homebrew,
    a source build) ``pg_ctl`` is usually on PATH.
    """
    override = os.environ.get("APOTHECARY_PG_BIN")
    if override:
        candidates = [Path(override)]
    else:
        debian = sorted(
            Path("/usr/lib/postgresql").glob("*/bin"),
            key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
            reverse=True,
        )
        on_path = shutil.which("pg_ctl")
        candidates = [*debian, *([Path(on_path).parent] if on_path else [])]
    for folder in candidates:
        if all(os.access(folder / tool, os.X_OK) for tool in ("initdb", "pg_ctl")):
            return folder
    where = override or "/usr/lib/postgresql/*/bin or PATH"
    raise ServiceMissing(f"no initdb and pg_ctl in {where}")


@contextlib.contextmanager
def postgres_server(database: str = "apothecary") -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster; yield the SQLAlchemy URL of ``database`` on it.

    The cluster lives in a new temporary folder, listens on 127.0.0.1 only (and on a Unix
    socket in its own folder, not /var/run/postgresql, which may not exist or be writable),
    trusts every local connection, and skips fsync: its data is worthless after the run.
    On exit it is stopped immediately (no checkpoint, nothing to keep) and deleted.
    Raises ``ServiceMissing`` when PostgreSQL is not installed.
    """
    bin_dir = find_pg_bin()
    run_as = RunAs.for_postgres()
    base = _service_dir("apothecary-pg-", run_as)
    data, log = base / "data", base / "postgres.log"
    pg_ctl = str(bin_dir / "pg_ctl")
    stop = [pg_ctl, "stop", "-D", str(data), "-m", "immediate", "-w"]
    reaper = Reaper()
    reaper.remove_on_death(base)
    # Should pg_ctl fail to stop the server, the last resort is to kill the postmaster (its
    # backends notice and exit). Registered first, so the reaper tries pg_ctl before it.
    reaper.kill_pidfile_on_death(data / "postmaster.pid")
    try:
        _run(
            [
                str(bin_dir / "initdb"),
                *("-D", str(data), "-U", "postgres", "--auth=trust"),
                # C locale: no dependency on the machine's generated locales.
                *("--encoding=UTF8", "--locale=C", "--no-sync"),
            ],
            run_as,
        )
        # Settings go into the cluster's own config file rather than onto pg_ctl's -o, which is
        # pasted into a shell command line unquoted.
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                "\n# apothecary test cluster\n"
                "listen_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{base}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 100\n"
            )
        reaper.run_on_death(stop, run_as)
        port = _start_postgres(pg_ctl, data, log, run_as)
        url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        _create_database(url, database)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"
    finally:
        if (data / "postmaster.pid").exists():
            try:
                _run(stop, run_as)
            except (RuntimeError, subprocess.TimeoutExpired):
                _kill_pidfile(data / "postmaster.pid")
        shutil.rmtree(base, ignore_errors=True)
        reaper.close()


def _start_postgres(pg_ctl: str, data: Path, log: Path, run_as: RunAs, attempts: int = 5) -> int:
    """Start the cluster on a free port (retrying, since a port can be taken meanwhile)."""
    error, wait = "", int(START_TIMEOUT)
    for _ in range(attempts):
        port = free_port()
        argv = [pg_ctl, "start", "-D", str(data), "-l", str(log), "-w", "-t", str(wait)]
        argv += ["-o", f"-p {port}"]
        try:
            _run(argv, run_as, timeout=START_TIMEOUT + 10)
        except RuntimeError as exc:
            error = f"{exc}\n{_tail(log)}"
            continue
        return port
    raise RuntimeError(f"PostgreSQL did not start after {attempts} attempts:\n{error}")


def _admin_engine(url: str) -> Engine:
    """An SQLAlchemy engine for CREATE/DROP DATABASE, which cannot run inside a transaction."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    return create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)


def _admin_execute(url: str, sql: str) -> None:
    """Run one statement on the server's admin connection (autocommit)."""
    from sqlalchemy import text

    engine = _admin_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(text(sql))
    finally:
        engine.dispose()


def _create_database(url: str, name: str) -> None:
    _admin_execute(url, f'CREATE DATABASE "{name}"')


def _drop_database(url: str, name: str) -> None:
    # FORCE (PostgreSQL 13+) ends connections a test forgot to close.
    _admin_execute(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` instead (the password kept in clear)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(database=name).render_as_string(hide_password=False)


# --- Redis --------------------------------------------------------------------------------------


def find_redis_server() -> str:
    """The ``redis-server`` binary (``APOTHECARY_REDIS_SERVER`` wins when set)."""
    override = os.environ.get("APOTHECARY_REDIS_SERVER")
    if override:
        if os.access(override, os.X_OK) and Path(override).is_file():
            return override
        raise ServiceMissing(f"APOTHECARY_REDIS_SERVER={override} is not an executable")
    found = shutil.which("redis-server")
    if found is None:
        raise ServiceMissing("no redis-server on PATH")
    return found


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Start a throwaway Redis server; yield its URL (``redis://127.0.0.1:PORT/0``).

    No persistence (``--save ''``, no append-only file) and a temporary working folder, so
    nothing is written anywhere that outlives the server. The server stays a child of this
    process (not daemonized), so stopping it is a plain SIGTERM. Raises ``ServiceMissing``
    when Redis is not installed.
    """
    binary = find_redis_server()
    base = _service_dir("apothecary-redis-", RunAs())
    log = base / "redis.log"
    reaper = Reaper()
    reaper.remove_on_death(base)
    proc: subprocess.Popen[bytes] | None = None
    try:
        proc, port = _start_redis(binary, base, log, reaper)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(base, ignore_errors=True)
        reaper.close()


def _start_redis(
    binary: str, base: Path, log: Path, reaper: Reaper, attempts: int = 5
) -> tuple[subprocess.Popen[bytes], int]:
    """Start redis-server on a free port and wait until it answers PING."""
    error = ""
    for _ in range(attempts):
        port = free_port()
        argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        argv += ["--appendonly", "no", "--dir", str(base), "--logfile", str(log)]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=base,
            # Its own session: a Ctrl-C meant for pytest must not stop it before teardown.
            start_new_session=True,
        )
        if _wait_for_redis(proc, port):
            # Registered only for the server we keep: a failed attempt is killed and reaped
            # right here, and its pid may belong to someone else by the time a reaper acts.
            reaper.kill_on_death(proc.pid)
            return proc, port
        proc.kill()
        proc.wait()
        error = _tail(log)
    raise RuntimeError(f"redis-server did not start after {attempts} attempts:\n{error}")


def _wait_for_redis(proc: subprocess.Popen[bytes], port: int) -> bool:
    """Whether the server answers PING before it exits or the start timeout runs out.

    Speaks the protocol over a raw socket so that the fixture needs no Redis client library.
    """
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False  # it exited: most likely the port was taken
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=1) as sock,
        ):
            sock.sendall(b"PING\r\n")
            if sock.recv(64).startswith(b"+PONG"):
                return True
        time.sleep(0.05)
    return False


# --- Chromium -----------------------------------------------------------------------------------


def find_chromium() -> str:
    """The Chromium binary: ``APOTHECARY_CHROMIUM`` when set, else Debian's ``chromium``."""
    override = os.environ.get("APOTHECARY_CHROMIUM")
    if override:
        if os.access(override, os.X_OK) and Path(override).is_file():
            return override
        raise ServiceMissing(f"APOTHECARY_CHROMIUM={override} is not an executable")
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    raise ServiceMissing("no chromium on PATH")


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """SQLAlchemy URL of a database on a real PostgreSQL server, shared by this process's tests.

    ``APOTHECARY_TEST_POSTGRES`` when set; else a throwaway cluster started for the session.
    Tests that need an empty database of their own use ``postgres_db_url`` instead.
    """
    external = os.environ.get("APOTHECARY_TEST_POSTGRES")
    if external:
        yield external
        return
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(postgres_server())
        except ServiceMissing as exc:
            missing("PostgreSQL", str(exc))
        yield url


@pytest.fixture
def postgres_db_url(postgres_url: str) -> Iterator[str]:
    """SQLAlchemy URL of a new, empty database that is dropped after the test.

    Every test gets its own database, so tests never see each other's tables or rows, even
    when they share a server (xdist workers on an ``APOTHECARY_TEST_POSTGRES`` server).
    """
    name = f"test_{uuid.uuid4().hex[:16]}"
    _create_database(postgres_url, name)
    try:
        yield with_database(postgres_url, name)
    finally:
        _drop_database(postgres_url, name)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a real Redis server (``APOTHECARY_TEST_REDIS``, or one started for the session).

    Shared by all tests of this process and not flushed between them: use keys and channels
    unique to the test (an ``APOTHECARY_TEST_REDIS`` server may even be shared by workers).
    """
    external = os.environ.get("APOTHECARY_TEST_REDIS")
    if external:
        yield external
        return
    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(redis_server())
        except ServiceMissing as exc:
            missing("Redis", str(exc))
        yield url


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of the Chromium binary for browser tests (e.g. Playwright's ``executable_path``)."""
    try:
        return find_chromium()
    except ServiceMissing as exc:
        missing("Chromium", str(exc))


if __name__ == "__main__" and sys.argv[1:] == ["--reap"]:
    _reap_main()
