// The lobby's "Learn to play" button (docs/client.md, "Learn to play"): it asks the
// server for a tutorial room of the game, seated and started, keeps the seat's token
// as any room's, and opens the room, where the coach (room/coach.js) takes over.

import { api, keep, setting } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "/static/i18n.js";

/** The button that starts `game`'s tutorial (a game whose info says `tutorial: true`). */
export function learnButton(game) {
  const button = h("button", { type: "button", class: "learn", dataset: { learn: game.name } }, t("Learn to play"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    const name = setting("name") || t("You");
    try {
      const answer = await api.tutorial(game.name, name);
      keep(answer.code, { seat_token: answer.seat_token, host_token: answer.host_token, seat: answer.seat, name });
      location.assign(answer.invite);
    } catch (error) {
      toast(t("The tutorial could not start: {error}", { error: error.message }), "error");
      button.disabled = false;
    }
  });
  return button;
}
