// In Vino Morte: the glasses around a table, drawn in SVG from the seat's
// observation alone. The dealer's page shows what is in every covered glass
// (its observation holds it); everyone else's page shows a covered glass as
// "?", and nothing of its contents is anywhere in the page until the reveal.
//
// Moves are made on the board: your own glass (drink), another covered glass
// (swap), a cheese (steal), and, for the dealer, the seat being poured for,
// then wine or poison (and their cheese variants) in a small popover.

import { clickable as kitClickable, clip, focusedKey as keyInFocus, html, joined, legalByNotation, plain, refocus, seatWords, sharedWin, svg, text, watchWidth } from "/static/tables/kit.js";

// A wine glass: bowl, stem and foot, its rim at y=-30 and foot at y=+30.
const BOWL = "M-17,-30 L17,-30 C17,-8 10,2 0,4 C-10,2 -17,-8 -17,-30 Z";
const LIQUID = "M-15.4,-20 L15.4,-20 C14.5,-5 8.5,1.6 0,2.6 C-8.5,1.6 -14.5,-5 -15.4,-20 Z";
const STEM = "M-1.6,4 L1.6,4 L1.6,24 L-1.6,24 Z";
const FOOT = "M-13,30 C-12,25 -5,24 0,24 C5,24 12,25 13,30 Z";
const CHEESE = "M-11,7 L11,0 L11,7 Z"; // a wedge, drawn at the seat's cheese spot
const SKULL_NOTE = "\u2620"; // ☠

const KIND = {
  wine: { letter: "W", word: "wine", cls: "wine" },
  poison: { letter: "P", word: "poison", cls: "poison" },
};

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

function parseDeal(notation) {
  const m = /^deal (\d+) (wine|poison)(\+cheese)?$/.exec(notation);
  return m ? { seat: Number(m[1]), glass: m[2], cheese: Boolean(m[3]) } : null;
}

export function mount(root, ctx) {
  root.classList.add("ivm");
  const board = html("div", { class: "ivm-board" }, root);
  const legend = html("p", { class: "ivm-legend" }, root);
  legend.textContent =
    "W wine \u00b7 P poison \u00b7 ? covered glass \u00b7 D dealer \u00b7 C cheese \u00b7 \u2620 dead";
  let popover = null;
  let last = null; // the last update
  let reveal = null; // {round, shown, timer, started} while a round's glasses turn over
  let wide = root.clientWidth >= 640;
  const stopWatching = watchWidth(root, 640, (now) => {
    wide = now;
    if (last) draw();
  });

  const you = () => (last && last.observation ? last.observation.seat : ctx.you);
  const { name, label, who } = seatWords(ctx, you);

  function closePopover(refocus = false) {
    if (!popover) return;
    const seat = popover.dataset.seat;
    popover.remove();
    popover = null;
    if (refocus) {
      const target = board.querySelector(`[data-key="pour-${seat}"]`);
      if (target) target.focus();
    }
  }

  // A pour button's name: the seat by its name, as the moves name it (the
  // action's own label, "Pour poison for seat 1", said only its number).
  function pourWords(deal, seat) {
    const what = deal.cheese ? `${deal.glass} with cheese` : deal.glass;
    return `Pour ${what} ${seat === you() ? "into your own glass" : `for ${name(seat)}`}`;
  }

  function openPopover(seat, deals, anchor) {
    closePopover();
    popover = html("div", { class: "ivm-popover", role: "dialog", "aria-label": `Pour for ${who(seat)}` }, root);
    popover.dataset.seat = String(seat);
    html("p", { class: "ivm-popover-title", text: seat === you() ? "Your own glass:" : `Pour for ${name(seat)}:` }, popover);
    const row = html("div", { class: "ivm-popover-row" }, popover);
    const order = ["wine", "poison"];
    deals.sort((a, b) => order.indexOf(a.deal.glass) - order.indexOf(b.deal.glass) || a.deal.cheese - b.deal.cheese);
    for (const { action, deal } of deals) {
      const kind = KIND[deal.glass];
      const button = html("button", { type: "button", class: `ivm-pour ivm-pour-${kind.cls}`, "data-notation": action.notation, "aria-label": pourWords(deal, seat) }, row);
      html("span", { class: "ivm-pour-letter", "aria-hidden": "true", text: kind.letter + (deal.cheese ? "+C" : "") }, button);
      html("span", { text: deal.cheese ? `${kind.word} + cheese` : kind.word }, button);
      if (deals.length > 2) row.classList.add("ivm-popover-grid");
      button.addEventListener("click", () => {
        closePopover();
        ctx.act(action.id);
      });
    }
    const cancel = html("button", { type: "button", class: "ivm-cancel", "aria-label": "Cancel", text: "\u00d7" }, popover);
    cancel.addEventListener("click", () => closePopover(true));
    popover.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        closePopover(true);
      }
    });
    // Place it beside the seat, inside the table area.
    const box = anchor.getBoundingClientRect();
    const area = root.getBoundingClientRect();
    const width = popover.offsetWidth;
    const height = popover.offsetHeight;
    let left = box.left - area.left + box.width / 2 - width / 2;
    let top = box.top - area.top - height - 6;
    if (top < 0) top = box.bottom - area.top + 6;
    left = Math.max(4, Math.min(left, area.width - width - 4));
    popover.style.left = `${left}px`;
    popover.style.top = `${top}px`;
    const first = popover.querySelector("button");
    if (first) first.focus();
  }

  const clickable = (node, key, words, onActivate) => kitClickable(node, key, words, "ivm-can", onActivate);

  // -- the picture -----------------------------------------------------------

  // Where the seats go. A seat takes a box around its point: the "pour here"
  // note and the turn ring above the glass, its note, the name and a line for
  // "dead" or "winner" below, the dealer's and the cheese's markers either side
  // of the ring. The seats once sat at even angles round a fixed oval; on a
  // phone that crowded them at the top and the bottom, where names are side by
  // side (9 seats ran "easy bot #4easy bot #5" together, and seat 1's name went
  // under the dealer's D). Now they are spaced by their boxes round the oval
  // (see ovalPoints), which is made just as tall as it takes for no two boxes,
  // nor a box and the centre's words, to overlap. The layout depends on the
  // seats and their names only, so nothing moves as a game goes on.

  const MARK_R = 12; // a marker's reach: the dealer's disc, the cheese's hit circle
  const GAP = 4; // between two boxes, in the picture's units
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

  function glassScale(n, s, me) {
    return (wide ? 1.22 : n > 6 ? 0.8 : n > 5 ? 0.9 : 1) * (s === me ? 1.1 : 1);
  }

  // The markers' centres, clear of the turn ring (29k from the glass's middle).
  const markX = (k) => 29 * k + MARK_R + 1;

  // The widest words a seat may show under its glass, in the picture's units:
  // reckoned from their letters (bold ones some 0.64 of the font's size wide),
  // not measured, so the layout is the same whether or not the table's
  // stylesheet has arrived by the first drawing (measured before it, every word
  // is in the browser's larger default size).
  function widestWords(n) {
    const size = wide ? 15 : n > 5 ? 12.5 : 14;
    let widest = Math.max(0.55 * 12 * "poison, hidden".length, 0.64 * 14 * "\u2605 winner".length);
    for (let s = 0; s < n; s++) widest = Math.max(widest, 0.64 * size * seatName(s, n).length + 5 + 0.6 * 11 * `#${s}`.length);
    return widest;
  }

  // A seat's name as the table shows it (the whole name is its title). A
  // narrow table's names are cut to fit NAME_ROOM with the seat's number: a
  // name beside the centre leaves the centre's words too little room past that.
  const NAME_ROOM = 114;
  function seatName(s, n) {
    const size = wide ? 15 : n > 5 ? 12.5 : 14; // .ivm-name's sizes
    return clip(plain(label(s)), wide ? 24 : Math.floor((NAME_ROOM - 5 - 0.6 * 11 * 2) / (0.64 * size)));
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

  function overlap(p, q) {
    return p.left < q.right + GAP && q.left < p.right + GAP && p.top < q.bottom + GAP && q.top < p.bottom + GAP;
  }

  // The picture `W` wide, its seats' oval at most `most` wide either side and
  // at least `least` high either side (`shape` its exponent), the felt `inset`
  // inside it (with `clearFelt`, no nearer than the names over and under it),
  // and the centre's words at least `centreMin` either side.
  function fitLayout(n, me, widest, { W, most, least, shape, felt, inset, clearFelt, centreMin, centreY }) {
    const margin = 4;
    const ks = [];
    for (let i = 0; i < n; i++) ks.push(glassScale(n, (me + i) % n, me));
    const half = (k) => Math.max(widest / 2, markX(k) + MARK_R) + 1;
    const a = Math.min(most, W / 2 - margin - Math.max(...ks.map(half)));
    const other = ks[n > 1 ? 1 : 0];
    const step = seatBox(other, half(other));
    const stepW = step.right - step.left + GAP;
    const stepH = step.bottom - step.top + GAP;
    // The picture for an oval `b` high, with room `centreX` either side of the middle for the centre's words.
    const picture = (b, points, boxes, centreX) => {
      const top = Math.min(...boxes.map((box) => box.top), -centreY);
      const bottom = Math.max(...boxes.map((box) => box.bottom), centreY);
      const cx = W / 2;
      const cy = margin - top;
      // a narrow table's felt stops short of the seats round it (its edge ran
      // through their names), keeping room for the centre's words
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
    };
    let b = least;
    for (; ; b += 4) {
      const points = ovalPoints(a, b, n, stepW, stepH, shape);
      const boxes = points.map((p, i) => {
        const box = seatBox(ks[i], half(ks[i]));
        return { left: p.x + box.left, right: p.x + box.right, top: p.y + box.top, bottom: p.y + box.bottom };
      });
      // the centre's words (CENTRE_LINES lines at most) may be as wide as the
      // boxes beside them leave room for, and need CENTRE_MIN either side
      // (a narrow felt goes FELT_PAD past the words, and stops short of the
      // seats over and under it: a seat nearer than that had the felt's rim
      // through its "dead")
      const reach = clearFelt ? centreY + FELT_PAD : centreY;
      let centreX = W / 2 - margin;
      for (const box of boxes) {
        if (box.bottom + GAP <= -reach || box.top - GAP >= reach) continue;
        centreX = Math.min(centreX, box.left >= 0 ? box.left - GAP : box.right <= 0 ? -box.right - GAP : 0);
      }
      let clash = centreX < centreMin;
      for (let i = 0; i < n && !clash; i++) for (let j = i + 1; j < n && !clash; j++) clash = overlap(boxes[i], boxes[j]);
      // (the cap only guards against a name so wide nothing fits: then the tallest tried)
      if (!clash || b > 1200) return picture(b, points, boxes, Math.max(centreX, centreMin));
    }
  }

  function layout(n, me) {
    const seat0 = me === null || me === undefined ? 0 : me;
    const geo = fitLayout(n, seat0, widestWords(n), wide ? WIDE : NARROW);
    // geo.points runs from the bottom (you); seat s is (s - you) steps round
    geo.seat = (s) => geo.points[(s - seat0 + n) % n];
    return geo;
  }

  // The felt: the oval |x/rx|^p + |y/ry|^p = 1 as a path.
  function feltPath(geo) {
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

  // What one seat shows: the live round, or the round being revealed.
  function seatView(obs, s) {
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
        flipping: Boolean(reveal) && revealedAt >= 0 && revealedAt === reveal.shown - 1 && !ctx.prefersReducedMotion,
        cheese: lr.cheese[s],
        diedNow: died && shown,
        alive: inRound ? !(died && shown) : false,
        dealer: lr.dealer === s,
        secret: false,
      };
    }
    const g = obs.glasses[s];
    const secret = g === "wine" || g === "poison" ? !obs.drunk[s] : false;
    return {
      glass: g,
      drunk: obs.drunk[s],
      cheese: obs.cheese[s],
      alive: obs.alive[s],
      diedNow: !obs.alive[s] && obs.drunk[s],
      dealer: obs.dealer === s,
      secret,
      played: obs.turn_taken[s],
    };
  }

  function drawGlass(group, view, big) {
    const scale = view.k || 1;
    const g = svg("g", { class: "ivm-glass", transform: scale !== 1 ? `scale(${scale})` : null }, group);
    const inner = svg("g", { class: view.flipping ? "ivm-flip" : null }, g);
    if (view.glass === null || view.glass === undefined) {
      svg("path", { d: BOWL, class: "ivm-glass-empty" }, inner);
      svg("path", { d: STEM, class: "ivm-glass-empty" }, inner);
      svg("path", { d: FOOT, class: "ivm-glass-empty" }, inner);
      return g;
    }
    const kind = KIND[view.glass];
    const state = kind ? kind.cls : "covered";
    inner.classList.add(`ivm-${state}`);
    if (view.drunk) inner.classList.add("ivm-drunk");
    if (view.secret) inner.classList.add("ivm-secret");
    svg("path", { d: BOWL, class: "ivm-bowl" }, inner);
    if (kind && !view.drunk) svg("path", { d: LIQUID, class: "ivm-liquid" }, inner);
    if (kind && view.drunk) svg("path", { d: "M-9,-3 C-5,0.5 5,0.5 9,-3 C6,1.5 3,2.6 0,2.8 C-3,2.6 -6,1.5 -9,-3 Z", class: "ivm-liquid" }, inner);
    svg("path", { d: STEM, class: "ivm-stem" }, inner);
    svg("path", { d: FOOT, class: "ivm-stem" }, inner);
    if (!kind) {
      // A covered glass: a cloth over the bowl and a question mark.
      // a napkin over the bowl
      svg("path", { d: "M-21,2 C-23,-24 -14,-37 0,-37 C14,-37 23,-24 21,2 L16,-2 L11,3 L5,-2 L0,3 L-5,-2 L-11,3 L-16,-2 Z", class: "ivm-cover" }, inner);
      text(inner, 0, -10, "?", { class: "ivm-letter ivm-letter-covered" });
    } else {
      text(inner, 0, view.drunk ? -8 : -3, kind.letter, { class: "ivm-letter" });
      if (kind.cls === "poison" && !view.drunk) text(inner, 0, 20, SKULL_NOTE, { class: "ivm-skull-small", "aria-hidden": "true" });
    }
    return g;
  }

  function draw() {
    const msg = last;
    const obs = msg.observation;
    const n = obs.players;
    const me = obs.seat;
    closePopover();
    const focusedKey = keyInFocus(board);
    board.textContent = "";
    const root_ = svg("svg", {
      class: `ivm-svg ${wide ? "ivm-wide" : "ivm-narrow"}${n > 5 ? " ivm-many" : ""}`,
      role: "group",
      "aria-label": "In Vino Morte table",
    }, board);
    const geo = layout(n, me);
    root_.setAttribute("viewBox", `0 0 ${geo.W} ${geo.H}`);
    // The table.
    if (geo.shape === 2) svg("ellipse", { cx: geo.cx, cy: geo.cy, rx: geo.feltX, ry: geo.feltY, class: "ivm-table" }, root_);
    else svg("path", { d: feltPath(geo), class: "ivm-table" }, root_);
    const legal = (msg.legal || []);
    const byNotation = legalByNotation(msg);
    const deals = legal.map((a) => ({ action: a, deal: parseDeal(a.notation) })).filter((d) => d.deal);
    const pourSeat = deals.length ? deals[0].deal.seat : null;
    const live = !reveal && obs.phase !== "over";
    const lastEvent = live ? lastTableEvent(msg) : null;

    // Last move: a swap or a steal is a line between the two seats.
    const layer = svg("g", { class: "ivm-moves" }, root_);
    const points = [];
    for (let s = 0; s < n; s++) points.push(geo.seat(s));
    if (lastEvent && (lastEvent.kind === "swap" || lastEvent.kind === "steal")) {
      const other = lastEvent.kind === "swap" ? lastEvent.with : lastEvent.from;
      const a = points[lastEvent.actor];
      const b = points[other];
      const mx = (a.x + b.x) / 2 + (geo.cx - (a.x + b.x) / 2) * 0.35;
      const my = (a.y + b.y) / 2 + (geo.cy - (a.y + b.y) / 2) * 0.35;
      svg("path", { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, class: `ivm-move-line ivm-move-${lastEvent.kind}` }, layer);
      // Its tag (a swap's arrows, a steal's C) goes where the line is clear of
      // every seat's box and of the centre's words, the nearer its middle the
      // better; where it is clear nowhere, the line goes untagged (the centre's
      // line for the move, and the two seats' marks, still say it).
      const tag = lastEvent.kind === "swap" ? "\u21c4" : "C";
      const at = (t) => ({ x: (1 - t) * (1 - t) * a.x + 2 * t * (1 - t) * mx + t * t * b.x, y: (1 - t) * (1 - t) * a.y + 2 * t * (1 - t) * my + t * t * b.y });
      const clear = (q) => ![geo.centre, ...geo.boxes].some((box) => overlap(box, { left: q.x - 13, right: q.x + 13, top: q.y - 13, bottom: q.y + 13 }));
      const spot = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74].map(at).find(clear);
      if (spot) {
        svg("circle", { cx: spot.x, cy: spot.y, r: 12, class: "ivm-move-tag" }, layer);
        text(layer, spot.x, spot.y + 4.5, tag, { class: "ivm-move-tag-text" });
      }
    }

    // The centre: round, dealer, deck, what the last round did.
    drawCentre(root_, geo, obs, msg);

    for (let s = 0; s < n; s++) {
      const p = points[s];
      const view = seatView(obs, s);
      const group = svg("g", { class: "ivm-seat", transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`, "data-seat": s }, root_);
      if (!view.alive) group.classList.add(view.diedNow ? "ivm-dying" : "ivm-dead");
      if (s === me) group.classList.add("ivm-you");
      const toMove = live && obs.to_move === s;
      if (toMove) group.classList.add("ivm-to-move");
      if (lastEvent && (lastEvent.actor === s || lastEvent.to === s || lastEvent.with === s || lastEvent.from === s)) group.classList.add("ivm-last");


      // The glass (clickable for a drink, a swap or a pour).
      const glassSpot = svg("g", { class: "ivm-spot", "data-glass": view.glass ? (view.glass === "covered" ? "covered" : view.secret ? "secret" : "open") : "none" }, group);
      const k = glassScale(n, s, me);
      svg("rect", { x: -27 * k, y: -37 * k, width: 54 * k, height: 72 * k, rx: 10, class: "ivm-hit" }, glassSpot);
      if (toMove) svg("rect", { x: -29 * k, y: -41 * k, width: 58 * k, height: 80 * k, rx: 14, class: "ivm-turn-ring" }, group);
      view.k = k;
      drawGlass(glassSpot, view, s === me);
      // the note under the glass clears its turn ring (39k), the name the note
      const noteY = 39 * k + 11;
      if (view.drunk && view.glass) text(group, 0, noteY, "drunk", { class: "ivm-small" });
      else if (view.secret) text(group, 0, noteY, `${KIND[view.glass].word}, hidden`, { class: "ivm-small ivm-secret-note" });
      else if (live && view.played && s !== obs.dealer) text(group, 0, noteY, "\u2713 played", { class: "ivm-small" });

      // Name and fate.
      const nameY = noteY + 18;
      const shortName = seatName(s, n);
      // (a dead seat's skull goes on the line under its name, which keeps names narrow)
      const nameText = text(group, 0, nameY, shortName, { class: "ivm-name" });
      if (shortName !== label(s)) svg("title", {}, nameText).textContent = label(s);
      const num = svg("tspan", { class: "ivm-seatno", dx: 5 }, nameText);
      num.textContent = `#${s}`;
      if (!view.alive) {
        nameText.classList.add("ivm-name-dead");
        let len = 8.4 * (shortName.length + 2);
        try {
          len = nameText.getComputedTextLength() + 4;
        } catch (error) {
          /* not laid out: the estimate will do */
        }
        svg("line", { x1: -len / 2, y1: nameY - 5, x2: len / 2, y2: nameY - 5, class: "ivm-strike" }, group);
        if (view.diedNow) {
          svg("path", { d: `M${-20 * k},${-34 * k} L${20 * k},${16 * k} M${20 * k},${-34 * k} L${-20 * k},${16 * k}`, class: "ivm-cross" }, group);
        }
      }
      if (!reveal && obs.phase === "over" && obs.outcome && obs.outcome.winners.includes(s)) {
        const w = text(group, 0, nameY + 18, "\u2605 winner", { class: "ivm-winner" });
        w.setAttribute("aria-label", `${name(s)} wins`);
      } else if (!view.alive) {
        text(group, 0, nameY + 18, `${SKULL_NOTE} dead`, { class: "ivm-small ivm-dead-word" });
      }

      // Dealer token.
      if (view.dealer && (live || reveal || obs.phase === "over")) {
        const d = svg("g", { class: "ivm-dealer", transform: `translate(${-markX(k)},${-22 * k})` }, group);
        svg("circle", { r: MARK_R }, d);
        text(d, 0, 5, "D", {});
        svg("title", {}, d).textContent = `${name(s)} deals`;
      }
      // Cheese marker.
      if (view.cheese) {
        const c = svg("g", { class: "ivm-cheese", transform: `translate(${markX(k)},${-22 * k})` }, group);
        svg("circle", { r: MARK_R, class: "ivm-hit" }, c);
        svg("path", { d: "M-11,6 L11,-3 L11,6 Z", class: "ivm-cheese-wedge" }, c);
        svg("circle", { cx: 6, cy: 2.5, r: 1.6, class: "ivm-cheese-hole" }, c);
        text(c, 0, -6, "C", { class: "ivm-cheese-letter" });
        const steal = byNotation.get(`steal ${s}`);
        if (steal && live) clickable(c, `steal-${s}`, `Steal ${name(s)}'s cheese`, () => ctx.act(steal.id));
        else svg("title", {}, c).textContent = `${name(s)} holds cheese`;
      }

      // What clicking the glass does.
      if (live) {
        if (s === me && byNotation.has("drink")) {
          const a = byNotation.get("drink");
          clickable(glassSpot, "drink", "Drink your glass", () => ctx.act(a.id));
        } else if (byNotation.has(`swap ${s}`)) {
          const a = byNotation.get(`swap ${s}`);
          clickable(glassSpot, `swap-${s}`, `Swap glasses with ${name(s)}${s === obs.dealer ? " (the dealer)" : ""}`, () => ctx.act(a.id));
        } else if (pourSeat === s) {
          group.classList.add("ivm-pour-here");
          const mine = deals.filter((d) => d.deal.seat === s);
          clickable(glassSpot, `pour-${s}`, s === me ? "Pour your own glass" : `Pour a glass for ${name(s)}`, (node) => openPopover(s, mine, node));
          text(group, 0, -41 * k - 6, "pour here", { class: "ivm-small ivm-pour-note" });
        }
      }
      if (!glassSpot.hasAttribute("role")) {
        svg("title", {}, glassSpot).textContent = glassWords(s, view);
      }
    }

    if (reveal) {
      const skip = svg("g", { class: "ivm-skip", transform: `translate(${geo.cx},${geo.cy + (wide ? 78 : 70)})` }, root_);
      svg("rect", { x: -62, y: -16, width: 124, height: 30, rx: 15 }, skip);
      text(skip, 0, 4, obs.phase === "over" ? "show result \u25b8" : "next round \u25b8", {});
      clickable(skip, "skip", obs.phase === "over" ? "Show the result" : "Go on to the next round", () => endReveal());
    }

    // keep the keyboard on the board: the same thing if it is still there, else the first move
    refocus(board, focusedKey, ".ivm-can");
  }

  function glassWords(s, view) {
    const whose = s === you() ? "Your glass" : `${name(s)}'s glass`;
    if (!view.glass) return `${whose}: none`;
    if (view.glass === "covered") return `${whose}: covered`;
    if (view.secret) return `${whose}: ${view.glass} (only you, the dealer, see it)`;
    return `${whose}: ${view.glass}${view.drunk ? ", drunk" : ""}`;
  }

  function drawCentre(parent, geo, obs, msg) {
    const g = svg("g", { class: "ivm-centre", transform: `translate(${geo.cx},${geo.cy})` }, parent);
    const lines = [];
    if (reveal) {
      lines.push([`Round ${reveal.lr.round}: the reveal`, "ivm-centre-title"]);
      const died = reveal.lr.died;
      const done = reveal.shown >= reveal.lr.revealed.length;
      const dies = died.length === 1 && died[0] !== you() ? "dies" : "die";
      if (done) lines.push(died.length ? [`${seatsWords(died)} ${dies}`, "ivm-centre-line", 2, `${died.length} players die`] : ["nobody dies", "ivm-centre-line"]);
      else lines.push(["the glasses are turned over\u2026", "ivm-centre-line"]);
    } else if (obs.phase === "over") {
      const winners = obs.outcome ? obs.outcome.winners : [];
      lines.push(["Game over", "ivm-centre-title"]);
      if (winners.length === 1) lines.push([`${winners[0] === you() ? "You are" : centreName(winners[0]) + " is"} the last alive`, "ivm-centre-line"]);
      else if (winners.length) lines.push([`${seatsWords(winners)} share the win`, "ivm-centre-line", 2, `${winners.length} players share the win`]);
      else lines.push(["nobody survives", "ivm-centre-line"]);
      if (obs.last_round) lines.push(deathWords(obs.last_round));
    } else {
      lines.push([`Round ${obs.round}`, "ivm-centre-title"]);
      const dealer = obs.dealer === you() ? "You deal" : `${plain(name(obs.dealer))} #${obs.dealer} deals`;
      lines.push([dealer, "ivm-centre-line"]);
      const deck = obs.deck;
      const rule = `deck ${deck.wine} W + ${deck.poison} P`;
      const cheese = `cheese \u2264 ${obs.cheese_limit} this round`;
      if (!obs.cheese_rule) lines.push([rule, "ivm-centre-small"]);
      else if (wide) lines.push([`${rule} \u00b7 ${cheese}`, "ivm-centre-small"]);
      else lines.push([rule, "ivm-centre-small"], [cheese, "ivm-centre-small"]);
      if (obs.phase === "deal") {
        const next = obs.deal_order.find((s) => obs.glasses[s] === null);
        if (next !== undefined) lines.push([`pouring for ${next === you() ? "you" : next === obs.dealer ? "the dealer" : `${plain(name(next))} #${next}`}`, "ivm-centre-small"]);
      }
      if (obs.last_round && !obs.events.length) lines.push(deathWords(obs.last_round));
      // this round so far, the latest three
      const names = Array.from({ length: obs.players }, (_, s) => name(s));
      const short = (s) => {
        if (s === you()) return "you";
        const alike = names.filter((other) => plain(other) === plain(names[s])).length > 1;
        return clip(plain(names[s]), wide ? 14 : 8) + (alike ? ` #${s}` : "");
      };
      for (const e of obs.events.slice(-3)) {
        let words;
        if (e.act === "drink") words = `${short(e.seat)} drank ${e.glass} ${e.died ? SKULL_NOTE : "\u2713"}`;
        else if (e.act === "swap") words = `${short(e.seat)} \u21c4 ${short(e.with)}`;
        else words = `${short(e.seat)} stole ${e.from === you() ? "your" : `${short(e.from)}'s`} cheese`;
        lines.push([words, "ivm-centre-event"]);
      }
    }
    // A narrow table wraps the words to the room its layout left them (the
    // title's letters are wider), at most two lines each and eight in all, the
    // oldest of this round's events dropped first. A list of seats too long
    // for its lines (or, on a wide table, for one line of WIDE_CHARS) gives
    // way to its summary, "4 players share the win", the whole list in its
    // tooltip: cut, it lost names and its verb (the seats still say who).
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
    for (const [words, cls, title] of shown) {
      // (the tooltip on a group round the words, so that their text stays theirs alone)
      const holder = title ? svg("g", { class: "ivm-centre-summary" }, g) : g;
      if (title) svg("title", {}, holder).textContent = title;
      text(holder, 0, y + 5, words, { class: cls });
      y += cls === "ivm-centre-title" ? 24 : cls === "ivm-centre-event" ? 18 : 20;
    }
  }

  // A seat as the centre names it: "you", or its name and "#N" (as under its glass).
  function centreName(s) {
    return s === you() ? "you" : `${plain(name(s))} #${s}`;
  }

  // Seats as the centre lists them: "medium bot #2, easy bot #6 and you".
  function seatsWords(seats) {
    return joined(seats.map(centreName));
  }

  // Who a finished round killed, as a centre line (three lines at most, then
  // a summary). The verb and the round come first: "round 1: you, medium bot
  // #2 died" read as a list of players once a phone's centre had wrapped it
  // and run out of lines before "died".
  function deathWords(round) {
    const died = round.died;
    if (!died.length) return [`nobody died in round ${round.round}`, "ivm-centre-small"];
    return [`died in round ${round.round}: ${seatsWords(died)}`, "ivm-centre-small", 3, `${died.length} players died in round ${round.round}`];
  }

  function lastTableEvent(msg) {
    const obs = msg.observation;
    const events = msg.events || [];
    const e = events.length ? events[events.length - 1] : null;
    if (e && e.kind !== "deal") return e.reveal ? null : e;
    // The round's public events tell the last turn even after a reload.
    const pe = obs.events && obs.events.length ? obs.events[obs.events.length - 1] : null;
    if (e && e.kind === "deal") return e;
    if (!pe) return null;
    if (pe.act === "swap") return { kind: "swap", actor: pe.seat, with: pe.with };
    if (pe.act === "steal") return { kind: "steal", actor: pe.seat, from: pe.from };
    return { kind: "drink", actor: pe.seat };
  }

  // -- the reveal ----------------------------------------------------------------

  function startReveal(obs) {
    const count = obs.last_round.revealed.length;
    reveal = { lr: obs.last_round, shown: ctx.prefersReducedMotion ? count : 0, timer: null };
    const step = () => {
      if (!reveal) return;
      if (reveal.shown < count) {
        reveal.shown += 1;
        draw();
        reveal.timer = setTimeout(step, 750);
      } else {
        reveal.timer = setTimeout(endReveal, ctx.prefersReducedMotion ? 2500 : 1800);
      }
    };
    draw();
    reveal.timer = setTimeout(step, ctx.prefersReducedMotion ? 0 : 500);
  }

  function endReveal() {
    if (!reveal) return;
    clearTimeout(reveal.timer);
    reveal = null;
    if (last) draw();
    if (ctx.settled) ctx.settled(); // the shell shows the result it held back
  }

  return {
    update(msg) {
      const first = last === null;
      last = msg;
      const events = msg.events || [];
      const revealed = events.some((e) => Array.isArray(e.reveal));
      if (!first && revealed && msg.observation.last_round) {
        if (reveal) clearTimeout(reveal.timer);
        startReveal(msg.observation);
        return;
      }
      if (reveal) return; // the reveal finishes first, then the newest position is drawn
      draw();
    },

    // Your seat (glass, name, markers): the shell brings it into view as your turn starts.
    yourPlace() {
      const me = you();
      return me === null || me === undefined ? null : root.querySelector(`.ivm-seat[data-seat="${me}"]`);
    },

    // While the last round's glasses turn over, the result waits (the shell asks).
    holdsResult() {
      return Boolean(reveal);
    },

    turnText(msg) {
      const obs = msg.observation;
      if (!obs) return "";
      const me = obs.seat;
      if (reveal && obs.phase === "over") return `Round ${reveal.lr.round}: the glasses are turned over…`;
      if (obs.phase === "over") {
        const w = obs.outcome ? obs.outcome.winners : [];
        if (w.length === 1) return w[0] === me ? "You are the last one alive: you win" : `${name(w[0])} is the last one alive and wins`;
        if (w.length) return sharedWin(w, me, name);
        return "Game over: nobody survives";
      }
      const mover = obs.to_move;
      if (obs.phase === "deal") {
        const next = obs.deal_order.find((s) => obs.glasses[s] === null);
        const whom = next === obs.dealer ? (mover === me ? "your own glass" : "their own glass") : next === me ? "you" : `${name(next)}`;
        if (mover === me) return `Your deal: pour ${next === obs.dealer ? "" : "a glass for "}${whom}: wine or poison`;
        return `${name(mover)} (the dealer) is pouring a glass for ${next === me ? "you" : whom}`;
      }
      const steal = obs.cheese_rule && obs.cheese.some((c, s) => c && obs.alive[s]) && !obs.cheese[mover];
      if (mover === me) return `Your turn: drink your glass or swap it${steal ? ", or steal a cheese" : ""}`;
      return `${name(mover)} is deciding: drink or swap${steal ? " (or steal cheese)" : ""}`;
    },

    destroy() {
      if (reveal) clearTimeout(reveal.timer);
      reveal = null;
      stopWatching();
      closePopover();
      root.textContent = "";
      root.classList.remove("ivm");
    },
  };
}
