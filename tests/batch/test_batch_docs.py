"""Every ``python`` block of docs/batch.md runs, and the package's doctest passes."""

from __future__ import annotations

import contextlib
import doctest
import io

import pytest
from doc_examples import python_blocks

import apothecary.batch

BLOCKS = python_blocks("batch.md")


def test_the_page_shows_a_loop() -> None:
    assert any("game.step(state" in block for block in BLOCKS)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[index], f"docs/batch.md block {index + 1}", "exec"), {})
    assert out.getvalue().strip(), "every example prints what it found"


def test_package_doctest_runs() -> None:
    result = doctest.testmod(apothecary.batch)
    assert result.attempted > 0 and result.failed == 0
