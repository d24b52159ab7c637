// Turn-based play (docs/turn-based.md): a your-turn e-mail's link gives this device its
// seat, and any page of the site, signed in, tells the person by a browser notification
// when a turn becomes theirs (the Notification API; permission is asked from a click).

import { currentUser } from "./account.js";
import { api, keep } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

const POLL_MS = 20000; // how often an open page asks whose turn it is in the account's rooms

// The link's token after #turn= (kept out of the path: a fragment is never sent to a
// server, nor in a Referer). Its seat is kept for room `code`, and the token leaves the URL.
export async function turnLinkSeat(code) {
  const match = location.hash.match(/^#turn=([A-Za-z0-9_-]{1,64})$/);
  if (!match) return;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    const seat = await api.turnLink(match[1]);
    if (seat.room === code) keep(code, { seat_token: seat.token, name: seat.user });
  } catch {
    /* too old, or no longer the account's seat: the room opens as for anyone */
  }
}

function notifying() {
  return "Notification" in window && Notification.permission === "granted";
}

// The button that asks this browser's permission to notify (a click: browsers refuse a
// prompt no gesture asked for); null when there is nothing to ask.
export function notifyButton() {
  if (!("Notification" in window) || Notification.permission !== "default") return null;
  const button = h(
    "button",
    {
      type: "button",
      id: "notify-turns",
      class: "quiet",
      onclick: async () => {
        const answer = await Notification.requestPermission();
        button.hidden = true;
        if (answer === "granted") watchTurns(null);
      },
    },
    t("Notify me when it is my turn"),
  );
  return button;
}

let watching = false;

// Poll the account's games; a room whose turn became yours since the last look is
// notified (each room's notification has its own tag, so tabs that both notify show one).
// `here`: the room this page shows, told only when the page is hidden.
export async function watchTurns(here) {
  if (watching || !notifying() || !(await currentUser())) return;
  watching = true;
  let yours = null; // the first look only learns what is yours already
  const look = async () => {
    let games;
    try {
      games = await api.account.games();
    } catch {
      return;
    }
    const now = new Set(games.current.filter((g) => g.your_turn).map((g) => g.room));
    if (yours !== null) {
      for (const game of games.current) {
        if (!game.your_turn || yours.has(game.room)) continue;
        if (game.room === here && document.visibilityState === "visible") continue;
        const note = new Notification(t("Your turn in {game}", { game: game.title }), {
          body: t("Room {room}", { room: game.room }),
          tag: `turn-${game.room}`,
        });
        note.onclick = () => {
          window.focus();
          location.assign(game.link);
        };
      }
    }
    yours = now;
  };
  await look();
  setInterval(look, POLL_MS);
}
