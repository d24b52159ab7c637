"""The wheel carries every file the package needs.

``python -m build`` makes the sdist and then the wheel from the sdist, so a
data file that a package-data glob misses is absent from both; a checkout
never notices (it imports from src/). Here every file under src/apothecary
must be in the wheel, and the check proves itself on a build whose
pyproject.toml lost one glob. CI's smoke test (tests/packaging/smoke.py) then
installs the wheel and uses those files.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import apothecary

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "apothecary"
BUILD_TIMEOUT = 300


def build(source: Path, out: Path, *which: str) -> Path:
    """Build ``source`` (the venv's setuptools, no download) into ``out``; the wheel."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            *which,
            "--outdir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=BUILD_TIMEOUT,
    )
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once a session (sdist first, the wheel from it).

    Under pytest-xdist every worker asks; a lock in the directory they share
    makes the first build it and the others wait for it and reuse it.
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with (shared / "apothecary-wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        out = shared / "apothecary-dist"
        found = list(out.glob("*.whl"))
        return found[0] if found else build(ROOT, out)


def package_files(root: Path) -> set[str]:
    """Every file of the package under ``root`` as a wheel names it (caches aside)."""
    return {
        "apothecary/" + path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def missing_from(wheel: Path, root: Path) -> list[str]:
    """The package's files (under ``root``) that ``wheel`` lacks, sorted."""
    with zipfile.ZipFile(wheel) as archive:
        inside = set(archive.namelist())
    return sorted(package_files(root) - inside)


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    files = package_files(PACKAGE)
    # The data the smoke test reads, so that an empty walk cannot pass.
    assert "apothecary/games/in_vino_morte/data/cfr.json.gz" in files
    assert "apothecary/games/poison_pot/table.js" in files
    assert "apothecary/games/poison_pot/rules.md" in files
    assert missing_from(wheel, PACKAGE) == []


def test_the_check_catches_a_glob_dropped_from_pyproject(tmp_path: Path) -> None:
    # A copy of the project whose package data lost the web client's subfolders.
    copy = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(PACKAGE, copy / "src" / "apothecary", ignore=ignore)
    shutil.copy(ROOT / "README.md", copy)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    planted = text.replace('  "server/static/**/*",\n', "")
    assert planted != text, "the glob this test drops is no longer in pyproject.toml"
    (copy / "pyproject.toml").write_text(planted, encoding="utf-8")

    broken = build(copy, tmp_path / "dist", "--wheel")
    missing = missing_from(broken, copy / "src" / "apothecary")
    static = PACKAGE / "server" / "static"
    in_subfolders = [p for p in static.rglob("*") if p.is_file() and p.parent != static]
    assert in_subfolders, "the web client has no subfolder left for this test to drop"
    assert missing == sorted(
        f"apothecary/{p.relative_to(PACKAGE).as_posix()}" for p in in_subfolders
    )


def test_the_version_comes_from_one_place(wheel: Path) -> None:
    # pyproject.toml reads apothecary.__version__; the wheel's metadata says the same.
    assert re.fullmatch(r"\d+\.\d+\.\d+(\S*)", apothecary.__version__)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "apothecary.__version__"
    }
    assert wheel.name.startswith(f"apothecary-{apothecary.__version__}-")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"apothecary-{apothecary.__version__}.dist-info/METADATA")
    assert f"\nVersion: {apothecary.__version__}\n" in metadata.decode()


def test_the_wheel_declares_the_command_and_the_extras(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        info = f"apothecary-{apothecary.__version__}.dist-info"
        scripts = archive.read(f"{info}/entry_points.txt").decode()
        metadata = archive.read(f"{info}/METADATA").decode()
    assert "apothecary = apothecary.cli:main" in scripts
    for extra in ("web", "tui", "docs", "test"):
        assert f"Provides-Extra: {extra}\n" in metadata
