// The seats' names as the room shows them, and words (words.js runs) put together
// with them: a seat's name is data from the server, never read out of a sentence.

import { h } from "../dom.js";
import { readWords, wordPieces } from "../words.js";
import { t } from "/static/i18n.js";

export class SeatNames {
  /** `seats()` gives the seats as the last update (or the room) lists them, `you()` your seat or null. */
  constructor(seats, you) {
    this.seats = seats;
    this.you = you;
  }

  /** The seat's name alone, even when another seat has the same one. */
  ownName(seat) {
    const place = this.seats()[seat];
    if (!place) return `seat ${seat}`;
    return place.name || (place.kind === "open" ? t("open seat") : t("seat {seat}", { seat }));
  }

  /** The name, with "(seat N)" where two seats share it. */
  seatName(seat) {
    const seats = this.seats();
    const place = seats[seat];
    const name = this.ownName(seat);
    const twins = place ? seats.filter((s) => s.name === place.name).length : 0;
    return twins > 1 ? t("{name} (seat {seat})", { name, seat }) : name;
  }

  /** The name, with "(you)" for your seat. */
  seatLabel(seat) {
    return seat === this.you() ? t("{name} (you)", { name: this.seatName(seat) }) : this.seatName(seat);
  }

  /** A seat's name as the log and the result show it (yours marked). */
  who(seat) {
    return h("span", { class: ["who", seat === this.you() && "you"], dataset: { seat: String(seat) } }, this.seatLabel(seat));
  }

  /** `runs` as nodes, each seat's name a `who` node ("Ann (you), Bob and Cy" for a list). */
  pieces(runs, { capital = false } = {}) {
    return wordPieces(runs, (seat) => this.who(seat), { capital });
  }

  /** `runs` as one string, each seat by its label. */
  text(runs, options = {}) {
    return readWords(runs, (seat) => this.seatLabel(seat), options);
  }
}
