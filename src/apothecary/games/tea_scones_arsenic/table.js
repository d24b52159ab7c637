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

import { clickable as kitClickable, clip, fitText, focusedKey as keyInFocus, html, legalByNotation, lineFits, plain, refocus, seatWords, sharedWin, shortName, svg, text, watchWidth } from "/static/tables/kit.js";

const DOSES = [0, 0, 1, 1, 2, 3]; // every kind's doses
// Okabe-Ito colours, one per kind; the kind's number is always drawn on it.
const KIND_FILL = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00"];
const KIND_INK = ["#1d1b22", "#1d1b22", "#ffffff", "#1d1b22", "#ffffff", "#ffffff"];

// The canonical notation of each marked scone (rules.py, _marked_name).
function markedNotations(marked) {
  return marked.map((m, i) => {
    const same = marked.slice(0, i).filter((o) => o.kind === m.kind && o.by === m.by).length;
    return `d${m.kind}@${m.by}` + (same ? `.${same + 1}` : "");
  });
}

export function mount(root, ctx) {
  root.classList.add("tsa");
  const board = html("div", "tsa-board", root);
  let last = null;
  let wide = root.clientWidth >= 700;
  const stopWatching = watchWidth(root, 700, (now) => {
    wide = now;
    if (last) draw();
  });

  const me = () => (last && last.observation ? last.observation.seat : ctx.you);
  const { name, label, who } = seatWords(ctx, me);
  const tag = (s) => (s === me() ? "you" : `${plain(name(s))} #${s}`);
  const named = (words) => words.replace(/\bseat (\d+)/g, (_, n) => name(Number(n)));

  function clickable(node, key, words, action) {
    node.dataset.notation = action.notation;
    kitClickable(node, key, words, "tsa-can", () => ctx.act(action.id));
  }

  function scone(parent, x, y, r, kind, extra = "") {
    const g = svg("g", { class: `tsa-scone ${extra}`, transform: `translate(${x},${y})` }, parent);
    svg("path", {
      d: `M${-r},${r * 0.2} C${-r},${-r * 0.95} ${r},${-r * 0.95} ${r},${r * 0.2} C${r},${r * 0.75} ${-r},${r * 0.75} ${-r},${r * 0.2} Z`,
      fill: KIND_FILL[kind - 1],
      class: "tsa-scone-body",
    }, g);
    svg("path", { d: `M${-r * 0.8},${r * 0.18} C${-r * 0.3},${r * 0.36} ${r * 0.3},${r * 0.36} ${r * 0.8},${r * 0.18}`, class: "tsa-scone-split" }, g);
    text(g, 0, r * 0.05, String(kind), { class: "tsa-scone-num", fill: KIND_INK[kind - 1], "font-size": Math.max(9, r * 0.95) });
    return g;
  }

  function emptySlot(parent, x, y, r) {
    svg("path", {
      d: `M${-r},${r * 0.2} C${-r},${-r * 0.95} ${r},${-r * 0.95} ${r},${r * 0.2} C${r},${r * 0.75} ${-r},${r * 0.75} ${-r},${r * 0.2} Z`,
      transform: `translate(${x},${y})`,
      class: "tsa-slot",
    }, parent);
  }

  function overlay(parent, x, y, w, h) {
    const g = svg("g", { class: "tsa-over" }, parent);
    svg("rect", { x, y, width: w, height: h, rx: 10, class: "tsa-hit" }, g);
    return g;
  }

  // A button saying `words` (or the shorter `shown`, where the words would not fit; the
  // button's name stays `words`).
  function button(parent, x, y, w, h, words, key, action, cls = "", shown = words) {
    const g = svg("g", { class: `tsa-btn ${cls}`, transform: `translate(${x},${y})` }, parent);
    svg("rect", { x: 0, y: 0, width: w, height: h, rx: h / 2 }, g);
    text(g, w / 2, h / 2 + 5, shown, {});
    if (action) clickable(g, key, words, action);
    return g;
  }

  function lastEvent(msg) {
    const events = msg.events || [];
    for (let i = events.length - 1; i >= 0; i--) if (events[i].kind !== "dose") return events[i];
    return null;
  }

  // -- the picture -------------------------------------------------------------

  function draw() {
    const msg = last;
    const obs = msg.observation;
    const n = obs.players;
    const you = obs.seat;
    const W = wide ? 960 : 360;
    const pad = wide ? 16 : 10;
    const legal = legalByNotation(msg);
    const latest = lastEvent(msg);
    const focusedKey = keyInFocus(board);
    board.textContent = "";
    const top = svg("svg", { class: `tsa-svg ${wide ? "tsa-wide" : "tsa-narrow"}`, role: "group", "aria-label": "Tea, Scones and Arsenic table" }, board);
    const over = obs.phase === "over";

    // --- status strip
    let y = pad;
    const strip = svg("g", { class: "tsa-strip" }, top);
    const bits = [`Lethal dose ${obs.lethal_dose}`];
    if (n === 1) bits.push("solo: eat all you can and live");
    if (obs.little_spoon) bits.push("little spoon in play");
    const owing = obs.seats.map((s, i) => [i, s.honour_turns_left]).filter(([, t]) => t > 0);
    let honour;
    if (obs.eat_off) honour = `Eat-off: ${obs.eat_off.map(who).join(", ")} must eat`;
    else if (over) honour = "The game is over";
    else if (obs.main_game_over) honour = "The main game is over";
    else if (owing.length) honour = `Honour turns owed: ${owing.map(([s, t]) => `${who(s)} ${t}`).join(", ")} \u2014 nobody may stop`;
    else if (n > 1) honour = "No honour turns owed: stopping is allowed";
    else honour = "";
    // SVG text does not wrap: a phone's strip goes on as many lines as it takes, each
    // measured as drawn (a solo header of 47 letters ran out of the picture at 390 px,
    // and the bold honour line's 46 letters did too)
    const main = { class: "tsa-strip-main" };
    for (const line of stripLines(bits, lineFits(strip, main, W - 2 * pad, wide ? 110 : 40))) {
      text(strip, pad, y + 16, line, main);
      y += 20;
    }
    y += 4;
    if (honour) {
      const look = { class: `tsa-strip-honour ${owing.length ? "tsa-owed" : ""}` };
      for (const line of stripLines([honour], lineFits(strip, look, W - 2 * pad, wide ? 120 : 46))) {
        text(strip, pad, y + 15, line, look);
        y += 18;
      }
      y += 4;
    }
    if (latest) {
      const said = `Last: ${named(latest.text.split(";")[0])}`;
      const t = fitText(text(strip, pad, y + 15, clip(said, wide ? 110 : 46), { class: "tsa-strip-last" }), W - 2 * pad, (m) => clip(said, m));
      t.setAttribute("aria-live", "off");
      y += 22;
    }
    y += 6;

    // --- geometry of the blocks
    const boxW = wide ? 570 : W - 2 * pad;
    const boxX = pad;
    let rightX = wide ? boxX + boxW + 14 : pad;
    const rightW = wide ? W - rightX - pad : W - 2 * pad;
    let boxY = y;
    let rightY = y;
    if (!wide) {
      // phone: your dose first, then what you hold and may do, then the box
      rightY = drawGauge(top, obs, rightX, y, rightW);
      rightY = drawHand(top, obs, legal, rightX, rightY + 10, rightW);
      boxY = rightY + 10;
    }
    const boxBottom = drawBox(top, obs, legal, latest, boxX, boxY, boxW);
    if (wide) {
      rightY = drawGauge(top, obs, rightX, rightY, rightW);
      rightY = drawHand(top, obs, legal, rightX, rightY + 10, rightW);
    }
    y = Math.max(boxBottom, rightY) + 14;

    // --- the players
    y = drawSeats(top, obs, legal, latest, pad, y, W - 2 * pad);
    top.setAttribute("viewBox", `0 0 ${W} ${Math.ceil(y + pad)}`);

    // keep the keyboard on the board: the same thing if it is still there, else the first move
    refocus(board, focusedKey, ".tsa-can");
  }

  function panel(parent, x, y, w, h, cls = "") {
    return svg("rect", { x, y, width: w, height: h, rx: 12, class: `tsa-panel ${cls}` }, parent);
  }

  function drawGauge(parent, obs, x, y, w) {
    const you = obs.seat;
    const g = svg("g", { class: "tsa-gauge" }, parent);
    const h = 92;
    panel(g, x, y, w, h);
    const lethal = obs.lethal_dose;
    if (you === null || you === undefined) {
      text(g, x + 14, y + 26, "Watching: doses are hidden", { class: "tsa-h" });
      text(g, x + 14, y + 50, `A total of ${lethal} or more kills.`, { class: "tsa-small" });
      return y + 62;
    }
    const seat = obs.seats[you];
    const total = seat.total === null ? 0 : seat.total;
    const hand = obs.hand && obs.turn === you && obs.hand.dose !== null ? obs.hand.dose : null;
    const alive = seat.alive;
    const title = alive
      ? `Your dose: ${total} of ${lethal}`
      : `You died at dose ${total}`;
    text(g, x + 14, y + 24, title, { class: "tsa-h" });
    const left = lethal - total;
    const note = !alive ? "" : left <= 3 ? `\u26a0 ${left} more kills you` : `${left} more kills you`;
    text(g, x + w - 14, y + 24, note, { class: `tsa-small tsa-right ${left <= 3 ? "tsa-warn-text" : ""}` });
    // the bar: one cell per dose unit up to the lethal dose
    const bx = x + 14;
    const bw = w - 28 - 30;
    const by = y + 38;
    const bh = 22;
    const cell = bw / lethal;
    for (let i = 0; i < lethal; i++) {
      let cls = "tsa-cell";
      if (i < total) cls += i >= lethal - 3 ? " tsa-cell-hot" : " tsa-cell-full";
      else if (hand !== null && i < total + hand) cls += " tsa-cell-hand";
      svg("rect", { x: bx + i * cell + 0.8, y: by, width: Math.max(1, cell - 1.6), height: bh, rx: Math.min(4, cell / 3), class: cls }, g);
    }
    // the lethal mark
    const skull = svg("g", { transform: `translate(${bx + bw + 16},${by + bh / 2})`, class: "tsa-lethal" }, g);
    text(skull, 0, 6, "\u2620", {});
    text(g, bx, by + bh + 18, hand !== null && alive ? `if you eat the scone in hand: ${total} + ${hand} \u2192 ${total + hand}` : "0", { class: hand !== null && alive ? "tsa-small tsa-bold" : "tsa-tiny" });
    if (hand === null || !alive) text(g, bx + bw, by + bh + 18, `${lethal} lethal`, { class: "tsa-tiny tsa-right" });
    return y + h;
  }

  function drawBox(parent, obs, legal, latest, x, y, w) {
    const g = svg("g", { class: "tsa-box" }, parent);
    const box = obs.box;
    const marked = box.marked;
    const notes = markedNotations(marked);
    const colW = (w - 16) / 6;
    const r = wide ? 13 : 10;
    const headH = 34;
    const gridH = 3 * (r * 1.5) + 6;
    const doseH = wide ? 22 : 37;
    const colH = 26 + gridH + 20 + doseH + 8;
    const markedRowH = wide ? 58 : 54;
    const perRow = wide ? 3 : 2;
    const markedRows = marked.length ? Math.ceil(marked.length / perRow) : 0;
    const captionH = 38; // the two lines that say what the digits under the kinds are
    const h = headH + colH + captionH + (markedRows ? 26 + markedRows * markedRowH : 0) + 10;
    panel(g, x, y, w, h, "tsa-box-panel");
    text(g, x + 14, y + 24, `The box: ${box.scones} scone${box.scones === 1 ? "" : "s"}`, { class: "tsa-h" });
    const shuffle = legal.get("shuffle");
    if (shuffle) {
      button(g, x + w - 128, y + 8, 116, 28, "\u21bb shuffle", "shuffle", shuffle, "tsa-btn-quiet");
    } else if (latest && (latest.kind === "shuffle" || (latest.kind === "back" && latest.shuffle))) {
      text(g, x + w - 14, y + 24, "\u21bb just shuffled", { class: "tsa-small tsa-right tsa-last-text" });
    }
    // Doses this seat knows have left the unmarked part of the box, by kind.
    const known = Array.from({ length: 6 }, () => []);
    for (const seat of obs.seats) for (const c of seat.cup) if (c.dose !== null && c.dose !== undefined) known[c.kind - 1].push(c.dose);
    for (const m of marked) if (m.dose !== null && m.dose !== undefined) known[m.kind - 1].push(m.dose);
    if (obs.hand && obs.hand.dose !== null && obs.hand.dose !== undefined) known[obs.hand.kind - 1].push(obs.hand.dose);

    const cy0 = y + headH;
    for (let k = 1; k <= 6; k++) {
      const cx = x + 8 + (k - 1) * colW;
      const col = svg("g", { class: "tsa-kind", "data-kind": k }, g);
      const count = box.unmarked[k - 1];
      text(col, cx + colW / 2, cy0 + 18, `kind ${k}`, { class: "tsa-small tsa-mid tsa-bold" });
      // the unmarked scones of this kind: 6 places, 2 by 3
      for (let i = 0; i < 6; i++) {
        const sx = cx + colW / 2 + (i % 2 === 0 ? -r * 1.15 : r * 1.15);
        const sy = cy0 + 26 + r + Math.floor(i / 2) * (r * 1.5);
        if (i < count) scone(col, sx, sy, r, k);
        else emptySlot(col, sx, sy, r);
      }
      text(col, cx + colW / 2, cy0 + 26 + gridH + 14, `${count} left`, { class: "tsa-small tsa-mid" });
      // doses: those known to be out of the unmarked box are struck
      const gone = known[k - 1].slice();
      const dy = cy0 + 26 + gridH + 20 + 15;
      const per = wide ? 6 : 3;
      const step = wide ? Math.min(13, (colW - 12) / 6) : 13;
      const dx0 = cx + colW / 2 - (step * (per - 1)) / 2;
      DOSES.forEach((d, i) => {
        const at = gone.indexOf(d);
        const out = at >= 0;
        if (out) gone.splice(at, 1);
        const tx = dx0 + (i % per) * step;
        const ty = dy + Math.floor(i / per) * 15;
        text(col, tx, ty, String(d), { class: `tsa-dose-digit ${out ? "tsa-dose-gone" : ""}` });
        if (out) svg("line", { x1: tx - 4, y1: ty - 4, x2: tx + 4, y2: ty - 4, class: "tsa-dose-strike" }, col);
      });
      // what is clicked lies over the drawing, so its name is all a reader hears
      const hit = overlay(g, cx + 3, cy0, colW - 6, colH);
      hit.dataset.kind = String(k);
      const take = legal.get(`d${k}`);
      if (take) clickable(hit, `kind-${k}`, `Take a kind-${k} scone (${count} left)`, take);
      else svg("title", {}, hit).textContent = `kind ${k}: ${count} unmarked`;
      if (latest && latest.kind === "draw" && latest.scone === k && latest.marked_by === null) hit.classList.add("tsa-last");
    }
    // the digits under each kind were unlabelled rows of "0 0 1 1 2 3"
    let my = cy0 + colH + 4;
    text(g, x + 14, my + 14, "Digits: the doses of each kind's six scones;", { class: "tsa-small tsa-dose-caption" });
    text(g, x + 14, my + 31, "a struck one you know has left the box.", { class: "tsa-small tsa-dose-caption" });
    my += captionH;
    if (marked.length) {
      text(g, x + 14, my + 16, "Put back, marked by who put them back:", { class: "tsa-small tsa-bold" });
      my += 24;
      const chipW = (w - 20) / perRow;
      marked.forEach((m, i) => {
        const cx = x + 10 + (i % perRow) * chipW;
        const cy = my + Math.floor(i / perRow) * markedRowH;
        const chip = svg("g", { class: "tsa-marked", "data-kind": m.kind, "data-by": m.by }, g);
        svg("rect", { x: cx + 2, y: cy, width: chipW - 4, height: markedRowH - 6, rx: 10, class: "tsa-chip" }, chip);
        scone(chip, cx + 24, cy + (markedRowH - 6) / 2, wide ? 15 : 13, m.kind);
        // whose mark, cut to the chip with the seat's number kept ("by medium b… #1")
        const by = m.by === me() ? "you" : shortName(`${plain(name(m.by))} (seat ${m.by})`, wide ? 14 : 12);
        text(chip, cx + 46, cy + 20, `by ${by}`, { class: "tsa-small tsa-bold" });
        const dose = m.dose === null || m.dose === undefined ? "dose ?" : `dose ${m.dose}`;
        text(chip, cx + 46, cy + 38, dose, { class: `tsa-small ${m.dose === null || m.dose === undefined ? "" : "tsa-known"}` });
        const action = legal.get(notes[i]);
        const words = `Take the marked kind-${m.kind} scone ${who(m.by) === "you" ? "you" : name(m.by)} put back (${dose})`;
        const hit = overlay(g, cx + 2, cy, chipW - 4, markedRowH - 6);
        hit.dataset.marked = String(i);
        if (action) clickable(hit, `marked-${i}`, words, action);
        else svg("title", {}, hit).textContent = `kind ${m.kind}, put back by ${who(m.by)}, ${dose}`;
        if (latest && (latest.kind === "back" || latest.kind === "spoon") && i === marked.length - 1 && !latest.shuffle) hit.classList.add("tsa-last");
      });
      my += markedRows * markedRowH;
    }
    return y + h;
  }

  function drawHand(parent, obs, legal, x, y, w) {
    const g = svg("g", { class: "tsa-hand" }, parent);
    const you = obs.seat;
    const hand = obs.hand;
    const mover = obs.to_move;
    const choices = [
      ["eat", "Eat it"],
      ["back", "Put back (\u22121 cube)"],
      ["back+shuffle", "Put back + shuffle"],
      ["spoon", "Use your little spoon"],
      ["pass", "Let them eat"],
      ["stop", "Stop eating"],
    ].filter(([notation]) => legal.has(notation) && notation !== "stop");
    const lineH = 40;
    const buttonsH = choices.length ? Math.ceil(choices.length / (wide ? 1 : 2)) * (lineH + 6) : 0;
    let title;
    let detail = "";
    if (obs.phase === "over") {
      title = "The tea is over";
      // solo has no rival to win "with most scones" against: its score and fate
      if (obs.players === 1) detail = soloWords(obs);
      else detail = obs.outcome ? named(obs.outcome.reason) : "";
    } else if (hand) {
      const holder = obs.turn;
      const dose = hand.dose === null || hand.dose === undefined ? "?" : String(hand.dose);
      if (holder === you) title = obs.phase === "spoon" ? `You chose to eat a kind-${hand.kind} scone` : `In your hand: kind ${hand.kind}, dose ${dose}`;
      else title = `${name(holder)} ${obs.phase === "spoon" ? "chose to eat" : "holds"} a kind-${hand.kind} scone`;
      if (obs.phase === "spoon") detail = mover === you ? "Send it back with your little spoon?" : `${who(mover)} may use a spoon`;
      else if (holder !== you) detail = `dose ${dose}: eat or put back?`;
      else if (obs.seats[you].cubes === 0 || obs.eat_off) detail = obs.eat_off ? "The eat-off: you must eat." : "No cube left: you must eat.";
      else detail = "Eat it, or put it back for a sugar cube.";
    } else if (mover === you) {
      title = "Your turn: take a scone";
      detail = `Tap a kind in the box${obs.box.marked.length ? " or a marked scone" : ""}${obs.stopping_allowed ? ", or stop (under your cup)" : ""}.`;
    } else if (mover === null || mover === undefined) {
      title = "A scone is being drawn";
    } else {
      title = `${name(mover)} is choosing a scone`;
      detail = obs.stopping_allowed ? "(or stopping)" : "";
    }
    // Beside the scone in hand the lines are short: its title and detail may take two each.
    // Without a scone the title has the panel's width ("medium bot (seat 1) is choosing
    // a scone" ran past it on a phone): it too may take two lines.
    const titleFits = lineFits(g, { class: "tsa-h" }, hand ? w - 78 : w - 28, hand ? (wide ? 34 : 30) : 44);
    const titles = wrap(title, titleFits).slice(0, 2);
    const detailLines = hand && detail ? wrap(detail, lineFits(g, { class: "tsa-small" }, w - 78, wide ? 34 : 38)).slice(0, 2) : [];
    const extra = (titles.length - 1) * 19 + (hand ? 8 + Math.max(0, detailLines.length - 1) * 16 : 0);
    const h = 60 + extra + buttonsH + 12;
    panel(g, x, y, w, h, mover === you && !!choices.length ? "tsa-panel-act" : "");
    let ty = y + 24;
    if (hand) {
      scone(g, x + 30, y + 34, 20, hand.kind, "tsa-in-hand");
      const dose = hand.dose === null || hand.dose === undefined ? "?" : String(hand.dose);
      svg("circle", { cx: x + 46, cy: y + 48, r: 10, class: `tsa-dose-badge ${dose === "?" ? "" : "tsa-dose-badge-known"}` }, g);
      text(g, x + 46, y + 52, dose, { class: "tsa-dose-badge-text" });
      titles.forEach((line, i) => text(g, x + 64, ty + i * 19, line, { class: "tsa-h" }));
      detailLines.forEach((line, i) => text(g, x + 64, ty + 19 * titles.length + 2 + i * 16, line, { class: "tsa-small" }));
    } else {
      titles.forEach((line, i) => fitText(text(g, x + 14, ty + i * 19, line, { class: "tsa-h" }), w - 28, (m) => clip(line, m)));
      if (detail) {
        const lines = wrap(detail, lineFits(g, { class: "tsa-small" }, w - 28, 50));
        lines.slice(0, 2).forEach((line, i) => text(g, x + 14, ty + 22 + (titles.length - 1) * 19 + i * 17, line, { class: "tsa-small" }));
      }
    }
    const by = y + 60 + extra;
    const cols = wide ? 1 : 2;
    const bw = (w - 24 - (cols - 1) * 8) / cols;
    choices.forEach(([notation, words], i) => {
      const bx = x + 12 + (i % cols) * (bw + 8);
      const byy = by + Math.floor(i / cols) * (lineH + 6);
      const action = legal.get(notation);
      const cls = notation === "eat" ? "tsa-btn-eat" : notation === "spoon" ? "tsa-btn-spoon" : "";
      const b = button(g, bx, byy, bw, lineH, words, `hand-${notation}`, action, cls);
      b.setAttribute("aria-label", `${words}: ${action.label}`);
      b.querySelector("title").textContent = action.label;
    });
    return y + h;
  }

  // How a solo tea ended: the score is the scones eaten if alive, 0 if dead.
  function soloWords(obs) {
    const seat = obs.seats[0];
    const subject = obs.seat === 0 ? "You" : plain(name(0));
    const scones = `${seat.scones} scone${seat.scones === 1 ? "" : "s"}`;
    if (seat.alive) return `${subject} ate ${scones} and lived: score ${seat.scones}.`;
    return `${subject} died at dose ${seat.total} after ${scones}: score 0.`;
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

  function drawSeats(parent, obs, legal, latest, x, y, w) {
    const n = obs.players;
    const you = obs.seat;
    const cols = wide ? Math.min(n, n > 4 ? 3 : n) : n === 1 ? 1 : 2;
    const gap = 10;
    const cw = (w - (cols - 1) * gap) / cols;
    const r = n === 1 ? 12 : wide ? 10 : 9;
    const perLine = Math.max(4, Math.floor((cw - 20) / (r * 2 + 6)));
    const maxCup = Math.max(1, ...obs.seats.map((s) => s.cup.length));
    const cupLines = Math.max(1, Math.ceil(maxCup / perLine));
    const cupH = cupLines * (r * 2 + 16);
    const stop = legal.get("stop");
    const stopH = stop ? 46 : 0;
    const ch = 100 + cupH + 6;
    const order = [];
    for (let s = 0; s < n; s++) order.push(s);
    let rowY = y;
    order.forEach((s, i) => {
      const cx = x + (i % cols) * (cw + gap);
      // only the rows under yours make room for your stop button
      const row = Math.floor(i / cols);
      const cy = y + row * (ch + gap) + (stopH && you !== null && you !== undefined && row > Math.floor(you / cols) ? stopH : 0);
      rowY = Math.max(rowY, cy + ch + (s === you ? stopH : 0));
      const seat = obs.seats[s];
      const g = svg("g", { class: "tsa-seat", "data-seat": s }, parent);
      if (!seat.alive) g.classList.add("tsa-dead");
      if (s === you) g.classList.add("tsa-you");
      const toMove = obs.to_move === s || (obs.turn === s && obs.phase !== "over");
      panel(g, cx, cy, cw, ch + (s === you ? stopH : 0), `${obs.turn === s && obs.phase !== "over" ? "tsa-panel-turn" : ""} ${latest && latest.actor === s ? "tsa-panel-last" : ""}`);
      let winner = obs.outcome && obs.outcome.winners.includes(s);
      // name, state, counts
      const shown = clip(plain(label(s)), wide ? 22 : 14);
      const nm = text(g, cx + 12, cy + 22, (seat.alive ? "" : "\u2620 ") + shown, { class: "tsa-name" });
      const num = svg("tspan", { class: "tsa-seatno", dx: 5 }, nm);
      num.textContent = `#${s}`;
      if (!seat.alive) {
        const len = Math.min(cw - 24, 8.6 * (shown.length + 2));
        svg("line", { x1: cx + 12, y1: cy + 17, x2: cx + 12 + len, y2: cy + 17, class: "tsa-strike" }, g);
      }
      let state = seat.alive ? (seat.stopped ? "\u25a0 stopped" : "eating") : `dead at dose ${seat.total}`;
      if (winner) state = n === 1 ? "\u2605 survived" : "\u2605 winner";
      else if (toMove && seat.alive) state = obs.to_move === s ? "\u25b6 to play" : "\u25b6 their turn";
      text(g, cx + 12, cy + 40, state, { class: `tsa-small ${winner ? "tsa-win-text" : ""} ${seat.alive ? "" : "tsa-dead-text"} ${toMove ? "tsa-bold" : ""}` });
      nm.setAttribute("aria-label", `${label(s)}${seat.alive ? "" : ", dead"}`);
      const line2 = cy + 62;
      text(g, cx + 12, line2, `${seat.scones} scone${seat.scones === 1 ? "" : "s"}`, { class: "tsa-count" });
      const total = seat.total === null || seat.total === undefined ? "dose ?" : `dose ${seat.total}`;
      text(g, cx + 12, line2 + 19, total, { class: `tsa-small ${seat.total === null ? "" : "tsa-known"}` });
      // cubes as little squares
      const cubes = svg("g", { class: "tsa-cubes" }, g);
      // On a phone's half-width seat the state ("dead at dose 8") reaches the
      // right-hand edge, so there the cubes go on the shorter line of the count.
      const cubesX = cx + cw - 12 - 3 * 15 + 4;
      const cubesY = wide ? cy + 29 : line2 - 11;
      for (let c = 0; c < 3; c++) {
        svg("rect", { x: cubesX + c * 15, y: cubesY, width: 11, height: 11, rx: 2, class: c < seat.cubes ? "tsa-cube" : "tsa-cube-used" }, cubes);
      }
      if (wide) text(cubes, cubesX - 5, cy + 39, "cubes", { class: "tsa-tiny tsa-right" });
      svg("title", {}, cubes).textContent = `${seat.cubes} sugar cube${seat.cubes === 1 ? "" : "s"} left`;
      const extras = [];
      if (obs.little_spoon) extras.push(seat.spoon ? "has spoon" : "spoon used");
      if (seat.honour_turns_left) extras.push(`owes ${seat.honour_turns_left}`);
      if (extras.length) text(g, cx + cw - 12, line2 + 19, extras.join(" \u00b7 "), { class: `tsa-tiny tsa-right ${seat.honour_turns_left ? "tsa-owed" : ""}` });
      // the cup
      const cupY = cy + 100;
      svg("line", { x1: cx + 10, y1: cupY - 8, x2: cx + cw - 10, y2: cupY - 8, class: "tsa-rule" }, g);
      if (!seat.cup.length) text(g, cx + 12, cupY + 14, "cup: empty", { class: "tsa-tiny" });
      seat.cup.forEach((c, j) => {
        const sx = cx + 12 + r + (j % perLine) * (r * 2 + 6);
        const sy = cupY + r + Math.floor(j / perLine) * (r * 2 + 16);
        const lastOne = latest && (latest.kind === "eat" || latest.kind === "pass") && j === seat.cup.length - 1 && (latest.actor === s || latest.eater === s);
        scone(g, sx, sy, r, c.kind, lastOne ? "tsa-last-scone" : "");
        const d = c.dose === null || c.dose === undefined ? "?" : String(c.dose);
        // (a desktop's bigger digits go a little lower, clear of the scone's number)
        text(g, sx, sy + r + (wide ? 12 : 9), d, { class: `tsa-cup-dose ${d === "?" ? "" : "tsa-known"}` });
      });
      if (s === you && stop) {
        // a phone's half-width seat has room for the first words only
        const words = "\u25a0 Stop eating (keep your scones)";
        button(g, cx + 12, cy + ch, cw - 24, 36, words, "stop", stop, "tsa-btn-stop", cw - 24 < 8.4 * words.length ? "\u25a0 Stop eating" : words);
      }
    });
    return rowY;
  }

  return {
    update(msg) {
      last = msg;
      draw();
    },

    turnText(msg) {
      const obs = msg.observation;
      if (!obs) return "";
      const you = obs.seat;
      if (obs.phase === "over") {
        const w = obs.outcome ? obs.outcome.winners : [];
        if (obs.players === 1) return obs.seats[0].alive ? `Tea is over: ${obs.seats[0].scones} scones eaten, and alive` : "Tea is over: the arsenic won";
        if (!w.length) return "Tea is over: nobody survived";
        if (w.length === 1) return w[0] === you ? `You win with ${obs.seats[you].scones} scones` : `${name(w[0])} wins with ${obs.seats[w[0]].scones} scones`;
        return sharedWin(w, you, name);
      }
      const mover = obs.to_move;
      if (mover === null || mover === undefined) return `${name(obs.turn)} takes a scone`;
      const mine = mover === you;
      const hand = obs.hand;
      if (obs.phase === "spoon") return mine ? `${name(obs.turn)} chose to eat: use your little spoon, or let them eat` : `${name(mover)} may use the little spoon on ${obs.turn === you ? "your" : name(obs.turn) + "'s"} scone`;
      if (obs.phase === "decide") {
        if (mine) {
          const dose = hand && hand.dose !== null ? ` (dose ${hand.dose})` : "";
          return obs.seats[you].cubes && !obs.eat_off ? `Your scone${dose}: eat it, or put it back for a sugar cube` : `Your scone${dose}: you must eat it`;
        }
        return `${name(mover)} looks at the dose: eat or put back?`;
      }
      const stop = obs.stopping_allowed ? ", or stop" : "";
      if (obs.eat_off) return mine ? "The eat-off: take a scone and eat it" : `The eat-off: ${name(mover)} takes a scone`;
      return mine ? `Your turn: take a scone from the box${stop}` : `${name(mover)} is choosing a scone${stop}`;
    },

    destroy() {
      stopWatching();
      root.textContent = "";
      root.classList.remove("tsa");
    },
  };
}
