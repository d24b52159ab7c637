"""The language machinery (issue #32, item 2): words said again from their message in
another language, the language chosen from settings, and a room's update said in each
viewer's language while its protocol fields stay English (item 3)."""

from __future__ import annotations

import gettext

import pytest

from apothecary.core.errors import UnknownLanguageError
from apothecary.core.words import Words, render, say, say_in, say_n, seat, seats
from apothecary.i18n import (
    check_language,
    from_environment,
    gettext_in,
    localized,
    negotiate,
    translation,
)


class Fake(gettext.NullTranslations):
    """A language whose catalog is a dict (plural: index 0 for one, 1 otherwise)."""

    def __init__(self, said: dict[str, str | list[str]]) -> None:
        super().__init__()
        self.said = said

    def gettext(self, message: str) -> str:
        found = self.said.get(message, message)
        return found if isinstance(found, str) else message

    def pgettext(self, context: str, message: str) -> str:
        return self.gettext(f"{context}\x04{message}")

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        forms = self.said.get(singular)
        if isinstance(forms, list):
            return forms[0 if n == 1 else 1]
        return singular if n == 1 else plural


def test_words_said_in_english_from_their_message_read_as_their_runs() -> None:
    inner = say("the peasant of {owner}", owner=seat(2))
    words = say("{who} plays on {on}", who=seat(1), on=inner) + "; " + say("{n} left", n=3)
    english = gettext.NullTranslations()
    assert render(words.message(), english) == words.runs()
    capital = say("{who} wins", who=seats([0, 2])).capitalized()
    assert render(capital.message(), english) == capital.runs()


def test_each_template_is_translated_and_its_values_put_in_by_name() -> None:
    french = Fake(
        {
            "{who} plays on {on}": "{who} joue sur {on}",
            "the peasant of {owner}": "le paysan de {owner}",
        }
    )
    words = say("{who} plays on {on}", who=seat(1), on=say("the peasant of {owner}", owner=seat(2)))
    assert render(words.message(), french) == [{"seat": 1}, " joue sur le paysan de ", {"seat": 2}]


def test_a_translation_may_put_the_values_in_another_order() -> None:
    german = Fake({"Steal {other}'s cheese": "{other} den Käse stehlen"})
    words = say("Steal {other}'s cheese", other=seat(3))
    assert render(words.message(), german) == [{"seat": 3}, " den Käse stehlen"]


def test_plural_forms_and_contexts() -> None:
    language = Fake(
        {"{count} glass": ["{count} verre", "{count} verres"], "colour\x04red": "rouge"}
    )
    assert render(say_n("{count} glass", "{count} glasses", 1).message(), language) == ["1 verre"]
    assert render(say_n("{count} glass", "{count} glasses", 4).message(), language) == ["4 verres"]
    assert str(say_n("{count} glass", "{count} glasses", 4)) == "4 glasses"
    assert render(say_in("colour", "red").message(), language) == ["rouge"]
    assert str(say_in("colour", "red")) == "red"


def test_a_translation_naming_a_value_the_english_lacks_falls_back_to_the_english() -> None:
    wrong = Fake({"{who} acts": "{whom} agit"})
    assert render(say("{who} acts", who=seat(0)).message(), wrong) == [{"seat": 0}, " acts"]


def test_render_refuses_what_is_not_a_message() -> None:
    with pytest.raises(ValueError, match="not a node"):
        render([{"nonsense": 1}], gettext.NullTranslations())
    with pytest.raises(ValueError, match="a message is a list"):
        render("text", gettext.NullTranslations())


def test_plain_strings_are_said_as_they_are() -> None:
    assert Words("Pass").message() == ["Pass"]


def test_the_language_comes_from_settings_and_an_explicit_choice_is_checked() -> None:
    assert negotiate(["de-CH", "en"]) == "de"
    assert negotiate(["pt-BR", "fr_FR.UTF-8"]) == "fr"
    assert negotiate(["pt", None, 3]) == "en"
    assert from_environment({"LANG": "es_ES.UTF-8"}) == "es"
    assert from_environment({"LANG": "C"}) == "en"
    assert from_environment({"LANGUAGE": "pt:de", "LANG": "fr_FR.UTF-8"}) == "de"
    assert check_language("fr") == "fr"
    with pytest.raises(UnknownLanguageError, match="no language 'xx'; apothecary speaks de, en"):
        check_language("xx")


def test_the_shipped_catalogs_speak() -> None:
    assert gettext_in("fr", "Your turn") == "À vous"
    assert gettext_in("de", "Waiting for {who}", who="Ann") == "Warten auf Ann"
    assert translation("es").gettext("{who} stops eating") == "{who} deja de comer"


def test_a_view_is_said_in_the_viewers_language_and_its_protocol_fields_stay() -> None:
    words = say("{who} swaps glasses with {other}", who=seat(1), other=seat(0))
    event = {"actor": 1, "notation": "swap 0", "text": str(words), "words": words.runs()}
    event["msg"] = words.message()
    label = say("Swap glasses with {other}", other=seat(0))
    action = {"id": 4, "notation": "swap 0", "label": str(label), "words": label.runs()}
    action["msg"] = label.message()
    view = {"events": [event], "legal": [action], "outcome": None}
    french = localized(view, "fr")
    assert french["events"][0]["words"] == [{"seat": 1}, " échange son verre avec ", {"seat": 0}]
    assert french["legal"][0]["words"] == ["Échanger les verres avec ", {"seat": 0}]
    # What programs read is untouched: notation, text and label stay English.
    for key in ("notation", "text"):
        assert french["events"][0][key] == event[key]
    assert french["legal"][0]["label"] == "Swap glasses with seat 0"
    assert view["events"][0]["words"] == words.runs()  # the English view is left as it was
    assert localized(view, "en") is view
