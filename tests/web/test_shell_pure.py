"""The shell's pure parts under Node, without a browser: words.js (the one reading of
words), the log's merge of events and notices, the seats bar's view model and the
result's words, each called as the browser calls them."""

from __future__ import annotations

from typing import Any

from support.js import STATIC, module_url, needs_node, run_js

WORDS = module_url(STATIC / "words.js")
LOG = module_url(STATIC / "room" / "log.js")
SEATS = module_url(STATIC / "room" / "seats.js")
RESULT = module_url(STATIC / "room" / "result.js")

pytestmark = needs_node


def test_words_put_names_in_for_seats_and_join_lists() -> None:
    names = ["Ann", "Bob", "Cy", "host"]
    runs = [{"seat": 0}, " pours for ", {"seats": [1, 2]}, ", then ", {"seats": [2, 0, 1]}]
    got = run_js(
        f"const w = await import({WORDS!r});\n"
        "const name = (s) => DATA.names[s];\n"
        "emit({text: w.readWords(DATA.runs, name),\n"
        "      capital: w.readWords(['the dealer ', {seat: 1}], name, {capital: true}),\n"
        "      named: w.readWords([{seat: 3}, ' deals'], name, {capital: true}),\n"
        "      pieces: w.wordPieces(DATA.runs, (s) => ({who: s})),\n"
        "      one: w.joinNames(['Ann']), none: w.joinNames([]),\n"
        "      then: w.eventRuns({words: [{seat: 0}, ' drinks'],\n"
        "                         then_words: [[{seat: 0}, ' dies'], ['it ends']]}),\n"
        "      bad: w.readWords(null, name)});",
        {"names": names, "runs": runs},
    )
    assert got["text"] == "Ann pours for Bob and Cy, then Cy, Ann and Bob"
    assert got["capital"] == "The dealer Bob"
    assert got["named"] == "host deals"  # a name stays as its person wrote it
    assert got["pieces"] == [
        {"who": 0},
        " pours for ",
        {"who": 1},
        " and ",
        {"who": 2},
        ", then ",
        {"who": 2},
        ", ",
        {"who": 0},
        " and ",
        {"who": 1},
    ]
    assert (got["one"], got["none"]) == ("Ann", "")
    assert got["then"] == [{"seat": 0}, " drinks", "; ", {"seat": 0}, " dies", "; ", "it ends"]
    assert got["bad"] == ""


def merged(events: list[dict[str, Any]], notices: list[dict[str, Any]]) -> list[str]:
    """inStepOrder's answer as "e<step>" and "n<kind>" marks."""
    out: list[list[Any]] = run_js(
        f"const {{ inStepOrder }} = await import({LOG!r});\n"
        "emit(inStepOrder(DATA.events, DATA.notices));",
        {"events": events, "notices": notices},
    )
    return [f"e{entry['step']}" if kind == "event" else f"n{entry['kind']}" for kind, entry in out]


def test_the_log_puts_each_notice_before_the_step_it_names() -> None:
    events = [{"step": s} for s in (3, 4, 5)]
    notices = [
        {"kind": "left", "step": 3},
        {"kind": "bot_plays", "step": 5},
        {"kind": "returned", "step": 9},
    ]
    assert merged(events, notices) == ["nleft", "e3", "e4", "nbot_plays", "e5", "nreturned"]
    assert merged([], notices[:1]) == ["nleft"]
    assert merged(events, []) == ["e3", "e4", "e5"]


def test_notices_and_away_banners_say_which_bot() -> None:
    got = run_js(
        f"const log = await import({LOG!r});\n"
        "emit({easy: log.aBot('easy'), medium: log.aBot('medium'), none: log.aBot(null),\n"
        "      left: log.noticeWords({kind: 'left'}, 'WHO'),\n"
        "      timeout: log.noticeWords(\n"
        "        {kind: 'bot_plays', reason: 'timeout', level: 'easy'}, 'WHO'),\n"
        "      plain: log.noticeWords({kind: 'bot_plays', level: 'hard'}, 'WHO'),\n"
        "      newer: log.noticeWords({kind: 'a kind from the future'}, 'WHO'),\n"
        "      away: log.awayWords({away_reason: null, level: 'easy'})});"
    )
    assert (got["easy"], got["medium"], got["none"]) == ("an easy bot", "a medium bot", "a bot")
    assert got["left"] == ["WHO", " left the table"]
    assert "".join(got["timeout"]) == "Time ran out for WHO: an easy bot plays for them"
    assert "WHO" in got["timeout"]  # the seat's name stays a node of its own
    assert "".join(got["plain"]) == "A hard bot plays for WHO" and "WHO" in got["plain"]
    assert got["newer"] is None
    assert got["away"] == "An easy bot is playing for you. "


SEATS_MSG = {
    "status": "over",
    "to_move": 1,
    "match_target": 3,
    "outcome": {"winners": [2], "scores": [0, 0, 1]},
    "seats": [
        {"seat": 0, "kind": "human", "name": "Ann", "connected": True, "wins": 1},
        {"seat": 1, "kind": "bot", "name": "easy bot", "connected": True, "wins": 0},
        {"seat": 2, "kind": "bot", "name": "easy bot", "connected": True, "wins": 2, "away": False},
    ],
}


def chips(msg: dict[str, Any], you: int | None, holding: bool) -> list[dict[str, Any]]:
    """seatChips of ``msg`` with names as the room gives them."""
    body = (
        f"const {{ seatChips }} = await import({SEATS!r});\n"
        "const seats = DATA.msg.seats;\n"
        "const names = { ownName: (s) => seats[s].name,\n"
        "  seatName: (s) => seats.filter((p) => p.name === seats[s].name).length > 1"
        " ? `${seats[s].name} (seat ${s})` : seats[s].name };\n"
        "emit(seatChips(DATA.msg, DATA.you, names, DATA.holding));"
    )
    result: list[dict[str, Any]] = run_js(body, {"msg": msg, "you": you, "holding": holding})
    return result


def test_the_seats_bar_marks_you_the_winner_and_twins() -> None:
    over = chips(SEATS_MSG, 0, holding=False)
    assert [c["won"] for c in over] == [False, False, True]
    assert not any(c["turn"] for c in over)  # the game is over: nobody to move
    assert over[0]["you"] and over[0]["seatLine"] == "seat 0 · you"
    # twins: the chip shows the name alone (its own line says the seat), the title tells them apart
    assert (over[2]["name"], over[2]["title"]) == ("easy bot", "easy bot (seat 2)")
    assert over[2]["label"] == "easy bot (seat 2), seat 2: bot, winner, 2 wins"
    assert [c["wins"] for c in over] == [1, 0, 2]
    # while the table still shows the end, nobody has won yet and seat 1 is still to move
    held = chips(SEATS_MSG, None, holding=True)
    assert [c["won"] for c in held] == [False, False, False]
    assert [c["turn"] for c in held] == [False, True, False]
    assert not any(c["you"] for c in held)


def test_the_result_says_who_won_from_data() -> None:
    got = run_js(
        f"const r = await import({RESULT!r});\n"
        "const label = (s) => ['Ann (you)', 'Bob', 'Cy'][s];\n"
        "emit({one: r.winnersWords({winners: [0]}, label),\n"
        "      three: r.winnersWords({winners: [0, 1, 2]}, label),\n"
        "      none: r.winnersWords({winners: []}, label),\n"
        "      runs: r.reasonRuns(\n"
        "        {reason: 'seat 1 is last', reason_words: [{seat: 1}, ' is last']}),\n"
        "      old: r.reasonRuns({reason: 'it ended'}),\n"
        "      scores: [r.formatScore(2), r.formatScore(0.3333), r.formatScore(null)]});"
    )
    assert got["one"] == "Ann (you) wins"
    assert got["three"] == "Ann (you), Bob and Cy share the win"
    assert got["none"] == "Nobody wins"
    assert got["runs"] == [{"seat": 1}, " is last"]
    assert got["old"] == ["it ended"]
    assert got["scores"] == ["2", "0.33", "—"]
