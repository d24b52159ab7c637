"""Each viewer reads the table in their own language (issue #32, item 2: "each viewer
in a room reads the table in their own language"; item 3: "the protocol's fields ...
stay in English").

One room, two people: seat 0 reads French, seat 1 German (each chose it in the
language menu, which keeps it in localStorage). The server says the game's words
(the log's event lines, the move buttons) to each socket in the language its hello
named; the page's own words come from the browser catalogs. Each must see only
their own language. Screenshots of a table per language on a phone (390 px) are
saved as artifacts, and no language may make the page wider than the phone.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from serving import make_room, server_process, sqlite_url
from test_room_shell import start

from apothecary.i18n.catalogs import read

# Words only the French, only the German catalog says (an event line and the status).
FRENCH = ("sert un verre", "verre couvert", "À vous", "En attente de")
GERMAN = ("schenkt", "verdecktes Glas", "Du bist dran", "Warten auf")
ENGLISH_EVENT = "deals a"


def choose_language(page: Any, base: str, code: str) -> None:
    """Keep ``code`` as the page's language, as the language menu does."""
    page.goto(f"{base}/health")  # the same origin, so the same localStorage
    page.evaluate("([code]) => localStorage.setItem('apothecary.lang', code)", [code])


def play_until_the_log_speaks(readers: list[Any]) -> None:
    """Click a move on whichever page may move until both logs have an event line (the
    game's first words come with its first move)."""
    for _ in range(20):
        if all(r.locator("#log li.log-event").count() for r in readers):
            return
        for reader in readers:
            ours = reader.locator("#legal button[data-action]:not([disabled])")
            if ours.count():
                ours.first.click()
        readers[0].wait_for_timeout(300)  # a bot's move (bot delay 0.05 s) or ours
    raise AssertionError("no event line came")


def log_text(page: Any) -> str:
    assert not page.errors, page.errors
    page.locator("#log li.log-event").first.wait_for()
    return str(page.locator("#log").inner_text())


def test_a_french_seat_and_a_german_seat_each_read_only_their_own_language(
    page: Any, phone_page: Any, web_server: str, api: Any, enter_room: Any, artifacts: Path
) -> None:
    body = {"game": "in-vino-morte", "players": 3, "seats": ["open", "open", "easy"]}
    room = make_room(api, host_name="Ann", seed="langs", **body)
    claimed = api.post(f"/api/rooms/{room['code']}/seats", json={"name": "Bea"})
    assert claimed.status_code in (200, 201), claimed.text
    choose_language(page, web_server, "fr")
    choose_language(phone_page, web_server, "de")
    enter_room(page, room)
    enter_room(phone_page, {"code": room["code"], "token": claimed.json()["token"], "seat": 1})
    start(api, room)
    for reader in (page, phone_page):
        reader.locator("#room[data-status=playing] .table-area").wait_for()
    buttons = {
        "fr": page.locator("#legal button[data-action]"),
        "de": phone_page.locator("#legal button[data-action]"),
    }
    labels = {code: b.all_inner_texts() for code, b in buttons.items()}
    play_until_the_log_speaks([page, phone_page])
    french, german = log_text(page), log_text(phone_page)
    status_fr, status_de = page.inner_text("#status"), phone_page.inner_text("#status")
    page.screenshot(path=str(artifacts / "room-fr-desktop.png"))
    phone_page.screenshot(path=str(artifacts / "room-de-phone.png"))
    seen_fr, seen_de = french + "\n" + status_fr, german + "\n" + status_de
    assert any(w in seen_fr for w in FRENCH), seen_fr
    assert any(w in seen_de for w in GERMAN), seen_de
    assert not any(w in seen_fr for w in GERMAN), seen_fr
    assert not any(w in seen_de for w in FRENCH), seen_de
    assert ENGLISH_EVENT not in french and ENGLISH_EVENT not in german
    assert page.evaluate("() => document.documentElement.lang") == "fr"
    assert phone_page.evaluate("() => document.documentElement.lang") == "de"
    # Whoever had moves to choose read them in their own language.
    assert all("Verser" in x or "Échanger" in x for x in labels["fr"]), labels
    assert all("einschenken" in x or "tauschen" in x for x in labels["de"]), labels
    assert not page.errors and not phone_page.errors


def test_a_table_in_each_language_fits_a_phone(
    phone_page: Any, web_server: str, api: Any, enter_room: Any, artifacts: Path
) -> None:
    for code in ("en", "fr", "de", "es"):
        body = {"game": "in-vino-morte", "players": 3, "seats": ["open", "easy", "easy"]}
        room = make_room(api, host_name="Ann", seed=f"phone-{code}", **body)
        start(api, room)
        choose_language(phone_page, web_server, code)
        enter_room(phone_page, room)
        phone_page.locator("#room[data-status=playing] .table-area").wait_for()
        play_until_the_log_speaks([phone_page])
        phone_page.screenshot(path=str(artifacts / f"table-{code}-phone.png"), full_page=True)
        width = phone_page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"{code}: the page is {width} px wide on a 390 px phone"


def english_left(text: str, code: str, keep: tuple[str, ...] = ()) -> list[str]:
    """The English of the catalog's messages that ``text`` (a page read in ``code``)
    still shows: each run of two words or more between a message's placeholders, where
    the ``code`` catalog says it otherwise. ``keep`` are names (a game's title, a
    player's) that are the same in every language."""
    left = set()
    for message in read(code):
        if not message.id or not message.string:
            continue
        english = message.id if isinstance(message.id, tuple) else (message.id,)
        said = message.string if isinstance(message.string, tuple) else (message.string,)
        for run in (r.strip(" :;,.()·") for e in english for r in re.split(r"\{\w*\}", e)):
            if len(run) < 8 or not re.search(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}", run):
                continue
            if any(run in s for s in said) or any(run in k for k in keep):
                continue
            if re.search(rf"(?<![A-Za-z]){re.escape(run)}(?![A-Za-z])", text):
                left.add(run)
    return sorted(left)


# The page's own words as a person sees them (SVG text too), less the log's event lines
# and the move buttons: those are the server's words in the viewer's language (the first
# test above), and an engine's words have their own tests.
VISIBLE_TEXT = """() => {
  const server = Array.from(document.querySelectorAll("#log, #legal"));
  server.forEach((node) => (node.hidden = true));
  const svg = Array.from(document.querySelectorAll("svg text"), (node) => node.textContent);
  const text = [document.body.innerText, ...svg].join("\\n");
  server.forEach((node) => (node.hidden = false));
  return text;
}"""


def test_english_left_finds_a_planted_english_sentence() -> None:
    # The guard below must catch English on a French page, and not the French itself.
    found = english_left("À vous · Waiting for the host to start the game…", "fr")
    assert "Waiting for the host to start the game…" in found, found
    assert english_left("En attente que l'hôte lance la partie…", "fr") == []


def test_each_table_in_each_language_on_a_phone(
    phone_page: Any, enter_room: Any, artifacts: Path, tmp_path: Path
) -> None:
    # Sixteen rooms from one address: a server of its own that allows them.
    options = ("--bot-delay", "0.05", "--rooms-per-address", "40")
    with (
        server_process(sqlite_url(tmp_path), *options) as (base, _),
        httpx.Client(base_url=base, timeout=10) as api,
    ):
        games = api.get("/api/games").json()
        assert len(games) >= 4, games
        for game in games:
            for code in ("en", "fr", "de", "es"):
                read_table(phone_page, base, api, enter_room, game, code, artifacts)


def read_table(
    page: Any,
    base: str,
    api: Any,
    enter_room: Any,
    game: dict[str, Any],
    code: str,
    artifacts: Path,
) -> None:
    """Open ``game`` against easy bots on ``page`` read in ``code``; save its screenshot;
    check it fits the phone and (French, German) shows no English of the catalogs."""
    players = game["default_players"]
    seats = ["open"] + ["easy"] * (players - 1)
    room = make_room(
        api,
        host_name="Ann",
        seed=f"{game['name']}-{code}",
        game=game["name"],
        players=players,
        seats=seats,
    )
    start(api, room)
    choose_language(page, base, code)
    enter_room(page, room, base=base)
    page.locator("#room[data-status=playing] .table-area").wait_for()
    page.wait_for_timeout(500)  # the bots' first moves (bot delay 0.05 s)
    page.screenshot(path=str(artifacts / f"table-{game['name']}-{code}-phone.png"), full_page=True)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"{game['name']} in {code}: the page is {width} px wide"
    assert page.evaluate("() => document.documentElement.lang") == code
    if code in ("fr", "de"):
        text = page.evaluate(VISIBLE_TEXT)
        keep = (game["title"], "Ann")
        assert english_left(text, code, keep) == [], f"{game['name']} in {code}:\n{text}"
    assert not page.errors, page.errors
