"""``python -m apothecary.i18n check``: extract, update, compile, and list
what is not translated (exit status 1 if anything is). A language added to
:data:`apothecary.i18n.LANGUAGES` gets its catalog from it. See docs/translating.md."""

from __future__ import annotations

import argparse
import sys

from apothecary.i18n.catalogs import (
    PACKAGE,
    built,
    built_terminal,
    catalogs_of_every_domain,
    extract,
    review,
)
from apothecary.i18n.catalogs import write as write_files
from apothecary.i18n.terminal import DOMAIN as TERMINAL


def main(argv: list[str] | None = None) -> int:
    """The catalogs' command line."""
    parser = argparse.ArgumentParser(prog="python -m apothecary.i18n", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="extract, update and compile every catalog; list gaps")
    args = parser.parse_args(argv)
    assert args.command == "check"
    written = write_files(built(extract()))
    written += write_files(built_terminal(extract(TERMINAL)))
    for path in written:
        print(f"wrote {path.relative_to(PACKAGE.parent)}")
    report = review(catalogs_of_every_domain())
    for line in report.lines():
        print(line)
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
