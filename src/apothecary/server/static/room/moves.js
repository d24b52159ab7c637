// Your moves: one button per legal action (its `words`, each seat by name), collapsed
// behind a summary when there are many, and in a room with hints the Hint button (the
// strongest bot's suggestion, found among the buttons by its action id).

import { api } from "../api.js";
import { h, replace } from "../dom.js";
import { t, tn, tx } from "/static/i18n.js";

const COLLAPSE_OVER = 12;

/** An action's words: its `words` runs, or its label as one run from an older server. */
export function actionRuns(action) {
  return Array.isArray(action.words) ? action.words : [String(action.label || action.notation || "")];
}

export class MovesPanel {
  /** `screen` gives `you`, `names`, `code`, `token`, `info` and `act(id)`. */
  constructor(screen) {
    this.screen = screen;
    this.element = h("section", { id: "legal", class: "legal", "aria-label": t("Your moves") });
  }

  draw(msg) {
    const { screen } = this;
    const legal = msg.legal || [];
    if (screen.you === null) {
      replace(this.element, h("p", { class: "muted watching" }, t("You are watching this game.")));
      return;
    }
    if (!legal.length) {
      replace(this.element);
      this.element.hidden = true;
      return;
    }
    this.element.hidden = false;
    const focused = document.activeElement?.dataset?.action;
    const buttons = legal.map((action) =>
      h(
        "button",
        {
          type: "button",
          class: "move",
          dataset: { action: String(action.id), notation: action.notation },
          title: action.notation,
          onclick: () => screen.act(action.id),
        },
        screen.names.text(actionRuns(action)),
      ),
    );
    const list = h("div", { class: "moves" }, buttons);
    if (legal.length > COLLAPSE_OVER) {
      replace(this.element, h("details", { class: "moves-details" }, h("summary", {}, tn("All {count} move as buttons", "All {count} moves as buttons", legal.length)), list));
    } else {
      replace(this.element, h("h2", { class: "moves-title" }, t("Your moves")), list);
    }
    if (screen.info.settings?.hints && screen.token) this.element.append(this.hintBox(msg, legal, buttons));
    const again = focused !== undefined && buttons.find((b) => b.dataset.action === focused);
    if (again) again.focus();
  }

  /** Lock the buttons (a move is on its way), or open them again. */
  lock(locked = true) {
    this.element.querySelectorAll("button[data-action]").forEach((b) => (b.disabled = locked));
  }

  // A casual room's hint: the strongest bot's suggestion for this position, asked of the
  // server with the seat token (it is computed from the committed game, for this seat only).
  hintBox(msg, legal, buttons) {
    const { screen } = this;
    const answer = h("span", { class: "hint-answer", id: "hint-answer", "aria-live": "polite" });
    const ask = async () => {
      button.disabled = true;
      replace(answer, t("Thinking…"));
      try {
        const data = await api.hint(screen.code, screen.token);
        if (data.state_id !== msg.state_id) {
          replace(answer, t("The position moved on; ask again."));
          return;
        }
        const best = data.suggestion;
        const action = legal.find((a) => a.id === best.action);
        replace(answer, tx("The bot suggests: {move}", { move: h("strong", {}, screen.names.text(actionRuns(action || best))) }));
        for (const b of buttons) b.classList.toggle("hinted", b.dataset.action === String(best.action));
      } catch (error) {
        replace(answer, t("No hint: {reason}", { reason: error.message }));
      } finally {
        button.disabled = false;
      }
    };
    const button = h("button", { type: "button", class: "quiet", id: "hint", onclick: ask }, t("Hint"));
    return h("p", { class: "hint-line" }, button, " ", answer);
  }
}
