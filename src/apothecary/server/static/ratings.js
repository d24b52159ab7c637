// A game's leaderboard (/leaderboard/NAME, docs/ratings.md): one board per player count,
// best first by the conservative rating, accounts linking to their profiles, bot levels
// rated like people so a newcomer can see how strong each level plays.

import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { t, tn } from "/static/i18n.js";

// "1105 ± 968": the rating and its uncertainty, as the server shows them.
export function ratingText(entry) {
  return `${entry.rating} ± ${entry.plus_minus}`;
}

function boardTable(board) {
  const rows = board.entries.map((entry) =>
    h(
      "tr",
      { dataset: { name: entry.name, kind: entry.kind } },
      h("td", {}, String(entry.place)),
      h("td", {}, entry.kind === "user" ? h("a", { href: `/u/${encodeURIComponent(entry.name)}` }, entry.name) : entry.name),
      h("td", { class: "rating" }, ratingText(entry)),
      h("td", {}, String(entry.conservative)),
      h("td", {}, String(entry.games)),
      h("td", {}, String(entry.wins)),
    ),
  );
  return h(
    "table",
    { class: "board", "aria-label": tn("{count} player", "{count} players", board.players) },
    h(
      "thead",
      {},
      h("tr", {}, ["#", t("Player"), t("Rating"), t("Ranked by (μ − 3σ)"), t("Games"), t("Wins")].map((t) => h("th", { scope: "col" }, t))),
    ),
    h("tbody", {}, rows),
  );
}

async function otherGames(current) {
  try {
    const games = await api.games();
    return h(
      "p",
      { class: "board-games" },
      `${t("Other games:")} `,
      games.filter((g) => g.name !== current).map((g, i) => [i ? " · " : "", h("a", { href: `/leaderboard/${g.name}` }, g.title)]),
    );
  } catch {
    return null;
  }
}

// What `load()` answers, "Loading…" in `main` meanwhile; null once `main` says why there is
// nothing under the heading `missing` (the leaderboard's and the profile's page alike).
export async function loadPage(main, missing, load) {
  replace(main, h("p", { class: "muted" }, t("Loading…")));
  try {
    return await load();
  } catch (error) {
    replace(main, h("section", { class: "panel" }, h("h1", {}, missing), h("p", {}, error.message), h("a", { href: "/" }, t("Go to the lobby"))));
    return null;
  }
}

export async function showLeaderboard(main, game) {
  const answer = await loadPage(main, t("No leaderboard"), () => api.leaderboard(game));
  if (!answer) return;
  document.title = t("Leaderboard of {game} · apothecary", { game: answer.title });
  const boards = answer.boards.length
    ? answer.boards.map((board) => h("section", { class: "board-part", id: `board-${board.players}` }, h("h2", {}, tn("{count} player", "{count} players", board.players)), boardTable(board)))
    : [h("p", { class: "muted", id: "board-empty" }, t("No rated game of this game has been played yet."))];
  replace(
    main,
    h(
      "article",
      { class: "panel leaderboard", id: "leaderboard", dataset: { game } },
      h("h1", {}, t("Leaderboard: {game}", { game: answer.title })),
      h("p", { class: "help" }, t("A rating is 40 μ ± 40·3σ of openskill's estimate; the board ranks by the cautious μ − 3σ, so a lucky newcomer is not on top.")),
      boards,
      await otherGames(game),
    ),
  );
}
