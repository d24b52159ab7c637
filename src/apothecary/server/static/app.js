// The browser client's entry: reads the path and shows the lobby (/), a game's
// rules page (/rules/NAME), a room (/rooms/CODE), a leaderboard (/leaderboard/NAME)
// or a person's profile (/u/NAME). Plain ES modules, no build step.

import { accountLink, seatFollows, showAccount } from "./account.js";
import { api } from "./api.js";
import { flask, h, replace } from "./dom.js";
import { chooseLanguage, language, LANGUAGES, loadLanguage, t } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { showProfile } from "./profile.js";
import { showLeaderboard } from "./ratings.js";
import { render as renderMarkdown } from "./markdown.js";
import { showReplay, showUpload } from "./replay.js";
import { showRoom } from "./room.js";
import { turnLinkSeat, watchTurns } from "./turns.js";

/** The language menu: the browser's choice until a person makes their own. */
function languageMenu() {
  const menu = h(
    "select",
    {
      id: "language",
      class: "language-menu",
      "aria-label": t("Language"),
      onchange: () => {
        chooseLanguage(menu.value);
        location.reload();
      },
    },
    Object.entries(LANGUAGES).map(([code, name]) => h("option", { value: code, lang: code, selected: code === language() }, name)),
  );
  return menu;
}

function frame() {
  const main = h("main", { id: "app", class: "app", tabindex: "-1" });
  const nav = h("nav", { "aria-label": t("Site") }, h("a", { href: "/", class: "nav-link" }, t("Lobby")), languageMenu());
  const header = h(
    "header",
    { class: "site-head" },
    h("a", { href: "/", class: "brand", "aria-label": t("apothecary: the lobby") }, flask(26), h("span", {}, "apothecary")),
    nav,
  );
  accountLink(nav).catch(() => {}); // a server without accounts' answer leaves "Sign in"
  const footer = h(
    "footer",
    { class: "site-foot" },
    h("p", {}, t("Four poison-themed games, played on this server. Rules run here; each device sees only what its seat may see.")),
  );
  replace(document.body, h("a", { href: "#app", class: "skip" }, t("Skip to the content")), header, main, footer);
  return main;
}

async function showRules(main, name) {
  replace(main, h("p", { class: "muted" }, t("Loading the rules…")));
  try {
    const [game, markdown] = await Promise.all([api.game(name), api.rules(name)]);
    document.title = t("Rules of {game} · apothecary", { game: game.title });
    replace(
      main,
      h(
        "article",
        { class: "panel markdown rules-page" },
        h("p", {}, h("a", { href: `/?game=${encodeURIComponent(name)}` }, t("← Back to the lobby"))),
        renderMarkdown(markdown),
      ),
    );
  } catch (error) {
    replace(main, h("section", { class: "panel" }, h("h1", {}, t("No rules found")), h("p", {}, error.message), h("a", { href: "/" }, t("Go to the lobby"))));
  }
}

await loadLanguage();
const main = frame();
const room = location.pathname.match(/^\/rooms\/([A-Za-z0-9_-]{1,32})\/?$/);
// /rules/NAME is the rules page; the older /?rules=NAME still works.
const rulesPath = location.pathname.match(/^\/rules\/([a-z0-9-]{1,64})\/?$/);
const rules = rulesPath ? rulesPath[1] : new URLSearchParams(location.search).get("rules");
const replay = location.pathname.match(/^\/replay\/([A-Za-z0-9_-]{1,32})\/(\d{1,7})\/?$/);
const board = location.pathname.match(/^\/leaderboard\/([a-z0-9-]{1,64})\/?$/);
const person = location.pathname.match(/^\/u\/([A-Za-z0-9_.-]{1,24})\/?$/);
// A signed-in person's seat in the room comes to this device first (docs/accounts.md).
// A your-turn e-mail's link (#turn=TOKEN) gives this device its seat first (docs/turn-based.md).
if (room) turnLinkSeat(room[1]).then(() => seatFollows(room[1])).finally(() => showRoom(main, room[1]));
else if (replay) showReplay(main, replay[1], Number(replay[2]));
else if (/^\/replay\/?$/.test(location.pathname)) showUpload(main);
else if (/^\/account\/?$/.test(location.pathname)) showAccount(main);
else if (board) showLeaderboard(main, board[1]);
else if (person) showProfile(main, person[1]);
else if (rules) showRules(main, rules);
else showLobby(main);
// Any page of the site, signed in: a browser notification when a turn becomes yours.
watchTurns(room ? room[1] : null);
