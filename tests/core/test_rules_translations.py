"""The translated rules pages: each game's page exists in French, German and
Spanish, and says what the English page says in the same shape (headings,
tables, numbers, code); ``Game.rules_page(lang)``, the server's rules route and
``apothecary rules --lang`` serve it, falling back to English.

A translation that drifts from the English (a heading dropped, a number
changed, a notation translated) is caught by :func:`differences`; the planted
tests below prove that it is.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pytest
from typer.testing import CliRunner

import apothecary
from apothecary.cli import app
from apothecary.core.errors import LanguageError

LANGUAGES = ("fr", "de", "es")
"""The languages every rules page is translated into (issue 32: English plus these)."""
GAME = "poison-pot"
"""The game the language-tag and command tests read (any translated game would do)."""

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`]+`")  # a span may wrap onto the next line
NUMBER = re.compile(r"[0-9]+(?:[.,\u00a0\u202f ][0-9]+)*")
"""A number as any of the four languages writes it: ``4,106`` ``4 106`` ``4.106`` ``4106``;
``0.7`` ``0,7``. Its digits without the separators are what must match."""


@dataclass(frozen=True)
class Shape:
    """What a faithful translation keeps of a page."""

    headings: tuple[int, ...]
    """The level of each heading, in order."""
    table_rows: int
    blocks: tuple[str, ...]
    """The fenced blocks, verbatim: diagrams, records and program output stay English."""
    spans: Counter[str]
    """Inline code spans: notation, names and fields a record or the protocol uses."""
    numbers: frozenset[str]
    """Every number's digits, so ``10,000`` and ``10 000`` agree, as do ``0.7`` and ``0,7``."""


def shape(page: str) -> Shape:
    """The shape of a Markdown rules page."""
    blocks = tuple(FENCE.findall(page))
    prose = FENCE.sub("", page)
    lines = prose.splitlines()
    return Shape(
        headings=tuple(len(m.group(1)) for m in map(re.compile(r"(#+) ").match, lines) if m),
        table_rows=sum(1 for line in lines if line.lstrip().startswith("|")),
        blocks=blocks,
        spans=Counter(" ".join(span.split()) for span in CODE_SPAN.findall(prose)),
        numbers=frozenset(re.sub(r"[^0-9]", "", n) for n in NUMBER.findall(page)),
    )


def differences(english: str, translation: str) -> list[str]:
    """How ``translation`` departs from the shape of ``english`` (empty: it does not)."""
    want, got = shape(english), shape(translation)
    found = []
    if got.headings != want.headings:
        found.append(f"heading levels {got.headings} != {want.headings}")
    if got.table_rows != want.table_rows:
        found.append(f"{got.table_rows} table rows != {want.table_rows}")
    if got.blocks != want.blocks:
        pairs = zip(got.blocks, want.blocks, strict=False)  # a missing block is told by the count
        changed = [i for i, (a, b) in enumerate(pairs) if a != b]
        found.append(f"fenced blocks: {len(got.blocks)} vs {len(want.blocks)}, changed {changed}")
    if got.spans != want.spans:
        extra, missing = got.spans - want.spans, want.spans - got.spans
        found.append(f"code spans: extra {sorted(extra)}, missing {sorted(missing)}")
    if got.numbers != want.numbers:
        extra_n, missing_n = got.numbers - want.numbers, want.numbers - got.numbers
        found.append(f"numbers: extra {sorted(extra_n)}, missing {sorted(missing_n)}")
    return found


def english(name: str) -> str:
    page = apothecary.game_class(name).rules_page()
    assert page is not None, f"{name} has no rules page"
    return page


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", apothecary.games())
def test_each_rules_page_is_translated_in_the_shape_of_the_english(name: str, lang: str) -> None:
    page = apothecary.game_class(name).rules_page(lang)
    assert page is not None and page != english(name), f"{name}: no rules.{lang}.md"
    assert differences(english(name), page) == []


def test_a_dropped_heading_a_changed_number_or_a_translated_span_is_caught() -> None:
    name = GAME
    page = apothecary.game_class(name).rules_page("fr")
    assert page is not None and differences(english(name), page) == []
    heading = next(line for line in page.splitlines() if line.startswith("## "))
    assert "63" not in shape(english(name)).numbers  # so 36 -> 63 is a number the page lacks
    planted = {
        "heading": page.replace(heading + "\n", "", 1),
        "number": re.sub(r"\b36\b", "63", page, count=1),
        "span": page.replace("`", "", 2),
        "table row": page.replace("\n| ", "\n", 1),
        "block": page.replace("```\n", "```\n.\n", 1),
    }
    for kind, text in planted.items():
        assert text != page, kind
        assert differences(english(name), text), f"a planted {kind} change went unseen"


@pytest.mark.parametrize("tag", ["fr-FR", "FR", "fr_CA.UTF-8", "fr-Latn-CH", " fr "])
def test_a_language_tag_with_region_or_charset_finds_the_language(tag: str) -> None:
    name = GAME
    game = apothecary.game_class(name)
    assert game.rules_page(tag) == game.rules_page("fr") != english(name)


@pytest.mark.parametrize("tag", [None, "", "en", "en-GB", "ja", "pt-BR"])
def test_english_or_an_untranslated_language_gives_the_english_page(tag: str | None) -> None:
    name = GAME
    assert apothecary.game_class(name).rules_page(tag) == english(name)


@pytest.mark.parametrize("tag", ["../rules", "fr/../de", "f", "français", "fr-", "x" * 40])
def test_a_tag_that_is_no_language_is_refused_by_name(tag: str) -> None:
    name = GAME
    with pytest.raises(LanguageError, match="not a language tag"):
        apothecary.game_class(name).rules_page(tag)


def test_the_rules_command_prints_the_page_in_the_language_asked() -> None:
    runner = CliRunner()
    name = GAME
    for lang in LANGUAGES:
        result = runner.invoke(app, ["rules", name, "--lang", lang])
        assert result.exit_code == 0, result.stderr
        page = apothecary.game_class(name).rules_page(lang)
        assert page is not None
        second = next(line for line in page.splitlines() if line.startswith("## "))
        assert second[3:] in result.stdout  # a translated heading, laid out
    english_heading = next(line for line in english(name).splitlines() if line.startswith("## "))
    assert english_heading[3:] not in runner.invoke(app, ["rules", name, "--lang", "de"]).stdout
    refused = runner.invoke(app, ["rules", name, "--lang", "../x"])
    # The command line's --lang takes the languages it speaks (or a regional tag of one).
    assert refused.exit_code == 2 and "no language '../x'" in refused.stderr
