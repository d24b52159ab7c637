// Little Drop of Poison: the king and the peasants with the poison on each, your
// hand, the points, drawn from the seat's observation alone.
//
// A turn: choose a card in your hand, then the character to put it on (or the
// character first); then more cards on the same character, and "Done". The reveal
// turns the round's cards over one by one.

import { clear, focusKeeper, html, joined, legalByNotation, mountId, seatWords, shortName, svg, text } from "/static/tables/kit.js";

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

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** Expand {code: count} into a list of codes, in the deck's order of kinds. */
function expand(counts, order) {
  const out = [];
  const codes = Object.keys(counts || {});
  codes.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  for (const code of codes) for (let k = 0; k < counts[code]; k += 1) out.push(code);
  return out;
}

export function mount(root, ctx) {
  const id = mountId("ldp");
  root.classList.add("ldp-table");

  // a hidden SVG holding the patterns every card refers to
  const defsHost = svg("svg", { class: "ldp-defs", width: 0, height: 0, "aria-hidden": "true", focusable: "false" });
  root.appendChild(defsHost);
  const defs = svg("defs", {}, defsHost);

  const head = html("div", "ldp-head", root);
  const revealBox = html("section", "ldp-reveal", root);
  revealBox.setAttribute("aria-live", "polite");
  revealBox.hidden = true;
  const chars = html("div", "ldp-chars", root);
  const handBox = html("section", "ldp-hand", root);
  handBox.setAttribute("aria-label", "Your hand");

  let last = null;
  let colours = [];
  let look = new Map(); // colour letter -> {name, fill, ink, pattern}
  let selected = null; // a card code chosen in the hand, waiting for a character
  let selectedSlot = null; // which of the hand's cards it is
  let pending = null; // {code, after}: add this card once the character is chosen
  let revealKey = null;
  let lastPlay = null; // {seat, on}: the latest card put face down, marked on its pile
  let firstUpdate = true;
  let lastStateId = null;

  let twins = new Set(); // seats whose display name another seat shares
  const { name: baseName, label: baseLabel } = seatWords(ctx);
  function findTwins(players) {
    const seen = new Map();
    twins = new Set();
    for (let seat = 0; seat < players; seat += 1) {
      const key = baseName(seat);
      if (seen.has(key)) {
        twins.add(seen.get(key));
        twins.add(seat);
      } else {
        seen.set(key, seat);
      }
    }
  }
  function name(seat) {
    return twins.has(seat) ? `${baseName(seat)} ${seat}` : baseName(seat);
  }
  function label(seat) {
    const words = baseLabel(seat);
    return twins.has(seat) ? words.replace(baseName(seat), name(seat)) : words;
  }
  function whose(seat) {
    return seat === ctx.you ? "you" : name(seat);
  }
  /** The character `on` ("king" or a seat as text) as `actor` would be told of it. */
  function characterWords(on, obs, actor = ctx.you) {
    if (on === "king") return `the ${obs.king ? `${obs.king} ` : ""}king`;
    const seat = Number(on);
    if (seat === actor) return actor === ctx.you ? "your own peasant" : "their own peasant";
    return seat === ctx.you ? "your peasant" : `${name(seat)}'s peasant`;
  }

  function setColours(list) {
    if (list.join() === colours.join()) return;
    colours = list.slice();
    look = new Map();
    clear(defs);
    list.forEach((colourName, k) => {
      const fill = PALETTE[colourName] || SPARE[k % SPARE.length];
      const ink = LIGHT_INK.has(fill) ? "#000" : "#fff";
      const pattern = PATTERNS[k % PATTERNS.length];
      look.set(colourName[0], { name: colourName, fill, ink, pattern: `${id}-${pattern}`, letter: colourName[0].toUpperCase() });
      makePattern(pattern, `${id}-${pattern}`, ink);
    });
    const back = svg("pattern", { id: `${id}-back`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    svg("rect", { width: 6, height: 6, class: "ldp-back-base" }, back);
    svg("rect", { width: 2.4, height: 6, class: "ldp-back-line" }, back);
  }

  function makePattern(kind, pid, ink) {
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

  /** What a card code means: {kind: poison|antidote|universal, letters, drops, words}. */
  function parse(code) {
    if (code === "u!") return { kind: "universal", letters: [], drops: 0, words: "universal antidote" };
    let m = /^([a-z])!$/.exec(code);
    if (m) {
      const c = look.get(m[1]);
      return { kind: "antidote", letters: [m[1]], drops: 0, words: `${c ? c.name : m[1]} antidote` };
    }
    m = /^([a-z](?:\+[a-z])*)(\d+)$/.exec(code);
    if (m) {
      const letters = m[1].split("+");
      const drops = Number(m[2]);
      const names = letters.map((l) => (look.get(l) ? look.get(l).name : l));
      return { kind: "poison", letters, drops, words: `${plural(drops, "drop")} of ${names.join(" and ")}` };
    }
    return { kind: "unknown", letters: [], drops: 0, words: code };
  }

  /** A card in words for a sentence, as the log words it (the game's events.card_words):
   * "a blue poison of 2 drops", "a green and purple poison of 1 drop each", "a blue
   * antidote", "a universal antidote". */
  function cardWords(code) {
    const card = parse(code);
    const names = card.letters.map((l) => (look.get(l) ? look.get(l).name : l));
    const a = (words) => `${/^[aeio]/.test(words) ? "an" : "a"} ${words}`;
    if (card.kind === "poison") return a(`${names.join(" and ")} poison of ${plural(card.drops, "drop")}${names.length > 1 ? " each" : ""}`);
    if (card.kind === "antidote") return a(`${names[0]} antidote`);
    return card.kind === "universal" ? "a universal antidote" : code;
  }

  function droplet(parent, x, y, size, fill) {
    const s = size / 10;
    svg("path", {
      d: `M${x} ${y - 6 * s}C${x + 3.5 * s} ${y - 1.5 * s} ${x + 4.5 * s} ${y + 0.5 * s} ${x + 4.5 * s} ${y + 2 * s}a${4.5 * s} ${4.5 * s} 0 0 1 ${-9 * s} 0C${x - 4.5 * s} ${y + 0.5 * s} ${x - 3.5 * s} ${y - 1.5 * s} ${x} ${y - 6 * s}z`,
      fill,
      class: "ldp-drop",
    }, parent);
  }

  /** A card face (w x h at 0,0) into `g`. */
  function face(g, code, w = CARD_W, h = CARD_H) {
    const card = parse(code);
    svg("rect", { width: w, height: h, rx: 5, class: "ldp-card-face" }, g);
    const band = h * 0.36;
    if (card.kind === "universal") {
      const n = Math.max(colours.length, 1);
      colours.forEach((colourName, k) => {
        const c = look.get(colourName[0]);
        svg("rect", { x: 2 + ((w - 4) * k) / n, y: 2, width: (w - 4) / n + 0.3, height: band, fill: c.fill }, g);
      });
      svg("rect", { x: 2, y: 2, width: w - 4, height: band, class: "ldp-band-edge" }, g);
      shield(g, w / 2, band + (h - band) / 2 + 1, h * 0.2, "var(--fg, #1d1b22)");
      text(g, w / 2, band / 2 + 2, "U", { class: "ldp-card-letter ldp-ink-dark" });
    } else if (card.kind === "antidote") {
      const c = look.get(card.letters[0]);
      const fill = c ? c.fill : "#888";
      svg("rect", { x: 2, y: 2, width: w - 4, height: band, fill }, g);
      if (c) svg("rect", { x: 2, y: 2, width: w - 4, height: band, fill: `url(#${c.pattern})` }, g);
      svg("rect", { x: 2, y: 2, width: w - 4, height: band, class: "ldp-band-edge" }, g);
      text(g, w / 2, band / 2 + 2, c ? c.letter : "?", { class: "ldp-card-letter", fill: c ? c.ink : "#fff" });
      shield(g, w / 2, band + (h - band) / 2 + 1, h * 0.2, fill);
    } else {
      const n = card.letters.length || 1;
      card.letters.forEach((letter, k) => {
        const c = look.get(letter);
        const x = 2 + ((w - 4) * k) / n;
        const bw = (w - 4) / n;
        svg("rect", { x, y: 2, width: bw + 0.3, height: band, fill: c ? c.fill : "#888" }, g);
        if (c) svg("rect", { x, y: 2, width: bw + 0.3, height: band, fill: `url(#${c.pattern})` }, g);
        // a small card's letters get smaller, or two of them would run into each other
        const small = bw < 16 ? `font-size: ${(bw * 0.8).toFixed(1)}px` : null;
        text(g, x + bw / 2, band / 2 + 2, c ? c.letter : letter, { class: "ldp-card-letter", fill: c ? c.ink : "#fff", style: small });
      });
      svg("rect", { x: 2, y: 2, width: w - 4, height: band, class: "ldp-band-edge" }, g);
      // the drops, in a row (a multi-coloured card: one droplet per colour per drop)
      const body = h - band - 4;
      const size = Math.min(w / 3.4, body * 0.62) * 1.25;
      const drops = [];
      for (let d = 0; d < card.drops; d += 1) for (const letter of card.letters) drops.push(letter);
      const rows = Math.ceil(drops.length / 3);
      const stepX = (w - 6) / 3;
      const scale = rows > 1 ? 0.72 : 1;
      drops.forEach((letter, k) => {
        const row = Math.floor(k / 3);
        const inRow = row === rows - 1 ? drops.length - row * 3 : 3;
        const col = k % 3;
        const cx = w / 2 + (col - (inRow - 1) / 2) * stepX;
        const cy = band + 4 + body / 2 + (row - (rows - 1) / 2) * (body / rows) + 1;
        const c = look.get(letter);
        droplet(g, cx, cy, size * scale, c ? c.fill : "#888");
      });
    }
    svg("rect", { width: w, height: h, rx: 5, class: "ldp-card-edge" }, g);
    return card;
  }

  function shield(g, cx, cy, r, fill) {
    svg("path", {
      d: `M${cx} ${cy - r}L${cx + r * 0.85} ${cy - r * 0.6}V${cy + r * 0.05}C${cx + r * 0.85} ${cy + r * 0.6} ${cx + r * 0.35} ${cy + r * 0.9} ${cx} ${cy + r}C${cx - r * 0.35} ${cy + r * 0.9} ${cx - r * 0.85} ${cy + r * 0.6} ${cx - r * 0.85} ${cy + r * 0.05}V${cy - r * 0.6}z`,
      fill,
      class: "ldp-shield",
    }, g);
    svg("path", { d: `M${cx} ${cy - r * 0.5}V${cy + r * 0.5}M${cx - r * 0.45} ${cy}H${cx + r * 0.45}`, class: "ldp-shield-cross" }, g);
  }

  function back(g, w = CARD_W, h = CARD_H) {
    svg("rect", { width: w, height: h, rx: 5, fill: `url(#${id}-back)`, class: "ldp-card-back" }, g);
    droplet(g, w / 2, h / 2 + 2, Math.min(w, h) * 0.55, "var(--ldp-back-mark)");
    svg("rect", { width: w, height: h, rx: 5, class: "ldp-card-edge" }, g);
  }

  // -- the characters ---------------------------------------------------------

  function counts(cards, blocked) {
    const drops = new Map(colours.map((c) => [c[0], 0]));
    for (const code of Object.keys(cards || {})) {
      const card = parse(code);
      if (card.kind !== "poison") continue;
      for (const letter of card.letters) drops.set(letter, (drops.get(letter) || 0) + card.drops * cards[code]);
    }
    const blockedLetters = new Set((blocked || []).map((c) => c[0]));
    for (const letter of blockedLetters) drops.set(letter, 0);
    return { drops, blockedLetters };
  }

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

  function pile(parent, character, obs, isKing) {
    const info = obs.table[character] || { cards: {}, blocked: [] };
    const lethal = isKing ? obs.king_lethal : obs.peasant_lethal;
    const { drops, blockedLetters } = counts(info.cards, info.blocked);
    const W = 190;
    const rowH = 22;
    const s = svg("svg", { class: "ldp-pile", "aria-hidden": "true", focusable: "false" }, parent);
    let y = 4;
    // one meter per colour: its drops out of the lethal number
    for (const colourName of colours) {
      const c = look.get(colourName[0]);
      const n = drops.get(colourName[0]) || 0;
      const g = svg("g", { transform: `translate(0,${y})` }, s);
      svg("circle", { cx: 9, cy: 9, r: 8.5, fill: c.fill }, g);
      svg("circle", { cx: 9, cy: 9, r: 8.5, fill: `url(#${c.pattern})` }, g);
      svg("circle", { cx: 9, cy: 9, r: 8.5, class: "ldp-swatch-edge" }, g);
      text(g, 9, 10, c.letter, { class: "ldp-swatch-letter", fill: c.ink });
      const x0 = 24;
      const barW = W - x0 - 40;
      const seg = barW / lethal;
      if (blockedLetters.has(colourName[0])) {
        svg("rect", { x: x0, y: 3, width: barW, height: 12, rx: 3, class: "ldp-blocked-bar" }, g);
        shield(g, x0 + 9, 9, 7, c.fill);
        text(g, x0 + 20, 10, `${colourName} blocked`, { class: "ldp-meter-note" });
      } else {
        for (let k = 0; k < lethal; k += 1) {
          const filled = k < n;
          const r = svg("rect", { x: x0 + k * seg + 1, y: 3, width: seg - 2, height: 12, rx: 2.5, class: filled ? "ldp-seg ldp-seg-on" : "ldp-seg" }, g);
          if (filled) r.style.fill = c.fill;
        }
        text(g, W - 2, 10, `${n}/${lethal}`, { class: `ldp-meter-count${n >= lethal - 1 && n > 0 ? " ldp-danger" : ""}` });
      }
      y += rowH;
    }
    // the face-up cards from earlier poison rounds
    const up = expand(info.cards, obs.cards || []);
    const cw = 27;
    const ch = 38;
    const perRow = Math.floor((W + 3) / (cw + 3));
    if (up.length) {
      y += 3;
      up.forEach((code, k) => {
        const g = svg("g", { transform: `translate(${(k % perRow) * (cw + 3)},${y + Math.floor(k / perRow) * (ch + 4)})` }, s);
        face(g, code, cw, ch);
      });
      y += Math.ceil(up.length / perRow) * (ch + 4);
    }
    // this poison round's face-down plays, by seat
    const plays = (obs.seats || []).filter((seat) => seat.played_on === character && seat.played > 0);
    if (plays.length) {
      y += 4;
      let x = 0;
      for (const seat of plays) {
        const mine = seat.seat === ctx.you;
        const known = mine ? expand(obs.my_play || {}, obs.cards || []) : [];
        const n = seat.played;
        const who = mine ? "you" : shortName(name(seat.seat), 12);
        const width = Math.min(n, 6) * 9 + 22 + Math.max(who.length, 6) * 7.4;
        if (x + width > W && x > 0) {
          x = 0;
          y += ch - 6 + 6;
        }
        if (lastPlay && lastPlay.seat === seat.seat && lastPlay.on === character) {
          // the latest card put down
          svg("rect", { x: x - 3, y: y - 3, width: Math.min(width + 4, W - x + 3), height: ch, rx: 6, class: "ldp-lastplay" }, s);
        }
        for (let k = 0; k < n; k += 1) {
          const g = svg("g", { transform: `translate(${x + Math.min(k, 5) * 9},${y})` }, s);
          if (mine && known[k]) {
            face(g, known[k], 22, ch - 6);
            svg("rect", { width: 22, height: ch - 6, rx: 5, class: "ldp-facedown-veil" }, g);
          } else {
            back(g, 22, ch - 6);
          }
        }
        const tx = x + Math.min(n, 6) * 9 + 18;
        text(s, tx, y + 11, `${n} from`, { class: "ldp-fd-note" });
        text(s, tx, y + 26, who, { class: "ldp-fd-who" });
        x += width + 8;
      }
      y += ch - 6;
    }
    s.setAttribute("viewBox", `0 0 ${W} ${y + 4}`);
    return { drops, lethal };
  }

  function drawCharacters(msg, obs, moves) {
    clear(chars);
    const list = ["king", ...(obs.seats || []).map((seat) => String(seat.seat))];
    for (const character of list) {
      const isKing = character === "king";
      const seatInfo = isKing ? null : obs.seats[Number(character)];
      const alive = isKing ? obs.king_alive !== false : seatInfo.alive;
      const mat = html("div", "ldp-mat", chars);
      mat.dataset.character = character;
      if (isKing) mat.classList.add("ldp-king");
      if (!alive) mat.classList.add("ldp-dead");
      const moving = !isKing && obs.to_move === Number(character);
      if (moving) mat.classList.add("ldp-moving");
      const headRow = html("div", "ldp-mat-head", mat);
      if (isKing) {
        crown(headRow, 28);
        html("span", { class: "ldp-who", text: obs.king ? `The ${obs.king} king` : "The king" }, headRow);
      } else {
        kindIcon(headRow, seatInfo.kind, 28);
        html("span", { class: "ldp-who", text: label(seatInfo.seat) }, headRow);
        if (obs.starting_seat === seatInfo.seat) html("span", { class: "ldp-tag ldp-tag-start", text: "starts" }, headRow);
      }
      if (!alive) html("span", { class: "ldp-tag ldp-tag-dead", text: "dead" }, headRow);
      const sub = html("div", "ldp-mat-sub", mat);
      if (isKing) {
        sub.textContent = `dies at ${obs.king_lethal} drops of one colour`;
      } else {
        const kind = seatInfo.kind ? `${seatInfo.kind}` : "";
        html("span", { class: "ldp-kind", text: kind }, sub);
        const score = html("span", { class: "ldp-score", text: `${seatInfo.score} ${seatInfo.score === 1 ? "pt" : "pts"}` }, sub);
        score.title = "points";
        if (seatInfo.round_points) html("span", { class: "ldp-gain", text: `+${seatInfo.round_points} this round` }, sub);
        html("span", { class: "ldp-handcount", text: `${seatInfo.hand} in hand` }, sub);
      }
      const { drops, lethal } = pile(mat, character, obs, isKing);
      if (moving) {
        const doing = html("div", "ldp-doing", mat);
        doing.textContent = seatInfo.played_on === null || seatInfo.played_on === undefined
          ? (seatInfo.seat === ctx.you ? "your turn" : "choosing…")
          : `playing on ${seatInfo.played_on === "king" ? "the king" : seatInfo.played_on === character ? characterWords(character, obs, seatInfo.seat) : name(Number(seatInfo.played_on))}`;
      }
      // what clicking does
      const action = moves.targets.get(character);
      const isTarget = moves.target === character;
      if (isTarget) mat.classList.add("ldp-target");
      const danger = [...drops.entries()].filter(([, n]) => n > 0).map(([l, n]) => `${n} of ${lethal} ${look.get(l).name}`);
      const state = [
        isKing ? `the ${obs.king || ""} king`.replace("  ", " ") : `${label(seatInfo.seat)}, ${seatInfo.kind || "peasant"}, ${seatInfo.score} points`,
        alive ? null : "dead",
        danger.length ? `drops: ${danger.join(", ")}` : "no drops",
      ].filter(Boolean).join("; ");
      mat.setAttribute("role", "group");
      mat.setAttribute("aria-label", state);
      if (action) {
        // the whole mat is the target: a button laid over it (its name is its words)
        mat.classList.add("ldp-live");
        const hit = html("button", "ldp-mat-hit", mat);
        hit.type = "button";
        hit.dataset.character = character;
        const cardWords = selected ? `Put ${parse(selected).words} on ` : "Play on ";
        hit.setAttribute("aria-label", `${cardWords}${characterWords(character, obs)}`);
        hit.addEventListener("click", () => {
          if (selected) pending = { code: selected, after: msg.state_id };
          selected = null;
          ctx.act(action.id);
        });
      }
    }
  }

  // -- your hand ------------------------------------------------------------

  function drawHand(msg, obs, moves) {
    clear(handBox);
    // (once the game is over a hand means nothing: it said "your peasant is dead
    // this round / no cards" under the result)
    if (obs.seat === null || obs.seat === undefined || !obs.hand || obs.phase === "over" || obs.outcome) {
      handBox.hidden = true;
      return;
    }
    handBox.hidden = false;
    const title = html("div", "ldp-hand-title", handBox);
    const me = obs.seats[obs.seat];
    title.textContent = me && !me.alive ? "Your hand (your peasant is dead this round)" : "Your hand";
    const row = html("div", "ldp-hand-row", handBox);
    const cards = expand(obs.hand, obs.cards || []);
    if (!cards.length) html("span", { class: "ldp-empty", text: "no cards" }, row);
    cards.forEach((code, k) => {
      const card = parse(code);
      const canChoose = moves.targets.size > 0; // a character is still to be chosen
      const add = moves.adds.get(code);
      const live = canChoose || Boolean(add);
      const holder = html(live ? "button" : "div", "ldp-hand-card", row);
      holder.dataset.slot = String(k);
      const s = svg("svg", { viewBox: `-3 -3 ${CARD_W + 6} ${CARD_H + 6}`, class: "ldp-card-svg", "aria-hidden": "true", focusable: "false" }, holder);
      face(svg("g", {}, s), code);
      html("span", { class: "ldp-code", text: code }, holder);
      // the card's words, for those who do not see it (inside the name, after its code)
      const words = html("span", "ldp-sr", holder);
      if (!live) {
        holder.setAttribute("role", "img");
        holder.setAttribute("aria-label", `${code}, ${card.words}`);
        return;
      }
      holder.type = "button";
      holder.classList.add("ldp-live");
      if (add) {
        words.textContent = `: add ${card.words} face down on ${characterWords(moves.target, obs)}`;
      } else {
        const chosen = selected === code && selectedSlot === k;
        holder.setAttribute("aria-pressed", chosen ? "true" : "false");
        if (chosen) holder.classList.add("ldp-selected");
        words.textContent = `: ${card.words}; choose it, then a character`;
      }
      holder.addEventListener("click", () => {
        if (add) {
          selected = null;
          ctx.act(add.id);
          return;
        }
        const chosen = selected === code && selectedSlot === k;
        selected = chosen ? null : code;
        selectedSlot = chosen ? null : k;
        render();
        const again = handBox.querySelector(`[data-slot="${k}"]`);
        if (again) again.focus({ preventScroll: true });
      });
      holder.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && selected) {
          selected = null;
          render();
        }
      });
    });
    const buttons = html("div", "ldp-buttons", row);
    for (const [notation, words, full] of [
      ["done", ...doneWords(obs)],
      ["pass", "Pass", "Pass: you have no card to play"],
    ]) {
      const action = moves.other.get(notation);
      if (!action) continue;
      const button = html("button", `ldp-button ldp-${notation}`, buttons);
      button.type = "button";
      button.textContent = words;
      button.setAttribute("aria-label", full);
      button.addEventListener("click", () => {
        selected = null;
        ctx.act(action.id);
      });
    }
  }

  /** The Done button's words, and its full name (the words come first in it). */
  function doneWords(obs) {
    const me = obs.seats[obs.seat];
    if (!me || !me.played_on) return ["Done", "Done"];
    const on = me.played_on === "king" ? "the king" : Number(me.played_on) === obs.seat ? "your peasant" : `${name(Number(me.played_on))}'s peasant`;
    const words = `Done: ${plural(me.played, "card")}`;
    return [words, `${words} face down on ${on}`];
  }

  // -- the header and the reveal -----------------------------------------------

  function drawHead(obs) {
    clear(head);
    const items = [
      `Assassination round ${obs.assassination_round}`,
      `poison round ${obs.poison_round}`,
      `first to ${obs.target} points`,
      `deck ${obs.deck}`,
      `discards ${obs.discard_count}`,
    ];
    items.forEach((words, k) => html("span", { class: k === 2 ? "ldp-head-item ldp-target-score" : "ldp-head-item", text: words }, head));
  }

  function drawReveal(obs, animate) {
    const reveal = obs.last_reveal;
    const key = reveal ? `${reveal.assassination_round}.${reveal.poison_round}` : null;
    if (key === revealKey && !animate) return;
    revealKey = key;
    clear(revealBox);
    revealBox.hidden = !reveal;
    if (!reveal) return;
    const motion = animate && !ctx.prefersReducedMotion;
    revealBox.classList.toggle("ldp-animate", motion);
    const h = html("h3", "ldp-reveal-title", revealBox);
    h.textContent = `The reveal of poison round ${reveal.poison_round} (assassination round ${reveal.assassination_round})`;
    const list = html("div", "ldp-reveal-list", revealBox);
    const total = (reveal.plays || []).reduce((n, play) => n + Object.values(play.cards || {}).reduce((a, b) => a + b, 0), 0);
    const step = Math.round(Math.min(320, 2600 / Math.max(total, 1)));
    revealBox.style.setProperty("--ldp-step", `${step}ms`);
    let i = 0;
    for (const play of reveal.plays || []) {
      const row = html("div", "ldp-reveal-row", list);
      const who = html("div", "ldp-reveal-who", row);
      who.textContent = `${play.seat === ctx.you ? "You" : name(play.seat)} → ${play.on === "king" ? "the king" : Number(play.on) === play.seat ? "own peasant" : `${Number(play.on) === ctx.you ? "your" : `${name(Number(play.on))}'s`} peasant`}`;
      const cards = expand(play.cards, obs.cards || []);
      const w = cards.length * (CARD_W * 0.72 + 4);
      const s = svg("svg", { viewBox: `-2 -2 ${w + 2} ${CARD_H * 0.72 + 4}`, class: "ldp-reveal-cards", role: "img", "aria-label": cards.map((c) => `${c} (${parse(c).words})`).join(", ") }, row);
      s.style.width = `${(w + 2) * 0.9}px`;
      cards.forEach((code, k) => {
        const g = svg("g", { transform: `translate(${k * (CARD_W * 0.72 + 4)},0) scale(0.72)` }, s);
        const flip = svg("g", { class: "ldp-flip" }, g);
        flip.style.setProperty("--i", String(i));
        const backSide = svg("g", { class: "ldp-flip-back" }, flip);
        back(backSide);
        const front = svg("g", { class: "ldp-flip-front" }, flip);
        face(front, code);
        i += 1;
      });
    }
    const result = html("p", "ldp-reveal-result", revealBox);
    result.style.setProperty("--i", String(i));
    const deaths = (reveal.deaths || []).map((death) => {
      const victim = death.character === "king" ? "the king" : Number(death.character) === ctx.you ? "your peasant" : `${name(Number(death.character))}'s peasant`;
      const by = (death.killers || []).map(whose);
      return `${victim} dies${by.length ? `, poisoned by ${joined(by)}` : ""}`;
    });
    const gained = (reveal.points || []).map((p, s) => (p ? `${whose(s)} +${p}` : null)).filter(Boolean);
    let words = deaths.length ? `☠ ${deaths.join("; ")}.` : "Nobody dies.";
    if (gained.length) words += ` Points: ${gained.join(", ")}.`;
    else if (deaths.length) words += " No points.";
    for (const hand of reveal.discarded_hands || []) {
      const cards = expand(hand.cards, obs.cards || []);
      // in words, as the log says them (its codes, "b1 b1 g1", were the only ones left)
      if (cards.length) words += ` ${hand.seat === ctx.you ? "Your" : `${name(hand.seat)}'s`} hand is discarded face up: ${joined(cards.map(cardWords))}.`;
    }
    result.textContent = words;
    if (motion) window.setTimeout(() => revealBox.classList.remove("ldp-animate"), i * step + 900);
  }

  // -- the legal actions ---------------------------------------------------------

  function legalMoves(msg) {
    const targets = new Map();
    const adds = new Map();
    const other = new Map();
    for (const [notation, action] of legalByNotation(msg)) {
      const m = /^on (king|\d+)$/.exec(notation);
      if (m) targets.set(m[1], action);
      else if (notation === "done" || notation === "pass") other.set(notation, action);
      else adds.set(notation, action);
    }
    const obs = msg.observation;
    let target = null;
    if (obs && obs.seat !== null && obs.seat !== undefined && obs.to_move === obs.seat) {
      const me = obs.seats[obs.seat];
      if (me && me.played_on !== null && me.played_on !== undefined) target = me.played_on;
    }
    return { targets, adds, other, target };
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
    const msg = last;
    const obs = msg.observation;
    const moves = legalMoves(msg);
    if (selected && !(obs.hand && obs.hand[selected])) selected = null;
    if (selected && moves.targets.size === 0) selected = null;
    root.classList.toggle("ldp-choosing", Boolean(selected));
    drawHead(obs);
    drawCharacters(msg, obs, moves);
    drawHand(msg, obs, moves);
  }

  return {
    update(msg) {
      const obs = msg.observation;
      if (!obs || !obs.seats || !obs.table) return;
      setColours(obs.colours || []);
      findTwins(obs.players || obs.seats.length);
      if (msg.state_id !== lastStateId) {
        lastStateId = msg.state_id;
      }
      last = msg;
      // a reveal among the new events is turned over card by card (not on a
      // (re)connection's first update, which carries the whole game's events)
      for (const event of msg.events || []) {
        if (event.kind === "card" || event.kind === "target") lastPlay = { seat: event.actor, on: event.on };
        else if (event.reveal || event.kind === "king") lastPlay = null;
      }
      const fresh = !firstUpdate && !msg.fresh && (msg.events || []).some((event) => event.reveal);
      firstUpdate = false;
      drawReveal(obs, fresh);
      const focusKey = focusedKey();
      render();
      // a card chosen before the character: add it now that the character is chosen
      if (pending && msg.state_id !== pending.after) {
        const moves = legalMoves(msg);
        const add = moves.adds.get(pending.code);
        pending = null;
        if (add) {
          ctx.act(add.id);
          return;
        }
      }
      restoreFocus(focusKey);
    },
    turnText(msg) {
      const obs = msg.observation;
      if (!obs || !obs.seats) return "";
      const outcome = msg.outcome || obs.outcome;
      if (outcome) {
        const winners = (outcome.winners || []).map(whose);
        const best = Math.max(...(outcome.scores || [0]));
        if (winners.length === 1) return `${winners[0] === "you" ? "You win" : `${winners[0]} wins`} with ${plural(best, "point")}`;
        return `${joined(winners)} share the win with ${plural(best, "point")}`;
      }
      const seat = obs.to_move;
      if (seat === null || seat === undefined) {
        if (obs.phase === "king") return "A new assassination round: the king is drawn";
        if (obs.phase === "peasants") return "The peasants are dealt";
        return "The poison cards are dealt";
      }
      const info = obs.seats[seat];
      const mine = seat === ctx.you && (msg.legal || []).length > 0;
      if (mine) {
        const moves = legalMoves(msg);
        if (moves.other.has("pass") && !moves.targets.size) return "Your turn: you have no card, so you pass";
        if (moves.targets.size) return "Your turn: choose a card, then the king or a peasant to put it on";
        return `Your turn: add more cards on ${characterWords(info.played_on, obs)}, or Done`;
      }
      if (info.played_on === null || info.played_on === undefined) return `${name(seat)} is choosing whom to poison`;
      return `${name(seat)} is playing on ${characterWords(info.played_on, obs, seat)} (${plural(info.played, "card")} so far)`;
    },
    destroy() {
      clear(root);
      root.classList.remove("ldp-table", "ldp-choosing");
      last = null;
    },
  };
}
