"""What the tests of the game tables (``test_table_*.py``) share.

- ``start_room``: a started room of a game with the host (Ann) in seat 0;
- ``state_id``, ``wait_change``, ``next_position``, ``over``, ``legal``: the position, the next
  one, the result and the legal actions, as the shell shows them;
- ``play``: moves by the table (the test's own ``move``) until a condition, a number of moves
  or the result, with a time limit;
- ``snap``: screenshots of the page and of the table;
- ``axe_violations``: what axe-core (put in the page with the ``axe`` fixture) finds on the
  table;
- ``tab_until``, ``board_focused``, ``focused_classes``, ``focused_label``: the keyboard alone;
- ``record_frames``: the WebSocket frames a page receives;
- ``readme_picture``: the table's picture in ``docs/images/GAME.png``, written only with
  ``APOTHECARY_REFRESH_PICTURES=1``;
- ``overflowing``, ``outside``, ``overlapping``: boxes measured in the page (words
  spilling out of their box, out of the table's picture, or over other things);
- ``contrast``: the contrast ratio of an element's text on its background (WCAG's; an SVG
  text's fill and opacity on the shapes painted under it);
- ``table_alone``, ``show``, ``update_after``: a table's own module mounted alone in a page
  of the server and given updates the test writes, or a seat's update after some moves (a
  position a game seldom reaches: nine seats, four of them sharing the win).

What a table's board offers, and how a test plays it, stay in that table's test.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from serving import host_headers, make_room

from apothecary import Record

ROOT = Path(__file__).resolve().parents[2]
PICTURES = ROOT / "docs" / "images"  # the README's pictures of the tables

if not (ROOT / "src" / "apothecary" / "server" / "static" / "app.js").exists():
    pytest.skip("the client's shell (static/app.js) is not there yet", allow_module_level=True)

BOARD_FOCUSED = (
    "() => !!document.activeElement.closest('.table-area')"
    " && document.activeElement.getAttribute('role') === 'button'"
)
FOCUSED_CLASSES = (
    "() => { const a = document.activeElement;"
    " return a && a.closest('.table-area') ? a.getAttribute('class') || '' : null; }"
)


def start_room(
    api: Any,
    game: str,
    players: int,
    seats: list[str],
    seed: str,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A started room of ``game`` with the host (Ann) in seat 0."""
    answer = make_room(
        api,
        game=game,
        players=players,
        seats=seats,
        options=options or {},
        seed=seed,
        host_name="Ann",
    )
    response = api.post(f"/api/rooms/{answer['code']}/start", headers=host_headers(answer))
    assert response.status_code < 300, response.text
    return answer


def state_id(page: Any) -> str:
    return page.get_attribute("#room", "data-state-id") or ""


def wait_change(page: Any, before: str) -> None:
    """Until the position is another than ``before`` (a ``state_id``)."""
    page.wait_for_function(
        "before => document.querySelector('#room').dataset.stateId !== before",
        arg=before,
        timeout=10_000,
    )


@contextmanager
def next_position(page: Any) -> Iterator[None]:
    """The block makes a move on ``page``; after it, wait until the position has moved on."""
    before = state_id(page)
    yield
    wait_change(page, before)


def over(page: Any) -> bool:
    """The result shows."""
    return page.locator("#result").is_visible()


def legal(page: Any) -> list[str]:
    """The notations of the legal actions the shell offers this seat now."""
    return page.eval_on_selector_all(
        "#legal button[data-action]", "ns => ns.map(n => n.dataset.notation)"
    )


def play(
    move: Callable[[int], bool],
    *,
    until: Callable[[], bool] | None = None,
    moves: int | None = None,
    seconds: float | None = None,
    since: float | None = None,
    pause: float = 0.1,
    what: str = "the game did not end",
) -> int:
    """Try ``move(moves made so far)`` (True when it made one; else a ``pause``) until
    ``until()`` holds or ``moves`` are made; the number made. With ``seconds``, an
    AssertionError (``what``) once that long has passed since ``since`` (a
    ``time.monotonic()``; by default, now)."""
    made = 0
    deadline = None if seconds is None else (time.monotonic() if since is None else since) + seconds
    while not (until is not None and until()) and not (moves is not None and made >= moves):
        assert deadline is None or time.monotonic() < deadline, f"{what} in {seconds} s"
        if move(made):
            made += 1
        else:
            time.sleep(pause)
    return made


def snap(page: Any, shots: Path, name: str, *, full_page: bool = True, table: bool = False) -> None:
    """``name.png``: the whole page (the window alone unless ``full_page``); with ``table``,
    also ``name-table.png``, the table alone."""
    page.screenshot(path=str(shots / f"{name}.png"), full_page=full_page)
    if table:
        page.locator(".table-area").screenshot(path=str(shots / f"{name}-table.png"))


def axe_violations(page: Any) -> list[Any]:
    """axe-core's serious and critical findings on the table: (id, help, first targets)."""
    result = page.evaluate("async () => JSON.stringify(await axe.run('.table-area'))")
    return [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3])
        for v in json.loads(result)["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def tab_until(page: Any, reached: Callable[[], bool], tries: int, what: str) -> None:
    """Press Tab until ``reached()``, at most ``tries`` times; else the test fails."""
    for _ in range(tries):
        page.keyboard.press("Tab")
        if reached():
            return
    pytest.fail(f"Tab never reached {what}")


def board_focused(page: Any) -> bool:
    """The focus is on something of the table that acts as a button."""
    return bool(page.evaluate(BOARD_FOCUSED))


def focused_classes(page: Any) -> str | None:
    """The class attribute of what has the focus on the table (None: the focus is elsewhere)."""
    return page.evaluate(FOCUSED_CLASSES)


def focused_label(page: Any) -> Any:
    return page.evaluate("() => document.activeElement.getAttribute('aria-label')")


def record_frames(page: Any) -> list[str]:
    """The WebSocket frames ``page`` receives from now on, as text (the list grows)."""
    frames: list[str] = []
    page.on(
        "websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload)))
    )
    return frames


@contextmanager
def readme_picture(browser: Any, game: str, **context: Any) -> Iterator[Any]:
    """A page in a new browser context (``context``: its options) to set the table up in;
    after the block, the table alone goes to ``docs/images/GAME.png`` (under 300 kB).
    Skips the test unless ``APOTHECARY_REFRESH_PICTURES=1``."""
    if os.environ.get("APOTHECARY_REFRESH_PICTURES") != "1":
        pytest.skip(f"set APOTHECARY_REFRESH_PICTURES=1 to write docs/images/{game}.png")
    opened = browser.new_context(**context)
    try:
        page = opened.new_page()
        yield page
        target = PICTURES / f"{game}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        page.locator(".table-area").screenshot(path=str(target))
        assert target.stat().st_size < 300_000
    finally:
        opened.close()


OVERFLOWING = """sel => [...document.querySelectorAll(sel)]
  .filter(n => n.scrollWidth > n.clientWidth + 0.5 || n.scrollHeight > n.clientHeight + 0.5)
  .map(n => `${n.textContent}: ${n.scrollWidth}x${n.scrollHeight}`
    + ` in ${n.clientWidth}x${n.clientHeight}`)"""

OUTSIDE = """([sel, within, frame]) => [...document.querySelectorAll(sel)].flatMap(n => {
  const r = n.getBoundingClientRect();
  const holder = within ? n.closest(within) : n.ownerSVGElement || n.parentElement;
  const f = (frame ? holder.querySelector(frame) : holder).getBoundingClientRect();
  const out = r.left < f.left - 0.5 || r.right > f.right + 0.5
    || r.top < f.top - 0.5 || r.bottom > f.bottom + 0.5;
  const span = (lo, hi) => `${lo.toFixed(0)}..${hi.toFixed(0)}`;
  const at = (b) => `${span(b.left, b.right)} x ${span(b.top, b.bottom)}`;
  return out ? [`"${n.textContent}" (${at(r)}) outside ${at(f)}`] : [];
})"""

OVERLAPPING = """([group, a, b]) => [...document.querySelectorAll(group)].flatMap(g => {
  const boxes = (sel) => [...g.querySelectorAll(sel)]
    .map(n => ({ n, r: n.getBoundingClientRect() }))
    .filter(({ r }) => r.width > 0 && r.height > 0);
  const found = [];
  for (const x of boxes(a)) for (const y of boxes(b)) {
    if (x.n === y.n || x.n.contains(y.n) || y.n.contains(x.n)) continue;
    const w = Math.min(x.r.right, y.r.right) - Math.max(x.r.left, y.r.left);
    const h = Math.min(x.r.bottom, y.r.bottom) - Math.max(x.r.top, y.r.top);
    const by = `${w.toFixed(0)}x${h.toFixed(0)} px`;
    if (w > 1 && h > 1) found.push(`"${x.n.textContent}" overlaps "${y.n.textContent}" by ${by}`);
  }
  return found;
})"""

COLOURS = """sel => { const s = getComputedStyle(document.querySelector(sel));
  return [s.color, s.backgroundColor]; }"""

# An SVG text's colour is its fill, faded by its own and its groups' opacity, and its
# background is what is painted under its middle: the shapes below it, translucent ones
# laid over the first solid one (a panel), or the page's colour.
SVG_COLOURS = """sel => {
  const node = document.querySelector(sel);
  const rgba = (css) => { const v = css.match(/[\\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const faded = (n) => { let a = 1;
    for (let e = n; e instanceof Element; e = e.parentElement)
      a *= Number(getComputedStyle(e).opacity);
    return a; };
  const paint = (n) => { const s = getComputedStyle(n);
    if (n instanceof SVGElement) {
      if (!/^rgba?\\(/.test(s.fill)) return null;
      const c = rgba(s.fill);
      c[3] *= Number(s.fillOpacity) * faded(n);
      return c;
    }
    const c = rgba(s.backgroundColor);
    c[3] *= faded(n);
    return c; };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3]));
  const r = node.getBoundingClientRect();
  const stack = document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const below = stack.slice(stack.indexOf(node) + 1).filter((n) => n.tagName !== 'text');
  const layers = [];
  for (const n of below) {
    const c = paint(n);
    if (!c || c[3] === 0) continue;
    layers.push(c);
    if (c[3] >= 1) break;
  }
  let bg = [255, 255, 255];
  for (const c of layers.reverse()) bg = over(c, bg);
  return [over(paint(node), bg), bg];
}"""


def overflowing(page: Any, selector: str) -> list[str]:
    """The elements ``selector`` finds whose content is wider or taller than their box."""
    found: list[str] = page.evaluate(OVERFLOWING, selector)
    return found


def outside(
    page: Any, selector: str, within: str | None = None, frame: str | None = None
) -> list[str]:
    """What ``selector`` finds that sticks out of its nearest ``within`` (by default its
    SVG picture, or its parent), or of the first ``frame`` in that (an SVG group's
    bounds hold all it draws: its panel is the frame to measure against)."""
    found: list[str] = page.evaluate(OUTSIDE, [selector, within, frame])
    return found


def overlapping(page: Any, group: str, first: str, second: str) -> list[str]:
    """Inside each ``group``, a ``first`` and a ``second`` whose boxes overlap."""
    found: list[str] = page.evaluate(OVERLAPPING, [group, first, second])
    return found


def _luminance(css: str) -> float:
    """WCAG's relative luminance of a computed colour, ``rgb(r, g, b)``."""
    channels = [float(c) / 255 for c in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(page: Any, selector: str) -> float:
    """The contrast ratio (1 to 21) of the text of ``selector`` on its own background; for
    an SVG text, its fill (with its opacity) on what is painted under it."""
    if page.eval_on_selector(selector, "n => n instanceof SVGElement"):
        fg, bg = (f"rgb({', '.join(map(str, c))})" for c in page.evaluate(SVG_COLOURS, selector))
    else:
        fg, bg = page.evaluate(COLOURS, selector)
    light, dark = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


MOUNT_ALONE = """async ([game, names, you, width]) => {
  document.head.innerHTML = '';
  document.body.innerHTML = '';
  for (const href of ['/static/style.css', `/tables/${game}/table.css`]) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    const loaded = new Promise((done) => { link.onload = done; link.onerror = done; });
    document.head.appendChild(link);
    await loaded;
  }
  const root = document.createElement('div');
  root.className = 'table-area';
  root.dataset.table = game;
  root.style.width = `${width}px`;
  document.body.appendChild(root);
  const module = await import(`/tables/${game}/table.js`);
  const label = (s) => (s === you ? `${names[s]} (you)` : names[s]);
  window.tableAlone = module.mount(root, {
    game, players: names.length, you, seatName: (s) => names[s], seatLabel: label,
    act: () => {}, prefersReducedMotion: true,
  });
}"""


def table_alone(
    page: Any, web_server: str, game: str, names: list[str], you: int = 0, width: int = 370
) -> None:
    """``game``'s table module alone in a page of the server, ``width`` CSS px wide, its
    seats named ``names`` (as the shell names them) and ``you`` the seat looking on."""
    page.goto(f"{web_server}/health")  # the server's origin, for its scripts and styles
    page.evaluate(MOUNT_ALONE, [game, names, you, width])


def update_after(
    game: str,
    players: int,
    actions: list[str],
    seat: int = 0,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The update (for ``show``) that ``seat`` reads after ``actions`` (notations) of a
    game of ``players``; once the game is over, with its ``status`` and ``outcome``."""
    state = Record(game=game, players=players, options=options or {}, actions=actions).replay()
    over = state.is_terminal()
    legal = [
        {
            "id": a,
            "notation": state.action_to_string(a),
            "label": state.action_label(a),
            "words": state.action_words(a).runs(),
            "move": state.action_move(a),
        }
        for a in ([] if over else state.legal_actions())
    ]
    message: dict[str, Any] = {
        "observation": state.observation(seat),
        "legal": legal,
        "events": [],
        "to_move": None if over else state.current_player(),
        "status": "over" if over else "playing",
    }
    outcome = state.outcome()
    if outcome is not None:
        message["outcome"] = outcome.to_json()
    return message


def show(page: Any, message: dict[str, Any]) -> None:
    """Give the table ``table_alone`` mounted an update (``observation``, ``legal``,
    ``events``), as the shell does."""
    page.evaluate("message => window.tableAlone.update(message)", message)


ADD_CSS = """css => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  window.__testSheets = [...(window.__testSheets || []), sheet];
  return window.__testSheets.length - 1;
}"""

REMOVE_CSS = """i => {
  const sheet = window.__testSheets[i];
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
}"""


def add_css(page: Any, css: str) -> Callable[[], None]:
    """Lay ``css`` over ``page`` as a constructed style sheet (CSSOM, which the
    server's CSP allows, unlike a <style> tag); the function that takes it off."""
    index = page.evaluate(ADD_CSS, css)
    return lambda: page.evaluate(REMOVE_CSS, index)
