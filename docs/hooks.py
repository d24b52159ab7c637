"""MkDocs hooks for the docs site (mkdocs.yml ``hooks``).

The project's docstrings use Sphinx's roles (``:func:`games```, ``:class:`~a.b.Game```)
and ``::`` before a literal block, which mkdocstrings renders as written. The
hook below drops the role markers from the rendered API pages and shortens a
``~``-prefixed path to its last part, as Sphinx would.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(
    r":(?:func|class|mod|meth|attr|data|exc|obj|const|ref):(<code>)(~?)([^<]*)</code>"
)


def _role(match: re.Match[str]) -> str:
    code, tilde, target = match.groups()
    return f"{code}{target.rsplit('.', 1)[-1] if tilde else target}</code>"


def on_page_content(html: str, **_: Any) -> str:
    """Sphinx roles in rendered docstrings read as plain code."""
    return ROLE.sub(_role, html).replace("::</p>", ":</p>")
