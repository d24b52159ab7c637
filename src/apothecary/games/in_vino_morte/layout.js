// In Vino Morte's table as a pure layout: from an update (the seat's
// observation and events) and its legal moves, what to draw where, which move
// each thing on the board plays and the words it says. No DOM: table.js draws
// the answer and handles input, and Node's unit tests call it as it is
// (tests/games/in_vino_morte/test_table_layout.py).
//
// Moves are found by their data (`action.move`: rules.md, "What the server
// sends"), seats are named from data (a move's seat numbers, an action's or
// event's `words` runs, the observation's seat numbers): nothing here reads
// notation, a label or an event's text.

import { joinNames, readWords } from "/static/words.js";
import { t, tn, tp } from "/static/i18n.js";

export const WIDE_MIN = 640; // CSS px: the root at least this wide draws the wide table
export const SKULL_NOTE = "\u2620"; // ☠
export const MARK_R = 12; // a marker's reach: the dealer's disc, the cheese's hit circle
const GAP = 4; // between two boxes, in the picture's units

export const KIND = {
  wine: { letter: "W", word: "wine", cls: "wine" },
  poison: { letter: "P", word: "poison", cls: "poison" },
};

// The wide table: its old ellipse, as tall as the seats need. The narrow
// one: a squarer oval (exponent 4; 2 is an ellipse) all the width allows,
// round a felt a little rounder, and at most CENTRE_LINES lines in the centre.
const WIDE = { W: 900, most: 350, least: 200, shape: 2, felt: 2, inset: [40, 40], clearFelt: false, centreMin: 150, centreY: 84 };
const CENTRE_LINES = 8; // on a narrow table, the most lines of words in the centre
const CENTRE_Y = CENTRE_LINES * 10 + 14; // half their height
const CENTRE_MIN = 60; // half their least width: some 16 letters
const FELT_PAD = 12; // a narrow felt's room round the centre's words
const WIDE_CHARS = 64; // a wide table's longest line of seats in the centre
const NARROW = { W: 370, most: 999, least: 90, shape: 4, felt: 3, inset: [40, 48], clearFelt: true, centreMin: CENTRE_MIN, centreY: CENTRE_Y };
const NAME_ROOM = 114; // a narrow table's room for a name and its "#N"

/** `words` cut to `most` characters, with "…" where they were cut. */
export function clip(words, most) {
  return words.length <= most ? words : `${words.slice(0, most - 1)}\u2026`;
}

function wrap(words, most) {
  const out = [];
  let line = "";
  for (const word of words.split(" ")) {
    if (line && (line + " " + word).length > most) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

// -- the legal moves, by their data ---------------------------------------------

/**
 * The legal moves by what they do: `drink` (or null), `swap` and `steal`
 * (Maps from the other seat to the action), `deals` (each {action, to, glass,
 * cheese}, wine before poison, plain before cheese) and `pourSeat` (the seat
 * being poured for, or null). An action without a move of a known kind is
 * left out (no control plays it).
 */
export function legalByMove(legal) {
  const moves = { drink: null, swap: new Map(), steal: new Map(), deals: [], pourSeat: null };
  for (const action of legal || []) {
    const move = action.move || {};
    if (move.kind === "drink") moves.drink = action;
    else if (move.kind === "swap") moves.swap.set(move.with, action);
    else if (move.kind === "steal") moves.steal.set(move.from, action);
    else if (move.kind === "deal") moves.deals.push({ action, to: move.to, glass: move.glass, cheese: Boolean(move.cheese) });
  }
  const pours = ["wine", "poison"];
  moves.deals.sort((one, other) => pours.indexOf(one.glass) - pours.indexOf(other.glass) || one.cheese - other.cheese);
  if (moves.deals.length) moves.pourSeat = moves.deals[0].to;
  return moves;
}

// -- the seats' names ------------------------------------------------------------

/**
 * The names a layout uses: `name(s)`, the shell's name for a seat (in words
 * that are read out: buttons, titles, the status line), and `own(s)`, its
 * name alone as the board draws it beside its "#N": the update's seat list
 * gives it (a shell's name may carry "(seat N)" for twins), else `name(s)`.
 */
export function seatNames(update, name = (s) => t("seat {seat}", { seat: s })) {
  const places = (update && update.seats) || [];
  const own = (s) => {
    const place = places[s];
    if (!place) return name(s);
    return place.name || (place.kind === "open" ? t("open seat") : t("seat {seat}", { seat: s }));
  };
  return { name, own };
}

// -- the geometry ----------------------------------------------------------------

function glassScale(n, s, me, wide) {
  return (wide ? 1.22 : n > 6 ? 0.8 : n > 5 ? 0.9 : 1) * (s === me ? 1.1 : 1);
}

/** The markers' centres, clear of the turn ring (29k from the glass's middle). */
export function markX(k) {
  return 29 * k + MARK_R + 1;
}

/** What two boxes ({left, right, top, bottom}) share, with GAP between them. */
export function overlap(p, q) {
  return p.left < q.right + GAP && q.left < p.right + GAP && p.top < q.bottom + GAP && q.top < p.bottom + GAP;
}

// A seat's name as the table shows it under its glass (the whole name is its
// title). A narrow table's names are cut to fit NAME_ROOM with the seat's
// number: a name beside the centre leaves the centre's words too little room.
function boardName(label, n, wide) {
  const size = wide ? 15 : n > 5 ? 12.5 : 14; // .ivm-name's sizes
  return clip(label, wide ? 24 : Math.floor((NAME_ROOM - 5 - 0.6 * 11 * 2) / (0.64 * size)));
}

// The widest words a seat may show under its glass, in the picture's units:
// reckoned from their letters (bold ones some 0.64 of the font's size wide),
// not measured, so the layout is the same whether or not the table's
// stylesheet has arrived by the first drawing.
function widestWords(labels, wide) {
  const n = labels.length;
  const size = wide ? 15 : n > 5 ? 12.5 : 14;
  let widest = Math.max(0.55 * 12 * "poison, hidden".length, 0.64 * 14 * "\u2605 winner".length);
  for (let s = 0; s < n; s++) widest = Math.max(widest, 0.64 * size * boardName(labels[s], n, wide).length + 5 + 0.6 * 11 * `#${s}`.length);
  return widest;
}

function seatBox(k, half) {
  return { left: -half, right: half, top: -(41 * k + 17), bottom: 39 * k + 52 };
}

// Points round the oval |x/a|^p + |y/b|^p = 1 (centre 0, 0), `n` of them
// evenly spaced, the first at the bottom, going clockwise on the screen (left,
// then up) as the seats do. Spaced by boxes, not by length: a step along the
// oval counts as its width over a box's `w` or its height over a box's `h`,
// whichever is more, so seats side by side at the top are a box's width
// apart and seats down the sides a box's height.
function ovalPoints(a, b, n, w, h, shape) {
  const steps = 720;
  const curve = [];
  for (let i = 0; i <= steps; i++) {
    const t = Math.PI / 2 + (i * 2 * Math.PI) / steps;
    const c = Math.cos(t);
    const s = Math.sin(t);
    curve.push({ x: a * Math.sign(c) * Math.abs(c) ** (2 / shape), y: b * Math.sign(s) * Math.abs(s) ** (2 / shape) });
  }
  const along = [0];
  for (let i = 1; i <= steps; i++) along.push(along[i - 1] + Math.max(Math.abs(curve[i].x - curve[i - 1].x) / w, Math.abs(curve[i].y - curve[i - 1].y) / h));
  const points = [];
  let j = 0;
  for (let seat = 0; seat < n; seat++) {
    const want = (seat * along[steps]) / n;
    while (along[j + 1] < want) j++;
    const f = along[j + 1] > along[j] ? (want - along[j]) / (along[j + 1] - along[j]) : 0;
    points.push({ x: curve[j].x + f * (curve[j + 1].x - curve[j].x), y: curve[j].y + f * (curve[j + 1].y - curve[j].y) });
  }
  return points;
}

// The picture for an oval `b` high round the seats' `points` and `boxes`,
// with room `centreX` either side of the middle for the centre's words; a
// narrow table's felt stops short of the seats round it (its edge ran through
// their names), keeping room for the centre's words.
function picture(shape, a, b, points, boxes, centreX) {
  const { W, felt, inset, clearFelt, centreY } = shape;
  const margin = 4;
  const top = Math.min(...boxes.map((box) => box.top), -centreY);
  const bottom = Math.max(...boxes.map((box) => box.bottom), centreY);
  const cx = W / 2;
  const cy = margin - top;
  let feltX = a - inset[0];
  let feltY = b - inset[1];
  if (clearFelt) {
    points.forEach((p, i) => {
      if (Math.abs(p.x) < feltX * 0.8) feltY = Math.min(feltY, p.y < 0 ? -boxes[i].bottom - GAP : boxes[i].top - GAP);
    });
    feltY = Math.max(feltY, centreY + FELT_PAD);
    for (const box of boxes) {
      if (box.bottom < -feltY || box.top > feltY) continue;
      if (box.left > 0) feltX = Math.min(feltX, box.left - GAP);
      else if (box.right < 0) feltX = Math.min(feltX, -box.right - GAP);
    }
    feltX = Math.max(feltX, centreX + 2);
  }
  return {
    W,
    H: Math.ceil(bottom - top + 2 * margin),
    cx,
    cy,
    rx: a,
    ry: b,
    feltX,
    feltY,
    shape: felt,
    centreChars: Math.min(24, Math.floor((2 * centreX) / 7.2)),
    points: points.map((p) => ({ x: cx + p.x, y: cy + p.y })),
    // what the layout keeps clear, where it is in the picture
    boxes: boxes.map((box) => ({ left: cx + box.left, right: cx + box.right, top: cy + box.top, bottom: cy + box.bottom })),
    centre: { left: cx - centreX, right: cx + centreX, top: cy - centreY, bottom: cy + centreY },
  };
}

// The picture `W` wide, its seats' oval at most `most` wide either side and
// at least `least` high either side, as tall as it takes for no two seats'
// boxes, nor a box and the centre's words, to overlap. It depends on the
// seats and their names only, so nothing moves as a game goes on.
function fitLayout(n, me, widest, wide) {
  const shape = wide ? WIDE : NARROW;
  const { W, most, least, clearFelt, centreMin, centreY } = shape;
  const margin = 4;
  const ks = [];
  for (let i = 0; i < n; i++) ks.push(glassScale(n, (me + i) % n, me, wide));
  const half = (k) => Math.max(widest / 2, markX(k) + MARK_R) + 1;
  const a = Math.min(most, W / 2 - margin - Math.max(...ks.map(half)));
  const other = ks[n > 1 ? 1 : 0];
  const step = seatBox(other, half(other));
  const stepW = step.right - step.left + GAP;
  const stepH = step.bottom - step.top + GAP;
  for (let b = least; ; b += 4) {
    const points = ovalPoints(a, b, n, stepW, stepH, shape.shape);
    const boxes = points.map((p, i) => {
      const box = seatBox(ks[i], half(ks[i]));
      return { left: p.x + box.left, right: p.x + box.right, top: p.y + box.top, bottom: p.y + box.bottom };
    });
    // the centre's words may be as wide as the boxes beside them leave room
    // for, and need centreMin either side (a narrow felt goes FELT_PAD past
    // the words, and stops short of the seats over and under it)
    const reach = clearFelt ? centreY + FELT_PAD : centreY;
    let centreX = W / 2 - margin;
    for (const box of boxes) {
      if (box.bottom + GAP <= -reach || box.top - GAP >= reach) continue;
      centreX = Math.min(centreX, box.left >= 0 ? box.left - GAP : box.right <= 0 ? -box.right - GAP : 0);
    }
    let clash = centreX < centreMin;
    for (let i = 0; i < n && !clash; i++) for (let j = i + 1; j < n && !clash; j++) clash = overlap(boxes[i], boxes[j]);
    // (the cap only guards against a name so wide nothing fits: then the tallest tried)
    if (!clash || b > 1200) return picture(shape, a, b, points, boxes, Math.max(centreX, centreMin));
  }
}

/** The felt: the oval |x/rx|^p + |y/ry|^p = 1 as an SVG path. */
export function feltPath(geo) {
  const steps = 96;
  const parts = [];
  for (let i = 0; i < steps; i++) {
    const t = (i * 2 * Math.PI) / steps;
    const c = Math.cos(t);
    const s = Math.sin(t);
    const x = geo.cx + geo.feltX * Math.sign(c) * Math.abs(c) ** (2 / geo.shape);
    const y = geo.cy + geo.feltY * Math.sign(s) * Math.abs(s) ** (2 / geo.shape);
    parts.push(`${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`);
  }
  return `${parts.join(" ")} Z`;
}

// -- what each seat shows --------------------------------------------------------

/** What seat `s` shows: the live round, or the round being revealed (`reveal`: {lr, shown}). */
export function seatView(obs, s, reveal, reducedMotion = false) {
  if (reveal || obs.phase === "over") {
    const lr = reveal ? reveal.lr : obs.last_round;
    if (!lr) return { glass: null, alive: obs.alive[s] };
    const g = lr.glasses[s];
    const inRound = g !== null;
    const revealedAt = lr.revealed.indexOf(s);
    const shown = revealedAt < 0 || !reveal || revealedAt < reveal.shown;
    const died = lr.died.includes(s);
    return {
      glass: g === null ? null : shown ? g : "covered",
      drunk: inRound && revealedAt < 0,
      flipping: Boolean(reveal) && revealedAt >= 0 && revealedAt === reveal.shown - 1 && !reducedMotion,
      cheese: lr.cheese[s],
      diedNow: died && shown,
      alive: inRound ? !(died && shown) : false,
      dealer: lr.dealer === s,
      secret: false,
    };
  }
  const g = obs.glasses[s];
  return {
    glass: g,
    drunk: obs.drunk[s],
    cheese: obs.cheese[s],
    alive: obs.alive[s],
    diedNow: !obs.alive[s] && obs.drunk[s],
    dealer: obs.dealer === s,
    secret: g === "wine" || g === "poison" ? !obs.drunk[s] : false,
    played: obs.turn_taken[s],
  };
}

function glassWords(s, view, you, name) {
  const glass = view.glass === "wine" || view.glass === "poison" ? glassWord(view.glass) : view.glass;
  const mine = s === you;
  const who = { name: name(s), glass };
  if (!view.glass) return mine ? t("Your glass: none") : t("{name}'s glass: none", who);
  if (view.glass === "covered") return mine ? t("Your glass: covered") : t("{name}'s glass: covered", who);
  if (view.secret) return mine ? t("Your glass: {glass} (only you, the dealer, see it)", who) : t("{name}'s glass: {glass} (only you, the dealer, see it)", who);
  if (view.drunk) return mine ? t("Your glass: {glass}, drunk", who) : t("{name}'s glass: {glass}, drunk", who);
  return mine ? t("Your glass: {glass}", who) : t("{name}'s glass: {glass}", who);
}

// A legal action's words with its seats by name (its label, as it came, only
// when the server sent no words).
function actionWords(action, name) {
  return Array.isArray(action.words) ? readWords(action.words, name) : String(action.label || "");
}

// A pour button's words: the seat by its name, from the move's data.
function pourWords(deal, you, name) {
  const what = deal.cheese ? t("{glass} with cheese", { glass: glassWord(deal.glass) }) : glassWord(deal.glass);
  return deal.to === you ? t("Pour {glass} into your own glass", { glass: what }) : t("Pour {glass} for {name}", { glass: what, name: name(deal.to) });
}

// A glass's kind as a person reads it (the move's data says "wine" or "poison").
function glassWord(glass) {
  // Translators: what a glass holds, as the rules page names it.
  return glass === "poison" ? tp("glass", "poison") : tp("glass", "wine");
}

// What clicking seat `s`'s glass plays: a drink, a swap or the pour popover.
function glassControl(s, me, moves, obs, name) {
  if (s === me && moves.drink) return { kind: "drink", key: "drink", words: actionWords(moves.drink, name), action: moves.drink };
  const swap = moves.swap.get(s);
  if (swap) return { kind: "swap", key: `swap-${s}`, words: actionWords(swap, name), action: swap };
  if (moves.pourSeat === s) {
    const deals = moves.deals.filter((d) => d.to === s).map((d) => ({ ...d, words: pourWords(d, me, name), letter: KIND[d.glass].letter + (d.cheese ? "+C" : ""), text: d.cheese ? t("{glass} + cheese", { glass: glassWord(d.glass) }) : glassWord(d.glass) }));
    return { kind: "pour", key: `pour-${s}`, words: s === me ? t("Pour your own glass") : t("Pour a glass for {name}", { name: name(s) }), deals, title: s === me ? t("Your own glass:") : t("Pour for {name}:", { name: name(s) }), dialog: s === me ? t("Pour for yourself") : t("Pour for {name}", { name: name(s) }) };
  }
  return null;
}

function seatLayout(s, ctx) {
  const { obs, me, n, geo, wide, live, reveal, moves, names, lastEvent } = ctx;
  const view = seatView(obs, s, reveal, ctx.reducedMotion);
  const k = glassScale(n, s, me, wide);
  const label = s === me ? t("{name} (you)", { name: names.own(s) }) : names.own(s);
  const toMove = live && obs.to_move === s;
  const classes = [];
  if (!view.alive) classes.push(view.diedNow ? "ivm-dying" : "ivm-dead");
  if (s === me) classes.push("ivm-you");
  if (toMove) classes.push("ivm-to-move");
  const e = lastEvent;
  if (e && (e.actor === s || e.to === s || e.with === s || e.from === s)) classes.push("ivm-last");
  let note = null;
  if (view.drunk && view.glass) note = { words: t("drunk"), cls: "ivm-small" };
  else if (view.secret) note = { words: t("{glass}, hidden", { glass: glassWord(view.glass) }), cls: "ivm-small ivm-secret-note" };
  else if (live && view.played && s !== obs.dealer) note = { words: t("\u2713 played"), cls: "ivm-small" };
  const winner = !reveal && obs.phase === "over" && obs.outcome && obs.outcome.winners.includes(s);
  const control = live ? glassControl(s, me, moves, obs, names.name) : null;
  const steal = live && view.cheese ? moves.steal.get(s) : null;
  const shown = boardName(label, n, wide);
  return {
    seat: s,
    x: geo.seat(s).x,
    y: geo.seat(s).y,
    k,
    view,
    classes,
    toMove,
    note,
    name: { words: shown, title: shown === label ? null : label, number: `#${s}` },
    fate: winner ? { words: t("\u2605 winner"), cls: "ivm-winner", label: t("{name} wins", { name: names.name(s) }) } : !view.alive ? { words: `${SKULL_NOTE} ${t("dead")}`, cls: "ivm-small ivm-dead-word" } : null,
    dealer: view.dealer ? { title: t("{name} deals", { name: names.name(s) }) } : null,
    cheese: view.cheese ? { steal: steal ? { key: `steal-${s}`, words: actionWords(steal, names.name), action: steal } : null, title: t("{name} holds the Caseus Vitae", { name: names.name(s) }) } : null,
    control,
    glassTitle: control ? null : glassWords(s, view, me, names.name),
  };
}

// -- the centre ------------------------------------------------------------------

// The centre's words, line by line ([words, class, most lines, summary]).
function centreLines(obs, reveal, ctx) {
  const { you, wide, names } = ctx;
  const centreName = (s) => (s === you ? t("you") : `${names.own(s)} #${s}`);
  const seatsWords = (list) => joinNames(list.map(centreName));
  // Who a finished round killed: the verb and the round first ("round 1:
  // you, medium bot #2 died" read as a list once a phone had wrapped it).
  const deathWords = (round) => {
    const died = round.died;
    if (!died.length) return [t("nobody died in round {round}", { round: round.round }), "ivm-centre-small"];
    const summary = tn("{count} player died in round {round}", "{count} players died in round {round}", died.length, { round: round.round });
    return [t("died in round {round}: {names}", { round: round.round, names: seatsWords(died) }), "ivm-centre-small", 3, summary];
  };
  const lines = [];
  if (reveal) {
    lines.push([t("Round {round}: the reveal", { round: reveal.lr.round }), "ivm-centre-title"]);
    const died = reveal.lr.died;
    const done = reveal.shown >= reveal.lr.revealed.length;
    const summary = tn("{count} player dies", "{count} players die", died.length);
    const alone = died.length === 1;
    // Translators: {names} is one seat ("Ann dies") or a list ("Ann and Bob die").
    const dies = alone && died[0] === you ? t("you die") : alone ? t("{names} dies", { names: seatsWords(died) }) : t("{names} die", { names: seatsWords(died) });
    if (done) lines.push(died.length ? [dies, "ivm-centre-line", 2, summary] : [t("nobody dies"), "ivm-centre-line"]);
    else lines.push([t("the glasses are turned over\u2026"), "ivm-centre-line"]);
    return lines;
  }
  if (obs.phase === "over") {
    const winners = obs.outcome ? obs.outcome.winners : [];
    lines.push([t("Game over"), "ivm-centre-title"]);
    if (winners.length === 1) lines.push([winners[0] === you ? t("You are the last alive") : t("{name} is the last alive", { name: centreName(winners[0]) }), "ivm-centre-line"]);
    else if (winners.length) lines.push([t("{names} share the win", { names: seatsWords(winners) }), "ivm-centre-line", 2, tn("{count} player shares the win", "{count} players share the win", winners.length)]);
    else lines.push([t("nobody survives"), "ivm-centre-line"]);
    if (obs.last_round) lines.push(deathWords(obs.last_round));
    return lines;
  }
  lines.push([t("Round {round}", { round: obs.round }), "ivm-centre-title"]);
  lines.push([obs.dealer === you ? t("You deal") : t("{name} deals", { name: centreName(obs.dealer) }), "ivm-centre-line"]);
  const deck = obs.deck;
  // Translators: the deck's glasses left; keep W and P, the letters drawn on the glasses.
  const rule = t("deck {wine} W + {poison} P", { wine: deck.wine, poison: deck.poison });
  const cheese = t("cheese \u2264 {limit} this round", { limit: obs.cheese_limit });
  if (!obs.cheese_rule) lines.push([rule, "ivm-centre-small"]);
  else if (wide) lines.push([`${rule} \u00b7 ${cheese}`, "ivm-centre-small"]);
  else lines.push([rule, "ivm-centre-small"], [cheese, "ivm-centre-small"]);
  if (obs.phase === "deal") {
    const next = obs.deal_order.find((s) => obs.glasses[s] === null);
    if (next !== undefined) lines.push([next === you ? t("pouring for you") : next === obs.dealer ? t("pouring for the dealer") : t("pouring for {name}", { name: centreName(next) }), "ivm-centre-small"]);
  }
  if (obs.last_round && !obs.events.length) lines.push(deathWords(obs.last_round));
  // this round so far, the latest three; a name others share keeps its "#N"
  const own = Array.from({ length: obs.players }, (_, s) => names.own(s));
  const short = (s) => {
    if (s === you) return t("you");
    const alike = own.filter((other) => other === own[s]).length > 1;
    return clip(own[s], wide ? 14 : 8) + (alike ? ` #${s}` : "");
  };
  for (const e of obs.events.slice(-3)) {
    let words;
    const glass = e.glass === "wine" || e.glass === "poison" ? glassWord(e.glass) : e.glass;
    if (e.kind === "drink") words = `${t("{name} drank {glass}", { name: short(e.actor), glass })} ${e.died ? SKULL_NOTE : "\u2713"}`;
    else if (e.kind === "swap") words = `${short(e.actor)} \u21c4 ${short(e.with)}`;
    else if (e.from === you) words = t("{name} stole your cheese", { name: short(e.actor) });
    else words = t("{name} stole {other}'s cheese", { name: short(e.actor), other: short(e.from) });
    lines.push([words, "ivm-centre-event"]);
  }
  return lines;
}

// A narrow table wraps the centre's words to the room its layout left them
// (the title's letters are wider), at most two lines each and eight in all,
// the oldest of this round's events dropped first. A list of seats too long
// for its lines (or, on a wide table, for one line of WIDE_CHARS) gives way to
// its summary, "4 players share the win", the whole list in its tooltip.
function foldCentre(lines, geo, wide) {
  const most = (cls) => Math.floor(geo.centreChars * (cls === "ivm-centre-title" ? 0.7 : 1));
  const fits = (words, cls, mostLines) => (wide ? words.length <= WIDE_CHARS : wrap(words, most(cls)).length <= mostLines);
  const fold = ([full, cls, mostLines = 2, summary = null]) => {
    const words = summary && !fits(full, cls, mostLines) ? summary : full;
    const title = words === full ? null : full;
    return wide || words.length <= most(cls) ? [[words, cls, title]] : wrap(words, most(cls)).slice(0, mostLines).map((part) => [clip(part, most(cls)), cls, title]);
  };
  const folded = lines.map(fold);
  const count = () => folded.reduce((sum, parts) => sum + parts.length, 0);
  while (!wide && count() > CENTRE_LINES && folded.some((parts) => parts[0][1] === "ivm-centre-event")) {
    folded.splice(folded.findIndex((parts) => parts[0][1] === "ivm-centre-event"), 1);
  }
  // then whole lines from the end, never the last part of a wrapped one
  while (!wide && count() > CENTRE_LINES) folded.pop();
  const shown = folded.flat();
  let y = -((shown.length - 1) * 20) / 2;
  return shown.map(([words, cls, title]) => {
    const line = { words, cls, title, y: y + 5 };
    y += cls === "ivm-centre-title" ? 24 : cls === "ivm-centre-event" ? 18 : 20;
    return line;
  });
}

// -- the last move ---------------------------------------------------------------

/**
 * The move the table marks: the update's last event (none for the turn that
 * ended a round), else the round's last turn from the observation, which
 * keeps the events' schema (`actor`, `kind` and the kind's keys).
 */
export function lastTableEvent(update) {
  const events = update.events || [];
  const e = events.length ? events[events.length - 1] : null;
  if (e) return e.reveal ? null : e;
  const round = (update.observation && update.observation.events) || [];
  return round.length ? round[round.length - 1] : null;
}

// A swap or a steal as a line between the two seats, its tag (a swap's arrows,
// a steal's C) where the line is clear of every seat's box and of the centre's
// words, the nearer its middle the better; clear nowhere, it goes untagged.
function moveLine(e, geo) {
  if (!e || (e.kind !== "swap" && e.kind !== "steal")) return null;
  const a = geo.seat(e.actor);
  const b = geo.seat(e.kind === "swap" ? e.with : e.from);
  const mx = (a.x + b.x) / 2 + (geo.cx - (a.x + b.x) / 2) * 0.35;
  const my = (a.y + b.y) / 2 + (geo.cy - (a.y + b.y) / 2) * 0.35;
  const at = (t) => ({ x: (1 - t) * (1 - t) * a.x + 2 * t * (1 - t) * mx + t * t * b.x, y: (1 - t) * (1 - t) * a.y + 2 * t * (1 - t) * my + t * t * b.y });
  const clear = (q) => ![geo.centre, ...geo.boxes].some((box) => overlap(box, { left: q.x - 13, right: q.x + 13, top: q.y - 13, bottom: q.y + 13 }));
  const spot = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74].map(at).find(clear) || null;
  return { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, kind: e.kind, tag: e.kind === "swap" ? "\u21c4" : "C", spot };
}

// -- the whole table -------------------------------------------------------------

/**
 * What to draw for `update` (the shell's update: `observation`, `events`,
 * `seats`) and its `legal` moves. `options`: `wide` (the wide table),
 * `reveal` ({lr, shown} while a round's glasses turn over), `name(s)` (the
 * shell's seat names), `reducedMotion`. Gives {wide, live, geo, seats, centre,
 * line, skip}: each seat's place, look, words and `control` (the move its
 * glass plays: {kind, key, words, action} or, to pour, {deals}), and its
 * cheese's steal.
 */
export function layout(update, legal, options = {}) {
  const { wide = false, reveal = null, reducedMotion = false } = options;
  const obs = update.observation;
  const n = obs.players;
  const me = obs.seat;
  const seat0 = me === null || me === undefined ? 0 : me;
  const names = seatNames(update, options.name);
  const labels = Array.from({ length: n }, (_, s) => (s === me ? t("{name} (you)", { name: names.own(s) }) : names.own(s)));
  const geo = fitLayout(n, seat0, widestWords(labels, wide), wide);
  // geo.points runs from the bottom (you); seat s is (s - you) steps round
  geo.seat = (s) => geo.points[(s - seat0 + n) % n];
  const live = !reveal && obs.phase !== "over";
  const lastEvent = live ? lastTableEvent(update) : null;
  const ctx = { obs, me, n, geo, wide, live, reveal, reducedMotion, names, lastEvent, moves: legalByMove(live ? legal : []) };
  const seats = Array.from({ length: n }, (_, s) => seatLayout(s, ctx));
  const centre = foldCentre(centreLines(obs, reveal, { you: me, wide, names }), geo, wide);
  const over = obs.phase === "over";
  const skip = reveal ? { key: "skip", text: over ? t("show result \u25b8") : t("next round \u25b8"), words: over ? t("Show the result") : t("Go on to the next round"), y: geo.cy + (wide ? 78 : 70) } : null;
  return { wide, live, n, me, geo, seats, centre, line: moveLine(lastEvent, geo), skip };
}

/** The status line for `obs` (the shell shows it), seats named by `name(s)`. */
export function turnText(obs, reveal, name) {
  if (!obs) return "";
  const me = obs.seat;
  if (reveal && obs.phase === "over") return t("Round {round}: the glasses are turned over\u2026", { round: reveal.lr.round });
  if (obs.phase === "over") {
    const w = obs.outcome ? obs.outcome.winners : [];
    if (w.length === 1) return w[0] === me ? t("You are the last one alive: you win") : t("{name} is the last one alive and wins", { name: name(w[0]) });
    if (w.length) return t("{names} share the win", { names: joinNames(w.map((s) => (s === me ? t("you") : name(s)))) });
    return t("Game over: nobody survives");
  }
  const mover = obs.to_move;
  if (obs.phase === "deal") {
    const next = obs.deal_order.find((s) => obs.glasses[s] === null);
    if (mover === me) {
      if (next === obs.dealer) return t("Your deal: pour your own glass: wine or poison");
      return t("Your deal: pour a glass for {name}: wine or poison", { name: name(next) });
    }
    const dealer = { name: name(mover), other: name(next) };
    if (next === obs.dealer) return t("{name} (the dealer) is pouring a glass for their own glass", dealer);
    if (next === me) return t("{name} (the dealer) is pouring a glass for you", dealer);
    return t("{name} (the dealer) is pouring a glass for {other}", dealer);
  }
  const steal = obs.cheese_rule && obs.cheese.some((c, s) => c && obs.alive[s]) && !obs.cheese[mover];
  if (mover === me) return steal ? t("Your turn: drink your glass or swap it, or steal a cheese") : t("Your turn: drink your glass or swap it");
  return steal ? t("{name} is deciding: drink or swap (or steal cheese)", { name: name(mover) }) : t("{name} is deciding: drink or swap", { name: name(mover) });
}

/**
 * The sound an event calls for, from its data: "death" when someone died (a
 * drink's `died`, a reveal's glass that killed), "reveal" when glasses were
 * turned over and nobody died, else null.
 */
export function soundOf(event) {
  if (!event) return null;
  const reveal = Array.isArray(event.reveal) ? event.reveal : [];
  if ((event.kind === "drink" && event.died) || reveal.some((glass) => glass.died)) return "death";
  return reveal.length ? "reveal" : null;
}
