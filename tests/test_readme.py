"""The README opens with the two commands, and CI runs the second verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.S)][:2]


def test_readme_opens_with_the_install_and_test_commands() -> None:
    first, second = readme_commands()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index(first) < text.index(second) < text.index("---")
    assert "pip install" in first and "apothecary" in first
    assert "'.[test]'" in second and "pytest" in second


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    _, second = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert second in ci.splitlines()
