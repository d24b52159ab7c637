"""The In Vino Morte table in a real browser, through the real shell and server.

- a person plays a whole game against bots by clicking the board (glasses, the
  pour popover, cheese) until the result, on a desktop and on a phone (dark);
- two browser contexts play against each other, one of them the dealer: the
  other's page never holds what a covered glass contains (DOM, SVG, and the
  WebSocket frames it received) until the reveal;
- the keyboard alone makes a move; axe-core finds nothing serious;
- screenshots at the start, mid-game and the end land in the test's artifacts;
  ``APOTHECARY_REFRESH_PICTURES=1`` also writes ``docs/images/in-vino-morte.png``.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
import tables_kit as kit
from serving import host_headers, make_room

GAME = "in-vino-morte"
BOARD = ".table-area [role=button].ivm-can:not([data-key=skip])"
POUR = ".ivm-popover button.ivm-pour"


def board_move(page: Any, rng: random.Random, skip_reveals: bool = True) -> bool:
    """One move by the board, if the board offers one now: True when made. With nothing
    to play, a reveal on the table is skipped (unless not ``skip_reveals``)."""
    if page.locator(POUR).count():
        choices = page.locator(POUR)
    else:
        keys = page.eval_on_selector_all(BOARD, "nodes => nodes.map(n => n.dataset.key)")
        if not keys:
            skip = page.locator(".table-area [data-key=skip]")
            if skip_reveals and skip.count():
                skip.first.click(timeout=2000)
            return False
        key = rng.choice(keys)
        before = kit.state_id(page)
        try:
            page.click(f'.table-area [data-key="{key}"]', timeout=2000)
        except Exception:  # the board was drawn anew under the click: look again
            return False
        if key.startswith("pour-"):
            page.wait_for_selector(POUR, timeout=2000)
            choices = page.locator(POUR)
        else:
            kit.wait_change(page, before)
            return True
    with kit.next_position(page):
        choices.nth(rng.randrange(choices.count())).click(timeout=2000)
    return True


def play_to_end(page: Any, rng: random.Random, shots: Path | None = None, tag: str = "") -> int:
    """Click the board until the result shows; a screenshot at start, mid-game and end."""
    started = time.monotonic()
    page.wait_for_selector(".table-area svg")
    if shots:
        kit.snap(page, shots, f"{tag}-start", table=True)
    mid_taken = False

    def move(_: int) -> bool:
        nonlocal mid_taken
        made = board_move(page, rng)
        if (
            shots
            and not mid_taken
            and page.locator(".table-area .ivm-move-line, .table-area [data-glass=covered]").count()
        ):
            kit.snap(page, shots, f"{tag}-mid", table=True)
            mid_taken = True
        return made

    moves = kit.play(move, until=lambda: kit.over(page), seconds=90, since=started)
    # the last reveal plays on the table, then the table holds the final round
    page.wait_for_selector(".table-area .ivm-winner, .table-area .ivm-centre-title", timeout=10_000)
    skip = page.locator(".table-area [data-key=skip]")
    if skip.count():
        skip.first.click()
    if shots:
        kit.snap(page, shots, f"{tag}-end", table=True)
    return moves


def test_a_whole_game_by_the_board(
    device: str, device_page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    seats = ["open", "medium", "medium", "medium", "medium"]
    answer = kit.start_room(api, GAME, 5, seats, "ivm-board-7", {"cheese": True})
    enter_room(device_page, answer)
    moves = play_to_end(device_page, random.Random(7), artifacts, f"ivm-{device}")
    assert moves >= 5  # the first round's deal at least, all by the board
    assert device_page.locator("#room").get_attribute("data-status") == "over"
    # the centre says who the last round killed, the verb and the round first
    # (it read "round 1: you, medium bot #2", its "died" wrapped out of the centre)
    centre = device_page.eval_on_selector_all(
        ".table-area .ivm-centre text", "nodes => nodes.map(n => n.textContent)"
    )
    assert any(re.match(r"(died|nobody died) in round \d+", line) for line in centre), centre
    assert not device_page.errors


def test_the_pour_popover_fits_on_a_phone(phone_page: Any, api: Any, enter_room: Any) -> None:
    # Ann deals the first round with cheese on: wine, poison, and each with cheese.
    # Its letters ("W+C") spilled out of their discs, the white C onto the cream button.
    seats = ["open", "medium", "medium", "medium", "medium"]
    enter_room(phone_page, kit.start_room(api, GAME, 5, seats, "ivm-popover-1", {"cheese": True}))
    phone_page.click(".table-area .ivm-pour-here [role=button]")
    phone_page.wait_for_selector(POUR)
    letters = phone_page.eval_on_selector_all(
        ".ivm-pour-letter", "nodes => nodes.map(n => n.textContent)"
    )
    assert sorted(letters) == ["P", "P+C", "W", "W+C"]
    assert kit.overflowing(phone_page, ".ivm-pour-letter") == []
    assert kit.outside(phone_page, ".ivm-pour-letter", ".ivm-pour") == []
    assert kit.outside(phone_page, ".ivm-pour", ".ivm-popover") == []
    # the buttons name the seat as the moves do ("Pour poison for seat 1" said a number)
    seat = int(phone_page.get_attribute(".ivm-popover", "data-seat") or "")
    whom = "into your own glass" if seat == 0 else f"for medium bot (seat {seat})"
    labels = phone_page.eval_on_selector_all(POUR, "ns => ns.map(n => n.ariaLabel)")
    assert sorted(labels) == sorted(
        f"Pour {what} {whom}"
        for what in ("wine", "poison", "wine with cheese", "poison with cheese")
    ), labels


def test_the_dealers_cards_never_reach_the_other_page(
    browser: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    answer = make_room(
        api, game=GAME, players=2, seats=["open", "open"], seed="ivm-secret-3", host_name="Ann"
    )
    code = answer["code"]
    bob = api.post(f"/api/rooms/{code}/seats", json={"name": "Bob"}).json()
    assert api.post(f"/api/rooms/{code}/start", headers=host_headers(answer)).status_code < 300
    dealer_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    other_ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        dealer = dealer_ctx.new_page()
        other = other_ctx.new_page()
        errors: list[str] = []
        for page in (dealer, other):
            page.on("pageerror", lambda error: errors.append(str(error)))
        frames = kit.record_frames(other)
        enter_room(dealer, answer)
        enter_room(other, {"code": code, **bob})

        # The dealer pours both glasses by the board: Bob's, then its own.
        for _ in range(2):
            dealer.wait_for_selector(".table-area .ivm-pour-here [role=button]")
            dealer.click(".table-area .ivm-pour-here [role=button]")
            dealer.wait_for_selector(POUR)
            with kit.next_position(dealer):
                dealer.locator(POUR).first.click()
        # The dealer sees both glasses; Bob sees two covered glasses.
        dealer.wait_for_selector(".table-area .ivm-secret")
        assert dealer.locator(".table-area .ivm-secret").count() == 2
        other.wait_for_selector(".table-area [data-key=drink]")
        kit.snap(dealer, artifacts, "ivm-dealer-view", full_page=False)
        kit.snap(other, artifacts, "ivm-other-view", full_page=False)

        assert other.locator(".table-area [data-glass=covered]").count() == 2
        assert (
            other.locator(
                ".table-area .ivm-wine, .table-area .ivm-poison, .table-area .ivm-secret"
            ).count()
            == 0
        )
        glass_words = other.eval_on_selector_all(
            ".table-area .ivm-seat", "nodes => nodes.map(n => n.textContent)"
        )
        for words in glass_words:
            assert "wine" not in words.lower() and "poison" not in words.lower(), words
        letters = other.eval_on_selector_all(
            ".table-area .ivm-letter", "nodes => nodes.map(n => n.textContent)"
        )
        assert letters == ["?", "?"]
        dom = other.content().lower()
        for secret in (
            "glass of wine",
            "glass of poison",
            "deal 1 wine",
            "deal 1 poison",
            "deal 0 wine",
            "deal 0 poison",
            "wine, hidden",
            "poison, hidden",
            "ivm-wine",
            "ivm-poison",
        ):
            assert secret not in dom, secret
        for frame in frames:
            if '"type": "update"' in frame or '"type":"update"' in frame:
                message = json.loads(frame)
                assert set(message["observation"]["glasses"]) <= {None, "covered"}, message[
                    "observation"
                ]
                for event in message["events"]:
                    assert event.get("glass") is None, event

        # Bob plays by the board (drink, or swap with the dealer); the round is revealed.
        with kit.next_position(other):
            other.click(f".table-area [data-key={random.Random(3).choice(['drink', 'swap-0'])}]")
        for page in (dealer, other):
            page.wait_for_selector("#result", state="visible")
        other.wait_for_selector(".table-area .ivm-wine, .table-area .ivm-poison")
        kit.snap(other, artifacts, "ivm-other-after-reveal")
        assert not errors
    finally:
        dealer_ctx.close()
        other_ctx.close()


def test_a_move_by_keyboard_alone(page: Any, api: Any, enter_room: Any) -> None:
    answer = kit.start_room(api, GAME, 3, ["open", "medium", "medium"], "ivm-keys-1")
    enter_room(page, answer)
    page.wait_for_selector(".table-area .ivm-pour-here [role=button]")
    # Tab to the glass to pour (it is the only thing on the board to click)
    kit.tab_until(page, lambda: kit.board_focused(page), 60, "the board")
    assert kit.focused_label(page).startswith("Pour")
    page.keyboard.press("Enter")
    page.wait_for_selector(POUR)
    assert page.evaluate("() => document.activeElement.classList.contains('ivm-pour')")
    page.keyboard.press("Escape")  # closes, focus back on the glass
    assert page.locator(POUR).count() == 0
    page.keyboard.press(" ")
    page.wait_for_selector(POUR)
    with kit.next_position(page):
        page.keyboard.press("Enter")
    events = page.locator("#log li")
    assert events.count() >= 1


def test_axe_finds_nothing_serious(page: Any, api: Any, enter_room: Any, axe: Any) -> None:
    answer = kit.start_room(
        api, GAME, 4, ["medium", "open", "medium", "medium"], "ivm-axe-2", {"cheese": True}
    )
    enter_room(page, answer)
    page.wait_for_selector(".table-area svg")
    axe(page)
    for _ in range(2):  # the first position, then the human's turn with glasses on the table
        assert kit.axe_violations(page) == []
        page.wait_for_selector(".table-area [data-key=drink]", timeout=15_000)


def test_readme_picture(browser: Any, api: Any, enter_room: Any) -> None:
    with kit.readme_picture(
        browser, GAME, viewport={"width": 1280, "height": 800}, color_scheme="light"
    ) as page:
        # seat 3's first turn: two players before it have drunk or swapped
        seats = ["medium", "medium", "medium", "open", "medium"]
        answer = kit.start_room(api, GAME, 5, seats, "ivm-picture-4", {"cheese": True})
        enter_room(page, answer)
        page.wait_for_selector(".table-area [data-key=drink]", timeout=20_000)
        page.wait_for_timeout(300)


# -- the centre's words, and the felt, for positions a game seldom reaches ------------------
# (the table's module alone in a page, given an update written here: see kit.table_alone)


def own_names(players: int) -> list[str]:
    """The seats' own names, as an update's seat list has them: Ann, then bots."""
    return ["Ann"] + [f"{'easy' if s in (6, 8) else 'medium'} bot" for s in range(1, players)]


def twins(players: int) -> list[str]:
    """Ann, then bots named as the shell names bots that share a name: "medium bot (seat 1)"."""
    return ["Ann"] + [f"{name} (seat {s})" for s, name in enumerate(own_names(players)) if s]


def observation(players: int, **fields: Any) -> dict[str, Any]:
    """Ann's (seat 0's) observation of a game of ``players``, in round 2, with ``fields``."""
    none: list[Any] = [None] * players
    no = [False] * players
    obs: dict[str, Any] = {
        "seat": 0,
        "players": players,
        "round": 2,
        "phase": "play",
        "dealer": players - 1,
        "to_move": 0,
        "deck": {"wine": 8, "poison": 8},
        "cheese_rule": False,
        "cheese_on_reveal": True,
        "cheese_limit": 1,
        "alive": [True] * players,
        "in_round": [True] * players,
        "deal_order": list(range(players)),
        "glasses": ["covered"] * players,
        "drunk": no,
        "cheese": no,
        "turn_taken": no,
        "events": [],
        "last_round": None,
        "outcome": None,
    }
    obs.update(fields)
    # the seat list a real update carries: the table draws each seat's own name from it
    seats = [{"seat": s, "name": name} for s, name in enumerate(own_names(players))]
    observed = {**obs, "glasses": obs["glasses"] or none}
    return {"observation": observed, "legal": [], "events": [], "seats": seats}


def round_over(players: int, died: list[int], revealed: list[int]) -> dict[str, Any]:
    """Round 2 just over: every seat drank or was turned over; ``died`` died."""
    return {
        "round": 2,
        "dealer": players - 1,
        "glasses": ["poison" if s in died else "wine" for s in range(players)],
        "cheese": [False] * players,
        "revealed": revealed,
        "died": died,
    }


def game_over(players: int, winners: list[int], died: list[int]) -> dict[str, Any]:
    """The result: everyone dead, ``winners`` sharing it, ``died`` killed by round 2."""
    return observation(
        players,
        phase="over",
        to_move=None,
        alive=[False] * players,
        in_round=[False] * players,
        glasses=[None] * players,
        last_round=round_over(players, died, []),
        outcome={
            "winners": winners,
            "scores": [1.0 if s in winners else 0.0 for s in range(players)],
        },
    )


CENTRE = """() => [...document.querySelectorAll('.ivm-centre text')].map((t) => ({
  words: t.textContent,
  title: t.parentElement.querySelector(':scope > title')?.textContent || null,
}))"""


def centre(page: Any) -> list[dict[str, Any]]:
    """The centre's lines, each with the tooltip over it (the whole of a summary)."""
    found: list[dict[str, Any]] = page.evaluate(CENTRE)
    return found


def said(lines: list[dict[str, Any]]) -> str:
    """The centre's lines as one text (a wrapped sentence joined again)."""
    return " ".join(line["words"] for line in lines)


def no_cut_sentence(lines: list[dict[str, Any]]) -> None:
    """No line ends a list half way (","), none is cut ("…"), no "(seat N)" in the centre."""
    for line in lines:
        assert not line["words"].endswith(","), lines
        assert "\u2026" not in line["words"], lines
        assert "(seat" not in line["words"], lines


def test_a_shared_win_of_many_keeps_its_verb_on_a_phone(
    page: Any, web_server: str, artifacts: Path
) -> None:
    # The 9-seat phone centre read "medium bot (seat 2), easy bot (seat 6)," (two names and
    # "share the win" lost) over "died in round 2: medium bot #2, easy bot #6, medium bot".
    # The rule (DESIGN's In Vino Morte): when everyone left dies in one round, they share it.
    kit.table_alone(page, web_server, GAME, twins(9), width=350)
    kit.show(page, game_over(9, [2, 6, 7, 8], [2, 6, 7, 8]))
    kit.snap(page, artifacts, "ivm-9-shared-win", full_page=False)
    lines = centre(page)
    no_cut_sentence(lines)
    words = said(lines)
    assert "share the win" in words and "died in round 2" in words, lines
    # a summary says how many; its tooltip has them all, as the centre names them
    for line in lines:
        if line["title"]:
            for s in (2, 6, 7, 8):
                assert f" #{s}" in line["title"], line
    assert "4 players share the win" in words or all(f"#{s}" in words for s in (2, 6, 7, 8))
    # five dead, Ann among them: still the count and the verb
    kit.show(page, game_over(9, [1, 2, 6, 7, 8], [0, 1, 2, 6, 7, 8]))
    lines = centre(page)
    no_cut_sentence(lines)
    assert "6 players died in round 2" in said(lines), lines
    assert any(line["title"] and line["title"].endswith("and easy bot #8") for line in lines)


def test_the_reveal_of_many_deaths_keeps_its_verb_on_a_phone(
    page: Any, web_server: str, artifacts: Path
) -> None:
    # "Round 2: the reveal / you, easy bot #1, medium bot #4," and no verb: the list had two
    # lines and ran out before "die".
    kit.table_alone(page, web_server, GAME, twins(9), width=350)
    kit.show(page, observation(9))
    died = [0, 1, 4, 6, 7]
    after = observation(9, round=3, last_round=round_over(9, died, [1, 4, 6, 7]))
    after["events"] = [{"kind": "drink", "actor": 0, "reveal": [{"seat": s} for s in died[1:]]}]
    kit.show(page, after)
    page.wait_for_selector(".ivm-centre-title")
    kit.snap(page, artifacts, "ivm-9-reveal", full_page=False)
    lines = centre(page)
    no_cut_sentence(lines)
    assert said(lines).startswith("Round 2: the reveal"), lines
    assert said(lines).endswith(" die"), lines


def test_the_centre_names_seats_one_way(page: Any, web_server: str) -> None:
    # "you, medium bot, easy bot share the win" over "died in round 1: medium bot #1,
    # easy bot #2 and you": one way of joining names, and "#N" for the seats.
    page.set_viewport_size({"width": 1280, "height": 800})
    names = ["Ann", "medium bot", "easy bot"]
    kit.table_alone(page, web_server, GAME, names, width=1000)
    over = game_over(3, [0, 1, 2], [0, 1, 2])
    over["seats"] = [{"seat": s, "name": name} for s, name in enumerate(names)]
    kit.show(page, over)
    words = [line["words"] for line in centre(page)]
    assert "you, medium bot #1 and easy bot #2 share the win" in words, words
    assert "died in round 2: you, medium bot #1 and easy bot #2" in words, words


FELT_CLEARANCE = """() => {
  const felt = document.querySelector('.ivm-table').getBoundingClientRect();
  const inner = [felt.left + 0.2 * felt.width, felt.right - 0.2 * felt.width];
  return [...document.querySelectorAll('.ivm-seat text')].flatMap((t) => {
    const r = t.getBoundingClientRect();
    if (r.right < inner[0] || r.left > inner[1]) return [];  // beside the felt's flat part
    const gap = Math.max(felt.top - r.bottom, r.top - felt.bottom);
    return [[t.textContent, Math.round(gap * 10) / 10]];
  });
}"""


def test_the_seats_over_and_under_a_phone_felt_clear_its_rim(
    page: Any, web_server: str, artifacts: Path
) -> None:
    # With 6 seats on a phone, the top seat's "☠ dead" sat on the felt's rim: the felt's
    # least height round the centre's words won over the room the seat above left it.
    for players in (4, 5, 6, 7, 8, 9):
        kit.table_alone(page, web_server, GAME, twins(players), width=350)
        kit.show(page, game_over(players, [1], list(range(players))))
        kit.snap(page, artifacts, f"ivm-felt-{players}", full_page=False)
        gaps = page.evaluate(FELT_CLEARANCE)
        assert gaps, players
        # the rim's stroke is 3 units wide, half of it outside the felt's shape
        assert all(gap >= 3 for _, gap in gaps), (players, gaps)


HELD = """() => ({
  over: document.querySelector('#room').dataset.status === 'over',
  revealing: !!document.querySelector('.table-area [data-key=skip]'),
  result: !document.querySelector('#result').hidden,
  status: document.querySelector('#status').textContent,
  stars: document.querySelectorAll('.table-area .ivm-winner').length,
  won: document.querySelectorAll('#seats .tag-good').length,
  logged: [...document.querySelectorAll('#log li')].map((li) => li.textContent).join(' | '),
})"""


@pytest.mark.parametrize("ending", ["skipped", "watched"])
def test_the_result_waits_for_the_last_reveal(
    page: Any, api: Any, enter_room: Any, artifacts: Path, ending: str
) -> None:
    # The headline ("Bob wins"), the status line, the seats' "won", the table's
    # "★ winner" and the log's last lines came with the last update, while its
    # glasses were still turning over: they told the ending before the reveal did.
    answer = kit.start_room(api, GAME, 3, ["open", "easy", "easy"], f"ivm-held-{ending}")
    enter_room(page, answer)
    page.wait_for_selector(".table-area svg")
    rng = random.Random(3)
    kit.play(
        lambda _: board_move(page, rng, skip_reveals=False),
        until=lambda: page.get_attribute("#room", "data-status") == "over",
        seconds=90,
    )
    held = page.evaluate(HELD)
    kit.snap(page, artifacts, f"ivm-held-{ending}", full_page=False)
    assert held["over"] and held["revealing"], held
    assert not held["result"] and held["stars"] == 0 and held["won"] == 0, held
    assert "turned over" in held["status"] and "win" not in held["status"], held
    assert "Game 1:" not in held["logged"] and "last player alive" not in held["logged"], held
    if ending == "skipped":
        page.click(".table-area [data-key=skip]")
    page.wait_for_selector("#result h2", timeout=15_000)
    shown = page.evaluate(HELD)
    assert shown["result"] and not shown["revealing"] and shown["won"] >= 1, shown
    assert "Game over" in shown["status"], shown
    assert "Game 1:" in shown["logged"] and "glasses are turned over" in shown["logged"], shown
    assert not page.errors


YOURS_IN_VIEW = """() => [document.querySelector('.table-area .ivm-seat[data-seat="0"]'),
  document.querySelector('#legal')].every((n) => { const r = n.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight; })"""


def test_your_turn_comes_into_view_on_a_phone(
    browser: Any, web_server: str, phone_page: Any, api: Any, enter_room: Any, artifacts: Path
) -> None:
    # Five seats on a 390x844 phone: Ann's glass and the move buttons were below the
    # first screen when her turn came (her glass at 806..917 px, the buttons from 1008)
    page = phone_page
    page.emulate_media(reduced_motion="reduce")  # no smooth scroll to wait for
    answer = kit.start_room(api, GAME, 5, ["open", *["easy"] * 4], "ivm-phone-turn-5")
    enter_room(page, answer)
    # The room opens at its top (the seats bar in view) on Ann's deal; she pours every
    # glass by the buttons, the others play, and her next turn comes into view.
    page.wait_for_selector("#legal button[data-action]:not([disabled])", timeout=20_000)
    assert page.evaluate("window.scrollY") == 0
    ours = "#legal button[data-action]:not([disabled])"
    while page.locator(ours).count():
        with kit.next_position(page):
            page.locator(ours).first.click()
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_selector(ours, timeout=20_000)
    page.wait_for_function(YOURS_IN_VIEW, timeout=5_000)
    kit.snap(page, artifacts, "ivm-phone-your-turn", full_page=False)
    # Once a turn: the page scrolled back up is left there while the turn lasts (here
    # someone comes to watch, which sends an update); by script, which the shell does
    # not take for a person scrolling (that too would leave the page where it is)
    page.evaluate("window.scrollTo(0, 0)")
    guest = browser.new_context()
    try:
        guest.new_page().goto(f"{web_server}/rooms/{answer['code']}#watch")
        page.wait_for_selector(".watchers:has-text('1 watching')")
    finally:
        guest.close()
    assert page.evaluate("window.scrollY") == 0
