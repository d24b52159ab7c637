"""Every shell command shown in the README and in docs/ runs as written.

Each page's ```` ```sh ```` blocks run in order, in a fresh copy of the
checkout in a temporary folder (so commands may write files and read the
files earlier commands wrote), with ``.venv`` there standing for this test's
own virtual environment. A page fails with every command of it that failed,
its exit code and the end of its output.

Conventions for writing docs (what runs, what does not, what is shortened):

- Only ```` ```sh ```` blocks run. Show a command that must not run (it needs
  a database server or a cluster you do not have, it is an example of output,
  a sketch with placeholders) in a ```` ```console ```` or ```` ```text ````
  block, or put ``<!-- docs-test: skip (why) -->`` on the line right before
  its ```` ```sh ```` fence.
- One command per line; a line ending in ``\\`` goes on; ``#`` starts a comment.
  Commands joined by ``&&`` run one by one.
- Setting up the environment is this test's own environment: ``python3 -m venv
  DIR`` and any ``pip install`` are not run, and a later ``DIR/bin/`` means
  the test's virtual environment.
- A command that runs ``pytest`` is not run (it would run the suite, this
  test included, again).
- Long commands are shortened: ``-n``/``--games`` above 4 becomes 4 and
  ``--workers``/``-w`` becomes 1, so a page of tournaments stays quick.
- A command that starts a server (``apothecary serve``, ``mkdocs serve``,
  ``replay --web``) is started on a free port and passes once the port answers
  HTTP; ``apothecary play`` (the terminal app) is started on a pseudo-terminal
  and passes once it has drawn its screen and is still running. Both are then
  stopped.
- Any other command must finish within :data:`COMMAND_SECONDS` with exit code 0.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support.pty_terminal import Terminal

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
COMMAND_SECONDS = 60.0
"""The most one ordinary command may take."""
SERVER_SECONDS = 120.0
"""The most a server may take to answer, or the terminal app to draw: a bound
that tells a hung command from a slow one, not a speed target (``mkdocs
serve`` builds the whole site before it answers, over 30 s on a busy 2-core
CI machine)."""
PAGES_AT_ONCE = 4
"""Pages run side by side (they mostly wait on servers starting)."""
SKIP_MARK = "<!-- docs-test: skip"
COPY_IGNORE = shutil.ignore_patterns(
    ".git",
    ".venv",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    "__pycache__",
    "*.egg-info",
    "site",
    "dist",
    "build",
    "node_modules",
    "runs",
    "tournaments",
)


def pages() -> list[Path]:
    """The README and every Markdown page under docs/ (rules pages included)."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [page for page in found if page.is_file()]


def sh_blocks(text: str) -> list[str]:
    """The ```sh blocks of a page, less those marked to skip."""
    blocks = []
    for match in re.finditer(r"^```sh[ \t]*\n(.*?)^```", text, re.S | re.M):
        before = text[: match.start()].rstrip().rsplit("\n", 1)[-1]
        if not before.strip().startswith(SKIP_MARK):
            blocks.append(match.group(1))
    return blocks


def commands(block: str) -> list[str]:
    """A block's commands: continued lines joined, comments and blank lines dropped,
    ``a && b`` split into ``a`` and ``b``."""
    joined = re.sub(r"\\\n\s*", " ", block)
    out = []
    for line in joined.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        # shlex finds the comment and the && that are not inside quotes.
        lexer = shlex.shlex(line, posix=True, punctuation_chars="&|;<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for token in lexer:
            if token == "&&":
                out.append(shlex.join(words))
                words = []
            else:
                words.append(token)
        if words:
            out.append(shlex.join(words))
    return out


@dataclass
class Plan:
    """What to do with one command."""

    kind: str  # "skip", "run", "server" or "tui"
    command: str
    port: int | None = None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def shorten(command: str) -> str:
    """Small counts and one worker (see the module's conventions)."""
    command = re.sub(
        r"(?<!\S)(-n|--games)(\s+|=)(\d+)",
        lambda m: f"{m.group(1)}{m.group(2)}{min(int(m.group(3)), 4)}",
        command,
    )
    return re.sub(r"(?<!\S)(--workers|-w)(\s+|=)\d+", r"\g<1>\g<2>1", command)


def plan(command: str, venvs: list[str]) -> Plan:
    """Decide how to run ``command`` (``venvs``: folders a skipped ``venv`` made)."""
    words = shlex.split(command)
    names = [Path(word).name for word in words]
    if words[:3] == ["python3", "-m", "venv"] or words[:3] == ["python", "-m", "venv"]:
        venvs.append(words[3].rstrip("/"))
        return Plan("skip", command)
    if "pip" in names and "install" in words:
        return Plan("skip", command)
    if "pytest" in names or ("-m" in words and "pytest" in words):
        return Plan("skip", command)
    for folder in dict.fromkeys(venvs):
        if Path(folder) != Path(".venv"):  # .venv is a link to the test's venv already
            command = re.sub(rf"(?<![\w./-]){re.escape(folder)}/bin/", f"{VENV}/bin/", command)
    command = shorten(command)
    words = shlex.split(command)
    names = [Path(word).name for word in words]
    if "apothecary" in names:
        sub = words[names.index("apothecary") + 1 :]
        if sub[:1] == ["replay"] and "--web" in sub:
            return Plan("server", command)  # it picks a free port and prints its address
        if sub[:1] == ["serve"]:
            port = free_port()
            if "--port" in command:
                command = re.sub(r"--port(\s+|=)\d+", f"--port {port}", command)
            else:
                command += f" --port {port}"
            return Plan("server", command, port)
        if sub[:1] == ["play"]:
            return Plan("tui", command)
    if "mkdocs" in names and "serve" in words:
        port = free_port()
        command = re.sub(r"\s(-a|--dev-addr)(\s+|=)\S+", "", command)
        return Plan("server", f"{command} -a 127.0.0.1:{port}", port)
    return Plan("run", command)


def environment(folder: Path) -> dict[str, str]:
    """A clean environment: the venv first on the PATH only as the page says
    (commands name ``.venv/bin/...``), the home inside the temporary folder."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VIRTUAL_ENV", "PYTEST", "APOTHECARY"))
    }
    bin_dir = str(VENV / "bin")
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep) if part != bin_dir
    )
    home = folder / ".home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CACHE_HOME=str(home / "c"))
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="30", PYTHONUNBUFFERED="1")
    return env


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def run_plain(command: str, folder: Path, env: dict[str, str]) -> str | None:
    try:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=folder,
            env=env,
            capture_output=True,
            timeout=COMMAND_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish in {COMMAND_SECONDS:g} s (shorten it, or show it as ```console)"
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).decode(errors="replace").strip()[-600:]
        return f"exit code {done.returncode}: {tail}"
    return None


def run_server(command: str, port: int | None, folder: Path, env: dict[str, str]) -> str | None:
    """Start a server; it passes once it answers HTTP on ``port`` (or, with no
    port given, at the first address it prints)."""
    log = folder / ".server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["bash", "-c", command],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + SERVER_SECONDS
        while time.monotonic() < deadline:
            if process.poll() is not None:
                tail = log.read_text(errors="replace").strip()[-600:]
                return f"the server stopped with exit code {process.returncode}: {tail}"
            url = f"http://127.0.0.1:{port}/"
            if port is None:
                printed = re.search(r"https?://\S+", log.read_text(errors="replace"))
                if printed is None:
                    time.sleep(0.2)
                    continue
                url = printed.group(0)
            try:
                urllib.request.urlopen(url, timeout=1).close()
                return None
            except urllib.error.HTTPError:
                return None  # it answers HTTP: it is serving
            except OSError:
                time.sleep(0.2)
        return f"nothing answered HTTP within {SERVER_SECONDS:g} s"
    finally:
        stop(process)


def run_tui(command: str, folder: Path, env: dict[str, str]) -> str | None:
    term = Terminal(["bash", "-c", command], size=(30, 100), env=env, cwd=folder)
    try:
        deadline = time.monotonic() + SERVER_SECONDS
        while time.monotonic() < deadline:
            term.read(0.2)
            if term.process.poll() is not None:
                tail = term.text().strip()[-600:]
                return f"the app ended with exit code {term.process.returncode}: {tail}"
            # Textual draws a whole screen: a few kilobytes of output, no traceback.
            if len(term.seen) > 4000 and b"Traceback" not in term.seen:
                return None
        return f"the app drew nothing within {SERVER_SECONDS:g} s"
    finally:
        term.close()


def run_page(page: Path, folder: Path) -> list[str]:
    """Run every command of ``page``; the failures, each with its command."""
    shutil.copytree(ROOT, folder, ignore=COPY_IGNORE, symlinks=True)
    (folder / ".venv").symlink_to(VENV)
    env = environment(folder)
    venvs: list[str] = []
    failures = []
    started = time.monotonic()
    for block in sh_blocks(page.read_text(encoding="utf-8")):
        for command in commands(block):
            step = plan(command, venvs)
            if step.kind == "skip":
                continue
            if step.kind == "server":
                problem = run_server(step.command, step.port, folder, env)
            elif step.kind == "tui":
                problem = run_tui(step.command, folder, env)
            else:
                problem = run_plain(step.command, folder, env)
            if problem is not None:
                failures.append(f"{command}\n    -> {problem}")
            if os.environ.get("DOCS_COMMANDS_TIMES"):
                print(f"{time.monotonic() - started:6.1f}s {step.kind:<6} {command}")
            started = time.monotonic()
    return failures


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


PAGES = [page for page in pages() if sh_blocks(page.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[str]]:
    """Every page run at once, a few at a time: most of the time is spent
    waiting for servers and apps to start, not computing, so pages overlap."""
    from concurrent.futures import ThreadPoolExecutor

    base = tmp_path_factory.mktemp("docs")
    with ThreadPoolExecutor(max_workers=PAGES_AT_ONCE) as pool:
        futures = {
            page: pool.submit(run_page, page, base / f"page{i}") for i, page in enumerate(PAGES)
        }
        return {page: future.result() for page, future in futures.items()}


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_command_of_the_page_runs(page: Path, outcomes: dict[Path, list[str]]) -> None:
    failures = outcomes[page]
    assert not failures, f"{page_id(page)}: commands that fail:\n" + "\n".join(failures)


# -- the conventions themselves -------------------------------------------------------------


def test_blocks_other_than_sh_and_marked_blocks_do_not_run() -> None:
    text = (
        "```sh\necho one\n```\n```console\necho two\n```\n```text\necho three\n```\n"
        f"{SKIP_MARK} needs a cluster -->\n```sh\necho four\n```\n```sh\necho five\n```\n"
    )
    assert sh_blocks(text) == ["echo one\n", "echo five\n"]


def test_commands_join_lines_split_on_and_and_drop_comments() -> None:
    block = "# a comment\na --x 1 \\\n  --y 2   # says what\nb && c 'd && e'\n\n"
    assert commands(block) == ["a --x 1 --y 2", "b", "c 'd && e'"]


def test_setup_and_the_suite_are_not_run_and_long_commands_are_shortened() -> None:
    venvs: list[str] = []
    assert plan("python3 -m venv /tmp/v", venvs).kind == "skip" and venvs == ["/tmp/v"]
    assert plan("/tmp/v/bin/pip install -q x", venvs).kind == "skip"
    assert plan(".venv/bin/python -m pytest -n 2", venvs).kind == "skip"
    step = plan("/tmp/v/bin/apothecary simulate x -n 1000 --workers 2", venvs)
    assert step.kind == "run"
    assert step.command == f"{VENV}/bin/apothecary simulate x -n 4 --workers 1"
    assert shorten("tournament g -n 3 -w 8") == "tournament g -n 3 -w 1"
    serve = plan(".venv/bin/apothecary serve --port 8000 --db x", venvs)
    assert serve.kind == "server" and f"--port {serve.port} " in serve.command
    assert plan(".venv/bin/apothecary play poison-pot", venvs).kind == "tui"


def test_a_failing_command_fails_its_page(tmp_path: Path) -> None:
    """The check proves itself: a page with a broken command is caught, and
    a good page passes."""
    bad = tmp_path / "bad.md"
    bad.write_text(
        "```sh\n.venv/bin/apothecary games\n.venv/bin/apothecary rules no-such-game\n```\n"
    )
    failures = run_page(bad, tmp_path / "a")
    assert len(failures) == 1 and "no-such-game" in failures[0] and "exit code 2" in failures[0]
    tui = tmp_path / "tui.md"
    tui.write_text("```sh\n.venv/bin/apothecary play poison-pot --bot-delay 0\n```\n")
    assert run_page(tui, tmp_path / "b") == []
