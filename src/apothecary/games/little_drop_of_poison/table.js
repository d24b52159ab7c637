// Little Drop of Poison: the king and the peasants with the poison on each, your
// hand, the points, drawn from the seat's observation alone.
//
// A turn: choose a card in your hand, then the character to put it on (or the
// character first); then more cards on the same character, and "Done". The reveal
// turns the round's cards over one by one.
//
// What to draw, and which move each thing plays, is computed by the pure
// `layout` (layout.js, unit-tested under Node); this file draws it and handles
// the clicks and keys.

import { clear, focusKeeper, html, mountId, seatWords, svg, text } from "/static/tables/kit.js";
import { cardInfo, colourWord, kindWord, latestPlay, layout, seatNamer, soundOf as soundOfEvent, turnText } from "./layout.js";
import { t, tn } from "/static/i18n.js";

const PALETTE = {
  blue: "#0072b2",
  green: "#009e73",
  purple: "#cc79a7",
  red: "#d55e00",
  orange: "#e69f00",
  yellow: "#f0e442",
  sky: "#56b4e9",
  black: "#222222",
};
const SPARE = ["#0072b2", "#009e73", "#cc79a7", "#d55e00", "#e69f00", "#56b4e9", "#f0e442", "#222222"];
const PATTERNS = ["dots", "stripes", "hatch", "waves", "checks", "rings", "zigzag", "grid"];
const LIGHT_INK = new Set(["#f0e442", "#e69f00", "#56b4e9", "#cc79a7"]);
const CARD_W = 46;
const CARD_H = 64;

/** The sound the shell plays for an event ("death", "reveal" or null), from its data. */
export function soundOf(event) {
  return soundOfEvent(event);
}

// -- the colours' looks and the cards ------------------------------------------

/** Each colour's look (by its name: fill, ink, pattern id, letter), its patterns put in `defs`. */
function makeLooks(defs, colours, id) {
  const look = new Map();
  clear(defs);
  colours.forEach((colourName, k) => {
    const fill = PALETTE[colourName] || SPARE[k % SPARE.length];
    const ink = LIGHT_INK.has(fill) ? "#000" : "#fff";
    const pattern = PATTERNS[k % PATTERNS.length];
    look.set(colourName, { name: colourName, fill, ink, pattern: `${id}-${pattern}`, letter: colourName[0].toUpperCase() });
    makePattern(defs, pattern, `${id}-${pattern}`, ink);
  });
  const backing = svg("pattern", { id: `${id}-back`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
  svg("rect", { width: 6, height: 6, class: "ldp-back-base" }, backing);
  svg("rect", { width: 2.4, height: 6, class: "ldp-back-line" }, backing);
  return look;
}

function makePattern(defs, kind, pid, ink) {
  const p = svg("pattern", { id: pid, width: 6, height: 6, patternUnits: "userSpaceOnUse" }, defs);
  const style = { fill: ink, stroke: ink, "fill-opacity": 0.5, "stroke-opacity": 0.5 };
  if (kind === "dots") {
    svg("circle", { cx: 1.5, cy: 1.5, r: 1.1, ...style, stroke: "none" }, p);
    svg("circle", { cx: 4.5, cy: 4.5, r: 1.1, ...style, stroke: "none" }, p);
  } else if (kind === "stripes") {
    p.setAttribute("patternTransform", "rotate(45)");
    svg("rect", { width: 2.2, height: 6, ...style, stroke: "none" }, p);
  } else if (kind === "hatch") {
    p.setAttribute("patternTransform", "rotate(45)");
    svg("path", { d: "M0 0V6M0 0H6M3 0V6M0 3H6", ...style, fill: "none", "stroke-width": 0.9 }, p);
  } else if (kind === "waves") {
    svg("path", { d: "M0 3Q1.5 0 3 3T6 3", ...style, fill: "none", "stroke-width": 1 }, p);
  } else if (kind === "checks") {
    svg("rect", { width: 3, height: 3, ...style, stroke: "none" }, p);
    svg("rect", { x: 3, y: 3, width: 3, height: 3, ...style, stroke: "none" }, p);
  } else if (kind === "rings") {
    svg("circle", { cx: 3, cy: 3, r: 1.6, ...style, fill: "none", "stroke-width": 0.9 }, p);
  } else if (kind === "zigzag") {
    svg("path", { d: "M0 4L1.5 2L3 4L4.5 2L6 4", ...style, fill: "none", "stroke-width": 1 }, p);
  } else {
    svg("path", { d: "M0 0H6V6", ...style, fill: "none", "stroke-width": 1 }, p);
  }
}

function droplet(parent, x, y, size, fill) {
  const s = size / 10;
  svg("path", {
    d: `M${x} ${y - 6 * s}C${x + 3.5 * s} ${y - 1.5 * s} ${x + 4.5 * s} ${y + 0.5 * s} ${x + 4.5 * s} ${y + 2 * s}a${4.5 * s} ${4.5 * s} 0 0 1 ${-9 * s} 0C${x - 4.5 * s} ${y + 0.5 * s} ${x - 3.5 * s} ${y - 1.5 * s} ${x} ${y - 6 * s}z`,
    fill,
    class: "ldp-drop",
  }, parent);
}

function shield(g, cx, cy, r, fill) {
  svg("path", {
    d: `M${cx} ${cy - r}L${cx + r * 0.85} ${cy - r * 0.6}V${cy + r * 0.05}C${cx + r * 0.85} ${cy + r * 0.6} ${cx + r * 0.35} ${cy + r * 0.9} ${cx} ${cy + r}C${cx - r * 0.35} ${cy + r * 0.9} ${cx - r * 0.85} ${cy + r * 0.6} ${cx - r * 0.85} ${cy + r * 0.05}V${cy - r * 0.6}z`,
    fill,
    class: "ldp-shield",
  }, g);
  svg("path", { d: `M${cx} ${cy - r * 0.5}V${cy + r * 0.5}M${cx - r * 0.45} ${cy}H${cx + r * 0.45}`, class: "ldp-shield-cross" }, g);
}

/** The colour band of a poison card: a stripe per colour with its letter. */
function poisonBand(g, card, paint, w, band) {
  const n = card.colours.length || 1;
  card.colours.forEach((colourName, k) => {
    const c = paint.look.get(colourName);
    const x = 2 + ((w - 4) * k) / n;
    const bw = (w - 4) / n;
    svg("rect", { x, y: 2, width: bw + 0.3, height: band, fill: c ? c.fill : "#888" }, g);
    if (c) svg("rect", { x, y: 2, width: bw + 0.3, height: band, fill: `url(#${c.pattern})` }, g);
    // a small card's letters get smaller, or two of them would run into each other
    // (set through the element's style object: a style attribute is inline CSS, which the server's CSP refuses)
    const small = bw < 16 ? { fontSize: `${(bw * 0.8).toFixed(1)}px` } : null;
    text(g, x + bw / 2, band / 2 + 2, c ? c.letter : colourName[0], { class: "ldp-card-letter", fill: c ? c.ink : "#fff", style: small });
  });
  svg("rect", { x: 2, y: 2, width: w - 4, height: band, class: "ldp-band-edge" }, g);
}

/** The drops of a poison card, in rows of three (one droplet per colour per drop). */
function poisonDrops(g, card, paint, w, h, band) {
  const body = h - band - 4;
  const size = Math.min(w / 3.4, body * 0.62) * 1.25;
  const drops = [];
  for (let d = 0; d < card.drops; d += 1) for (const colourName of card.colours) drops.push(colourName);
  const rows = Math.ceil(drops.length / 3);
  const stepX = (w - 6) / 3;
  const scale = rows > 1 ? 0.72 : 1;
  drops.forEach((colourName, k) => {
    const row = Math.floor(k / 3);
    const inRow = row === rows - 1 ? drops.length - row * 3 : 3;
    const col = k % 3;
    const cx = w / 2 + (col - (inRow - 1) / 2) * stepX;
    const cy = band + 4 + body / 2 + (row - (rows - 1) / 2) * (body / rows) + 1;
    const c = paint.look.get(colourName);
    droplet(g, cx, cy, size * scale, c ? c.fill : "#888");
  });
}

/** A card face (w x h at 0,0) into `g`. */
function face(g, code, paint, w = CARD_W, h = CARD_H) {
  const card = cardInfo(code, paint.obs);
  svg("rect", { width: w, height: h, rx: 5, class: "ldp-card-face" }, g);
  const band = h * 0.36;
  if (card.kind === "universal") {
    const n = Math.max(paint.colours.length, 1);
    paint.colours.forEach((colourName, k) => {
      const c = paint.look.get(colourName);
      svg("rect", { x: 2 + ((w - 4) * k) / n, y: 2, width: (w - 4) / n + 0.3, height: band, fill: c.fill }, g);
    });
    svg("rect", { x: 2, y: 2, width: w - 4, height: band, class: "ldp-band-edge" }, g);
    shield(g, w / 2, band + (h - band) / 2 + 1, h * 0.2, "var(--fg, #1d1b22)");
    text(g, w / 2, band / 2 + 2, "U", { class: "ldp-card-letter ldp-ink-dark" });
  } else if (card.kind === "antidote") {
    const c = paint.look.get(card.colours[0]);
    const fill = c ? c.fill : "#888";
    svg("rect", { x: 2, y: 2, width: w - 4, height: band, fill }, g);
    if (c) svg("rect", { x: 2, y: 2, width: w - 4, height: band, fill: `url(#${c.pattern})` }, g);
    svg("rect", { x: 2, y: 2, width: w - 4, height: band, class: "ldp-band-edge" }, g);
    text(g, w / 2, band / 2 + 2, c ? c.letter : "?", { class: "ldp-card-letter", fill: c ? c.ink : "#fff" });
    shield(g, w / 2, band + (h - band) / 2 + 1, h * 0.2, fill);
  } else {
    poisonBand(g, card, paint, w, band);
    poisonDrops(g, card, paint, w, h, band);
  }
  svg("rect", { width: w, height: h, rx: 5, class: "ldp-card-edge" }, g);
  return card;
}

function back(g, paint, w = CARD_W, h = CARD_H) {
  svg("rect", { width: w, height: h, rx: 5, fill: `url(#${paint.id}-back)`, class: "ldp-card-back" }, g);
  droplet(g, w / 2, h / 2 + 2, Math.min(w, h) * 0.55, "var(--ldp-back-mark)");
  svg("rect", { width: w, height: h, rx: 5, class: "ldp-card-edge" }, g);
}

// -- the characters ---------------------------------------------------------

function kindIcon(parent, kind, size = 30) {
  const icon = svg("svg", { viewBox: "-16 -16 32 32", width: size, height: size, class: `ldp-icon ldp-icon-${kind || "none"}`, "aria-hidden": "true", focusable: "false" }, parent);
  if (kind === "rat") {
    svg("circle", { cx: -9, cy: -8, r: 6.5, class: "ldp-ear" }, icon);
    svg("circle", { cx: 9, cy: -8, r: 6.5, class: "ldp-ear" }, icon);
    svg("path", { d: "M-11 -2C-11 -10 11 -10 11 -2C11 6 4 13 0 15C-4 13 -11 6 -11 -2z", class: "ldp-head-fill" }, icon);
    svg("circle", { cx: -4.5, cy: -1, r: 1.8, class: "ldp-eye" }, icon);
    svg("circle", { cx: 4.5, cy: -1, r: 1.8, class: "ldp-eye" }, icon);
    svg("circle", { cx: 0, cy: 12.5, r: 2.2, class: "ldp-nose" }, icon);
  } else if (kind === "weasel") {
    svg("path", { d: "M-12 -7L-9 -14L-4 -10zM12 -7L9 -14L4 -10z", class: "ldp-ear" }, icon);
    svg("path", { d: "M-13 -4C-13 -12 13 -12 13 -4C13 3 6 8 0 9C-6 8 -13 3 -13 -4z", class: "ldp-head-fill" }, icon);
    svg("path", { d: "M-7 -4l4 1.5M7 -4l-4 1.5", class: "ldp-eye-line" }, icon);
    svg("circle", { cx: 0, cy: 5, r: 2, class: "ldp-nose" }, icon);
  }
  return icon;
}

function crown(parent, size = 30) {
  const icon = svg("svg", { viewBox: "-16 -16 32 32", width: size, height: size, class: "ldp-icon ldp-crown", "aria-hidden": "true", focusable: "false" }, parent);
  svg("path", { d: "M-13 8L-15 -8L-6 0L0 -12L6 0L15 -8L13 8z", class: "ldp-crown-fill" }, icon);
  svg("rect", { x: -13, y: 9, width: 26, height: 4, rx: 1, class: "ldp-crown-fill" }, icon);
  return icon;
}

const PILE_W = 190;

/** One meter per colour: its drops out of the lethal number (or "blocked"). */
function drawMeters(s, mat, paint) {
  let y = 4;
  for (const meter of mat.meters) {
    const c = paint.look.get(meter.colour);
    const g = svg("g", { transform: `translate(0,${y})` }, s);
    svg("circle", { cx: 9, cy: 9, r: 8.5, fill: c.fill }, g);
    svg("circle", { cx: 9, cy: 9, r: 8.5, fill: `url(#${c.pattern})` }, g);
    svg("circle", { cx: 9, cy: 9, r: 8.5, class: "ldp-swatch-edge" }, g);
    text(g, 9, 10, c.letter, { class: "ldp-swatch-letter", fill: c.ink });
    const x0 = 24;
    const barW = PILE_W - x0 - 40;
    const seg = barW / mat.lethal;
    if (meter.blocked) {
      svg("rect", { x: x0, y: 3, width: barW, height: 12, rx: 3, class: "ldp-blocked-bar" }, g);
      shield(g, x0 + 9, 9, 7, c.fill);
      text(g, x0 + 20, 10, t("{colour} blocked", { colour: colourWord(meter.colour) }), { class: "ldp-meter-note" });
    } else {
      for (let k = 0; k < mat.lethal; k += 1) {
        const filled = k < meter.drops;
        const r = svg("rect", { x: x0 + k * seg + 1, y: 3, width: seg - 2, height: 12, rx: 2.5, class: filled ? "ldp-seg ldp-seg-on" : "ldp-seg" }, g);
        if (filled) r.style.fill = c.fill;
      }
      const danger = meter.drops >= mat.lethal - 1 && meter.drops > 0;
      text(g, PILE_W - 2, 10, `${meter.drops}/${mat.lethal}`, { class: `ldp-meter-count${danger ? " ldp-danger" : ""}` });
    }
    y += 22;
  }
  return y;
}

/** This poison round's face-down plays on a character, by seat, from `y` down. */
function drawPlays(s, mat, paint, y) {
  const ch = 38;
  y += 4;
  let x = 0;
  for (const play of mat.plays) {
    const who = play.short;
    const n = play.count;
    const width = Math.min(n, 6) * 9 + 22 + Math.max(who.length, 6) * 7.4;
    if (x + width > PILE_W && x > 0) {
      x = 0;
      y += ch;
    }
    if (play.last) {
      // the latest card put down
      svg("rect", { x: x - 3, y: y - 3, width: Math.min(width + 4, PILE_W - x + 3), height: ch, rx: 6, class: "ldp-lastplay" }, s);
    }
    for (let k = 0; k < n; k += 1) {
      const g = svg("g", { transform: `translate(${x + Math.min(k, 5) * 9},${y})` }, s);
      if (play.mine && play.known[k]) {
        face(g, play.known[k], paint, 22, ch - 6);
        svg("rect", { width: 22, height: ch - 6, rx: 5, class: "ldp-facedown-veil" }, g);
      } else {
        back(g, paint, 22, ch - 6);
      }
    }
    const tx = x + Math.min(n, 6) * 9 + 18;
    // Translators: over a name on the next line: "3 from" / "Ann" (cards face down from a seat).
    text(s, tx, y + 11, t("{count} from", { count: n }), { class: "ldp-fd-note" });
    text(s, tx, y + 26, who, { class: "ldp-fd-who" });
    x += width + 8;
  }
  return y + ch - 6;
}

/** A character's pile: its meters, its face-up cards, this round's face-down plays. */
function drawPile(parent, mat, paint) {
  const s = svg("svg", { class: "ldp-pile", "aria-hidden": "true", focusable: "false" }, parent);
  let y = drawMeters(s, mat, paint);
  // the face-up cards from earlier poison rounds
  const cw = 27;
  const ch = 38;
  const perRow = Math.floor((PILE_W + 3) / (cw + 3));
  if (mat.faceUp.length) {
    y += 3;
    mat.faceUp.forEach((code, k) => {
      const g = svg("g", { transform: `translate(${(k % perRow) * (cw + 3)},${y + Math.floor(k / perRow) * (ch + 4)})` }, s);
      face(g, code, paint, cw, ch);
    });
    y += Math.ceil(mat.faceUp.length / perRow) * (ch + 4);
  }
  if (mat.plays.length) y = drawPlays(s, mat, paint, y);
  s.setAttribute("viewBox", `0 0 ${PILE_W} ${y + 4}`);
}

/** One character's mat; `onHit(mat)` when its button (if it can be chosen) is pressed. */
function drawMat(parent, mat, paint, onHit) {
  const node = html("div", "ldp-mat", parent);
  node.dataset.character = mat.character;
  if (mat.isKing) node.classList.add("ldp-king");
  if (!mat.alive) node.classList.add("ldp-dead");
  if (mat.moving) node.classList.add("ldp-moving");
  const headRow = html("div", "ldp-mat-head", node);
  if (mat.isKing) crown(headRow, 28);
  else kindIcon(headRow, mat.kind, 28);
  html("span", { class: "ldp-who", text: mat.title }, headRow);
  if (mat.starts) html("span", { class: "ldp-tag ldp-tag-start", text: t("starts") }, headRow);
  if (!mat.alive) html("span", { class: "ldp-tag ldp-tag-dead", text: t("dead") }, headRow);
  const sub = html("div", "ldp-mat-sub", node);
  if (mat.isKing) {
    sub.textContent = mat.sub;
  } else {
    html("span", { class: "ldp-kind", text: mat.kind ? kindWord(mat.kind) : "" }, sub);
    // Translators: a short count of points on a peasant's mat.
    const score = html("span", { class: "ldp-score", text: tn("{count} pt", "{count} pts", mat.score) }, sub);
    score.title = t("points");
    if (mat.gain) html("span", { class: "ldp-gain", text: t("+{count} this round", { count: mat.gain }) }, sub);
    html("span", { class: "ldp-handcount", text: t("{count} in hand", { count: mat.handCount }) }, sub);
  }
  drawPile(node, mat, paint);
  if (mat.doing) html("div", { class: "ldp-doing", text: mat.doing }, node);
  if (mat.isTarget) node.classList.add("ldp-target");
  node.setAttribute("role", "group");
  node.setAttribute("aria-label", mat.ariaLabel);
  if (mat.action) {
    // the whole mat is the target: a button laid over it (its name is its words)
    node.classList.add("ldp-live");
    const hit = html("button", "ldp-mat-hit", node);
    hit.type = "button";
    hit.dataset.character = mat.character;
    hit.setAttribute("aria-label", mat.hitLabel);
    hit.addEventListener("click", () => onHit(mat));
  }
}

// -- your hand ------------------------------------------------------------

/** The hand's cards and buttons; `on.card(card)` and `on.button(button)` when pressed. */
function drawHand(box, hand, paint, on) {
  clear(box);
  // (once the game is over a hand means nothing: it said "your peasant is dead
  // this round / no cards" under the result)
  box.hidden = !hand.shown;
  if (!hand.shown) return;
  html("div", { class: "ldp-hand-title", text: hand.title }, box);
  const row = html("div", "ldp-hand-row", box);
  if (!hand.cards.length) html("span", { class: "ldp-empty", text: t("no cards") }, row);
  for (const card of hand.cards) {
    const holder = html(card.live ? "button" : "div", "ldp-hand-card", row);
    holder.dataset.slot = String(card.slot);
    const s = svg("svg", { viewBox: `-3 -3 ${CARD_W + 6} ${CARD_H + 6}`, class: "ldp-card-svg", "aria-hidden": "true", focusable: "false" }, holder);
    face(svg("g", {}, s), card.code, paint);
    html("span", { class: "ldp-code", text: card.code }, holder);
    // the card's words, for those who do not see it (inside the name, after its code)
    const words = html("span", "ldp-sr", holder);
    if (!card.live) {
      holder.setAttribute("role", "img");
      holder.setAttribute("aria-label", card.aria);
      continue;
    }
    holder.type = "button";
    holder.classList.add("ldp-live");
    words.textContent = card.words;
    if (!card.add) {
      holder.setAttribute("aria-pressed", card.chosen ? "true" : "false");
      if (card.chosen) holder.classList.add("ldp-selected");
    }
    holder.addEventListener("click", () => on.card(card));
    holder.addEventListener("keydown", (event) => {
      if (event.key === "Escape") on.escape();
    });
  }
  const buttons = html("div", "ldp-buttons", row);
  for (const button of hand.buttons) {
    const node = html("button", `ldp-button ldp-${button.kind}`, buttons);
    node.type = "button";
    node.textContent = button.text;
    node.setAttribute("aria-label", button.label);
    node.addEventListener("click", () => on.button(button));
  }
}

// -- the header and the reveal -----------------------------------------------

function drawHead(head, items) {
  clear(head);
  for (const item of items) html("span", { class: item.goal ? "ldp-head-item ldp-target-score" : "ldp-head-item", text: item.text }, head);
}

/** The last reveal, its cards turned over one by one when `motion`. */
function drawReveal(box, reveal, paint, motion) {
  clear(box);
  box.hidden = !reveal;
  if (!reveal) return;
  box.classList.toggle("ldp-animate", motion);
  html("h3", { class: "ldp-reveal-title", text: reveal.title }, box);
  const list = html("div", "ldp-reveal-list", box);
  const step = Math.round(Math.min(320, 2600 / Math.max(reveal.total, 1)));
  box.style.setProperty("--ldp-step", `${step}ms`);
  let i = 0;
  for (const play of reveal.rows) {
    const row = html("div", "ldp-reveal-row", list);
    html("div", { class: "ldp-reveal-who", text: play.who }, row);
    const w = play.cards.length * (CARD_W * 0.72 + 4);
    const s = svg("svg", { viewBox: `-2 -2 ${w + 2} ${CARD_H * 0.72 + 4}`, class: "ldp-reveal-cards", role: "img", "aria-label": play.aria }, row);
    s.style.width = `${(w + 2) * 0.9}px`;
    play.cards.forEach((code, k) => {
      const g = svg("g", { transform: `translate(${k * (CARD_W * 0.72 + 4)},0) scale(0.72)` }, s);
      const flip = svg("g", { class: "ldp-flip" }, g);
      flip.style.setProperty("--i", String(i));
      back(svg("g", { class: "ldp-flip-back" }, flip), paint);
      face(svg("g", { class: "ldp-flip-front" }, flip), code, paint);
      i += 1;
    });
  }
  const result = html("p", "ldp-reveal-result", box);
  result.style.setProperty("--i", String(i));
  result.textContent = reveal.result;
  if (motion) window.setTimeout(() => box.classList.remove("ldp-animate"), i * step + 900);
}

// -- the table ---------------------------------------------------------------

export function mount(root, ctx) {
  const id = mountId("ldp");
  root.classList.add("ldp-table");

  // a hidden SVG holding the patterns every card refers to
  const defsHost = svg("svg", { class: "ldp-defs", width: 0, height: 0, "aria-hidden": "true", focusable: "false" }, root);
  const defs = svg("defs", {}, defsHost);
  const head = html("div", "ldp-head", root);
  const revealBox = html("section", "ldp-reveal", root);
  revealBox.setAttribute("aria-live", "polite");
  revealBox.hidden = true;
  const chars = html("div", "ldp-chars", root);
  const handBox = html("section", "ldp-hand", root);
  handBox.setAttribute("aria-label", t("Your hand"));

  const paint = { id, look: new Map(), colours: [], obs: {} };
  const { name: baseName, label: baseLabel } = seatWords(ctx);
  let names = seatNamer(0, baseName, baseLabel, ctx.you);
  let last = null;
  let selected = null; // a card code chosen in the hand, waiting for a character
  let selectedSlot = null; // which of the hand's cards it is
  let pending = null; // {code, after}: add this card once the character is chosen
  let revealKey = null;
  let lastPlay = null; // {seat, on}: the latest card put face down, marked on its pile
  let firstUpdate = true;

  const view = () => ({ names, selected, selectedSlot, lastPlay });
  function act(action) {
    selected = null;
    ctx.act(action.id);
  }
  const onHand = {
    card(card) {
      if (card.add) {
        act(card.add);
        return;
      }
      selected = card.chosen ? null : card.code;
      selectedSlot = card.chosen ? null : card.slot;
      render();
      const again = handBox.querySelector(`[data-slot="${card.slot}"]`);
      if (again) again.focus({ preventScroll: true });
    },
    button: (button) => act(button.action),
    escape() {
      if (!selected) return;
      selected = null;
      render();
    },
  };
  function onHit(mat) {
    if (selected) pending = { code: selected, after: last.state_id };
    act(mat.action);
  }

  // The keyboard's place survives a redraw: the same character or card if it can
  // still be chosen, else the first thing that can (once it is this seat's turn).
  const keepFocus = focusKeeper();
  function focusedKey() {
    const active = document.activeElement;
    if (!active || !root.contains(active)) return null;
    if (active.classList.contains("ldp-mat-hit")) return `c:${active.dataset.character}`;
    if (active.dataset.slot) return `h:${active.dataset.slot}`;
    if (active.classList.contains("ldp-button")) return `b:${active.className}`;
    return "any";
  }
  function restoreFocus(key) {
    keepFocus(Boolean(key), () => {
      let again = null;
      if (key && key.startsWith("c:")) again = chars.querySelector(`.ldp-mat-hit[data-character="${key.slice(2)}"]`);
      if (key && key.startsWith("h:")) again = handBox.querySelector(`[data-slot="${key.slice(2)}"][tabindex="0"]`);
      return again || root.querySelector(".ldp-hand-card[tabindex='0'], .ldp-button, .ldp-mat-hit");
    });
  }

  function render() {
    const drawn = layout(last, view());
    selected = drawn.selected;
    if (!selected) selectedSlot = null;
    root.classList.toggle("ldp-choosing", Boolean(selected));
    drawHead(head, drawn.head);
    clear(chars);
    for (const mat of drawn.characters) drawMat(chars, mat, paint, onHit);
    drawHand(handBox, drawn.hand, paint, onHand);
    return drawn;
  }

  return {
    update(msg) {
      const obs = msg.observation;
      if (!obs || !obs.seats || !obs.table) return;
      const colours = obs.colours || [];
      if (colours.join() !== paint.colours.join()) {
        paint.colours = colours.slice();
        paint.look = makeLooks(defs, colours, id);
      }
      paint.obs = obs;
      names = seatNamer(obs.players || obs.seats.length, baseName, baseLabel, ctx.you);
      last = msg;
      lastPlay = latestPlay(msg.events, lastPlay);
      // a reveal among the new events is turned over card by card (not on a
      // (re)connection's first update, which carries the whole game's events)
      const fresh = !firstUpdate && !msg.fresh && (msg.events || []).some((event) => event.reveal);
      firstUpdate = false;
      const focusKey = focusedKey();
      const drawn = render();
      if (drawn.reveal ? drawn.reveal.key !== revealKey || fresh : revealKey !== null) {
        revealKey = drawn.reveal ? drawn.reveal.key : null;
        drawReveal(revealBox, drawn.reveal, paint, fresh && !ctx.prefersReducedMotion);
      }
      // a card chosen before the character: add it now that the character is chosen
      if (pending && msg.state_id !== pending.after) {
        const add = drawn.moves.adds.get(pending.code);
        pending = null;
        if (add) {
          ctx.act(add.id);
          return;
        }
      }
      restoreFocus(focusKey);
    },
    turnText(msg) {
      return turnText(msg, names);
    },
    destroy() {
      clear(root);
      root.classList.remove("ldp-table", "ldp-choosing");
      last = null;
    },
  };
}
