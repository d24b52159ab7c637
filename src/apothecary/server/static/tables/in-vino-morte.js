// In Vino Morte: the glasses around a table, drawn in SVG from the seat's
// observation alone. The dealer's page shows what is in every covered glass
// (its observation holds it); everyone else's page shows a covered glass as
// "?", and nothing of its contents is anywhere in the page until the reveal.
//
// Moves are made on the board: your own glass (drink), another covered glass
// (swap), a cheese (steal), and, for the dealer, the seat being poured for,
// then wine or poison (and their cheese variants) in a small popover.

import { clickable as kitClickable, clip, focusedKey as keyInFocus, html, legalByNotation, plain, refocus, seatWords, sharedWin, svg, text, watchWidth } from "./kit.js";

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
      const button = html("button", { type: "button", class: `ivm-pour ivm-pour-${kind.cls}`, "data-notation": action.notation, "aria-label": action.label }, row);
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

  function layout(n) {
    const W = wide ? 900 : 370;
    const H = wide ? 560 : n > 6 ? 700 : n > 5 ? 600 : 560;
    const cx = W / 2;
    const cy = wide ? 264 : n > 6 ? 330 : n > 5 ? 286 : 264;
    const rx = wide ? 350 : 116;
    const ry = wide ? 200 : n > 6 ? 262 : n > 5 ? 222 : 200;
    return { W, H, cx, cy, rx, ry };
  }

  function seatPoint(geo, s, n, me) {
    const base = me === null || me === undefined ? 0 : me;
    const angle = Math.PI / 2 + ((s - base) * 2 * Math.PI) / n;
    return { x: geo.cx + geo.rx * Math.cos(angle), y: geo.cy + geo.ry * Math.sin(angle), angle };
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
    const geo = layout(n);
    closePopover();
    const focusedKey = keyInFocus(board);
    board.textContent = "";
    const root_ = svg("svg", {
      viewBox: `0 0 ${geo.W} ${geo.H}`,
      class: `ivm-svg ${wide ? "ivm-wide" : "ivm-narrow"}${n > 5 ? " ivm-many" : ""}`,
      role: "group",
      "aria-label": "In Vino Morte table",
    }, board);
    // The table.
    svg("ellipse", { cx: geo.cx, cy: geo.cy, rx: geo.rx - (wide ? 40 : 52), ry: geo.ry - (wide ? 40 : 64), class: "ivm-table" }, root_);
    const legal = (msg.legal || []);
    const byNotation = legalByNotation(msg);
    const deals = legal.map((a) => ({ action: a, deal: parseDeal(a.notation) })).filter((d) => d.deal);
    const pourSeat = deals.length ? deals[0].deal.seat : null;
    const live = !reveal && obs.phase !== "over";
    const lastEvent = live ? lastTableEvent(msg) : null;

    // Last move: a swap or a steal is a line between the two seats.
    const layer = svg("g", { class: "ivm-moves" }, root_);
    const points = [];
    for (let s = 0; s < n; s++) points.push(seatPoint(geo, s, n, me));
    if (lastEvent && (lastEvent.kind === "swap" || lastEvent.kind === "steal")) {
      const other = lastEvent.kind === "swap" ? lastEvent.with : lastEvent.from;
      const a = points[lastEvent.actor];
      const b = points[other];
      const mx = (a.x + b.x) / 2 + (geo.cx - (a.x + b.x) / 2) * 0.35;
      const my = (a.y + b.y) / 2 + (geo.cy - (a.y + b.y) / 2) * 0.35;
      svg("path", { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, class: `ivm-move-line ivm-move-${lastEvent.kind}` }, layer);
      const tag = lastEvent.kind === "swap" ? "\u21c4" : "C";
      const t = 0.2;
      const qx = (1 - t) * (1 - t) * a.x + 2 * t * (1 - t) * mx + t * t * b.x;
      const qy = (1 - t) * (1 - t) * a.y + 2 * t * (1 - t) * my + t * t * b.y;
      svg("circle", { cx: qx, cy: qy, r: 12, class: "ivm-move-tag" }, layer);
      text(layer, qx, qy + 4.5, tag, { class: "ivm-move-tag-text" });
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
      const k = (wide ? 1.22 : n > 6 ? 0.8 : n > 5 ? 0.9 : 1) * (s === me ? 1.1 : 1);
      svg("rect", { x: -27 * k, y: -37 * k, width: 54 * k, height: 72 * k, rx: 10, class: "ivm-hit" }, glassSpot);
      const foot = 33 * k;
      if (toMove) svg("rect", { x: -33 * k, y: -43 * k, width: 66 * k, height: 84 * k, rx: 16, class: "ivm-turn-ring" }, group);
      view.k = k;
      drawGlass(glassSpot, view, s === me);
      if (view.drunk && view.glass) text(group, 0, foot + 12, "drunk", { class: "ivm-small" });
      else if (view.secret) text(group, 0, foot + 12, `${KIND[view.glass].word}, hidden`, { class: "ivm-small ivm-secret-note" });
      else if (live && view.played && s !== obs.dealer) text(group, 0, foot + 12, "\u2713 played", { class: "ivm-small" });

      // Name and fate.
      const nameY = foot + 30;
      const shortName = clip(plain(label(s)), wide ? 24 : n > 5 ? 11 : 14);
      const nameText = text(group, 0, nameY, (view.alive ? "" : `${SKULL_NOTE} `) + shortName, { class: "ivm-name" });
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
      if (obs.phase === "over" && obs.outcome && obs.outcome.winners.includes(s)) {
        const w = text(group, 0, nameY + 18, "\u2605 winner", { class: "ivm-winner" });
        w.setAttribute("aria-label", `${name(s)} wins`);
      } else if (!view.alive && (view.diedNow || !live)) {
        text(group, 0, nameY + 18, "dead", { class: "ivm-small ivm-dead-word" });
      } else if (!view.alive) {
        text(group, 0, nameY + 18, "dead", { class: "ivm-small ivm-dead-word" });
      }

      // Dealer token.
      if (view.dealer && (live || reveal || obs.phase === "over")) {
        const d = svg("g", { class: "ivm-dealer", transform: `translate(${-38 * k},${-22 * k})` }, group);
        svg("circle", { r: 13 }, d);
        text(d, 0, 5, "D", {});
        svg("title", {}, d).textContent = `${name(s)} deals`;
      }
      // Cheese marker.
      if (view.cheese) {
        const c = svg("g", { class: "ivm-cheese", transform: `translate(${38 * k},${-22 * k})` }, group);
        svg("circle", { r: 15, class: "ivm-hit" }, c);
        svg("path", { d: "M-12,6 L12,-4 L12,6 Z", class: "ivm-cheese-wedge" }, c);
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
          text(group, 0, -44 * k, "pour here", { class: "ivm-small ivm-pour-note" });
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
      if (done) lines.push([died.length ? `${died.map((s) => (s === you() ? "you" : `${plain(name(s))} #${s}`)).join(", ")} ${died.length === 1 && died[0] !== you() ? "dies" : "die"}` : "nobody dies", "ivm-centre-line"]);
      else lines.push(["the glasses are turned over\u2026", "ivm-centre-line"]);
    } else if (obs.phase === "over") {
      const winners = obs.outcome ? obs.outcome.winners : [];
      lines.push(["Game over", "ivm-centre-title"]);
      if (winners.length === 1) lines.push([`${winners[0] === you() ? "You are" : plain(name(winners[0])) + ` #${winners[0]} is`} the last alive`, "ivm-centre-line"]);
      else if (winners.length) lines.push([`${winners.map(who).join(", ")} share the win`, "ivm-centre-line"]);
      else lines.push(["nobody survives", "ivm-centre-line"]);
      if (obs.last_round) lines.push([`round ${obs.last_round.round}: ${deathWords(obs.last_round.died)}`, "ivm-centre-small"]);
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
      if (obs.last_round && !obs.events.length) lines.push([`round ${obs.last_round.round}: ${deathWords(obs.last_round.died)}`, "ivm-centre-small"]);
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
        else words = `${short(e.seat)} stole ${short(e.from)}'s cheese`;
        lines.push([words, "ivm-centre-event"]);
      }
    }
    let y = -((lines.length - 1) * 20) / 2;
    const shown = [];
    for (const [words, cls] of lines) {
      if (wide || words.length <= 22) shown.push([words, cls]);
      else for (const part of wrap(words, 22).slice(0, 2)) shown.push([part, cls]);
    }
    lines.length = 0;
    lines.push(...shown);
    y = -((lines.length - 1) * 20) / 2;
    for (const [words, cls] of lines) {
      text(g, 0, y + 5, wide ? words : clip(words, 22), { class: cls });
      y += cls === "ivm-centre-title" ? 24 : cls === "ivm-centre-event" ? 18 : 20;
    }
  }

  function deathWords(died) {
    if (!died.length) return "nobody died";
    return `${died.map((s) => (s === you() ? "you" : `${plain(name(s))} #${s}`)).join(", ")} died`;
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

    turnText(msg) {
      const obs = msg.observation;
      if (!obs) return "";
      const me = obs.seat;
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
