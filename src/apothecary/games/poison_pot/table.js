// Poison Pot: the hexagonal board, drawn in SVG from the seat's observation alone.
//
// A turn is a slide (click a piece, then one of its highlighted destinations), a
// draw (chance) and a placement (click an empty circle for the drawn cauldron).
// Every cauldron shows its colour, a pattern and a letter; each player's largest
// group that does not touch the pot is outlined on the board.
//
// What goes where, and which move each circle plays, is worked out by the pure
// layout.js from the update and its legal moves; this module draws it and
// handles the clicks and keys.

import { asButton, clear, fitText, focusKeeper, html, mountId, onActivate, seatWords, svg, text, textWidth, watchWidth } from "/static/tables/kit.js";
import { readWords } from "/static/words.js";
import { D, HIT, LOOK, PIECE, ROWS, WIDE, chipName, colourWord, layout } from "./layout.js";
import { t } from "/static/i18n.js";

export { soundOf } from "./layout.js";

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

/** The SVG, its layers and one hit target per circle, for the board of `plan`. */
function buildBoard(figure, plan, id) {
  const { frame, geo } = plan;
  const svgRoot = svg("svg", {
    class: `pp-svg ${frame.wide ? "pp-wide" : "pp-narrow"}`,
    viewBox: frame.viewBox.join(" "),
    role: "group",
    "aria-label": t("Poison Pot board"),
  }, figure);
  defs(svgRoot, id);
  svg("polygon", { points: frame.corners.map(([x, y]) => `${x},${y}`).join(" "), class: "pp-hex" }, svgRoot);
  const layers = {};
  for (const layer of ["cells", "zone", "halo", "marks", "pieces", "pointers", "hits", "corner", "strip"]) {
    layers[layer] = svg("g", { class: `pp-layer-${layer}` }, svgRoot);
  }
  for (let row = 0; row <= 2 * geo.radius; row += 1) {
    const first = geo.cells.find((cell) => cell.row === row);
    text(layers.cells, first.x - D * 0.8, first.y, ROWS[row], { class: "pp-row-letter", "aria-hidden": "true" });
  }
  const hits = new Map();
  for (const cell of geo.cells) {
    const g = svg("g", { transform: `translate(${cell.x},${cell.y})` }, layers.cells);
    svg("circle", { r: PIECE, class: "pp-cell" }, g);
    text(g, 0, 1, cell.name, { class: "pp-name", "aria-hidden": "true" });
    const hit = svg("g", { class: "pp-hit", transform: `translate(${cell.x},${cell.y})`, "data-circle": cell.name }, layers.hits);
    svg("circle", { r: HIT, class: "pp-hit-area" }, hit);
    svg("g", { class: "pp-mark" }, hit);
    hits.set(cell.name, hit);
  }
  return { svgRoot, layers, hits };
}

/** Each player's largest safe group(s), as an outlined blob behind the cauldrons. */
function drawHalos(layer, plan) {
  clear(layer);
  const cells = plan.geo.cells;
  for (const { colour, circles } of plan.halos) {
    const members = new Set(circles);
    for (const [pass, r] of [["pp-halo-edge", PIECE + 8], ["pp-halo-fill", PIECE + 4.5]]) {
      const g = svg("g", { class: `${pass} pp-halo-${colour}` }, layer);
      for (const c of circles) {
        const cell = cells[c];
        svg("circle", { cx: cell.x, cy: cell.y, r }, g);
        for (const m of cell.neighbours) {
          if (m > c && members.has(m)) svg("line", { x1: cell.x, y1: cell.y, x2: cells[m].x, y2: cells[m].y }, g);
        }
      }
    }
  }
}

/** The pot's zone, the last move's marks and the pieces; returns each piece's node by circle (for animations). */
function drawPieces(layers, plan, id) {
  // which empty circles the pot poisons
  clear(layers.zone);
  for (const { x, y } of plan.zone) svg("circle", { cx: x, cy: y, r: PIECE, class: "pp-zone" }, layers.zone);
  drawHalos(layers.halo, plan);
  clear(layers.marks);
  const { marks } = plan;
  if (marks.from) svg("circle", { cx: marks.from.x, cy: marks.from.y, r: PIECE - 3, class: "pp-last-from" }, layers.marks);
  if (marks.path) svg("line", { ...marks.path, class: "pp-last-path", "marker-end": `url(#${id}-arrow)` }, layers.marks);
  if (marks.placed) svg("circle", { cx: marks.placed.x, cy: marks.placed.y, r: PIECE + 5, class: "pp-last-place" }, layers.marks);
  clear(layers.pieces);
  const drawnAt = new Map();
  for (const { circle, kind, x, y } of plan.pieces) {
    const outer = svg("g", { transform: `translate(${x},${y})` }, layers.pieces);
    const inner = svg("g", { class: "pp-move" }, outer);
    piece(inner, kind, id);
    drawnAt.set(circle, inner);
  }
  // a small diamond on the last placed cauldron, above the pieces
  if (marks.badge) svg("path", { d: marks.badge, class: "pp-last-badge" }, layers.pieces);
  return drawnAt;
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

const RINGS = {
  target: (mark) => svg("circle", { r: PIECE - 1, class: "pp-target-ring" }, mark),
  movable: (mark) => svg("circle", { r: PIECE + 4, class: "pp-movable-ring" }, mark),
  selected: (mark) => {
    svg("circle", { r: PIECE + 4, class: "pp-selected-ring" }, mark);
    svg("circle", { r: PIECE + 0.5, class: "pp-selected-gap" }, mark);
  },
};

/** The pointers on the hit targets: the picked-up piece, its destinations, the movable pieces, the placements. */
function drawControls(hits, plan, obs, id) {
  for (const cell of plan.geo.cells) {
    const hit = hits.get(cell.name);
    const mark = hit.querySelector(".pp-mark");
    clear(mark);
    hit.classList.remove("pp-selected", "pp-target", "pp-movable", "pp-placeable");
    const control = plan.controls.get(cell.name);
    if (!control) {
      unsetButton(hit);
      continue;
    }
    if (control.role === "place") {
      hit.classList.add("pp-placeable");
      const ghost = svg("g", { class: "pp-ghost" }, mark);
      if (obs.drawn && LOOK[obs.drawn]) piece(ghost, obs.drawn, id);
      svg("circle", { r: PIECE + 1, class: "pp-place-ring" }, mark);
      setButton(hit, control.label);
    } else {
      hit.classList.add(`pp-${control.role}`);
      RINGS[control.role](mark);
      setButton(hit, control.label, control.role === "target" ? null : control.pressed);
    }
  }
}

/** The corners: the face-down pile, the neutral colour, the drawn cauldron and how far the game is. */
function drawCorners(g, plan, id) {
  clear(g);
  const { frame, corners } = plan;
  const top = frame.top + 22;
  const bottom = frame.bottom - 14;
  const xLeft = frame.left + 8;
  const xRight = -frame.left - 8;
  text(g, xLeft, top, t("face down"), { class: "pp-corner-title" });
  corners.remaining.forEach(({ colour, count }, k) => {
    const y = top + 30 + 31 * k;
    piece(svg("g", { transform: `translate(${xLeft + 13},${y})` }, g), colour, id, 0.55);
    text(g, xLeft + 31, y + 1, `${count}`, { class: "pp-count" });
  });
  if (corners.neutral) {
    piece(svg("g", { transform: `translate(${xLeft + 13},${bottom - 22})` }, g), corners.neutral, id, 0.55);
    text(g, xLeft + 31, bottom - 21, t("neutral"), { class: "pp-corner-note" });
    text(g, xLeft, bottom + 4, t("counts for nobody"), { class: "pp-corner-small" });
  }
  const drawn = (at) => {
    svg("circle", { r: PIECE + 6, class: "pp-drawn-ring" }, at);
    piece(at, corners.drawn, id, 1.05);
  };
  if (corners.drawnAt) {
    // wide: the drawn cauldron under the players
    const { x, y } = corners.drawnAt;
    if (corners.drawn) {
      drawn(svg("g", { transform: `translate(${x + 30},${y + 14})` }, g));
      text(g, x + 70, y + 4, t("drawn: {colour}", { colour: colourWord(corners.drawn) }), { class: "pp-corner-title" });
      text(g, x + 70, y + 28, corners.drawnNote, { class: "pp-corner-small" });
    }
    text(g, x, bottom + 4, corners.placed, { class: "pp-corner-note" });
    return;
  }
  if (corners.drawn) {
    text(g, xRight, top, t("drawn: {colour}", { colour: colourWord(corners.drawn) }), { class: "pp-corner-title pp-end" });
    drawn(svg("g", { transform: `translate(${xRight - 30},${top + 44})` }, g));
  }
  text(g, xRight, bottom + 4, corners.placed, { class: "pp-corner-note pp-end" });
}

/** One chip per seat of `update`, named by `name(seat)` (the room's seats tell twins apart). */
function drawChips(g, plan, id, update, name, you) {
  clear(g);
  for (const chip of plan.chips) {
    const { seat, colour, x, y, w, h } = chip;
    const look = LOOK[colour];
    const node = svg("g", { class: `pp-chip pp-${colour}${chip.moving ? " pp-chip-moving" : ""}${chip.won ? " pp-chip-won" : ""}` }, g);
    const clip = `${id}-chip${seat}`;
    svg("rect", { x, y, width: w, height: h, rx: 12 }, svg("clipPath", { id: clip }, node));
    svg("rect", { x, y, width: w, height: h, rx: 12, class: "pp-chip-box" }, node);
    // the colour band on the left: colour, pattern and letter
    const band = svg("g", { "clip-path": `url(#${clip})` }, node);
    svg("rect", { x, y, width: 30, height: h, class: "pp-body" }, band);
    svg("rect", { x, y, width: 30, height: h, fill: `url(#${id}-${look.pattern})` }, band);
    svg("circle", { cx: x + 15, cy: y + h / 2, r: 10.5, class: "pp-badge" }, node);
    text(node, x + 15, y + h / 2 + 0.5, look.letter, { class: "pp-letter" });
    svg("rect", { x, y, width: w, height: h, rx: 12, class: "pp-chip-edge" }, node);
    const most = Math.max(5, Math.floor((w - 46) / 10.2));
    const shown = (m) => chipName(update, seat, name(seat), you, m);
    const named = text(node, x + 40, y + 28, shown(most), { class: "pp-chip-name" });
    fitText(named, w - 48, shown);
    const said = text(node, x + 40, y + 60, chip.state, { class: `pp-chip-state${chip.won ? " pp-chip-win" : chip.moving ? " pp-chip-turn" : ""}` });
    const score = text(node, x + w - 10, y + 60, chip.score, { class: "pp-chip-group" });
    // A phone's chip too narrow for the words and the number side by side ("safe group"
    // ran under "4.5"): the words go up under the name, the number stays at the bottom.
    if (textWidth(said) + textWidth(score) > w - 56) {
      named.setAttribute("y", y + 22);
      said.setAttribute("y", y + 42);
      score.setAttribute("y", y + 72);
    }
  }
}

/** The fresh slides glide from where they started, the fresh placements pop in (from the events' data). */
function animate(drawnAt, geo, fresh) {
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

export function mount(root, ctx) {
  const id = mountId("pp");
  root.classList.add("pp-table");
  const figure = html("div", "pp-figure", root);
  const summary = html("p", { class: "pp-sr", "aria-live": "off" }, root);
  const { label: name, who } = seatWords(ctx);

  let board = null; // { svgRoot, layers, hits } of the board drawn
  let radius = null;
  let wide = false;
  let plan = null;
  let last = null;
  let selected = null;
  let lastStateId = null;
  let lastGame = null;
  let seenEvents = null;

  const planFor = (msg) => layout(msg, msg.legal || [], { you: ctx.you, selected, wide });

  function build(msg) {
    clear(figure);
    wide = root.clientWidth >= WIDE;
    radius = msg.observation.radius;
    board = buildBoard(figure, planFor(msg), id);
    for (const [circle, hit] of board.hits) {
      onActivate(hit, () => choose(circle));
      hit.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && selected) {
          selected = null;
          render();
        }
      });
    }
    board.svgRoot.addEventListener("click", () => {
      if (selected) {
        selected = null;
        render();
      }
    });
  }

  function choose(circle) {
    if (!last || !plan) return;
    const control = plan.controls.get(circle);
    if (control && control.play !== undefined) {
      selected = null;
      ctx.act(control.play);
      return;
    }
    selected = control ? control.select : null;
    render();
    const hit = board.hits.get(circle);
    if (hit && document.activeElement !== hit && hit.getAttribute("tabindex") === "0") hit.focus({ preventScroll: true });
  }

  function render() {
    plan = planFor(last);
    selected = plan.selected;
    const obs = last.observation;
    const drawnAt = drawPieces(board.layers, plan, id);
    drawControls(board.hits, plan, obs, id);
    board.svgRoot.classList.toggle("pp-choosing", Boolean(selected));
    drawCorners(board.layers.corner, plan, id);
    drawChips(board.layers.strip, plan, id, last, name, ctx.you);
    summary.textContent = plan.summary;
    return drawnAt;
  }

  // The keyboard's place survives an update: the same circle if it can still be
  // chosen, else the first one that can (once it is this seat's turn again).
  const keepFocusOn = focusKeeper();
  function keepFocus(inside, circle) {
    keepFocusOn(inside, () => {
      const same = circle ? board.hits.get(circle) : null;
      return same && same.getAttribute("tabindex") === "0"
        ? same
        : board.svgRoot.querySelector(".pp-selected[tabindex='0']") || board.svgRoot.querySelector(".pp-live[tabindex='0']");
    });
  }

  const stopWatching = watchWidth(root, WIDE, (now) => {
    if (!last || !board || now === wide) return;
    build(last);
    render();
  });

  return {
    update(msg) {
      const obs = msg.observation;
      if (!obs || !Array.isArray(obs.board)) return;
      if (!board || radius !== obs.radius) {
        build(msg);
        seenEvents = null;
      }
      if (msg.game_no !== lastGame || msg.fresh) seenEvents = null; // a new game, or a (re)connection
      lastGame = msg.game_no;
      if (msg.state_id !== lastStateId) selected = null;
      lastStateId = msg.state_id;
      last = msg;
      const active = document.activeElement;
      const inside = Boolean(active && board.svgRoot.contains(active));
      const focused = inside && active.dataset ? active.dataset.circle : null;
      const drawnAt = render();
      keepFocus(inside, focused);
      const count = msg.event_count ?? 0;
      if (seenEvents !== null && !ctx.prefersReducedMotion) {
        animate(drawnAt, plan.geo, (msg.events || []).filter((e) => e.step >= seenEvents));
      }
      seenEvents = count;
    },
    turnText(msg) {
      if (!msg.observation) return "";
      return readWords(layout(msg, msg.legal || [], { you: ctx.you, wide }).turn, who, { capital: true });
    },
    destroy() {
      stopWatching();
      clear(root);
      root.classList.remove("pp-table");
      board = null;
      last = null;
    },
  };
}
