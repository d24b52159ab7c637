// Words whose seats are data (apothecary.core.words on the server): a list of
// runs, each a string, {seat: n} or {seats: [n, ...]}. The client puts in names
// from these runs and never reads a sentence apart. Pure: no DOM, so Node's unit
// tests load it as the browser does.

import { t } from "/static/i18n.js";

/** `items` joined as a sentence joins them: [a, ", ", b, " and ", c] (items may be nodes). */
export function joinParts(items) {
  const out = [];
  items.forEach((item, i) => {
    // Translators: joins the last two names of a list ("Ann, Bob and Cy"); keep the spaces.
    if (i > 0) out.push(i === items.length - 1 ? t(" and ") : ", ");
    out.push(item);
  });
  return out;
}

/** "Ann, Bob and you": strings joined as a sentence joins them. */
export function joinNames(names) {
  return joinParts(names).join("");
}

/**
 * The pieces of `runs` with each seat given by `who(seat)` (a string or a DOM
 * node) and a list of seats joined: an array of strings and whatever `who`
 * returns. `capital` makes a leading string start with a capital letter.
 */
export function wordPieces(runs, who, { capital = false } = {}) {
  const out = [];
  for (const run of Array.isArray(runs) ? runs : []) {
    if (typeof run === "string") out.push(run);
    else if (run && Number.isInteger(run.seat)) out.push(who(run.seat));
    else if (run && Array.isArray(run.seats)) out.push(...joinParts(run.seats.map((s) => who(s))));
  }
  // Only words of the sentence take a capital; a name stays as its person wrote it.
  const first = Array.isArray(runs) ? runs[0] : undefined;
  if (capital && typeof first === "string" && first && typeof out[0] === "string") out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return out;
}

/** `runs` as one string, each seat named by `name(seat)`. */
export function readWords(runs, name, options = {}) {
  return wordPieces(runs, (s) => String(name(s)), options).join("");
}

/** An event's words with the clauses it set off (`then_words`), as its `text` reads
 * them: [...words, "; ", ...then, ...]. */
export function eventRuns(event) {
  const then = Array.isArray(event.then_words) ? event.then_words : [];
  return [...(Array.isArray(event.words) ? event.words : []), ...then.flatMap((runs) => ["; ", ...runs])];
}
