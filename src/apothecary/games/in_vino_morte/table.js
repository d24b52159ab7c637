// In Vino Morte: the glasses around a table, drawn in SVG from the seat's
// observation alone. The dealer's page shows what is in every covered glass
// (its observation holds it); everyone else's page shows a covered glass as
// "?", and nothing of its contents is anywhere in the page until the reveal.
//
// Moves are made on the board: your own glass (drink), another covered glass
// (swap), a cheese (steal), and, for the dealer, the seat being poured for,
// then wine or poison (and their cheese variants) in a small popover. What
// goes where, and which move each thing plays, is layout.js's pure answer;
// this module draws it and handles input.

import { clickable as kitClickable, focusedKey as keyInFocus, html, refocus, svg, text, watchWidth } from "/static/tables/kit.js";
import { KIND, MARK_R, SKULL_NOTE, WIDE_MIN, feltPath, layout, markX, turnText } from "./layout.js";
import { t } from "/static/i18n.js";

export { soundOf } from "./layout.js";

// A wine glass: bowl, stem and foot, its rim at y=-30 and foot at y=+30.
const BOWL = "M-17,-30 L17,-30 C17,-8 10,2 0,4 C-10,2 -17,-8 -17,-30 Z";
const LIQUID = "M-15.4,-20 L15.4,-20 C14.5,-5 8.5,1.6 0,2.6 C-8.5,1.6 -14.5,-5 -15.4,-20 Z";
const STEM = "M-1.6,4 L1.6,4 L1.6,24 L-1.6,24 Z";
const FOOT = "M-13,30 C-12,25 -5,24 0,24 C5,24 12,25 13,30 Z";

const clickable = (node, key, words, onActivate) => kitClickable(node, key, words, "ivm-can", onActivate);

function drawGlass(group, view, k) {
  const scale = k || 1;
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


// One seat of the layout (`seat`: its place, look, words and moves) in `parent`.
function drawSeat(parent, seat, onPour) {
  const { view, k } = seat;
  const group = svg("g", { class: "ivm-seat", transform: `translate(${seat.x.toFixed(1)},${seat.y.toFixed(1)})`, "data-seat": seat.seat }, parent);
  for (const cls of seat.classes) group.classList.add(cls);
  // The glass (clickable for a drink, a swap or a pour).
  const glassSpot = svg("g", { class: "ivm-spot", "data-glass": view.glass ? (view.glass === "covered" ? "covered" : view.secret ? "secret" : "open") : "none" }, group);
  svg("rect", { x: -27 * k, y: -37 * k, width: 54 * k, height: 72 * k, rx: 10, class: "ivm-hit" }, glassSpot);
  if (seat.toMove) svg("rect", { x: -29 * k, y: -41 * k, width: 58 * k, height: 80 * k, rx: 14, class: "ivm-turn-ring" }, group);
  drawGlass(glassSpot, view, k);
  // the note under the glass clears its turn ring (39k), the name the note
  const noteY = 39 * k + 11;
  if (seat.note) text(group, 0, noteY, seat.note.words, { class: seat.note.cls });
  // Name and fate (a dead seat's skull goes on the line under its name, which keeps names narrow).
  const nameY = noteY + 18;
  const nameText = text(group, 0, nameY, seat.name.words, { class: "ivm-name" });
  if (seat.name.title) svg("title", {}, nameText).textContent = seat.name.title;
  svg("tspan", { class: "ivm-seatno", dx: 5 }, nameText).textContent = seat.name.number;
  if (!view.alive) {
    nameText.classList.add("ivm-name-dead");
    let len = 8.4 * (seat.name.words.length + 2);
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
  if (seat.fate) {
    const fate = text(group, 0, nameY + 18, seat.fate.words, { class: seat.fate.cls });
    if (seat.fate.label) fate.setAttribute("aria-label", seat.fate.label);
  }
  if (seat.dealer) {
    const d = svg("g", { class: "ivm-dealer", transform: `translate(${-markX(k)},${-22 * k})` }, group);
    svg("circle", { r: MARK_R }, d);
    text(d, 0, 5, "D", {});
    svg("title", {}, d).textContent = seat.dealer.title;
  }
  if (seat.cheese) {
    const c = svg("g", { class: "ivm-cheese", transform: `translate(${markX(k)},${-22 * k})` }, group);
    svg("circle", { r: MARK_R, class: "ivm-hit" }, c);
    svg("path", { d: "M-11,6 L11,-3 L11,6 Z", class: "ivm-cheese-wedge" }, c);
    svg("circle", { cx: 6, cy: 2.5, r: 1.6, class: "ivm-cheese-hole" }, c);
    text(c, 0, -6, "C", { class: "ivm-cheese-letter" });
    const steal = seat.cheese.steal;
    if (steal) clickable(c, steal.key, steal.words, () => onPour.act(steal.action.id));
    else svg("title", {}, c).textContent = seat.cheese.title;
  }
  const control = seat.control;
  if (control && control.kind === "pour") {
    group.classList.add("ivm-pour-here");
    clickable(glassSpot, control.key, control.words, (node) => onPour.open(seat.seat, control, node));
    text(group, 0, -41 * k - 6, t("pour here"), { class: "ivm-small ivm-pour-note" });
  } else if (control) clickable(glassSpot, control.key, control.words, () => onPour.act(control.action.id));
  else svg("title", {}, glassSpot).textContent = seat.glassTitle;
}

// The last swap or steal: a line between the two seats, tagged where it is clear.
function drawLine(parent, line) {
  const layer = svg("g", { class: "ivm-moves" }, parent);
  if (!line) return;
  svg("path", { d: line.d, class: `ivm-move-line ivm-move-${line.kind}` }, layer);
  if (line.spot) {
    svg("circle", { cx: line.spot.x, cy: line.spot.y, r: 12, class: "ivm-move-tag" }, layer);
    text(layer, line.spot.x, line.spot.y + 4.5, line.tag, { class: "ivm-move-tag-text" });
  }
}

// The centre's lines (round, dealer, deck, what the round did), as the layout placed them.
function drawCentre(parent, geo, lines) {
  const g = svg("g", { class: "ivm-centre", transform: `translate(${geo.cx},${geo.cy})` }, parent);
  for (const line of lines) {
    // (the tooltip on a group round the words, so that their text stays theirs alone)
    const holder = line.title ? svg("g", { class: "ivm-centre-summary" }, g) : g;
    if (line.title) svg("title", {}, holder).textContent = line.title;
    text(holder, 0, line.y, line.words, { class: line.cls });
  }
}

export function mount(root, ctx) {
  root.classList.add("ivm");
  const board = html("div", { class: "ivm-board" }, root);
  const legend = html("p", { class: "ivm-legend" }, root);
  legend.textContent =
    t("W wine \u00b7 P poison \u00b7 ? covered glass \u00b7 D dealer \u00b7 C cheese \u00b7 \u2620 dead");
  let popover = null;
  let last = null; // the last update
  let reveal = null; // {lr, shown, timer} while a round's glasses turn over
  let wide = root.clientWidth >= WIDE_MIN;
  const stopWatching = watchWidth(root, WIDE_MIN, (now) => {
    wide = now;
    if (last) draw();
  });
  const you = () => (last && last.observation ? last.observation.seat : ctx.you);
  const name = (s) => (ctx.seatName ? ctx.seatName(s) : `seat ${s}`);

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

  // The pour popover of `control` (the layout's pour: its deals and words), beside `anchor`.
  function openPopover(seat, control, anchor) {
    closePopover();
    popover = html("div", { class: "ivm-popover", role: "dialog", "aria-label": control.dialog }, root);
    popover.dataset.seat = String(seat);
    html("p", { class: "ivm-popover-title", text: control.title }, popover);
    const row = html("div", { class: "ivm-popover-row" }, popover);
    if (control.deals.length > 2) row.classList.add("ivm-popover-grid");
    for (const deal of control.deals) {
      const kind = KIND[deal.glass];
      const button = html("button", { type: "button", class: `ivm-pour ivm-pour-${kind.cls}`, "data-notation": deal.action.notation, "aria-label": deal.words }, row);
      html("span", { class: "ivm-pour-letter", "aria-hidden": "true", text: deal.letter }, button);
      html("span", { text: deal.text }, button);
      button.addEventListener("click", () => {
        closePopover();
        ctx.act(deal.action.id);
      });
    }
    const cancel = html("button", { type: "button", class: "ivm-cancel", "aria-label": t("Cancel"), text: "\u00d7" }, popover);
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

  function draw() {
    const msg = last;
    const plan = layout(msg, msg.legal || [], { wide, reveal, name, reducedMotion: Boolean(ctx.prefersReducedMotion) });
    const { geo } = plan;
    closePopover();
    const focusedKey = keyInFocus(board);
    board.textContent = "";
    const picture = svg("svg", {
      class: `ivm-svg ${wide ? "ivm-wide" : "ivm-narrow"}${plan.n > 5 ? " ivm-many" : ""}`,
      role: "group",
      "aria-label": t("In Vino Morte table"),
      viewBox: `0 0 ${geo.W} ${geo.H}`,
    }, board);
    if (geo.shape === 2) svg("ellipse", { cx: geo.cx, cy: geo.cy, rx: geo.feltX, ry: geo.feltY, class: "ivm-table" }, picture);
    else svg("path", { d: feltPath(geo), class: "ivm-table" }, picture);
    drawLine(picture, plan.line);
    drawCentre(picture, geo, plan.centre);
    const input = { act: (id) => ctx.act(id), open: openPopover };
    for (const seat of plan.seats) drawSeat(picture, seat, input);
    if (plan.skip) {
      const skip = svg("g", { class: "ivm-skip", transform: `translate(${geo.cx},${plan.skip.y})` }, picture);
      svg("rect", { x: -62, y: -16, width: 124, height: 30, rx: 15 }, skip);
      text(skip, 0, 4, plan.skip.text, {});
      clickable(skip, plan.skip.key, plan.skip.words, () => endReveal());
    }
    // keep the keyboard on the board: the same thing if it is still there, else the first move
    refocus(board, focusedKey, ".ivm-can");
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
      return turnText(msg.observation, reveal, name);
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
