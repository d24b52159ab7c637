"""The lobby in a real browser: the games, the generated options form, creating and
starting a room, the invite link and its QR code, the open rooms, the rules page,
the Markdown renderer's safety, the QR encoder against a reference, and axe-core."""

from __future__ import annotations

import json
from typing import Any

import pytest
from axe_kit import inject_axe
from serving import host_headers, make_room

# "HELLO WORLD" in byte mode, level M, version 1, mask 0, as the `qrcode` package
# (an independent encoder) draws it: '#' dark.
HELLO_WORLD_MASK_0 = [
    "#######..##.#.#######",
    "#.....#.##..#.#.....#",
    "#.###.#.....#.#.###.#",
    "#.###.#...##..#.###.#",
    "#.###.#.##..#.#.###.#",
    "#.....#..#..#.#.....#",
    "#######.#.#.#.#######",
    "..........###........",
    "#.#.#.#..#.#....#..#.",
    "#.#..#...##...##...#.",
    "#...#.#####.##.######",
    "#.##...####.....#..#.",
    "#.##..###...#####.#..",
    "........####.#....##.",
    "#######...##...##.###",
    "#.....#..####..#....#",
    "#.###.#.####..#.#.#..",
    "#.###.#....#..###.##.",
    "#.###.#.#.#.#.#.#.#.#",
    "#.....#...##....#..#.",
    "#######.##.##.##..###",
]


def open_lobby(page: Any, base: str, query: str = "") -> None:
    page.goto(f"{base}/{query}")
    page.wait_for_selector(".game-card")
    page.wait_for_selector("#setup-form")


def test_the_lobby_lists_every_game(page, web_server, api):
    games = api.get("/api/games").json()
    open_lobby(page, web_server)
    cards = page.locator(".game-card")
    assert cards.count() == len(games) == 4
    titles = [cards.nth(i).locator("h3").inner_text() for i in range(cards.count())]
    assert titles == [g["title"] for g in games]
    for game in games:
        card = page.locator(f'.game-card[data-game="{game["name"]}"]')
        assert game["summary"] in card.inner_text()
        link = card.locator("a.rules-link")
        assert link.get_attribute("href") == f"/rules/{game['name']}"
    # The longer paragraph comes from the rules page, rendered as text.
    page.wait_for_function("() => document.querySelector('.card-more').textContent.length > 80")
    assert page.errors == []


def test_the_options_form_is_generated_from_the_descriptions(page, web_server, api):
    open_lobby(page, web_server)
    # In Vino Morte: a bool is a checkbox, choices a select, an int with bounds a number input.
    cheese = page.locator("#opt-cheese")
    assert cheese.get_attribute("type") == "checkbox"
    assert not cheese.is_checked()
    assert page.locator("#opt-cheese_on_reveal").is_checked()
    deck = page.locator("#opt-deck")
    assert deck.evaluate("e => e.tagName") == "SELECT"
    assert deck.locator("option").all_inner_texts() == ["8+8", "9+9"]
    limit = page.locator("#opt-round_limit")
    assert limit.get_attribute("type") == "number"
    # A room's bound (room_maximum), below the game's own maximum: the server refuses more.
    options = api.get("/api/games/in-vino-morte").json()["options"]
    spec = next(o for o in options if o["name"] == "round_limit")
    assert spec["room_maximum"] < spec["maximum"]
    bounds = (limit.get_attribute("min"), limit.get_attribute("max"))
    assert bounds == ("0", str(spec["room_maximum"]))
    # The seats follow the player count; each seat is open or a bot level of this game.
    assert page.locator(".seat-choices li").count() == 4
    page.fill("#players", "6")
    page.dispatch_event("#players", "input")
    assert page.locator(".seat-choices li").count() == 6
    levels = page.locator("#seat-1 option").all_inner_texts()
    assert levels == ["Open for a person", "Bot: easy", "Bot: medium", "Bot: hard"]
    # Another game, another form: a str option without choices is a text input.
    page.click('.game-card[data-game="little-drop-of-poison"] button.choose')
    page.wait_for_selector('#setup-form[data-game="little-drop-of-poison"]')
    assert page.locator("#opt-deck").get_attribute("type") == "text"
    assert page.locator("#opt-target").get_attribute("type") == "number"
    page.click('.game-card[data-game="poison-pot"] button.choose')
    radius = page.locator("#opt-radius")
    assert (radius.get_attribute("min"), radius.get_attribute("max")) == ("1", "4")
    assert page.locator("#players").get_attribute("max") == "3"
    page.click('.game-card[data-game="tea-scones-arsenic"] button.choose')
    assert page.locator("#opt-little_spoon").get_attribute("type") == "checkbox"
    assert page.locator("#players").get_attribute("min") == "1"


def test_create_a_room_with_bots_invite_and_start(page, web_server, api):
    open_lobby(page, web_server)
    page.fill("#host-name", "Ann")
    page.fill("#players", "3")
    page.dispatch_event("#players", "input")
    page.select_option("#seat-1", "easy")
    page.check("#opt-cheese")
    page.check("#timer-on")
    page.fill("#turn-seconds", "120")
    page.check("#series-on")
    page.fill("#match-target", "2")
    page.uncheck("#listed")
    page.click("#setup-form button[type=submit]")
    page.wait_for_url("**/rooms/*")
    page.wait_for_selector("#room[data-status=lobby] #lobby-seats")
    code = page.url.rsplit("/", 1)[1]
    info = api.get(f"/api/rooms/{code}").json()
    assert info["options"]["cheese"] is True
    assert info["settings"] == {
        "turn_seconds": 120.0,
        "match_target": 2,
        "listed": False,
        "fallback_level": "medium",
        "hints": False,  # off unless the host turns them on
        "rated": False,  # likewise
        "tutorial": False,
    }
    assert [s["kind"] for s in info["seats"]] == ["human", "bot", "open"]
    assert info["seats"][0]["name"] == "Ann"
    assert code not in [r["code"] for r in api.get("/api/rooms").json()]
    # The invite: the full URL, and a QR code of it drawn in SVG.
    assert page.input_value("#invite-link") == f"{web_server}/rooms/{code}"
    qr = page.locator("#room-lobby svg.qr")
    assert qr.get_attribute("role") == "img"
    modules = int(qr.get_attribute("data-modules"))
    assert modules >= 21 and (modules - 17) % 4 == 0
    assert len(qr.locator("path").get_attribute("d")) > 1000
    # Seats: Ann (you), an easy bot, one open; the host may seat a bot there or start now.
    seats = page.locator("#lobby-seats li")
    assert seats.count() == 3
    assert "Ann" in seats.nth(0).inner_text() and "you" in seats.nth(0).inner_text().lower()
    assert "easy bot" in seats.nth(1).inner_text()
    page.select_option("#lobby-seats li[data-seat='2'] select", "hard")
    page.click("#lobby-seats li[data-seat='2'] button[data-seat-bot]")
    page.wait_for_selector("#lobby-seats li[data-seat='2'].bot")
    assert api.get(f"/api/rooms/{code}").json()["seats"][2]["level"] == "hard"
    page.click("#start-game")
    page.wait_for_selector("#room[data-status=playing]")
    page.wait_for_selector(".table-area")
    assert page.locator("#seats li").count() == 3
    assert page.locator("#seats li .wins").count() == 3  # a series: wins are shown
    assert page.errors == []


def test_open_rooms_can_be_joined_or_watched(page, web_server, api):
    room = make_room(api, host_name="Host", game="poison-pot", players=2)
    open_lobby(page, web_server)
    item = page.locator(f'.room-item[data-code="{room["code"]}"]')
    item.wait_for()
    assert "Poison Pot" in item.inner_text() and "Host" in item.inner_text()
    assert item.locator("a", has_text="Watch").count() == 1
    item.locator("a", has_text="Join").click()
    page.wait_for_selector("#join-form")
    assert page.evaluate("document.activeElement.id") == "join-name"
    page.fill("#join-name", "Bea")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("#room[data-you='1']")
    # data-you is set when the seat is taken; the lobby redraws on the next
    # message, so wait for its line rather than read it at once.
    page.locator("#room-lobby p", has_text="You sit in seat 1 as Bea").wait_for()
    stored = json.loads(page.evaluate(f"localStorage.getItem('apothecary.room.{room['code']}')"))
    assert stored["seat"] == 1 and stored["seat_token"]
    assert "host_token" not in stored
    assert page.locator("#start-game").count() == 0  # Bea is not the host
    # The host starts; Bea's page turns into the table without a reload.
    api.post(f"/api/rooms/{room['code']}/start", headers=host_headers(room))
    page.wait_for_selector("#room[data-status=playing]")


def test_the_rules_page_is_rendered_from_markdown(page, web_server, api):
    markdown = api.get("/api/games/in-vino-morte/rules").text
    page.goto(f"{web_server}/rules/in-vino-morte")
    page.wait_for_selector(".rules-page h1")
    assert page.inner_text(".rules-page h1") == "In Vino Morte"
    assert page.locator(".rules-page h2").count() == markdown.count("\n## ")
    assert page.locator(".rules-page table").count() >= 1
    assert page.locator(".rules-page ul li").count() >= 3
    assert page.locator(".rules-page em").count() >= 1
    assert page.locator(".rules-page code").count() >= 1
    assert page.locator(".rules-page pre").count() >= 1


def test_the_markdown_renderer_never_makes_html_from_text(page, web_server):
    page.goto(f"{web_server}/health")
    source = (
        "# Title <img src=x onerror=alert(1)>\n\n"
        "A *soft* and **bold** `<b>code</b>` [link](javascript:alert(1)) [ok](/x).\n\n"
        "- one <script>alert(1)</script>\n- two\n  - nested\n\n"
        "| a | b |\n|---|---|\n| <i>x</i> | `y|z` |\n\n"
        "```\n<div>raw</div>\n```\n"
    )
    html = page.evaluate(
        """async (source) => {
            const md = await import('/static/markdown.js');
            const box = document.createElement('div');
            box.append(md.render(source));
            return box.innerHTML;
        }""",
        source,
    )
    assert "<img" not in html and "<script" not in html and "<i>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;" in html and "&lt;div&gt;raw&lt;/div&gt;" in html
    assert "<em>soft</em>" in html and "<strong>bold</strong>" in html
    assert "<code>&lt;b&gt;code&lt;/b&gt;</code>" in html
    assert "javascript:" not in html and '<a href="/x">ok</a>' in html
    assert "<li>two<ul><li>nested</li></ul></li></ul>" in html
    assert "<td><code>y|z</code></td>" in html


def _encode_in_browser(page: Any, texts: list[str], masks: list[int | None]) -> list[Any]:
    return page.evaluate(
        """async ([texts, masks]) => {
            const qr = await import('/static/qr.js');
            return texts.map((t) => masks.map((m) => {
                const code = m === null ? qr.encode(t) : qr.encode(t, {mask: m});
                return {version: code.version, mask: code.mask,
                        rows: code.modules.map((r) => r.map((c) => (c ? '#' : '.')).join(''))};
            }));
        }""",
        [texts, masks],
    )


def test_the_qr_encoder_matches_a_reference_matrix(page, web_server):
    page.goto(f"{web_server}/health")
    [[code]] = _encode_in_browser(page, ["HELLO WORLD"], [0])
    assert code["version"] == 1
    assert code["rows"] == HELLO_WORLD_MASK_0


def test_the_qr_encoder_agrees_with_the_qrcode_package(page, web_server):
    qrcode = pytest.importorskip("qrcode")
    from qrcode.util import MODE_8BIT_BYTE, QRData

    page.goto(f"{web_server}/health")
    texts = [
        "a",
        "HELLO WORLD",
        f"{web_server}/rooms/c3fqrCLYUffh",
        "https://apothecary.example.org:8443/rooms/AbCdEfGhIjKl_-09",
        "é ü 日本 ☠",
        "x" * 100,  # version 5: two blocks
        "y" * 150,  # version 7: version information
        "z" * 213,  # version 10: the largest, 16-bit count
    ]
    results = _encode_in_browser(page, texts, [*range(8), None])
    for text, codes in zip(texts, results, strict=True):
        for mask, code in enumerate(codes[:8]):
            reference = qrcode.QRCode(
                error_correction=qrcode.constants.ERROR_CORRECT_M, border=0, mask_pattern=mask
            )
            reference.add_data(QRData(text.encode(), mode=MODE_8BIT_BYTE))
            reference.make(fit=True)
            rows = ["".join("#" if c else "." for c in row) for row in reference.get_matrix()]
            assert code["version"] == reference.version, text
            assert code["rows"] == rows, (text, mask)
        chosen = codes[8]
        assert chosen["rows"] == codes[chosen["mask"]]["rows"]
    too_long = page.evaluate(
        """async (n) => {
            const qr = await import('/static/qr.js');
            try { qr.encode('w'.repeat(n)); return null; } catch (error) { return String(error); }
        }""",
        214,
    )
    assert too_long is not None and "too long" in too_long


def _axe(page: Any) -> list[dict[str, Any]]:
    inject_axe(page)
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


def _describe(violations: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in violations
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_lobby_has_no_serious_accessibility_violations(page, web_server, scheme):
    page.emulate_media(color_scheme=scheme)
    open_lobby(page, web_server)
    page.wait_for_function("() => document.querySelector('.card-more').textContent.length > 0")
    violations = _axe(page)
    assert not violations, _describe(violations)


def test_the_room_lobby_has_no_serious_accessibility_violations(page, web_server, api, enter_room):
    room = make_room(api, host_name="Ann", game="in-vino-morte", players=3, seats=["open", "easy"])
    enter_room(page, room)
    page.wait_for_selector("#room-lobby .qr")
    violations = _axe(page)
    assert not violations, _describe(violations)
