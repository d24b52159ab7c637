"""No two things drawn round a table overlap, on a phone (360x740) or a desktop (1280x800).

In Vino Morte put its seats at even angles round an oval. On a phone with 9
seats the two names at the top ran together ("easy bot #4easy bot #5") and, at
the bottom, seat 1's name was half under the dealer's "D" beside your glass.
Its narrow table now goes round a rounded oval spaced by the seats' boxes and
made as tall as they need. Here every seat's glass (with its turn ring), name,
note, dealer and cheese markers, and the centre's words, are measured in the
browser at each position of a game Ann plays by the legal-move buttons: no two
overlap and all lie inside the table's picture. Tea, Scones and Arsenic (6
seats), Poison Pot (3) and Little Drop of Poison (8) have no oval; their
words are checked the same way. Sizes: 360x740, 390x844 and 1280x800.

The check proves itself: the old In Vino Morte geometry, planted back through
the served script (a copy of the old rule in place of the new one), is caught.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import tables_kit as kit

PHONE = {"width": 360, "height": 740}
BIG_PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

IVM_ITEMS = (
    ".ivm-seat .ivm-spot, .ivm-seat .ivm-turn-ring, .ivm-seat text, .ivm-dealer,"
    " .ivm-cheese, .ivm-centre text, .ivm-skip, .ivm-move-tag"
)
# A turn ring is drawn round its own glass: the two are one thing.
IVM_TOGETHER = [[".ivm-turn-ring", ".ivm-spot, .ivm-spot *"]]

CLASHES = """([items, together]) => {
  const area = document.querySelector('.table-area');
  const outer = (node) => {
    let top = node.ownerSVGElement;
    while (top && top.ownerSVGElement) top = top.ownerSVGElement;
    return top;
  };
  // not what is there unseen (Poison Pot's ghost cauldrons show only under a pointer)
  const seen = (n) => {
    for (let e = n; e && e !== area; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.opacity === '0' || style.visibility === 'hidden') return false;
    }
    return true;
  };
  const shown = [...area.querySelectorAll(items)]
    .map((n) => ({ n, r: n.getBoundingClientRect() }))
    .filter(({ n, r }) => r.width > 0 && r.height > 0 && seen(n));
  const name = (n) => {
    const seat = n.closest('[data-seat]');
    const words = [...n.childNodes].filter((c) => c.nodeName !== 'title')
      .map((c) => c.textContent).join('').slice(0, 20);
    const where = seat ? `seat ${seat.dataset.seat}` : 'table';
    return `${where} ${n.getAttribute('class') || n.tagName} "${words}"`;
  };
  const one = (a, b) => together.some(([x, y]) =>
    (a.matches(x) && b.matches(y)) || (a.matches(y) && b.matches(x)));
  const found = [];
  shown.forEach((a, i) => {
    const f = (outer(a.n) || area).getBoundingClientRect();
    if (a.r.left < f.left - 0.5 || a.r.right > f.right + 0.5
        || a.r.top < f.top - 0.5 || a.r.bottom > f.bottom + 0.5)
      found.push(`${name(a.n)} is outside the table`);
    for (const b of shown.slice(i + 1)) {
      // each picture on its own: a hand that stays in view may pass over the seats' picture
      if (a.n.contains(b.n) || b.n.contains(a.n) || outer(a.n) !== outer(b.n)) continue;
      const seat = a.n.closest('[data-seat]');
      if (seat && seat === b.n.closest('[data-seat]') && one(a.n, b.n)) continue;
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w > 1 && h > 1)
        found.push(`${name(a.n)} overlaps ${name(b.n)} by ${w.toFixed(0)}x${h.toFixed(0)} px`);
    }
  });
  return found;
}"""
"""What overlaps on the table now, and what sticks out of it (each as words)."""

# The old In Vino Morte geometry on a narrow table, planted back into the
# served layout.js of in-vino-morte: seats at even angles round an ellipse 116 units
# either side of the middle of a 370-unit picture, and the old felt.
OLD_NARROW = """
  function oldNarrowLayout(n) {
    const H = n > 6 ? 700 : n > 5 ? 600 : 560;
    const cy = n > 6 ? 330 : n > 5 ? 286 : 264;
    const ry = n > 6 ? 262 : n > 5 ? 222 : 200;
    const geo = { W: 370, H, cx: 185, cy, rx: 116, ry, shape: 2, centreChars: 22 };
    Object.assign(geo, { feltX: 64, feltY: ry - 64, points: [] });
    for (let i = 0; i < n; i++) {
      const angle = Math.PI / 2 + (i * 2 * Math.PI) / n;
      const [x, y] = [Math.cos(angle), Math.sin(angle)];
      geo.points.push({ x: geo.cx + geo.rx * x, y: geo.cy + geo.ry * y });
    }
    return geo;
  }
"""
NEW_CALL = "fitLayout(n, seat0, widestWords(labels, wide), wide)"
OLD_CALL = "(wide ? fitLayout(n, seat0, widestWords(labels, wide), wide) : oldNarrowLayout(n))"


def plant_old_layout(page: Any) -> None:
    """Serve in-vino-morte's layout.js with its narrow layout swapped for the old one."""

    def swap(route: Any) -> None:
        script = route.fetch().text()
        assert NEW_CALL in script, "the planting no longer finds the layout's call"
        script = script.replace(NEW_CALL, OLD_CALL)
        where = "export function layout(update, legal"
        script = script.replace(where, OLD_NARROW + "\n" + where)
        route.fulfill(body=script, content_type="text/javascript")

    page.route("**/tables/in-vino-morte/layout.js", swap)


def open_table(api: Any, enter_room: Any, page: Any, game: str, players: int) -> None:
    seats = ["open", *["easy"] * (players - 1)]
    options = {"cheese": True} if game == "in-vino-morte" else {}
    enter_room(page, kit.start_room(api, game, players, seats, f"layout-{game}-{players}", options))
    page.wait_for_selector(".table-area svg text")
    page.wait_for_timeout(300)  # a table drawn narrow before the page's width settled draws again


# The other tables' words; not Poison Pot's cell names, which a cauldron on the
# cell covers on purpose.
WORDS = {"poison-pot": "text:not(.pp-name)"}


def clashes(page: Any, game: str) -> list[str]:
    """What overlaps on ``game``'s table once its animations (a slide, a glass turning
    over) have come to rest."""
    page.wait_for_function(
        "() => document.getAnimations().every((a) => a.playState !== 'running')",
        timeout=5_000,
    )
    if game == "in-vino-morte":
        found: list[str] = page.evaluate(CLASHES, [IVM_ITEMS, IVM_TOGETHER])
    else:
        found = page.evaluate(CLASHES, [WORDS.get(game, "text"), []])
    return found


def play_and_check(page: Any, game: str, moves: int, shots: Path, tag: str) -> int:
    """Up to ``moves`` of Ann's moves (wine while she deals, else at random), checking the
    table at each position; the positions checked."""
    rng = random.Random(tag)
    checked = 0
    for step in range(moves + 1):
        found = clashes(page, game)
        checked += 1
        if found or step == 0:
            kit.snap(page, shots, f"{tag}-{step}", full_page=False, table=True)
        assert found == [], f"{tag}, position {step}: {found}"
        if step == moves or kit.over(page):
            break
        # the legal moves' buttons (a long list of them sits folded away, hence no
        # visibility asked for, and a click by script)
        page.wait_for_function(
            "() => document.querySelector('#legal button[data-action]')"
            " || !document.querySelector('#result').hidden",
            timeout=15_000,
        )
        notations = kit.legal(page)
        if not notations:
            break
        pick = next((a for a in notations if a.endswith(" wine")), rng.choice(notations))
        with kit.next_position(page):
            page.eval_on_selector(
                f'#legal button[data-notation="{pick}"]', "button => button.click()"
            )
        page.wait_for_timeout(150)  # a reveal's first frame, or the bots' answer
    return checked


CASES = [
    ("in-vino-morte", 9, 14),
    ("in-vino-morte", 5, 10),
    ("tea-scones-arsenic", 6, 4),
    ("poison-pot", 3, 3),
    ("little-drop-of-poison", 8, 2),
]


@pytest.mark.parametrize("size", ["phone", "big-phone", "desktop"])
@pytest.mark.parametrize(("game", "players", "moves"), CASES)
def test_nothing_on_the_table_overlaps(
    api: Any,
    enter_room: Any,
    page: Any,
    artifacts: Path,
    game: str,
    players: int,
    moves: int,
    size: str,
) -> None:
    page.set_viewport_size({"phone": PHONE, "big-phone": BIG_PHONE, "desktop": DESKTOP}[size])
    open_table(api, enter_room, page, game, players)
    # the first position and at least one after a move of Ann's
    assert play_and_check(page, game, moves, artifacts, f"{game}-{players}-{size}") >= 2
    assert page.errors == []


@pytest.mark.parametrize("players", [2, 3, 4, 6, 7, 8])
def test_in_vino_morte_on_a_phone_at_every_count(
    api: Any, enter_room: Any, page: Any, artifacts: Path, players: int
) -> None:
    page.set_viewport_size(PHONE)
    open_table(api, enter_room, page, "in-vino-morte", players)
    assert (
        play_and_check(page, "in-vino-morte", players + 2, artifacts, f"ivm-{players}-phone") >= 2
    )


def test_the_old_layout_is_caught(api: Any, enter_room: Any, page: Any, artifacts: Path) -> None:
    page.set_viewport_size(PHONE)
    plant_old_layout(page)
    open_table(api, enter_room, page, "in-vino-morte", 9)
    found = clashes(page, "in-vino-morte")
    kit.snap(page, artifacts, "ivm-9-phone-old-layout", full_page=False, table=True)
    # the two names at the top ran together, and seat 1's name went under the dealer's D
    assert any("seat 4 ivm-name" in f and "seat 5 ivm-name" in f for f in found), found
    assert any("seat 0 ivm-dealer" in f and "seat 1" in f for f in found), found
