// The status line under the seats bar: whose turn it is (or the table's own words for
// it, its turnText), why the game ended, and the turn's clock counting down.

import { h, s as svgEl } from "../dom.js";
import { t, tn } from "../i18n.js";
import { reasonRuns } from "./result.js";

/** The status words of update `msg`; `screen` gives `you`, `names`, `table` and `holding`. */
export function statusWords(msg, screen) {
  const { names } = screen;
  if (msg.status === "over" && !screen.holding) {
    const reason = reasonRuns(msg.outcome);
    return reason.length ? t("Game over: {reason}", { reason: names.text(reason) }) : t("Game over");
  }
  let own = null;
  if (screen.table && typeof screen.table.turnText === "function") {
    try {
      own = screen.table.turnText(msg);
    } catch (error) {
      console.error(error);
    }
  }
  if (own) return own;
  const seat = msg.to_move;
  const who = seat === null || seat === undefined || seat < 0 ? null : t("{name} (seat {seat})", { name: names.seatName(seat), seat });
  switch (msg.waiting_for) {
    case "human":
      if (seat === screen.you) return (msg.legal || []).length ? t("Your turn: choose a move") : t("Your turn");
      return t("Waiting for {who}", { who });
    case "bot":
      if (msg.seats[seat]?.away) return t("A bot is playing for {who}, who is away", { who });
      return t("{who} is thinking…", { who });
    case "chance":
      return t("The game draws by chance…");
    case "next_game":
      return t("The next game of the series starts in a moment…");
    default:
      return t("Waiting…");
  }
}

export class StatusLine {
  constructor() {
    this.words = h("span", { class: "status-text" });
    this.clockText = h("span", { class: "clock-text" });
    this.clock = h(
      "span",
      { id: "clock", class: "clock", role: "timer", hidden: true },
      svgEl(
        "svg",
        { viewBox: "0 0 16 16", "aria-hidden": "true" },
        svgEl("circle", { cx: "8", cy: "9", r: "6", fill: "none", stroke: "currentColor", "stroke-width": "1.6" }),
        svgEl("path", { d: "M8 5.5V9l2.2 1.6M6.5 1.5h3", fill: "none", stroke: "currentColor", "stroke-width": "1.6", "stroke-linecap": "round" }),
      ),
      this.clockText,
    );
    this.element = h("p", { id: "status", class: "status-line", "aria-live": "polite" }, this.words, this.clock);
    this.msg = null;
    this.skew = 0;
  }

  draw(msg, screen) {
    this.msg = msg;
    const words = statusWords(msg, screen);
    if (this.words.textContent !== words) this.words.textContent = words;
    this.element.classList.toggle("your-turn", (msg.legal || []).length > 0);
    this.tick();
  }

  // The clock, by the server's time (`skew`: how far the device's clock is from it).
  tick() {
    const msg = this.msg;
    if (!msg || !msg.deadline || msg.status !== "playing") {
      this.clock.hidden = true;
      return;
    }
    const left = Math.max(0, msg.deadline - (Date.now() / 1000 + this.skew));
    const whole = Math.ceil(left);
    const shown = `${String(Math.floor(whole / 60))}:${String(whole % 60).padStart(2, "0")}`;
    this.clock.hidden = false;
    if (this.clockText.textContent !== shown) {
      this.clockText.textContent = shown;
      this.clock.setAttribute("aria-label", tn("{count} second left to move", "{count} seconds left to move", whole));
    }
    this.clock.classList.toggle("warn", left < 10);
  }
}
