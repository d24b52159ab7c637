"""axe-core in a page, under the server's Content-Security-Policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
"""The vendored axe-core."""


def inject_axe(page: Any) -> None:
    """Put axe-core into ``page``. Evaluated through the DevTools protocol
    rather than added as a <script>: the server's CSP forbids inline scripts
    (as it should), and a page must not be loosened for its test."""
    page.evaluate(AXE.read_text() + "\n;0")
