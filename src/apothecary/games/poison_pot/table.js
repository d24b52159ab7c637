// Poison Pot: the hexagonal board, drawn in SVG from the seat's observation alone.
//
// A turn is a slide (click a piece, then one of its highlighted destinations), a
// draw (chance) and a placement (click an empty circle for the drawn cauldron).
// Every cauldron shows its colour, a pattern and a letter; each player's largest
// group that does not touch the pot is outlined on the board.

import { asButton, clear, fitText, focusKeeper, html, legalByNotation, mountId, onActivate, seatWords, shortName, svg, text, textWidth, watchWidth } from "/static/tables/kit.js";

const D = 60; // distance between neighbouring circles (SVG units)
const PIECE = 24; // radius of a piece
const HIT = 29; // radius of a circle's click/tap target
const SQRT3_2 = Math.sqrt(3) / 2;
const ROWS = "abcdefghi";
const NEIGHBOURS = [[1, 0], [-1, 0], [1, -1], [0, -1], [0, 1], [-1, 1]];
const LOOK = {
  red: { letter: "R", pattern: "stripes", word: "red" },
  blue: { letter: "B", pattern: "dots", word: "blue" },
  yellow: { letter: "Y", pattern: "hatch", word: "yellow" },
};
const SLIDE = /^([a-i]\d+)-([a-i]\d+)$/;
const PLACE = /^[a-i]\d+$/;

const WIDE = 700; // a table area at least this wide (CSS px) puts the players beside the board
/** The board's geometry from its radius: names, axial coordinates, centres, neighbours. */
function geometry(radius, names) {
  const cells = [];
  const index = new Map();
  let n = 0;
  for (let row = 0; row <= 2 * radius; row += 1) {
    const r = row - radius;
    const first = Math.max(-radius, -radius - r);
    const last = Math.min(radius, radius - r);
    for (let q = first; q <= last; q += 1) {
      const name = names[n] || `${ROWS[row]}${q - first + 1}`;
      cells.push({ n, name, q, r, row, x: (q + r / 2) * D, y: r * D * SQRT3_2 });
      index.set(`${q},${r}`, n);
      n += 1;
    }
  }
  for (const cell of cells) {
    cell.neighbours = [];
    for (const [dq, dr] of NEIGHBOURS) {
      const other = index.get(`${cell.q + dq},${cell.r + dr}`);
      if (other !== undefined) cell.neighbours.push(other);
    }
  }
  const byName = new Map(cells.map((cell) => [cell.name, cell]));
  return { radius, cells, byName };
}

/** Per colour, the largest groups that touch no pot (the circles of each), and their size. */
function safeGroups(geo, board) {
  const pot = board.indexOf("pot");
  const nearPot = new Set(pot >= 0 ? [pot, ...geo.cells[pot].neighbours] : []);
  const seen = new Set();
  const best = {};
  for (const cell of geo.cells) {
    const colour = board[cell.n];
    if (!LOOK[colour] || seen.has(cell.n)) continue;
    const group = [];
    const stack = [cell.n];
    seen.add(cell.n);
    while (stack.length) {
      const c = stack.pop();
      group.push(c);
      for (const m of geo.cells[c].neighbours) {
        if (!seen.has(m) && board[m] === colour) {
          seen.add(m);
          stack.push(m);
        }
      }
    }
    if (group.some((c) => nearPot.has(c))) continue;
    const entry = best[colour] || (best[colour] = { size: 0, groups: [] });
    if (group.length > entry.size) {
      entry.size = group.length;
      entry.groups = [group];
    } else if (group.length === entry.size) {
      entry.groups.push(group);
    }
  }
  return { best, nearPot };
}

function defs(root, id) {
  const d = svg("defs", {}, root);
  const stripes = svg("pattern", { id: `${id}-stripes`, width: 7, height: 7, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, d);
  svg("rect", { x: 0, y: 0, width: 3, height: 7, class: "pp-pat-light" }, stripes);
  const dots = svg("pattern", { id: `${id}-dots`, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, d);
  svg("circle", { cx: 2, cy: 2, r: 1.8, class: "pp-pat-light" }, dots);
  svg("circle", { cx: 6, cy: 6, r: 1.8, class: "pp-pat-light" }, dots);
  const hatch = svg("pattern", { id: `${id}-hatch`, width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, d);
  svg("path", { d: "M0 0V8M4 0V8M0 0H8M0 4H8", class: "pp-pat-dark" }, hatch);
  const arrow = svg("marker", { id: `${id}-arrow`, viewBox: "0 0 10 10", refX: 7, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, d);
  svg("path", { d: "M0 0L10 5L0 10z", class: "pp-arrowhead" }, arrow);
  return d;
}

/** A cauldron of `colour` (or the pot) centred on 0,0 of `parent`. */
function piece(parent, kind, id, scale = 1) {
  const g = svg("g", { class: `pp-piece pp-${kind}` }, parent);
  if (scale !== 1) g.setAttribute("transform", `scale(${scale})`);
  if (kind === "pot") {
    svg("circle", { r: PIECE, class: "pp-pot-body" }, g);
    // a small skull
    svg("path", { d: "M-9 -1a9 9 0 1 1 18 0v3.5a3 3 0 0 1-3 3v3.5h-12v-3.5a3 3 0 0 1-3-3z", class: "pp-skull" }, g);
    svg("circle", { cx: -3.8, cy: -1.5, r: 2.8, class: "pp-skull-eye" }, g);
    svg("circle", { cx: 3.8, cy: -1.5, r: 2.8, class: "pp-skull-eye" }, g);
    svg("path", { d: "M-1.4 4.2L0 2l1.4 2.2zM-3 8.5v2.5M0 8.5v2.5M3 8.5v2.5", class: "pp-skull-teeth" }, g);
    return g;
  }
  const look = LOOK[kind];
  svg("circle", { r: PIECE, class: "pp-body" }, g);
  svg("circle", { r: PIECE, fill: `url(#${id}-${look.pattern})`, class: "pp-texture" }, g);
  svg("circle", { r: PIECE, class: "pp-rim" }, g);
  svg("circle", { r: 10.5, class: "pp-badge" }, g);
  text(g, 0, 0.5, look.letter, { class: "pp-letter" });
  return g;
}

export function mount(root, ctx) {
  const id = mountId("pp");
  root.classList.add("pp-table");
  const figure = html("div", "pp-figure", root);
  const summary = html("p", { class: "pp-sr", "aria-live": "off" }, root);

  let geo = null;
  let wide = false;
  let svgRoot = null;
  let layers = null;
  let hits = new Map();
  let last = null;
  let selected = null;
  let lastStateId = null;
  let lastGame = null;
  let seenEvents = null;

  const { label: name } = seatWords(ctx);

  function build(obs) {
    clear(figure);
    geo = geometry(obs.radius, obs.circles || []);
    const R = obs.radius;
    const frame = Math.max(R, 3); // small boards keep room for the corners
    const half = R * D + D * 0.62;
    const left = -(frame * D + D * 0.62) - D * 0.55;
    const top = -(frame * D * SQRT3_2) - D * 0.75;
    const boardBottom = frame * D * SQRT3_2 + D * 0.75;
    const width = 2 * -left;
    // wide: the players in a column right of the board; narrow: in a row under it
    wide = root.clientWidth >= WIDE;
    const players = obs.players || (obs.colours || []).length;
    const column = wide ? 250 : 0;
    const strip = wide ? 0 : 92;
    const height = Math.max(boardBottom - top + strip, wide ? players * 92 + 8 : 0);
    svgRoot = svg("svg", {
      class: `pp-svg ${wide ? "pp-wide" : "pp-narrow"}`,
      viewBox: `${left} ${top} ${width + column} ${height}`,
      role: "group",
      "aria-label": "Poison Pot board",
    }, figure);
    defs(svgRoot, id);
    const corners = [];
    for (let k = 0; k < 6; k += 1) {
      const angle = (Math.PI / 3) * k;
      corners.push(`${(half * Math.cos(angle)).toFixed(1)},${(half * Math.sin(angle)).toFixed(1)}`);
    }
    svg("polygon", { points: corners.join(" "), class: "pp-hex" }, svgRoot);
    layers = {};
    for (const layer of ["cells", "zone", "halo", "marks", "pieces", "pointers", "hits", "corner", "strip"]) {
      layers[layer] = svg("g", { class: `pp-layer-${layer}` }, svgRoot);
    }
    layers.bottom = boardBottom;
    layers.left = left;
    layers.width = width;
    layers.wide = wide;
    layers.top = top;
    layers.frame = frame;
    for (let row = 0; row <= 2 * R; row += 1) {
      const first = geo.cells.find((cell) => cell.row === row);
      text(layers.cells, first.x - D * 0.8, first.y, ROWS[row], { class: "pp-row-letter", "aria-hidden": "true" });
    }
    hits = new Map();
    for (const cell of geo.cells) {
      const g = svg("g", { transform: `translate(${cell.x},${cell.y})` }, layers.cells);
      svg("circle", { r: PIECE, class: "pp-cell" }, g);
      text(g, 0, 1, cell.name, { class: "pp-name", "aria-hidden": "true" });
      const hit = svg("g", { class: "pp-hit", transform: `translate(${cell.x},${cell.y})`, "data-circle": cell.name }, layers.hits);
      svg("circle", { r: HIT, class: "pp-hit-area" }, hit);
      svg("g", { class: "pp-mark" }, hit);
      onActivate(hit, () => choose(cell.name));
      hit.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && selected) {
          selected = null;
          render();
        }
      });
      hits.set(cell.name, hit);
    }
    svgRoot.addEventListener("click", () => {
      if (selected) {
        selected = null;
        render();
      }
    });
  }

  function legalMoves(msg) {
    const slides = new Map();
    const places = new Map();
    for (const [written, action] of legalByNotation(msg)) {
      const notation = written.toLowerCase();
      let m = SLIDE.exec(notation);
      if (m) {
        if (!slides.has(m[1])) slides.set(m[1], new Map());
        slides.get(m[1]).set(m[2], action);
      } else if (PLACE.test(notation)) {
        places.set(notation, action);
      }
    }
    return { slides, places };
  }

  // What this turn may slide, from the legal slides' pieces: on the first turn's
  // board only the pot stands, and "the pot or any cauldron" offered what was not there.
  function slidable(msg) {
    const obs = msg.observation;
    const kinds = new Set();
    const at = (name) => (obs.circles ? obs.circles.indexOf(name) : geo && geo.byName.has(name) ? geo.byName.get(name).n : -1);
    for (const from of legalMoves(msg).slides.keys()) kinds.add(obs.board[at(from)]);
    const pot = kinds.delete("pot");
    for (const kind of kinds) if (!LOOK[kind]) kinds.delete(kind);
    const cauldrons = kinds.size === 0 ? "" : kinds.size === 1 ? `a ${[...kinds][0]} cauldron` : "a cauldron";
    return pot && cauldrons ? `the pot or ${cauldrons}` : pot ? "the pot" : cauldrons || "a piece";
  }

  function pieceWords(kind) {
    return kind === "pot" ? "the pot" : `the ${kind} cauldron`;
  }

  function choose(circle) {
    if (!last) return;
    const { slides, places } = legalMoves(last);
    if (places.has(circle)) {
      ctx.act(places.get(circle).id);
      return;
    }
    if (selected && slides.has(selected) && slides.get(selected).has(circle)) {
      const action = slides.get(selected).get(circle);
      selected = null;
      ctx.act(action.id);
      return;
    }
    if (slides.has(circle)) {
      selected = selected === circle ? null : circle;
    } else {
      selected = null;
    }
    render();
    const hit = hits.get(circle);
    if (hit && document.activeElement !== hit && hit.getAttribute("tabindex") === "0") hit.focus({ preventScroll: true });
  }

  function setButton(hit, label, pressed = null) {
    asButton(hit, label);
    if (pressed === null) hit.removeAttribute("aria-pressed");
    else hit.setAttribute("aria-pressed", pressed ? "true" : "false");
    hit.classList.add("pp-live");
  }

  function unsetButton(hit) {
    if (hit === document.activeElement) hit.blur();
    hit.removeAttribute("tabindex");
    hit.removeAttribute("role");
    hit.removeAttribute("aria-label");
    hit.removeAttribute("aria-pressed");
    hit.classList.remove("pp-live");
  }

  function render() {
    const msg = last;
    const obs = msg.observation;
    const board = obs.board;
    const { slides, places } = legalMoves(msg);
    if (selected && !slides.has(selected)) selected = null;
    const targets = selected ? slides.get(selected) : new Map();
    const { best, nearPot } = safeGroups(geo, board);

    // which empty circles the pot poisons
    clear(layers.zone);
    for (const c of nearPot) {
      const cell = geo.cells[c];
      if (board[c] === "") svg("circle", { cx: cell.x, cy: cell.y, r: PIECE, class: "pp-zone" }, layers.zone);
    }

    // each player's largest safe group(s), as an outlined blob behind the cauldrons
    clear(layers.halo);
    for (const colour of obs.colours || []) {
      const entry = best[colour];
      if (!entry) continue;
      for (const group of entry.groups) {
        for (const pass of [`pp-halo-edge pp-halo-${colour}`, `pp-halo-fill pp-halo-${colour}`]) {
          const g = svg("g", { class: pass }, layers.halo);
          const members = new Set(group);
          for (const c of group) {
            const cell = geo.cells[c];
            svg("circle", { cx: cell.x, cy: cell.y, r: pass.startsWith("pp-halo-edge") ? PIECE + 8 : PIECE + 4.5 }, g);
            for (const m of cell.neighbours) {
              if (m > c && members.has(m)) {
                const other = geo.cells[m];
                svg("line", { x1: cell.x, y1: cell.y, x2: other.x, y2: other.y }, g);
              }
            }
          }
        }
      }
    }

    // the last move: the slide's path and the last placement
    clear(layers.marks);
    let lastBadge = null;
    if (obs.last_slide) {
      const from = geo.byName.get(obs.last_slide[0]);
      const to = geo.byName.get(obs.last_slide[1]);
      if (from && to) {
        svg("circle", { cx: from.x, cy: from.y, r: PIECE - 3, class: "pp-last-from" }, layers.marks);
        const dx = to.x - from.x;
        const dy = to.y - from.y;
        const len = Math.hypot(dx, dy) || 1;
        const ux = dx / len;
        const uy = dy / len;
        svg("line", {
          x1: from.x + ux * 8, y1: from.y + uy * 8, x2: to.x - ux * (PIECE + 5), y2: to.y - uy * (PIECE + 5),
          class: "pp-last-path", "marker-end": `url(#${id}-arrow)`,
        }, layers.marks);
      }
    }
    if (obs.last_placement) {
      const cell = geo.byName.get(obs.last_placement);
      if (cell) {
        svg("circle", { cx: cell.x, cy: cell.y, r: PIECE + 5, class: "pp-last-place" }, layers.marks);
        lastBadge = cell;
      }
    }

    // the pieces
    clear(layers.pieces);
    const drawnAt = new Map();
    for (const cell of geo.cells) {
      const kind = board[cell.n];
      if (!kind) continue;
      const outer = svg("g", { transform: `translate(${cell.x},${cell.y})` }, layers.pieces);
      const inner = svg("g", { class: "pp-move" }, outer);
      piece(inner, kind, id);
      drawnAt.set(cell.name, inner);
    }

    if (lastBadge) {
      // a small diamond on the last placed cauldron, above the pieces
      const x = lastBadge.x + PIECE * 0.72;
      const y = lastBadge.y - PIECE * 0.72;
      svg("path", { d: `M${x} ${y - 7}L${x + 7} ${y}L${x} ${y + 7}L${x - 7} ${y}z`, class: "pp-last-badge" }, layers.pieces);
    }

    // the pointers: selection, destinations, movable pieces, placements
    clear(layers.pointers);
    for (const cell of geo.cells) {
      const hit = hits.get(cell.name);
      const mark = hit.querySelector(".pp-mark");
      clear(mark);
      hit.classList.remove("pp-selected", "pp-target", "pp-movable", "pp-placeable");
      const kind = board[cell.n];
      if (places.has(cell.name)) {
        hit.classList.add("pp-placeable");
        const ghost = svg("g", { class: "pp-ghost" }, mark);
        if (obs.drawn && LOOK[obs.drawn]) piece(ghost, obs.drawn, id);
        svg("circle", { r: PIECE + 1, class: "pp-place-ring" }, mark);
        setButton(hit, `Place the ${obs.drawn || "drawn"} cauldron on ${cell.name}`);
      } else if (targets.has(cell.name)) {
        hit.classList.add("pp-target");
        svg("circle", { r: PIECE - 1, class: "pp-target-ring" }, mark);
        setButton(hit, `Slide ${pieceWords(board[geo.byName.get(selected).n])} from ${selected} to ${cell.name}`);
      } else if (slides.has(cell.name)) {
        const isSelected = cell.name === selected;
        hit.classList.add(isSelected ? "pp-selected" : "pp-movable");
        svg("circle", { r: PIECE + 4, class: isSelected ? "pp-selected-ring" : "pp-movable-ring" }, mark);
        if (isSelected) svg("circle", { r: PIECE + 0.5, class: "pp-selected-gap" }, mark);
        const count = slides.get(cell.name).size;
        setButton(
          hit,
          isSelected
            ? `${pieceWords(kind)} on ${cell.name}, chosen: now choose one of its ${count} destinations (Escape to put it back)`
            : `Slide ${pieceWords(kind)} on ${cell.name} (${count} ${count === 1 ? "destination" : "destinations"})`,
          isSelected,
        );
      } else {
        unsetButton(hit);
      }
    }
    svgRoot.classList.toggle("pp-choosing", Boolean(selected));

    drawCorners(obs);
    drawStrip(msg, obs);
    summary.textContent = describe(obs);
    return drawnAt;
  }

  function drawCorners(obs) {
    const g = layers.corner;
    clear(g);
    const top = layers.top + 22;
    const bottom = layers.bottom - 14;
    const xLeft = layers.left + 8;
    const xRight = -layers.left - 8;
    // top left: the face-down pile
    text(g, xLeft, top, "face down", { class: "pp-corner-title" });
    const remaining = obs.remaining || {};
    ["red", "blue", "yellow"].forEach((colour, k) => {
      const y = top + 30 + 31 * k;
      const at = svg("g", { transform: `translate(${xLeft + 13},${y})` }, g);
      piece(at, colour, id, 0.55);
      text(g, xLeft + 31, y + 1, `${remaining[colour] ?? 0}`, { class: "pp-count" });
    });
    // bottom left: the neutral colour
    if (obs.neutral && LOOK[obs.neutral]) {
      const at = svg("g", { transform: `translate(${xLeft + 13},${bottom - 22})` }, g);
      piece(at, obs.neutral, id, 0.55);
      text(g, xLeft + 31, bottom - 21, "neutral", { class: "pp-corner-note" });
      text(g, xLeft, bottom + 4, "counts for nobody", { class: "pp-corner-small" });
    }
    // the drawn cauldron: top right (narrow), or under the players (wide)
    const total = (obs.board || []).length - 1;
    const placed = `${obs.placed ?? 0} of ${total} placed`;
    if (layers.wide) {
      const x = layers.left + layers.width + 12;
      const players = obs.players || (obs.colours || []).length;
      const y = layers.top + 14 + players * 92 + 26;
      if (obs.drawn && LOOK[obs.drawn]) {
        const at = svg("g", { transform: `translate(${x + 30},${y + 14})` }, g);
        svg("circle", { r: PIECE + 6, class: "pp-drawn-ring" }, at);
        piece(at, obs.drawn, id, 1.05);
        text(g, x + 70, y + 4, `drawn: ${obs.drawn}`, { class: "pp-corner-title" });
        text(g, x + 70, y + 28, obs.to_move === ctx.you ? "yours to place" : "to be placed", { class: "pp-corner-small" });
      }
      text(g, x, bottom + 4, placed, { class: "pp-corner-note" });
      return;
    }
    if (obs.drawn && LOOK[obs.drawn]) {
      text(g, xRight, top, `drawn: ${obs.drawn}`, { class: "pp-corner-title pp-end" });
      const at = svg("g", { transform: `translate(${xRight - 30},${top + 44})` }, g);
      svg("circle", { r: PIECE + 6, class: "pp-drawn-ring" }, at);
      piece(at, obs.drawn, id, 1.05);
    }
    // bottom right: how far the game is
    text(g, xRight, bottom + 4, placed, { class: "pp-corner-note pp-end" });
  }

  function drawStrip(msg, obs) {
    const g = layers.strip;
    clear(g);
    const n = obs.players || (obs.colours || []).length;
    const gap = layers.wide ? 12 : 8;
    const h = 80;
    const w = layers.wide ? 236 : (layers.width - 12 - gap * (n - 1)) / n;
    const place = (seat) => (layers.wide
      ? [layers.left + layers.width + 8, layers.top + 14 + seat * (h + gap)]
      : [layers.left + 6 + seat * (w + gap), layers.bottom + 4]);
    const winners = (msg.outcome && msg.outcome.winners) || (obs.outcome && obs.outcome.winners) || [];
    const scores = (msg.outcome && msg.outcome.scores) || null;
    for (let seat = 0; seat < n; seat += 1) {
      const colour = obs.colours[seat];
      const look = LOOK[colour];
      const [x, y0] = place(seat);
      const moving = obs.to_move === seat && obs.phase !== "over";
      const won = winners.includes(seat);
      const chip = svg("g", { class: `pp-chip pp-${colour}${moving ? " pp-chip-moving" : ""}${won ? " pp-chip-won" : ""}` }, g);
      const clip = `${id}-chip${seat}`;
      const cp = svg("clipPath", { id: clip }, chip);
      svg("rect", { x, y: y0, width: w, height: h, rx: 12 }, cp);
      svg("rect", { x, y: y0, width: w, height: h, rx: 12, class: "pp-chip-box" }, chip);
      // the colour band on the left: colour, pattern and letter
      const band = svg("g", { "clip-path": `url(#${clip})` }, chip);
      svg("rect", { x, y: y0, width: 30, height: h, class: "pp-body" }, band);
      svg("rect", { x, y: y0, width: 30, height: h, fill: `url(#${id}-${look.pattern})` }, band);
      svg("circle", { cx: x + 15, cy: y0 + h / 2, r: 10.5, class: "pp-badge" }, chip);
      text(chip, x + 15, y0 + h / 2 + 0.5, look.letter, { class: "pp-letter" });
      svg("rect", { x, y: y0, width: w, height: h, rx: 12, class: "pp-chip-edge" }, chip);
      const most = Math.max(5, Math.floor((w - 46) / 10.2));
      const named = text(chip, x + 40, y0 + 28, shortName(name(seat), most), { class: "pp-chip-name" });
      fitText(named, w - 48, (m) => shortName(name(seat), m));
      const size = (obs.groups || [])[seat] ?? 0;
      // a tie broken by the last placements scores half a point off the group
      const broken = scores && scores[seat] !== size;
      let state = broken ? "score" : "safe group";
      if (won) state = winners.length > 1 ? "shares the win" : "wins";
      else if (moving) state = obs.phase === "place" ? "placing" : obs.phase === "draw" ? "drawing" : "sliding";
      const said = text(chip, x + 40, y0 + 60, state, { class: `pp-chip-state${won ? " pp-chip-win" : moving ? " pp-chip-turn" : ""}` });
      const score = text(chip, x + w - 10, y0 + 60, broken ? String(scores[seat]) : String(size), { class: "pp-chip-group" });
      if (textWidth(said) + textWidth(score) > w - 56) stackChip(named, said, score, y0);
    }
  }

  // A phone's chip too narrow for the words and the number side by side ("safe group"
  // ran under "4.5"): the words go up under the name, the number stays at the bottom.
  function stackChip(named, said, score, y0) {
    named.setAttribute("y", y0 + 22);
    said.setAttribute("y", y0 + 42);
    score.setAttribute("y", y0 + 72);
  }

  // The keyboard's place survives an update: the same circle if it can still be
  // chosen, else the first one that can (once it is this seat's turn again).
  const keepFocusOn = focusKeeper();
  function keepFocus(inside, circle) {
    keepFocusOn(inside, () => {
      const same = circle ? hits.get(circle) : null;
      return same && same.getAttribute("tabindex") === "0"
        ? same
        : svgRoot.querySelector(".pp-selected[tabindex='0']") || svgRoot.querySelector(".pp-live[tabindex='0']");
    });
  }

  function describe(obs) {
    const parts = [`The pot is on ${obs.pot}.`];
    for (const colour of ["red", "blue", "yellow"]) {
      const where = [];
      obs.board.forEach((kind, n) => { if (kind === colour) where.push(obs.circles[n]); });
      if (where.length) parts.push(`${colour}: ${where.join(", ")}.`);
    }
    return parts.join(" ");
  }

  function animate(drawnAt, msg) {
    if (ctx.prefersReducedMotion || !drawnAt) return;
    const count = msg.event_count ?? 0;
    const fresh = seenEvents === null ? [] : (msg.events || []).filter((e) => e.step >= seenEvents);
    seenEvents = count;
    for (const event of fresh) {
      const node = event.kind === "slide" ? drawnAt.get(event.to) : event.kind === "place" ? drawnAt.get(event.on) : null;
      if (!node || typeof node.animate !== "function") continue;
      if (event.kind === "slide") {
        const from = geo.byName.get(event.from);
        const to = geo.byName.get(event.to);
        if (!from || !to) continue;
        node.animate(
          [{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px)` }, { transform: "translate(0px, 0px)" }],
          { duration: 380, easing: "cubic-bezier(.2,.7,.3,1)" },
        );
      } else {
        node.animate(
          [{ transform: "scale(0.2)", opacity: 0 }, { transform: "scale(1.12)", opacity: 1, offset: 0.7 }, { transform: "scale(1)" }],
          { duration: 320, easing: "ease-out" },
        );
      }
    }
  }

  const stopWatching = watchWidth(root, WIDE, (now) => {
    if (!last || !geo || now === wide) return;
    build(last.observation);
    render();
  });

  return {
    update(msg) {
      const obs = msg.observation;
      if (!obs || !Array.isArray(obs.board)) return;
      if (!geo || geo.radius !== obs.radius) {
        build(obs);
        seenEvents = null;
      }
      if (msg.game_no !== lastGame || msg.fresh) seenEvents = null; // a new game, or a (re)connection
      lastGame = msg.game_no;
      if (msg.state_id !== lastStateId) selected = null;
      lastStateId = msg.state_id;
      last = msg;
      const active = document.activeElement;
      const inside = Boolean(active && svgRoot.contains(active));
      const focused = inside && active.dataset ? active.dataset.circle : null;
      const drawnAt = render();
      keepFocus(inside, focused);
      if (seenEvents === null) seenEvents = msg.event_count ?? 0;
      else animate(drawnAt, msg);
    },
    turnText(msg) {
      const obs = msg.observation;
      if (!obs) return "";
      const outcome = msg.outcome || obs.outcome;
      if (outcome) {
        const winners = outcome.winners || [];
        const who = winners.map((s) => (s === ctx.you ? "you" : ctx.seatName(s)));
        const scores = outcome.scores || [];
        const line = winners.length === 1
          ? `${who[0] === "you" ? "You win" : `${who[0]} wins`}`
          : `${who.join(" and ")} share the win`;
        return `${line}: ${scores.map((v, s) => `${obs.colours[s]} ${v}`).join(", ")}`;
      }
      const seat = obs.to_move;
      if (seat === null || seat === undefined) return "";
      const colour = obs.colours[seat];
      const mine = seat === ctx.you && (msg.legal || []).length > 0;
      if (obs.phase === "slide") {
        if (!mine) return `${ctx.seatName(seat)} (${colour}) is sliding a piece`;
        // (one piece to slide, the pot on the first turn, is no piece to choose)
        const one = legalMoves(msg).slides.size === 1;
        return `Your turn: slide ${slidable(msg)} (choose ${one ? "it" : "a piece"}, then where it goes)`;
      }
      if (obs.phase === "draw") return `${seat === ctx.you ? "You turn" : `${ctx.seatName(seat)} (${colour}) turns`} up a cauldron`;
      if (obs.phase === "place") {
        if (mine) return `Your turn: place the ${obs.drawn} cauldron you drew on an empty circle`;
        return `${ctx.seatName(seat)} (${colour}) places the ${obs.drawn} cauldron`;
      }
      return "";
    },
    destroy() {
      stopWatching();
      clear(root);
      root.classList.remove("pp-table");
      geo = null;
      last = null;
    },
  };
}
