// The result panel of a finished game: the headline, why it ended (the outcome's
// `reason_words`), the scores, a series' standing, and the rematch and replay links.

import { h, replace } from "../dom.js";
import { joinNames } from "../words.js";
import { t } from "/static/i18n.js";

/** The outcome's reason as words: `reason_words`, or the plain `reason` of an older server. */
export function reasonRuns(outcome) {
  if (!outcome) return [];
  if (Array.isArray(outcome.reason_words)) return outcome.reason_words;
  return outcome.reason ? [String(outcome.reason)] : [];
}

/** "Ann (you) wins", "Ann, Bob and Cy share the win", "Nobody wins"; `label(seat)` names a seat. */
export function winnersWords(outcome, label) {
  const names = (outcome.winners || []).map((s) => label(s));
  if (!names.length) return t("Nobody wins");
  const who = joinNames(names);
  return names.length > 1 ? t("{names} share the win", { names: who }) : t("{name} wins", { name: who });
}

/** A score as the table shows it: whole numbers as they are, others to two places. */
export function formatScore(score) {
  if (score === null || score === undefined) return "—";
  return Number.isInteger(score) ? String(score) : String(Math.round(score * 100) / 100);
}

/**
 * Draw the result of update `msg` into `box` (hidden while the game is not over, or
 * `holding`). `screen` gives `you`, `names` (SeatNames), `hostToken` and `rematch()`.
 */
export function drawResult(box, msg, screen, holding) {
  if (msg.status !== "over" || !msg.outcome || holding) {
    box.hidden = true;
    return;
  }
  const { names, you } = screen;
  const outcome = msg.outcome;
  const winners = new Set(outcome.winners || []);
  const scores = outcome.scores || [];
  const order = msg.seats.map((s) => s.seat).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
  const youWon = you !== null && winners.has(you);
  const headline = youWon ? (winners.size > 1 ? t("You share the win!") : t("You win!")) : winnersWords(outcome, (s) => names.seatLabel(s));
  const series = msg.match_target !== null && msg.match_target !== undefined;
  const reason = reasonRuns(outcome);
  const parts = [
    h("h2", { id: "result-title" }, headline),
    reason.length ? h("p", { class: "reason" }, names.pieces(reason, { capital: true })) : null,
    h(
      "table",
      { class: "scores" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Seat")), h("th", { scope: "col" }, t("Score")), series ? h("th", { scope: "col" }, t("Series")) : null)),
      h(
        "tbody",
        {},
        order.map((seat) =>
          h(
            "tr",
            { class: [winners.has(seat) && "won", seat === you && "is-you"] },
            h("td", {}, winners.has(seat) ? h("span", { class: "crown", "aria-label": t("winner") }, "♛ ") : null, names.seatLabel(seat)),
            h("td", { class: "num" }, formatScore(scores[seat])),
            series ? h("td", { class: "num" }, `${msg.seats[seat].wins} / ${msg.match_target}`) : null,
          ),
        ),
      ),
    ),
  ];
  if (series) {
    if (msg.series_winner !== null && msg.series_winner !== undefined) {
      parts.push(h("p", { class: "series-line" }, t("{winner} takes the series, first to {target} wins.", { winner: names.seatLabel(msg.series_winner), target: msg.match_target })));
    } else if (msg.waiting_for === "next_game") {
      parts.push(h("p", { class: "series-line" }, t("First to {target} wins takes the series. The next game starts in a moment…", { target: msg.match_target })));
    }
  }
  const actions = h("div", { class: "form-actions" });
  if (screen.hostToken && msg.waiting_for !== "next_game") {
    actions.append(
      h("button", { type: "button", class: "primary", id: "rematch", onclick: () => screen.rematch() }, series && msg.series_winner !== null ? t("Play a new series") : t("Rematch")),
    );
  } else if (msg.waiting_for !== "next_game") {
    actions.append(h("span", { class: "muted" }, t("The host may offer a rematch.")));
  }
  actions.append(h("a", { href: `/replay/${encodeURIComponent(screen.code)}/${msg.game_no}`, class: "button", id: "open-replay" }, t("Open the replay")));
  actions.append(h("a", { href: "/", class: "button" }, t("Back to the lobby")));
  parts.push(actions);
  replace(box, parts);
  box.hidden = false;
}
