"""Words whose seats are data (apothecary.core.words), and the browser's reading
of them (static/words.js) agreeing with the Python one."""

from __future__ import annotations

import pytest

from apothecary.core.words import Words, join_names, read, say, seat, seats
from support.js import STATIC, needs_node, run_js


def test_say_keeps_seats_as_data_and_reads_as_the_english() -> None:
    words = say("{who} swaps glasses with {other}", who=seat(2), other=seat(0))
    assert str(words) == "seat 2 swaps glasses with seat 0"
    assert words.runs() == [{"seat": 2}, " swaps glasses with ", {"seat": 0}]
    assert words.seat_numbers() == [2, 0]


def test_a_list_of_seats_is_one_run_and_an_empty_one_is_nobody() -> None:
    assert say("{all} die", all=seats([0, 1, 3])).runs() == [{"seats": [0, 1, 3]}, " die"]
    assert str(say("{all} die", all=seats([0, 1, 3]))) == "seat 0, seat 1 and seat 3 die"
    assert say("{all} die", all=seats([])).runs() == ["nobody die"]
    assert say("{x}", x=seats([4])).runs() == [{"seat": 4}]


def test_other_values_are_formatted_into_the_text() -> None:
    words = say("{who} scores {points:>3} points", who=seat(1), points=7)
    assert words.runs() == [{"seat": 1}, " scores   7 points"]
    with pytest.raises(KeyError, match="'missing'"):
        say("{missing}")


def test_words_join_and_add_like_strings() -> None:
    joined = Words("; ").join([say("{a} lives", a=seat(0)), "the end"])
    assert str(joined) == "seat 0 lives; the end"
    assert (joined + "!").runs() == [{"seat": 0}, " lives; the end!"]
    assert ("so " + say("{a} wins", a=seat(1))).capitalized().runs() == [
        "So ",
        {"seat": 1},
        " wins",
    ]
    with pytest.raises(TypeError, match="made of strings and seats"):
        Words(3)  # type: ignore[arg-type]


def test_read_names_seats_as_asked_and_refuses_what_is_not_words() -> None:
    runs = say("{a} and {b} poison {c}", a=seat(0), b=seat(2), c=seats([1, 3])).runs()
    assert read(runs) == "seat 0 and seat 2 poison seat 1 and seat 3"
    names = ["Ann", "Bob", "Cy", "Di"]
    assert read(runs, lambda n: names[n]) == "Ann and Cy poison Bob and Di"
    for bad in ("seat 1", [{"seat": "1"}], [{"seat": 1, "x": 2}], [{"seats": [1, None]}], [3]):
        with pytest.raises(ValueError):
            read(bad)
    assert join_names([], "no card") == "no card"


@needs_node
def test_the_browser_reads_words_as_the_server_does() -> None:
    """static/words.js's readWords and Python's read agree on every shape of run."""
    cases = [
        say("{a} deals a covered glass to {b}, with cheese", a=seat(0), b=seat(2)).runs(),
        say("{all} die", all=seats([0, 1, 3])).runs(),
        say("{all} tie", all=seats([2, 1])).runs(),
        say("nobody {x}", x="dies").runs(),
        [],
    ]
    names = ["Ann", "Bob (you)", "Cy", "Di"]
    body = """
const { readWords } = await import("/static/words.js");
emit(DATA.cases.map((runs) => readWords(runs, (s) => DATA.names[s])));
"""
    assert run_js(body, {"cases": cases, "names": names}) == [
        read(runs, lambda n: names[n]) for runs in cases
    ]


@needs_node
def test_a_planted_difference_in_the_browser_s_join_is_caught() -> None:
    """The check above can fail: words.js with its final "and" planted away
    reads a list of seats differently from the server."""
    source = (STATIC / "words.js").read_text()
    assert '" and "' in source
    planted = source.replace('" and "', '", "')
    runs = say("{all} die", all=seats([0, 1, 3])).runs()
    body = """
const real = await import("/static/words.js");
const planted = await import("data:text/javascript," + encodeURIComponent(DATA.planted));
emit([real.readWords(DATA.runs, String), planted.readWords(DATA.runs, String)]);
"""
    real, wrong = run_js(body, {"runs": runs, "planted": planted})
    assert real == read(runs, str) == "0, 1 and 3 die"
    assert wrong != read(runs, str)
