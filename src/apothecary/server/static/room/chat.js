// The side panel's two tabs (the log and the table talk) and the chat: its lines,
// the form players write in (spectators read only), and the unread mark on its tab.

import { h, replace } from "../dom.js";
import { t } from "/static/i18n.js";

const CHAT_LIMIT = 500;

export class ChatPanel {
  /** `send(message)` sends on the room's socket (false when it could not); `you()` your seat or null. */
  constructor(send, you) {
    this.you = you;
    this.list = h("ol", { id: "chat-log", class: "chat-log", tabindex: "0", "aria-live": "polite", "aria-label": t("Table talk") });
    this.input = h("input", {
      type: "text",
      id: "chat-input",
      maxlength: CHAT_LIMIT,
      autocomplete: "off",
      placeholder: t("Say something to the table"),
      "aria-label": t("Chat message"),
    });
    this.form = h("form", { class: "chat-form", id: "chat-form" }, this.input, h("button", { type: "submit" }, t("Send")));
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const said = this.input.value.trim().slice(0, CHAT_LIMIT);
      if (!said) return;
      if (send({ type: "chat", text: said })) this.input.value = "";
    });
    this.tab = h(
      "button",
      { type: "button", role: "tab", id: "tab-chat", "aria-controls": "chat-panel", "aria-selected": "false", tabindex: "-1" },
      t("Chat"),
      h("span", { class: "unread", hidden: true, "aria-label": t("new messages") }, "•"),
    );
    this.panel = h(
      "section",
      { id: "chat-panel", role: "tabpanel", "aria-labelledby": "tab-chat", class: "side-panel", hidden: true },
      h("h2", { class: "side-title" }, t("Table talk")),
      this.list,
      this.form,
    );
  }

  /** The chat of a new connection (the welcome's), replacing what was shown. */
  reset(entries) {
    replace(this.list);
    (entries || []).forEach((entry) => this.add(entry, false));
  }

  add(entry, live) {
    const you = this.you();
    const mine = you !== null && entry.seat === you;
    const item = h(
      "li",
      { class: ["chat-line", mine && "mine"], dataset: { id: String(entry.id ?? "") } },
      h("span", { class: "chat-who" }, mine ? t("{name} (you)", { name: entry.name }) : entry.name || t("seat {seat}", { seat: entry.seat })),
      h("span", { class: "chat-text" }, entry.text),
    );
    this.list.append(item);
    this.list.scrollTop = this.list.scrollHeight;
    if (live && this.panel.hidden && !mine) this.tab.querySelector(".unread").hidden = false;
    this.drawForm();
  }

  /** The form for a player; a note for a spectator. */
  drawForm() {
    const watching = this.you() === null;
    this.form.hidden = watching;
    let note = this.panel.querySelector(".chat-note");
    if (watching && !note) {
      note = h("p", { class: "chat-note muted" }, t("Spectators read the table talk; players write it."));
      this.panel.append(note);
    } else if (!watching && note) note.remove();
  }

  /** Shown: the unread mark goes. */
  seen() {
    this.tab.querySelector(".unread").hidden = true;
  }
}

/**
 * Tabs over `panels` (arrow keys move between them); `onSelect(index)` after each
 * choice. Gives the function that selects a tab.
 */
export function tabbed(tabs, panels, onSelect) {
  const select = (index) => {
    tabs.forEach((tab, i) => {
      tab.setAttribute("aria-selected", i === index ? "true" : "false");
      tab.tabIndex = i === index ? 0 : -1;
      panels[i].hidden = i !== index;
    });
    onSelect(index);
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(i));
    tab.addEventListener("keydown", (event) => {
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        const next = (i + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length;
        select(next);
        tabs[next].focus();
      }
    });
  });
  return select;
}
