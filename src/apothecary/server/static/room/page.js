// The room page's frame: its header (code, title, watchers, hints badge, the rules
// dialog, the sound toggle), the banners (connection, away, a notice), and the layout
// that holds the parts the other modules draw.

import { api } from "../api.js";
import { h, replace } from "../dom.js";
import { render as renderMarkdown } from "../markdown.js";
import * as sound from "../sound.js";
import { t, tx } from "/static/i18n.js";

/** The rules of `game` (its name) in a dialog, loaded the first time it opens. */
export function rulesDialog(game, title) {
  const dialog = h(
    "dialog",
    { id: "rules-dialog", class: "rules-dialog", "aria-labelledby": "rules-dialog-title" },
    h(
      "div",
      { class: "dialog-head" },
      h("h2", { id: "rules-dialog-title" }, t("Rules of {game}", { game: title })),
      h("button", { type: "button", class: "quiet", onclick: () => dialog.close(), "aria-label": t("Close the rules") }, t("Close")),
    ),
    h("div", { class: "markdown", id: "rules-body" }, h("p", { class: "muted" }, t("Loading…"))),
  );
  const open = async () => {
    const body = dialog.querySelector("#rules-body");
    if (!body.dataset.loaded) {
      try {
        replace(body, renderMarkdown(await api.rules(game)));
        body.dataset.loaded = "yes";
      } catch (error) {
        replace(body, h("p", { class: "error" }, t("The rules could not be loaded: {error}", { error: error.message })));
      }
    }
    dialog.showModal();
  };
  return { dialog, open };
}

/** The sound toggle ("Sound on" / "Sound off"). */
export function soundButton() {
  const button = h("button", { type: "button", class: "quiet sound-toggle" });
  const draw = () => {
    const muted = sound.isMuted();
    button.textContent = muted ? t("Sound off") : t("Sound on");
    button.setAttribute("aria-pressed", muted ? "false" : "true");
    button.setAttribute("title", muted ? t("Turn the sound cues on") : t("Mute the sound cues"));
  };
  button.addEventListener("click", () => {
    sound.unlock();
    sound.setMuted(!sound.isMuted());
    draw();
  });
  draw();
  return button;
}

/** A banner that shows words (`show(words)`) and hides (`hide()`). */
export function banner(attrs) {
  const element = h("div", { role: "status", hidden: true, ...attrs });
  return {
    element,
    show(words) {
      element.textContent = words;
      element.hidden = false;
    },
    hide() {
      element.hidden = true;
    },
  };
}

/**
 * The room's page: `info` (the room's facts), `code`, and its parts: `watchers`,
 * `banners` (a list), `lobby`, `play` (the play column's parts), `side` (the side
 * panel's parts), `rules` (rulesDialog's) and `sound`.
 */
export function roomPage(code, info, parts) {
  return h(
    "section",
    { id: "room", class: "room", dataset: { code, game: info.game } },
    h(
      "header",
      { class: "room-head" },
      h("div", { class: "room-name" }, h("p", { class: "eyebrow" }, tx("Room {code}", { code: h("code", { class: "room-code" }, code) })), h("h1", {}, info.title)),
      h(
        "div",
        { class: "head-tools" },
        parts.watchers,
        info.settings?.hints
          ? h("span", { class: "badge hints-badge", id: "hints-badge", title: t("Each seat may ask the strongest bot for a suggestion on its turn") }, t("Hints on"))
          : null,
        h("button", { type: "button", class: "quiet", id: "rules-button", onclick: () => parts.rules.open(), "aria-haspopup": "dialog" }, t("Rules")),
        parts.sound,
      ),
    ),
    parts.banners,
    parts.lobby,
    h(
      "div",
      { class: "game-layout", id: "game-panel" },
      h("div", { class: "play-column" }, parts.play),
      h("aside", { class: "side", "aria-label": t("Log and chat") }, parts.side),
    ),
    parts.rules.dialog,
  );
}
