// A person's profile (/u/NAME, docs/ratings.md): games played and won and the rating per
// game and player count, the rating after each rated game drawn as an inline SVG from the
// JSON (no plotting library: the CSP allows this server's scripts only), and their recent
// games, each linking to its replay.

import { api } from "./api.js";
import { h, replace, svgNode, svgText } from "./dom.js";
import { loadPage, ratingText } from "./ratings.js";
import { language, t, tn, tx } from "/static/i18n.js";

const WIDTH = 480;
const HEIGHT = 180;
const PAD = 36;

// One polyline of the rating after each game, with its ± band, for one game and player count.
export function plot(points, label) {
  const svg = svgNode("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "rating-plot", role: "img", "aria-label": label });
  const series = [points[0].before, ...points];
  const low = Math.min(...series.map((p) => p.rating - p.plus_minus));
  const high = Math.max(...series.map((p) => p.rating + p.plus_minus));
  const x = (i) => PAD + (i * (WIDTH - 2 * PAD)) / Math.max(1, series.length - 1);
  const y = (v) => HEIGHT - PAD + ((low - v) * (HEIGHT - 2 * PAD)) / Math.max(1, high - low);
  const band = [...series.map((p, i) => `${x(i)},${y(p.rating + p.plus_minus)}`), ...series.map((p, i) => `${x(i)},${y(p.rating - p.plus_minus)}`).reverse()];
  svgNode("polygon", { points: band.join(" "), class: "plot-band", fill: "currentColor", "fill-opacity": 0.12 }, svg);
  svgNode("polyline", { points: series.map((p, i) => `${x(i)},${y(p.rating)}`).join(" "), class: "plot-line", fill: "none", stroke: "currentColor", "stroke-width": 2 }, svg);
  series.forEach((p, i) => svgNode("circle", { cx: x(i), cy: y(p.rating), r: 3, fill: "currentColor" }, svg));
  svgText(svg, 4, y(high) + 4, String(Math.round(high)), { "font-size": 11, fill: "currentColor" });
  svgText(svg, 4, y(low), String(Math.round(low)), { "font-size": 11, fill: "currentColor" });
  svgText(svg, WIDTH - PAD, HEIGHT - 8, tn("{count} game", "{count} games", points.length), { "font-size": 11, fill: "currentColor", "text-anchor": "end" });
  return svg;
}

function perGame(profile) {
  if (!profile.games.length) return h("p", { class: "muted", id: "profile-unrated" }, t("No rated game yet."));
  return profile.games.map((row) => {
    const points = profile.history.filter((p) => p.game === row.game && p.players === row.players);
    const label = `${row.game}, ${row.players} players`;
    return h(
      "section",
      { class: "profile-game", dataset: { game: row.game, players: String(row.players) } },
      h("h2", {}, h("a", { href: `/leaderboard/${row.game}` }, row.game), ` · ${tn("{count} player", "{count} players", row.players)}`),
      h(
        "p",
        {},
        tx("Rating {rating}", { rating: h("strong", { class: "rating" }, ratingText(row)) }),
        ` · ${t("{played} played, {won} won", { played: row.games, won: row.wins })}`,
      ),
      points.length ? plot(points, t("The rating in {game} after each game", { game: label })) : null,
    );
  });
}

function result(point) {
  if (point.abandoned) return "abandoned (a loss)";
  return point.won ? "won" : point.rank === 1 ? "drew" : "lost";
}

function recent(profile) {
  if (!profile.recent.length) return null;
  return h(
    "section",
    { class: "profile-recent" },
    h("h2", {}, t("Recent games")),
    h(
      "ul",
      {},
      profile.recent.map((p) =>
        h(
          "li",
          {},
          h("a", { href: p.replay }, tn("{game} ({count} player)", "{game} ({count} players)", p.players, { game: p.game })),
          ` · ${new Date(p.at * 1000).toLocaleString()} · ${result(p)} · ${p.before.rating} → ${p.rating}`,
        ),
      ),
    ),
  );
}

export async function showProfile(main, name) {
  const profile = await loadPage(main, t("No such player"), () => api.profile(name));
  if (!profile) return;
  document.title = t("{name} · apothecary", { name: profile.name });
  replace(
    main,
    h(
      "article",
      { class: "panel profile", id: "profile", dataset: { name: profile.name } },
      h("h1", {}, profile.name),
      h("p", { class: "muted" }, t("Playing here since {date}", { date: new Date(profile.created * 1000).toLocaleDateString(language()) })),
      perGame(profile),
      recent(profile),
    ),
  );
}
