"""Every ``python`` code block in docs/interop.md runs, each in a fresh namespace."""

from __future__ import annotations

import contextlib
import io

import pytest
from doc_examples import python_blocks

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")

BLOCKS = python_blocks("interop.md")


def test_the_page_has_the_promised_examples() -> None:
    text = "\n".join(BLOCKS)
    assert "agent_iter()" in text  # the PettingZoo random-agent loop
    assert "cfr.CFRSolver" in text and '"in-vino-morte", players=3' in text
    assert "evaluate_bots.evaluate_bots" in text and '"ismcts"' in text
    assert "BatchVectorEnv(" in text and "envs.step(" in text  # the batch training loop


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS[index], f"docs/interop.md block {index + 1}", "exec"), {})
    assert out.getvalue().strip(), "every example prints what it found"


@pytest.mark.parametrize("module", ["pettingzoo", "openspiel"])
def test_module_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"apothecary.interop.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_the_ismcts_match_is_repeatable() -> None:
    # Seeded bots, a seeded chance rng and a seeded resampler: the same games.
    (block,) = [b for b in BLOCKS if "set_resampler" in b]
    outputs = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "docs/interop.md ISMCTS example", "exec"), {})
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
