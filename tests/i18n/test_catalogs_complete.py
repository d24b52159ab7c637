"""The catalogs are complete and compiled (issue #32, item 2: "a test fails on any
message without a translation, and on placeholders that differ from the English").

Extraction runs over the sources as they are, so a new message in the code without a
translation fails here; the compiled .mo and browser JSON must be what the .po make.
Each guard is shown to catch a planted fault. The fix for any failure here:
``python -m apothecary.i18n check`` (docs/translating.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("babel")

from babel.messages.catalog import Catalog

from apothecary.i18n.catalogs import (
    built,
    extract,
    problems,
    read,
    review,
    translated_languages,
)


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract()


def test_every_message_in_the_sources_is_translated_in_every_language(template: Catalog) -> None:
    for code in translated_languages():
        shipped = read(code)
        missing = [m.id for m in template if m.id and not (shipped.get(m.id, m.context))]
        assert not missing, f"{code}: no entry for {missing} (run python -m apothecary.i18n check)"
    report = review({code: read(code) for code in translated_languages()})
    assert report.ok(), "\n".join(report.lines())


def test_the_compiled_catalogs_are_what_the_po_files_make(template: Catalog) -> None:
    stale = [
        str(path)
        for path, data in built(template).items()
        if not path.exists() or path.read_bytes() != data
    ]
    assert not stale, f"stale (run python -m apothecary.i18n check): {stale}"


def test_a_planted_untranslated_message_and_wrong_placeholder_are_caught() -> None:
    catalog = Catalog(locale="fr")
    catalog.add("{who} acts", "")
    catalog.add("{who} stops eating", "{qui} arrête de manger")
    catalog.add(
        ("{count} glass", "{count} glasses"), ("un verre", "{count} verres", "{count} verres")
    )
    catalog.add(("{count} cup", "{count} cups"), ("{n} tasse", "{count} tasses", "{count} tasses"))
    report = review({"fr": catalog})
    assert report.untranslated["fr"] == ["{who} acts"]
    wrong = report.placeholders["fr"]
    assert len(wrong) == 2 and "stops eating" in wrong[0] and "cup" in wrong[1], wrong
    assert problems(catalog["{who} acts"]) == (True, None)


def test_a_planted_new_message_makes_the_shipped_files_stale(template: Catalog) -> None:
    planted = extract()
    planted.add("{who} juggles the glasses", None, [("games/x/events.py", 1)])
    stale = [path for path, data in built(planted).items() if path.read_bytes() != data]
    assert stale, "a message the catalogs lack went unnoticed"
    report = review({"fr": built_catalog(planted, "fr")})
    assert "{who} juggles the glasses" in report.untranslated["fr"]


def built_catalog(template: Catalog, code: str) -> Catalog:
    from apothecary.i18n.catalogs import update

    return update(template, code)
