// The coach of a learn-to-play room (docs/client.md, "Learn to play"): it reads the
// update's `coach` (the script's words as data, core/tutorial.py), says what happened
// and why, points at the table part the step names (an element whose data-part is the
// name, or whose data-KEY is VALUE, both given as data: seat-2 is [data-seat="2"]),
// marks the move to make, explains a wrong move the server refused, and at the end
// offers a real game against easy bots.

import { api, keep } from "../api.js";
import { h, replace, stylesheet, toast } from "../dom.js";
import { t } from "/static/i18n.js";

const SHOWN = 3; // the coach's last lines shown above the instruction

/** The elements of `root` that the coach's `part` ({name, key, value}) means. */
export function partElements(root, part) {
  if (!part) return [];
  const found = [...root.querySelectorAll(`[data-part="${CSS.escape(part.name)}"]`)];
  if (part.key) found.push(...root.querySelectorAll(`[data-${CSS.escape(part.key)}="${CSS.escape(part.value)}"]`));
  return found;
}

// One line of what the coach has said, marked with its step.
function lineItem(line) {
  return h("li", { class: "coach-line", dataset: { step: String(line.step) } }, line.text);
}

export class CoachPanel {
  /** `screen` gives `info`, `root` and `game`; the panel is hidden outside tutorial rooms. */
  constructor(screen) {
    this.screen = screen;
    this.element = h("section", { id: "coach", class: "coach panel", hidden: true, "aria-labelledby": "coach-title", "aria-live": "polite" });
    this.wrongText = null;
    this.lastStep = null;
    this.askedAt = null; // the last step at which you were asked to move
    this.moved = false; // whether you have made a move of the lesson on this page
  }

  /** Draw the coach of update `msg` (nothing if the room is not a tutorial). */
  draw(msg) {
    const coach = msg.coach;
    if (!coach) return;
    stylesheet("/static/room/coach.css", "coach");
    if (coach.step !== this.lastStep) this.wrongText = null; // a new step: the old correction goes
    if (this.askedAt !== null && coach.step > this.askedAt) this.moved = true;
    if (coach.now) this.askedAt = coach.step;
    this.lastStep = coach.step;
    this.element.hidden = false;
    this.element.dataset.step = String(coach.step);
    this.element.dataset.finished = coach.finished ? "yes" : "no";
    const items = coach.lines.slice(-SHOWN).map(lineItem);
    const body = [h("h2", { id: "coach-title", class: "coach-title" }, t("Coach")), h("p", { class: "coach-progress muted" }, t("Step {step} of {steps}", { step: Math.min(coach.step + 1, coach.steps), steps: coach.steps }))];
    // The lesson's introduction, open until your first move, then folded away.
    body.push(h("details", { class: "coach-about", open: !this.moved && !coach.finished }, h("summary", {}, t("About this lesson")), h("p", { class: "coach-intro" }, coach.intro)));
    if (items.length) body.push(h("ol", { class: "coach-lines" }, items));
    if (coach.now) body.push(h("p", { class: "coach-now", id: "coach-now" }, coach.now.text));
    if (this.wrongText) body.push(h("p", { class: "coach-wrong", id: "coach-wrong", role: "alert" }, this.wrongText));
    if (coach.finished) body.push(h("p", { class: "coach-outro", id: "coach-outro" }, coach.outro), this.realGameButton());
    replace(this.element, ...body);
    this.point(coach);
  }

  // Highlight the part the current step (or the last line) names, and the move to make.
  point(coach) {
    const root = this.screen.root;
    for (const old of root.querySelectorAll(".coach-target")) old.classList.remove("coach-target");
    const last = coach.lines[coach.lines.length - 1];
    const part = coach.now ? coach.now.part : last && last.step === coach.step - 1 ? last.part : null;
    const area = root.querySelector(".table-area") || root;
    for (const element of partElements(area, part)) element.classList.add("coach-target");
    if (part && part.name === "moves") root.querySelector("#legal")?.classList.add("coach-target");
    if (!coach.now) return;
    const button = [...root.querySelectorAll("#legal button[data-notation]")].find((b) => b.dataset.notation === coach.now.move);
    if (!button) return;
    button.classList.add("coach-target", "coach-move");
    const details = button.closest("details");
    if (details) details.open = true;
  }

  /** The server refused a move as not the lesson's: say why (the position is unchanged). */
  wrong(message) {
    this.wrongText = message;
    if (this.screen.msg) this.draw(this.screen.msg);
    this.screen.moves.lock(false);
  }

  realGameButton() {
    const { info } = this.screen;
    const play = async () => {
      try {
        const name = t("You");
        const answer = await api.create({ game: info.game, players: info.players, options: info.options, seats: ["open", ...Array(info.players - 1).fill("easy")], listed: false, host_name: name });
        keep(answer.code, { seat_token: answer.seat_token, host_token: answer.host_token, seat: answer.seat, name });
        await api.start(answer.code, answer.host_token);
        location.assign(answer.invite);
      } catch (error) {
        toast(t("The game was not created: {error}", { error: error.message }), "error");
      }
    };
    return h("button", { type: "button", class: "primary", id: "coach-real-game", onclick: play }, t("Play a real game against easy bots"));
  }
}
