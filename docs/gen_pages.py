"""Generate the docs site's navigation and API reference (run by mkdocs-gen-files).

Nothing here lists a page or a module by hand beyond the order of the guides:
every Markdown page under docs/ is in the navigation (a new one appears after
the known guides), each game's rules page comes from docs/rules/ (links to the
rules.md the package ships, not copies), each study report from
docs/reports/*/report.md, and the API reference has one page per public module
of src/apothecary, rendered from its docstrings by mkdocstrings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import mkdocs_gen_files

DOCS = Path(__file__).resolve().parent
SOURCE = DOCS.parent / "src"

GUIDES = (
    "index.md",
    "architecture.md",
    "tui.md",
    "server.md",
    "accounts.md",
    "ratings.md",
    "turn-based.md",
    "client.md",
    "protocol.md",
    "deploy.md",
    "bots.md",
    "solvers.md",
    "study.md",
    "analysis.md",
    "interop.md",
    "batch.md",
    "records.md",
    "performance.md",
)
"""The guides in reading order; a page not named here follows them alphabetically."""


def title(page: Path) -> str:
    """A page's first ``# `` heading, or its file name."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem.replace("-", " ").capitalize()


def report_title(page: Path) -> str:
    """A report's navigation title: game and players, then the bots (two reports of
    one game and player count differ in their bots)."""
    heading = title(page).removeprefix("Balance report: ")
    bots = re.search(r"\bbots (.+?), seed\b", page.read_text(encoding="utf-8"))
    return f"{heading} ({bots.group(1)})" if bots else heading


def entry(page: Path, depth: int = 0, name: str | None = None) -> str:
    """One literate-nav line: ``* [Title](path)``, indented ``depth`` levels."""
    name = re.sub(r"([\[\]])", r"\\\1", name or title(page))
    return f"{'    ' * depth}* [{name}]({page.relative_to(DOCS).as_posix()})"


def ordered(pages: Iterable[Path], first: tuple[str, ...] = ()) -> list[Path]:
    """``pages`` with those named in ``first`` in that order, then the rest by name."""
    rank = {name: i for i, name in enumerate(first)}
    return sorted(pages, key=lambda p: (rank.get(p.name, len(rank)), p.as_posix()))


def public_modules() -> list[tuple[str, ...]]:
    """Every public module of apothecary as name parts, packages first in each folder."""
    modules = []
    for path in sorted((SOURCE / "apothecary").rglob("*.py")):
        parts = path.relative_to(SOURCE).with_suffix("").parts
        if not (path.parent / "__init__.py").is_file():
            continue  # scripts that are not modules (the migrations)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts):
            continue
        modules.append(parts)
    return sorted(modules)


def api_reference() -> list[str]:
    """Write reference/<module>.md for every public module; their navigation lines."""
    lines = []
    for parts in public_modules():
        page = Path("reference", *parts).with_suffix(".md")
        with mkdocs_gen_files.open(page, "w") as handle:
            handle.write(f"# `{'.'.join(parts)}`\n\n::: {'.'.join(parts)}\n")
        source = SOURCE.joinpath(*parts)
        source = source / "__init__.py" if source.is_dir() else source.with_suffix(".py")
        mkdocs_gen_files.set_edit_path(page, source.relative_to(DOCS.parent))
        depth = len(parts) - 1
        lines.append(f"{'    ' * depth}* [{parts[-1]}]({page.as_posix()})")
    return lines


def list_reports(reports: list[Path]) -> None:
    """Add a link to every report to reports/index.md (its text is in the repository)."""
    with mkdocs_gen_files.open("reports/index.md", "a") as handle:
        for page in ordered(reports):
            link = page.relative_to(DOCS / "reports").as_posix()
            handle.write(f"- [{report_title(page)}]({link})\n")


def navigation() -> str:
    """The whole navigation, as literate-nav's SUMMARY.md."""
    pages = [p for p in DOCS.rglob("*.md") if p.name != "SUMMARY.md"]
    index = DOCS / "reports" / "index.md"
    top = [p for p in pages if p.parent == DOCS]
    rules = [p for p in pages if p.parent == DOCS / "rules"]
    reports = [p for p in pages if p.parent.parent == DOCS / "reports"]
    others = sorted(set(pages) - set(top) - set(rules) - set(reports) - {index})
    lines = [
        entry(page, 0, "Home" if page.name == "index.md" else None) for page in ordered(top, GUIDES)
    ]
    lines.append("* Rules")
    lines += [entry(page, 1) for page in ordered(rules)]
    lines.append("* [Study reports](reports/index.md)")
    lines += [entry(page, 1, report_title(page)) for page in ordered(reports)]
    list_reports(reports)
    lines += [entry(page) for page in others]
    lines.append("* API reference")
    lines += ["    " + line for line in api_reference()]
    return "\n".join(lines) + "\n"


with mkdocs_gen_files.open("SUMMARY.md", "w") as summary:
    summary.write(navigation())
