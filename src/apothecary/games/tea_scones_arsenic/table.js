// Tea, Scones and Arsenic: the box by kind, the scones put back (marked by
// who put them back), every cup, sugar cubes, spoons, honour turns, and your
// own dose against the lethal dose, drawn in SVG from the seat's observation
// alone. A dose is shown only where the observation holds it (the doses this
// seat has seen); every other dose is "?".
//
// Moves are made on the board: a kind in the box (take a scone of that kind),
// a marked scone (take that one), the box's shuffle, the scone in your hand
// (eat it, or put it back for a sugar cube), your place at the table (stop),
// and the little spoon when another player chooses to eat.
//
// What to draw, and which move each thing plays, is layout.js's pure answer
// (from the update and its legal actions' `move`); this file draws it, lays
// it out in the space it has, and sends the chosen action's id.

import { clickable as kitClickable, clip, fitText, focusedKey as keyInFocus, html, lineFits, refocus, svg, text, watchWidth } from "/static/tables/kit.js";
import { layout, soundOf as eventSound, turnText } from "./layout.js";
import { t, tn } from "/static/i18n.js";

// Okabe-Ito colours, one per kind; the kind's number is always drawn on it.
const KIND_FILL = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00"];
const KIND_INK = ["#1d1b22", "#1d1b22", "#ffffff", "#1d1b22", "#ffffff", "#ffffff"];
const CELL_CLASS = { hot: "tsa-cell tsa-cell-hot", full: "tsa-cell tsa-cell-full", hand: "tsa-cell tsa-cell-hand", empty: "tsa-cell" };

/** The sound an event calls for ("death", "reveal" or null), from its data (layout.js). */
export function soundOf(event) {
  return eventSound(event);
}

const sconePath = (r) => `M${-r},${r * 0.2} C${-r},${-r * 0.95} ${r},${-r * 0.95} ${r},${r * 0.2} C${r},${r * 0.75} ${-r},${r * 0.75} ${-r},${r * 0.2} Z`;

function scone(parent, x, y, r, kind, extra = "") {
  const g = svg("g", { class: `tsa-scone ${extra}`, transform: `translate(${x},${y})` }, parent);
  svg("path", { d: sconePath(r), fill: KIND_FILL[kind - 1], class: "tsa-scone-body" }, g);
  svg("path", { d: `M${-r * 0.8},${r * 0.18} C${-r * 0.3},${r * 0.36} ${r * 0.3},${r * 0.36} ${r * 0.8},${r * 0.18}`, class: "tsa-scone-split" }, g);
  text(g, 0, r * 0.05, String(kind), { class: "tsa-scone-num", fill: KIND_INK[kind - 1], "font-size": Math.max(9, r * 0.95) });
  return g;
}

function emptySlot(parent, x, y, r) {
  svg("path", { d: sconePath(r), transform: `translate(${x},${y})`, class: "tsa-slot" }, parent);
}

function overlay(parent, x, y, w, h) {
  const g = svg("g", { class: "tsa-over" }, parent);
  svg("rect", { x, y, width: w, height: h, rx: 10, class: "tsa-hit" }, g);
  return g;
}

function panel(parent, x, y, w, h, cls = "") {
  return svg("rect", { x, y, width: w, height: h, rx: 12, class: `tsa-panel ${cls}` }, parent);
}

// A move's shape: a button named by the control's words, sending its action's id.
function playable(node, c, act) {
  kitClickable(node, c.key, c.words, "tsa-can", () => act(c.id));
}

// A button showing `shown` (shorter than the control's words where they would not fit;
// its name stays the words).
function button(parent, x, y, w, h, c, act, cls = "", shown = c.words) {
  const g = svg("g", { class: `tsa-btn ${cls}`, transform: `translate(${x},${y})` }, parent);
  svg("rect", { x: 0, y: 0, width: w, height: h, rx: h / 2 }, g);
  text(g, w / 2, h / 2 + 5, shown, {});
  playable(g, c, act);
  return g;
}

function wrap(words, fits) {
  const out = [];
  let line = "";
  for (const word of words.split(" ")) {
    if (!fits((line + " " + word).trim()) && line) {
      out.push(line);
      line = word;
    } else line = (line + " " + word).trim();
  }
  if (line) out.push(line);
  return out;
}

// The strip's `bits` on lines that `fits` (kit's lineFits): whole bits joined by
// " · " while they fit, a bit longer than a line wrapped at its spaces.
function stripLines(bits, fits) {
  const lines = [];
  for (const bit of bits) {
    const joined = lines.length ? `${lines[lines.length - 1]} \u00b7 ${bit}` : "";
    if (lines.length && fits(joined)) lines[lines.length - 1] = joined;
    else lines.push(...wrap(bit, fits));
  }
  return lines;
}

// SVG text does not wrap: a phone's strip goes on as many lines as it takes, each
// measured as drawn (a solo header of 47 letters ran out of the picture at 390 px,
// and the bold honour line's 46 letters did too).
function drawStrip(top, strip, pen, W) {
  const { pad, wide } = pen;
  let y = pad;
  const g = svg("g", { class: "tsa-strip" }, top);
  const main = { class: "tsa-strip-main" };
  for (const line of stripLines(strip.bits, lineFits(g, main, W - 2 * pad, wide ? 110 : 40))) {
    text(g, pad, y + 16, line, main);
    y += 20;
  }
  y += 4;
  if (strip.honour) {
    const look = { class: `tsa-strip-honour ${strip.owed ? "tsa-owed" : ""}` };
    for (const line of stripLines([strip.honour], lineFits(g, look, W - 2 * pad, wide ? 120 : 46))) {
      text(g, pad, y + 15, line, look);
      y += 18;
    }
    y += 4;
  }
  if (strip.last) {
    const said = strip.last;
    const t = fitText(text(g, pad, y + 15, clip(said, wide ? 110 : 46), { class: "tsa-strip-last" }), W - 2 * pad, (m) => clip(said, m));
    t.setAttribute("aria-live", "off");
    y += 22;
  }
  return y + 6;
}

function drawGauge(parent, gauge, x, y, w) {
  const g = svg("g", { class: "tsa-gauge" }, parent);
  panel(g, x, y, w, 92);
  if (gauge.watching) {
    text(g, x + 14, y + 26, t("Watching: doses are hidden"), { class: "tsa-h" });
    text(g, x + 14, y + 50, t("A total of {dose} or more kills.", { dose: gauge.lethal }), { class: "tsa-small" });
    return y + 62;
  }
  text(g, x + 14, y + 24, gauge.title, { class: "tsa-h" });
  text(g, x + w - 14, y + 24, gauge.note, { class: `tsa-small tsa-right ${gauge.warn ? "tsa-warn-text" : ""}` });
  // the bar: one cell per dose unit up to the lethal dose
  const bx = x + 14;
  const bw = w - 28 - 30;
  const by = y + 38;
  const bh = 22;
  const cell = bw / gauge.lethal;
  gauge.cells.forEach((look, i) => {
    svg("rect", { x: bx + i * cell + 0.8, y: by, width: Math.max(1, cell - 1.6), height: bh, rx: Math.min(4, cell / 3), class: CELL_CLASS[look] }, g);
  });
  const skull = svg("g", { transform: `translate(${bx + bw + 16},${by + bh / 2})`, class: "tsa-lethal" }, g);
  text(skull, 0, 6, "\u2620", {});
  text(g, bx, by + bh + 18, gauge.footer, { class: gauge.footerBold ? "tsa-small tsa-bold" : "tsa-tiny" });
  if (gauge.lethalNote) text(g, bx + bw, by + bh + 18, gauge.lethalNote, { class: "tsa-tiny tsa-right" });
  return y + 92;
}

function drawKind(g, kind, pen, x, y, colW, sizes) {
  const { r, gridH, colH } = sizes;
  const cx = x + 8 + (kind.kind - 1) * colW;
  const col = svg("g", { class: "tsa-kind", "data-kind": kind.kind }, g);
  text(col, cx + colW / 2, y + 18, t("kind {kind}", { kind: kind.kind }), { class: "tsa-small tsa-mid tsa-bold" });
  // the unmarked scones of this kind: 6 places, 2 by 3
  for (let i = 0; i < 6; i++) {
    const sx = cx + colW / 2 + (i % 2 === 0 ? -r * 1.15 : r * 1.15);
    const sy = y + 26 + r + Math.floor(i / 2) * (r * 1.5);
    if (i < kind.count) scone(col, sx, sy, r, kind.kind);
    else emptySlot(col, sx, sy, r);
  }
  text(col, cx + colW / 2, y + 26 + gridH + 14, t("{count} left", { count: kind.count }), { class: "tsa-small tsa-mid" });
  // doses: those known to be out of the unmarked box are struck
  const dy = y + 26 + gridH + 20 + 15;
  const per = pen.wide ? 6 : 3;
  const step = pen.wide ? Math.min(13, (colW - 12) / 6) : 13;
  const dx0 = cx + colW / 2 - (step * (per - 1)) / 2;
  kind.doses.forEach(({ dose, gone }, i) => {
    const tx = dx0 + (i % per) * step;
    const ty = dy + Math.floor(i / per) * 15;
    text(col, tx, ty, String(dose), { class: `tsa-dose-digit ${gone ? "tsa-dose-gone" : ""}` });
    if (gone) svg("line", { x1: tx - 4, y1: ty - 4, x2: tx + 4, y2: ty - 4, class: "tsa-dose-strike" }, col);
  });
  // what is clicked lies over the drawing, so its name is all a reader hears
  const hit = overlay(g, cx + 3, y, colW - 6, colH);
  hit.dataset.kind = String(kind.kind);
  if (kind.control) playable(hit, kind.control, pen.act);
  else svg("title", {}, hit).textContent = kind.title;
  if (kind.last) hit.classList.add("tsa-last");
}

function drawMarked(g, m, pen, x, y, chipW, rowH) {
  const cx = x + 10 + (m.index % pen.perRow) * chipW;
  const cy = y + Math.floor(m.index / pen.perRow) * rowH;
  const chip = svg("g", { class: "tsa-marked", "data-kind": m.kind, "data-by": m.by }, g);
  svg("rect", { x: cx + 2, y: cy, width: chipW - 4, height: rowH - 6, rx: 10, class: "tsa-chip" }, chip);
  scone(chip, cx + 24, cy + (rowH - 6) / 2, pen.wide ? 15 : 13, m.kind);
  text(chip, cx + 46, cy + 20, m.byText, { class: "tsa-small tsa-bold" });
  text(chip, cx + 46, cy + 38, m.dose, { class: `tsa-small ${m.known ? "tsa-known" : ""}` });
  const hit = overlay(g, cx + 2, cy, chipW - 4, rowH - 6);
  hit.dataset.marked = String(m.index);
  if (m.control) playable(hit, m.control, pen.act);
  else svg("title", {}, hit).textContent = m.title;
  if (m.last) hit.classList.add("tsa-last");
}

function drawBox(parent, box, pen, x, y, w) {
  const { wide } = pen;
  const g = svg("g", { class: "tsa-box" }, parent);
  const colW = (w - 16) / 6;
  const r = wide ? 13 : 10;
  const headH = 34;
  const gridH = 3 * (r * 1.5) + 6;
  const doseH = wide ? 22 : 37;
  const colH = 26 + gridH + 20 + doseH + 8;
  const markedRowH = wide ? 58 : 54;
  const perRow = wide ? 3 : 2;
  const markedRows = box.marked.length ? Math.ceil(box.marked.length / perRow) : 0;
  const captionH = 38; // the two lines that say what the digits under the kinds are
  const h = headH + colH + captionH + (markedRows ? 26 + markedRows * markedRowH : 0) + 10;
  panel(g, x, y, w, h, "tsa-box-panel");
  text(g, x + 14, y + 24, box.heading, { class: "tsa-h" });
  if (box.shuffle) button(g, x + w - 128, y + 8, 116, 28, box.shuffle, pen.act, "tsa-btn-quiet");
  else if (box.justShuffled) text(g, x + w - 14, y + 24, `\u21bb ${t("just shuffled")}`, { class: "tsa-small tsa-right tsa-last-text" });
  const cy0 = y + headH;
  for (const kind of box.kinds) drawKind(g, kind, pen, x, cy0, colW, { r, gridH, colH });
  // the digits under each kind were unlabelled rows of "0 0 1 1 2 3"
  let my = cy0 + colH + 4;
  // Translators: two lines under the box; keep the line break where the text may wrap.
  const caption = t("Digits: the doses of each kind's six scones;\na struck one you know has left the box.").split("\n");
  caption.forEach((line, i) => text(g, x + 14, my + 14 + 17 * i, line, { class: "tsa-small tsa-dose-caption" }));
  my += captionH;
  if (box.marked.length) {
    text(g, x + 14, my + 16, t("Put back, marked by who put them back:"), { class: "tsa-small tsa-bold" });
    my += 24;
    for (const m of box.marked) drawMarked(g, m, { ...pen, perRow }, x, my, (w - 20) / perRow, markedRowH);
  }
  return y + h;
}

function drawHand(parent, hand, pen, x, y, w) {
  const { wide } = pen;
  const g = svg("g", { class: "tsa-hand" }, parent);
  const lineH = 40;
  const cols = wide ? 1 : 2;
  const buttonsH = hand.choices.length ? Math.ceil(hand.choices.length / cols) * (lineH + 6) : 0;
  // Beside the scone in hand the lines are short: its title and detail may take two each.
  // Without a scone the title has the panel's width ("medium bot (seat 1) is choosing
  // a scone" ran past it on a phone): it too may take two lines.
  const held = !!hand.scone;
  const titles = wrap(hand.title, lineFits(g, { class: "tsa-h" }, held ? w - 78 : w - 28, held ? (wide ? 34 : 30) : 44)).slice(0, 2);
  const detailLines = held && hand.detail ? wrap(hand.detail, lineFits(g, { class: "tsa-small" }, w - 78, wide ? 34 : 38)).slice(0, 2) : [];
  const extra = (titles.length - 1) * 19 + (held ? 8 + Math.max(0, detailLines.length - 1) * 16 : 0);
  const h = 60 + extra + buttonsH + 12;
  panel(g, x, y, w, h, hand.act ? "tsa-panel-act" : "");
  const ty = y + 24;
  if (held) {
    scone(g, x + 30, y + 34, 20, hand.scone.kind, "tsa-in-hand");
    const dose = hand.scone.dose;
    svg("circle", { cx: x + 46, cy: y + 48, r: 10, class: `tsa-dose-badge ${dose === "?" ? "" : "tsa-dose-badge-known"}` }, g);
    text(g, x + 46, y + 52, dose, { class: "tsa-dose-badge-text" });
    titles.forEach((line, i) => text(g, x + 64, ty + i * 19, line, { class: "tsa-h" }));
    detailLines.forEach((line, i) => text(g, x + 64, ty + 19 * titles.length + 2 + i * 16, line, { class: "tsa-small" }));
  } else {
    titles.forEach((line, i) => fitText(text(g, x + 14, ty + i * 19, line, { class: "tsa-h" }), w - 28, (m) => clip(line, m)));
    if (hand.detail) {
      const lines = wrap(hand.detail, lineFits(g, { class: "tsa-small" }, w - 28, 50)).slice(0, 2);
      const dy = ty + 22 + (titles.length - 1) * 19;
      lines.forEach((line, i) => text(g, x + 14, dy + i * 17, line, { class: "tsa-small" }));
    }
  }
  const top = y + 60 + extra;
  const bw = (w - 24 - (cols - 1) * 8) / cols;
  hand.choices.forEach((c, i) => {
    const bx = x + 12 + (i % cols) * (bw + 8);
    const b = button(g, bx, top + Math.floor(i / cols) * (lineH + 6), bw, lineH, c, pen.act, c.tone ? `tsa-btn-${c.tone}` : "");
    b.setAttribute("aria-label", c.label);
    b.querySelector("title").textContent = c.label;
  });
  return y + h;
}

function drawSeat(parent, seat, pen, cx, cy, cw, sizes) {
  const { wide } = pen;
  const { ch, r, perLine, stop } = sizes;
  const g = svg("g", { class: "tsa-seat", "data-seat": seat.seat }, parent);
  if (!seat.alive) g.classList.add("tsa-dead");
  if (seat.you) g.classList.add("tsa-you");
  const stopH = seat.you && stop ? 46 : 0;
  panel(g, cx, cy, cw, ch + stopH, `${seat.turn ? "tsa-panel-turn" : ""} ${seat.last ? "tsa-panel-last" : ""}`);
  const nm = text(g, cx + 12, cy + 22, (seat.alive ? "" : "\u2620 ") + seat.name, { class: "tsa-name" });
  const num = svg("tspan", { class: "tsa-seatno", dx: 5 }, nm);
  num.textContent = `#${seat.seat}`;
  if (!seat.alive) {
    const len = Math.min(cw - 24, 8.6 * (seat.name.length + 2));
    svg("line", { x1: cx + 12, y1: cy + 17, x2: cx + 12 + len, y2: cy + 17, class: "tsa-strike" }, g);
  }
  text(g, cx + 12, cy + 40, seat.state, { class: `tsa-small ${seat.winner ? "tsa-win-text" : ""} ${seat.alive ? "" : "tsa-dead-text"} ${seat.toMove ? "tsa-bold" : ""}` });
  nm.setAttribute("aria-label", seat.fullName);
  const line2 = cy + 62;
  text(g, cx + 12, line2, seat.scones, { class: "tsa-count" });
  text(g, cx + 12, line2 + 19, seat.total, { class: `tsa-small ${seat.totalKnown ? "tsa-known" : ""}` });
  // cubes as little squares; on a phone's half-width seat the state ("dead at dose 8")
  // reaches the right-hand edge, so there the cubes go on the shorter line of the count
  const cubes = svg("g", { class: "tsa-cubes" }, g);
  const cubesX = cx + cw - 12 - 3 * 15 + 4;
  const cubesY = wide ? cy + 29 : line2 - 11;
  for (let c = 0; c < 3; c++) {
    svg("rect", { x: cubesX + c * 15, y: cubesY, width: 11, height: 11, rx: 2, class: c < seat.cubes ? "tsa-cube" : "tsa-cube-used" }, cubes);
  }
  if (wide) text(cubes, cubesX - 5, cy + 39, t("cubes"), { class: "tsa-tiny tsa-right" });
  svg("title", {}, cubes).textContent = tn("{count} sugar cube left", "{count} sugar cubes left", seat.cubes);
  if (seat.extras) text(g, cx + cw - 12, line2 + 19, seat.extras, { class: `tsa-tiny tsa-right ${seat.owed ? "tsa-owed" : ""}` });
  const cupY = cy + 100;
  svg("line", { x1: cx + 10, y1: cupY - 8, x2: cx + cw - 10, y2: cupY - 8, class: "tsa-rule" }, g);
  if (!seat.cup.length) text(g, cx + 12, cupY + 14, t("cup: empty"), { class: "tsa-tiny" });
  seat.cup.forEach((c, j) => {
    const sx = cx + 12 + r + (j % perLine) * (r * 2 + 6);
    const sy = cupY + r + Math.floor(j / perLine) * (r * 2 + 16);
    scone(g, sx, sy, r, c.kind, c.last ? "tsa-last-scone" : "");
    // (a desktop's bigger digits go a little lower, clear of the scone's number)
    text(g, sx, sy + r + (wide ? 12 : 9), c.dose, { class: `tsa-cup-dose ${c.dose === "?" ? "" : "tsa-known"}` });
  });
  if (stopH) {
    // a phone's half-width seat has room for the first words only
    const words = stop.words;
    button(g, cx + 12, cy + ch, cw - 24, 36, stop, pen.act, "tsa-btn-stop", cw - 24 < 8.4 * words.length ? `\u25a0 ${t("Stop eating")}` : words);
  }
}

function drawSeats(parent, model, pen, x, y, w) {
  const { wide } = pen;
  const n = model.players;
  const you = model.you;
  const cols = wide ? Math.min(n, n > 4 ? 3 : n) : n === 1 ? 1 : 2;
  const gap = 10;
  const cw = (w - (cols - 1) * gap) / cols;
  const r = n === 1 ? 12 : wide ? 10 : 9;
  const perLine = Math.max(4, Math.floor((cw - 20) / (r * 2 + 6)));
  const maxCup = Math.max(1, ...model.seats.map((s) => s.cup.length));
  const cupH = Math.max(1, Math.ceil(maxCup / perLine)) * (r * 2 + 16);
  const stopH = model.stop ? 46 : 0;
  const ch = 100 + cupH + 6;
  let rowY = y;
  model.seats.forEach((seat, i) => {
    const cx = x + (i % cols) * (cw + gap);
    // only the rows under yours make room for your stop button
    const row = Math.floor(i / cols);
    const cy = y + row * (ch + gap) + (stopH && you !== null && you !== undefined && row > Math.floor(you / cols) ? stopH : 0);
    rowY = Math.max(rowY, cy + ch + (seat.you ? stopH : 0));
    drawSeat(parent, seat, pen, cx, cy, cw, { ch, r, perLine, stop: model.stop });
  });
  return rowY;
}

// The whole picture of `model` (layout.js) on `board`.
function draw(board, model, pen) {
  const { wide, pad } = pen;
  const W = wide ? 960 : 360;
  const focusedKey = keyInFocus(board);
  board.textContent = "";
  const top = svg("svg", { class: `tsa-svg ${wide ? "tsa-wide" : "tsa-narrow"}`, role: "group", "aria-label": t("Tea, Scones and Arsenic table") }, board);
  let y = drawStrip(top, model.strip, pen, W);
  const boxW = wide ? 570 : W - 2 * pad;
  const rightX = wide ? pad + boxW + 14 : pad;
  const rightW = wide ? W - rightX - pad : W - 2 * pad;
  let boxY = y;
  let rightY = y;
  if (!wide) {
    // phone: your dose first, then what you hold and may do, then the box
    rightY = drawGauge(top, model.gauge, rightX, y, rightW);
    rightY = drawHand(top, model.hand, pen, rightX, rightY + 10, rightW);
    boxY = rightY + 10;
  }
  const boxBottom = drawBox(top, model.box, pen, pad, boxY, boxW);
  if (wide) {
    rightY = drawGauge(top, model.gauge, rightX, rightY, rightW);
    rightY = drawHand(top, model.hand, pen, rightX, rightY + 10, rightW);
  }
  y = Math.max(boxBottom, rightY) + 14;
  y = drawSeats(top, model, pen, pad, y, W - 2 * pad);
  top.setAttribute("viewBox", `0 0 ${W} ${Math.ceil(y + pad)}`);
  // keep the keyboard on the board: the same thing if it is still there, else the first move
  refocus(board, focusedKey, ".tsa-can");
}

export function mount(root, ctx) {
  root.classList.add("tsa");
  const board = html("div", "tsa-board", root);
  let last = null;
  let wide = root.clientWidth >= 700;
  const names = {
    name: (s) => (ctx.seatName ? ctx.seatName(s) : t("seat {seat}", { seat: s })),
    label: (s) => (ctx.seatLabel ? ctx.seatLabel(s) : ctx.seatName ? ctx.seatName(s) : t("seat {seat}", { seat: s })),
  };
  const redraw = () => {
    const model = layout(last, last.legal || [], names, wide);
    draw(board, model, { wide, pad: wide ? 16 : 10, act: (id) => ctx.act(id) });
  };
  const stopWatching = watchWidth(root, 700, (now) => {
    wide = now;
    if (last) redraw();
  });
  return {
    update(msg) {
      last = msg;
      redraw();
    },
    turnText(msg) {
      return turnText(msg, names);
    },
    destroy() {
      stopWatching();
      root.textContent = "";
      root.classList.remove("tsa");
    },
  };
}
