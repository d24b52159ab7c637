"""The terminal's catalogs (the ``terminal`` gettext domain) are complete,
their placeholders right and their compiled files fresh, checked as the
browser's are (issue #32, item 2: "the check must fail on a missing
translation or differing placeholders there as well"). Each guard is shown to
catch a planted fault. The fix for any failure: ``python -m apothecary.i18n check``."""

from __future__ import annotations

import pytest

pytest.importorskip("babel")

from babel.messages.catalog import Catalog

from apothecary.i18n.catalogs import (
    built_terminal,
    catalogs_of_every_domain,
    extract,
    read,
    review,
    translated_languages,
    update,
)
from apothecary.i18n.terminal import DOMAIN


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract(DOMAIN)


def test_the_terminal_domain_holds_the_terminal_words_and_not_the_games(
    template: Catalog,
) -> None:
    assert "Not your turn yet" in template  # the app's
    assert "error: {error}" in template  # the command line's
    # The game's words (moves, events) stay in the browser's domain, said
    # through game_words(): none is a terminal message as well.
    # (The games' Python words: a browser table's own labels in games/*/table.js
    # are the browser's, and the terminal may say the same word its own way.)
    # A message is its context and its English: the same word in another
    # context is another message for translators.
    games_words = {
        (m.context, m.id)
        for m in extract()
        if m.id and any(p.startswith("games/") and p.endswith(".py") for p, _ in m.locations)
    }
    duplicated = games_words & {(m.context, m.id) for m in template}
    assert not duplicated, f"a game's words were duplicated in the terminal domain: {duplicated}"


def test_every_terminal_message_is_translated_with_its_placeholders(template: Catalog) -> None:
    for code in translated_languages():
        shipped = read(code, DOMAIN)
        missing = [m.id for m in template if m.id and not shipped.get(m.id, m.context)]
        assert not missing, f"{code}/{DOMAIN}: no entry for {missing}"
    report = review(catalogs_of_every_domain())
    assert report.ok(), "\n".join(report.lines())


def test_the_compiled_terminal_catalogs_are_what_the_po_files_make(template: Catalog) -> None:
    stale = [
        str(path)
        for path, data in built_terminal(template).items()
        if not path.exists() or path.read_bytes() != data
    ]
    assert not stale, f"stale (run python -m apothecary.i18n check): {stale}"


def test_a_planted_gap_and_wrong_placeholder_in_the_terminal_domain_are_caught() -> None:
    shipped = read("de", DOMAIN)
    shipped["Not your turn yet"].string = ""
    shipped["Saved to {path}"].string = "Gespeichert in {pfad}"
    report = review({f"de/{DOMAIN}": shipped})
    assert report.untranslated[f"de/{DOMAIN}"] == ["Not your turn yet"]
    assert "Saved to {path}" in report.placeholders[f"de/{DOMAIN}"][0]
    assert not report.ok()
    assert any(line.startswith("de/terminal: not translated") for line in report.lines())


def test_a_planted_new_terminal_message_makes_its_files_stale_and_untranslated(
    template: Catalog,
) -> None:
    planted = extract(DOMAIN)
    planted.add("The cheese is on the table", None, [("tui/app.py", 1)])
    stale = [path for path, data in built_terminal(planted).items() if path.read_bytes() != data]
    assert stale, "a terminal message the catalogs lack went unnoticed"
    report = review({f"fr/{DOMAIN}": update(planted, "fr")})
    assert report.untranslated[f"fr/{DOMAIN}"] == ["The cheese is on the table"]


def marked_but_not_extracted(source: str) -> list[str]:
    """The literal messages ``source`` marks (``_``, ``_n``, ``T_``) that the
    catalogs' extraction does not find in it: a call the extractor cannot see
    (inside an f-string's braces, for one) stays English in every language."""
    import ast
    import io

    from babel.messages.extract import extract as babel_extract

    from apothecary.i18n.catalogs import TERMINAL_KEYWORDS

    found = {
        message if isinstance(message, str) else message[0]
        for _line, message, _comments, _context in babel_extract(
            "python", io.BytesIO(source.encode()), TERMINAL_KEYWORDS
        )
    }
    marked = [
        node.args[0].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in TERMINAL_KEYWORDS
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]
    return [message for message in marked if message not in found]


def test_every_message_the_terminal_sources_mark_reaches_the_catalogs() -> None:
    from apothecary.i18n.catalogs import PACKAGE, TERMINAL_METHODS

    sources = {
        path
        for pattern, _method in TERMINAL_METHODS
        for path in PACKAGE.glob(pattern.replace("**.py", "**/*.py"))
    }
    assert len(sources) > 10, sources
    missed = {
        str(path.relative_to(PACKAGE)): lost
        for path in sorted(sources)
        if (lost := marked_but_not_extracted(path.read_text(encoding="utf-8")))
    }
    assert not missed, f"marked, but the extraction never sees them: {missed}"


def test_a_planted_message_inside_an_f_string_is_caught() -> None:
    planted = 'out.append(f" {_(\'eating\')} ")\nout.append(" " + _("stop") + " ")\n'
    assert marked_but_not_extracted(planted) == ["eating"]
