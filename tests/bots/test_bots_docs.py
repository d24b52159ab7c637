"""The example at the top of docs/bots.md runs as written."""

from __future__ import annotations

from doc_examples import python_blocks


def test_the_registry_example_runs() -> None:
    (block,) = python_blocks("bots.md")
    namespace: dict[str, object] = {}
    exec(compile(block, "docs/bots.md", "exec"), namespace)
    state, action = namespace["state"], namespace["action"]
    assert action in state.legal_actions()  # type: ignore[attr-defined]
