// The seats bar above the table: one chip per seat (name, seat number, whose turn,
// away, won, a series' wins). `seatChips` is its pure view model (Node's tests call
// it); `drawSeatsBar` draws it.

import { h, replace } from "../dom.js";
import { t, tn } from "/static/i18n.js";

/**
 * The chips of update `msg` for the seat `you` (null: watching), named by `names`
 * (a SeatNames); `holding`: the table still shows the game's end, so no winner yet.
 * Each chip: {seat, name, title, seatLine, label, turn, you, away, won, dot, wins}.
 */
export function seatChips(msg, you, names, holding = false) {
  const series = msg.match_target !== null && msg.match_target !== undefined;
  const over = msg.status === "over" && !holding;
  const winners = new Set((msg.outcome && msg.outcome.winners) || []);
  return msg.seats.map((place) => {
    const turn = !over && msg.to_move === place.seat;
    const mine = place.seat === you;
    const won = over && winners.has(place.seat);
    const bits = [];
    // Translators: the parts of a seat chip's spoken label, joined by commas.
    if (mine) bits.push(t("you"));
    if (place.kind === "bot") bits.push(t("bot"));
    if (place.away) bits.push(t("away, a bot plays"));
    if (place.kind === "human") bits.push(place.connected ? t("here") : t("not connected"));
    if (turn) bits.push(t("to move"));
    if (won) bits.push(t("winner"));
    const title = names.seatName(place.seat);
    return {
      seat: place.seat,
      // The chip's own line says the seat, so twins need no "(seat N)" in the name.
      name: names.ownName(place.seat),
      title,
      seatLine: mine ? t("seat {seat} · you", { seat: place.seat }) : t("seat {seat}", { seat: place.seat }),
      label: t("{name}, seat {seat}: {state}", { name: title, seat: place.seat, state: bits.join(", ") }) + (series ? `, ${tn("{count} win", "{count} wins", place.wins)}` : ""),
      turn,
      you: mine,
      away: Boolean(place.away),
      won,
      dot: place.kind === "bot" ? "bot" : place.connected ? "on" : "off",
      wins: series ? place.wins : null,
    };
  });
}

/** Draw `chips` (seatChips) into the list `bar`. */
export function drawSeatsBar(bar, chips) {
  replace(
    bar,
    chips.map((chip) =>
      h(
        "li",
        {
          class: ["seat-chip", chip.turn && "turn", chip.you && "is-you", chip.away && "away", chip.won && "won"],
          dataset: { seat: String(chip.seat) },
          "aria-label": chip.label,
          "aria-current": chip.turn ? "true" : null,
        },
        h("span", { class: ["dot", chip.dot], "aria-hidden": "true" }),
        h("span", { class: "chip-name", title: chip.title }, chip.name),
        h("span", { class: "chip-seat", "aria-hidden": "true" }, chip.seatLine),
        chip.away ? h("span", { class: "tag tag-warn", "aria-hidden": "true" }, t("away")) : null,
        chip.turn ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶") : null,
        chip.won ? h("span", { class: "tag tag-good", "aria-hidden": "true" }, t("won")) : null,
        chip.wins !== null ? h("span", { class: "wins", "aria-hidden": "true" }, `★ ${chip.wins}`) : null,
      ),
    ),
  );
}
