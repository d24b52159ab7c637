"""The ``python`` code blocks of a page in docs/, for tests that run them."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def python_blocks(page: str) -> list[str]:
    """Every fenced ``python`` block of ``docs/<page>``, in order."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)
