// Tea, Scones and Arsenic: what the table shows, as data. Pure (no DOM), so
// Node's unit tests call it as the browser does: `layout(update, legal, names)`
// reads the update's observation and events and the legal actions' `move`
// (rules.md, "What the server sends") and says what each part of the table
// holds, which move each clickable thing plays, and the words to show, with
// every seat named by `names.name(seat)`. table.js draws it and handles input.
// Nothing here reads a notation, a label or an event's text.

import { joinNames, readWords } from "/static/words.js";
import { t, tn } from "/static/i18n.js";

/** Every kind's doses, in the order the box's digits show them. */
export const DOSES = [0, 0, 1, 1, 2, 3];

/** `words` cut to `most` characters, with "…" where they were cut. */
export function clip(words, most) {
  return words.length <= most ? words : `${words.slice(0, most - 1)}\u2026`;
}

/** The legal action whose `move` has every key of `want` at its value, or null. */
export function findMove(legal, want) {
  for (const action of legal || []) {
    const move = action.move || {};
    if (Object.keys(want).every((key) => move[key] === want[key])) return action;
  }
  return null;
}

/** The sound an event calls for, from its data: a death, cups turned over, or none. */
export function soundOf(event) {
  if (!event) return null;
  if ((event.deaths || []).length) return "death";
  if ((event.turned_over || []).length) return "reveal";
  return null;
}

const known = (dose) => dose !== null && dose !== undefined;
// Translators: a count of scones, as in "The box: 12 scones".
const scones = (count) => tn("{count} scone", "{count} scones", count);

/** The last event of the update that is not a dose being drawn (what "Last:" tells). */
export function lastEvent(update) {
  const events = update.events || [];
  for (let i = events.length - 1; i >= 0; i--) if (events[i].kind !== "dose") return events[i];
  return null;
}

/**
 * The seat words of a viewer: `name(s)`, `label(s)` (with "(you)"), `who(s)`
 * ("you" for `you`), and `own(s)`: the name the room gave the seat (the
 * update's `seats[s].name`), for where the table draws the seat's number beside
 * it (the shell's name of twins adds "(seat N)"), else `label(s)`.
 */
export function seatNames(names, you, seats = []) {
  const name = names.name || ((s) => t("seat {seat}", { seat: s }));
  const label = names.label || name;
  const who = (s) => (s === you ? t("you") : name(s));
  const own = (s) => (seats[s] && seats[s].name ? (s === you ? t("{name} (you)", { name: seats[s].name }) : seats[s].name) : label(s));
  return { name, label, who, own };
}

function control(key, words, action) {
  return { key, words, id: action.id, move: action.move };
}

function stripOf(obs, latest, names) {
  const { who } = names;
  const bits = [t("Lethal dose {dose}", { dose: obs.lethal_dose })];
  if (obs.players === 1) bits.push(t("solo: eat all you can and live"));
  if (obs.little_spoon) bits.push(t("little spoon in play"));
  const owing = obs.seats.map((s, i) => [i, s.honour_turns_left]).filter(([, t]) => t > 0);
  let honour = "";
  if (obs.eat_off) honour = t("Eat-off: {names} must eat", { names: joinNames(obs.eat_off.map(who)) });
  else if (obs.phase === "over") honour = t("The game is over");
  else if (obs.main_game_over) honour = t("The main game is over");
  // Translators: {owed} lists seats with their count, as in "Ann 2, Bob 1".
  else if (owing.length) honour = t("Honour turns owed: {owed} \u2014 nobody may stop", { owed: owing.map(([s, n]) => t("{name} {count}", { name: who(s), count: n })).join(", ") });
  else if (obs.players > 1) honour = t("No honour turns owed: stopping is allowed");
  // the action's own words: what it set off (then_words) is told by the log
  const last = latest ? t("Last: {words}", { words: readWords(latest.words, names.name) }) : null;
  return { bits, honour, owed: owing.length > 0, last };
}

function gaugeOf(obs) {
  const lethal = obs.lethal_dose;
  const you = obs.seat;
  if (you === null || you === undefined) return { watching: true, lethal };
  const seat = obs.seats[you];
  const total = seat.total === null ? 0 : seat.total;
  const hand = obs.hand && obs.turn === you && known(obs.hand.dose) ? obs.hand.dose : null;
  const alive = seat.alive;
  const left = lethal - total;
  const cells = [];
  for (let i = 0; i < lethal; i++) {
    if (i < total) cells.push(i >= lethal - 3 ? "hot" : "full");
    else if (hand !== null && i < total + hand) cells.push("hand");
    else cells.push("empty");
  }
  const ifEat = hand !== null && alive;
  return {
    watching: false,
    lethal,
    title: alive ? t("Your dose: {dose} of {lethal}", { dose: total, lethal }) : t("You died at dose {dose}", { dose: total }),
    note: !alive ? "" : left <= 3 ? `\u26a0 ${t("{count} more kills you", { count: left })}` : t("{count} more kills you", { count: left }),
    warn: left <= 3,
    cells,
    footer: ifEat ? t("if you eat the scone in hand: {total} + {hand} \u2192 {sum}", { total, hand, sum: total + hand }) : "0",
    footerBold: ifEat,
    lethalNote: ifEat ? "" : t("{dose} lethal", { dose: lethal }),
  };
}

function boxOf(obs, legal, latest, names, wide) {
  const { name, who } = names;
  const box = obs.box;
  const shuffleMove = findMove(legal, { kind: "shuffle" });
  // Doses this seat knows have left the unmarked part of the box, by kind.
  const out = Array.from({ length: 6 }, () => []);
  for (const seat of obs.seats) for (const c of seat.cup) if (known(c.dose)) out[c.kind - 1].push(c.dose);
  for (const m of box.marked) if (known(m.dose)) out[m.kind - 1].push(m.dose);
  if (obs.hand && known(obs.hand.dose)) out[obs.hand.kind - 1].push(obs.hand.dose);
  const kinds = [];
  for (let k = 1; k <= 6; k++) {
    const count = box.unmarked[k - 1];
    const gone = out[k - 1].slice();
    const doses = DOSES.map((dose) => {
      const at = gone.indexOf(dose);
      if (at >= 0) gone.splice(at, 1);
      return { dose, gone: at >= 0 };
    });
    const take = findMove(legal, { kind: "draw", scone: k, marked: null });
    kinds.push({
      kind: k,
      count,
      doses,
      control: take ? control(`kind-${k}`, t("Take a kind-{kind} scone ({count} left)", { kind: k, count }), take) : null,
      title: t("kind {kind}: {count} unmarked", { kind: k, count }),
      last: !!latest && latest.kind === "draw" && latest.scone === k && latest.marked_by === null,
    });
  }
  const lastBack = latest && (latest.kind === "back" || latest.kind === "spoon") && !latest.shuffle;
  const marked = box.marked.map((m, i) => {
    const dose = t("dose {dose}", { dose: known(m.dose) ? m.dose : "?" });
    const take = findMove(legal, { kind: "draw", marked: i });
    // whose mark, cut to the chip with the seat's number kept ("by medium b… #1")
    const most = wide ? 14 : 12;
    const tail = ` #${m.by}`;
    const by = m.by === obs.seat ? t("you") : `${clip(names.own(m.by), Math.max(2, most - tail.length))}${tail}`;
    const words = t("Take the marked kind-{kind} scone {name} put back ({dose})", { kind: m.kind, name: who(m.by), dose });
    return {
      index: i,
      kind: m.kind,
      by: m.by,
      // Translators: who marked a put-back scone, on its chip ("by Ann #1").
      byText: t("by {name}", { name: by }),
      dose,
      known: known(m.dose),
      control: take ? control(`marked-${i}`, words, take) : null,
      title: t("kind {kind}, put back by {name}, {dose}", { kind: m.kind, name: who(m.by), dose }),
      last: !!lastBack && i === box.marked.length - 1,
    };
  });
  return {
    heading: t("The box: {scones}", { scones: scones(box.scones) }),
    shuffle: shuffleMove ? control("shuffle", `\u21bb ${t("shuffle")}`, shuffleMove) : null,
    justShuffled: !!latest && (latest.kind === "shuffle" || (latest.kind === "back" && !!latest.shuffle)),
    kinds,
    marked,
  };
}

// The scone-in-hand panel's buttons: which move each plays and what it says.
const HAND_CHOICES = [
  [{ kind: "eat" }, "eat", () => t("Eat it")],
  [{ kind: "back", shuffle: false }, "back", () => t("Put back (\u22121 cube)")],
  [{ kind: "back", shuffle: true }, "back+shuffle", () => t("Put back + shuffle")],
  [{ kind: "spoon" }, "spoon", () => t("Use your little spoon")],
  [{ kind: "pass" }, "pass", () => t("Let them eat")],
];

// How a solo tea ended: the score is the scones eaten if alive, 0 if dead.
function soloWords(obs, names) {
  const seat = obs.seats[0];
  const eaten = scones(seat.scones);
  if (obs.seat === 0) {
    if (seat.alive) return t("You ate {scones} and lived: score {score}.", { scones: eaten, score: seat.scones });
    return t("You died at dose {dose} after {scones}: score 0.", { dose: seat.total, scones: eaten });
  }
  const name = names.name(0);
  if (seat.alive) return t("{name} ate {scones} and lived: score {score}.", { name, scones: eaten, score: seat.scones });
  return t("{name} died at dose {dose} after {scones}: score 0.", { name, dose: seat.total, scones: eaten });
}

/** The outcome's reason with names in place of seats (`reason_words` of the update's outcome). */
export function reasonOf(update, names) {
  const outcome = update.outcome || (update.observation && update.observation.outcome);
  if (!outcome) return "";
  return outcome.reason_words ? readWords(outcome.reason_words, names.name) : String(outcome.reason || "");
}

function handOf(update, legal, names) {
  const obs = update.observation;
  const { name, who } = names;
  const you = obs.seat;
  const hand = obs.hand;
  const mover = obs.to_move;
  const choices = [];
  for (const [want, key, say] of HAND_CHOICES) {
    const shown = say();
    const action = findMove(legal, want);
    if (action) {
      const c = control(`hand-${key}`, shown, action);
      c.label = t("{choice}: {move}", { choice: shown, move: readWords(action.words, who, { capital: true }) });
      c.tone = key === "eat" ? "eat" : key === "spoon" ? "spoon" : "";
      choices.push(c);
    }
  }
  let title;
  let detail = "";
  if (obs.phase === "over") {
    title = t("The tea is over");
    // solo has no rival to win "with most scones" against: its score and fate
    detail = obs.players === 1 ? soloWords(obs, names) : reasonOf(update, names);
  } else if (hand) {
    const holder = obs.turn;
    const dose = known(hand.dose) ? String(hand.dose) : "?";
    const kind = hand.kind;
    if (holder === you) title = obs.phase === "spoon" ? t("You chose to eat a kind-{kind} scone", { kind }) : t("In your hand: kind {kind}, dose {dose}", { kind, dose });
    else if (obs.phase === "spoon") title = t("{name} chose to eat a kind-{kind} scone", { name: name(holder), kind });
    else title = t("{name} holds a kind-{kind} scone", { name: name(holder), kind });
    if (obs.phase === "spoon") detail = mover === you ? t("Send it back with your little spoon?") : t("{name} may use a spoon", { name: who(mover) });
    else if (holder !== you) detail = t("dose {dose}: eat or put back?", { dose });
    else if (obs.seats[you].cubes === 0 || obs.eat_off) detail = obs.eat_off ? t("The eat-off: you must eat.") : t("No cube left: you must eat.");
    else detail = t("Eat it, or put it back for a sugar cube.");
  } else if (mover === you) {
    title = t("Your turn: take a scone");
    const marked = obs.box.marked.length > 0;
    if (marked && obs.stopping_allowed) detail = t("Tap a kind in the box or a marked scone, or stop (under your cup).");
    else if (marked) detail = t("Tap a kind in the box or a marked scone.");
    else if (obs.stopping_allowed) detail = t("Tap a kind in the box, or stop (under your cup).");
    else detail = t("Tap a kind in the box.");
  } else if (mover === null || mover === undefined) {
    title = t("A scone is being drawn");
  } else {
    title = t("{name} is choosing a scone", { name: name(mover) });
    detail = obs.stopping_allowed ? t("(or stopping)") : "";
  }
  return {
    title,
    detail,
    scone: hand ? { kind: hand.kind, dose: known(hand.dose) ? String(hand.dose) : "?" } : null,
    act: mover === you && choices.length > 0,
    choices,
  };
}

function seatsOf(update, latest, names, wide) {
  const obs = update.observation;
  const n = obs.players;
  const outcome = update.outcome || obs.outcome;
  return obs.seats.map((seat, s) => {
    const turn = obs.turn === s && obs.phase !== "over";
    const toMove = obs.to_move === s || turn;
    const winner = !!outcome && outcome.winners.includes(s);
    let state = seat.alive ? (seat.stopped ? `\u25a0 ${t("stopped")}` : t("eating")) : t("dead at dose {dose}", { dose: seat.total });
    if (winner) state = n === 1 ? `\u2605 ${t("survived")}` : `\u2605 ${t("winner")}`;
    else if (toMove && seat.alive) state = obs.to_move === s ? `\u25b6 ${t("to play")}` : `\u25b6 ${t("their turn")}`;
    const extras = [];
    if (obs.little_spoon) extras.push(seat.spoon ? t("has spoon") : t("spoon used"));
    // Translators: honour turns a seat still owes.
    if (seat.honour_turns_left) extras.push(t("owes {count}", { count: seat.honour_turns_left }));
    const eaten = !!latest && (latest.kind === "eat" || latest.kind === "pass") && (latest.actor === s || latest.eater === s);
    return {
      seat: s,
      name: clip(names.own(s), wide ? 22 : 14),
      fullName: seat.alive ? names.label(s) : t("{name}, dead", { name: names.label(s) }),
      alive: seat.alive,
      you: s === obs.seat,
      turn,
      toMove,
      last: !!latest && latest.actor === s,
      winner,
      state,
      scones: scones(seat.scones),
      total: t("dose {dose}", { dose: known(seat.total) ? seat.total : "?" }),
      totalKnown: known(seat.total),
      cubes: seat.cubes,
      extras: extras.join(" \u00b7 "),
      owed: seat.honour_turns_left > 0,
      cup: seat.cup.map((c, j) => ({
        kind: c.kind,
        dose: known(c.dose) ? String(c.dose) : "?",
        last: eaten && j === seat.cup.length - 1,
      })),
    };
  });
}

/**
 * What the table shows for `update` (its observation, events and outcome) and
 * its `legal` actions, names from `names` ({name, label}: the shell's seat
 * names), on a `wide` screen or a phone's: the status strip, your dose gauge,
 * the box, the scone in hand, the seats, and `controls`, every clickable thing
 * with the legal action it plays (`id`, `move`) and the words it says.
 */
export function layout(update, legal, names = {}, wide = true) {
  const obs = update.observation;
  const seatWords = seatNames(names, obs.seat, update.seats || []);
  const latest = lastEvent(update);
  const box = boxOf(obs, legal, latest, seatWords, wide);
  const hand = handOf(update, legal, seatWords);
  const stopMove = findMove(legal, { kind: "stop" });
  const stop = stopMove ? control("stop", `\u25a0 ${t("Stop eating (keep your scones)")}`, stopMove) : null;
  const controls = [
    ...(box.shuffle ? [box.shuffle] : []),
    ...box.kinds.filter((k) => k.control).map((k) => k.control),
    ...box.marked.filter((m) => m.control).map((m) => m.control),
    ...hand.choices,
    ...(stop ? [stop] : []),
  ];
  return {
    players: obs.players,
    you: obs.seat,
    strip: stripOf(obs, latest, seatWords),
    gauge: gaugeOf(obs),
    box,
    hand,
    seats: seatsOf(update, latest, seatWords, wide),
    stop,
    controls,
  };
}

/** The shell's one line on whose turn it is and what they may do. */
export function turnText(update, names = {}) {
  const obs = update.observation;
  if (!obs) return "";
  const you = obs.seat;
  const { name } = seatNames(names, you);
  if (obs.phase === "over") {
    const outcome = update.outcome || obs.outcome;
    const w = outcome ? outcome.winners : [];
    if (obs.players === 1) return obs.seats[0].alive ? t("Tea is over: {count} scones eaten, and alive", { count: obs.seats[0].scones }) : t("Tea is over: the arsenic won");
    if (!w.length) return t("Tea is over: nobody survived");
    if (w.length === 1) return w[0] === you ? t("You win with {count} scones", { count: obs.seats[you].scones }) : t("{name} wins with {count} scones", { name: name(w[0]), count: obs.seats[w[0]].scones });
    return t("{names} share the win", { names: joinNames(w.map((s) => (s === you ? t("you") : name(s)))) });
  }
  const mover = obs.to_move;
  if (mover === null || mover === undefined) return t("{name} takes a scone", { name: name(obs.turn) });
  const mine = mover === you;
  const hand = obs.hand;
  if (obs.phase === "spoon") {
    if (mine) return t("{name} chose to eat: use your little spoon, or let them eat", { name: name(obs.turn) });
    if (obs.turn === you) return t("{name} may use the little spoon on your scone", { name: name(mover) });
    return t("{name} may use the little spoon on {holder}'s scone", { name: name(mover), holder: name(obs.turn) });
  }
  if (obs.phase === "decide") {
    if (mine) {
      const may = obs.seats[you].cubes && !obs.eat_off;
      if (hand && hand.dose !== null) {
        const dose = hand.dose;
        return may ? t("Your scone (dose {dose}): eat it, or put it back for a sugar cube", { dose }) : t("Your scone (dose {dose}): you must eat it", { dose });
      }
      return may ? t("Your scone: eat it, or put it back for a sugar cube") : t("Your scone: you must eat it");
    }
    return t("{name} looks at the dose: eat or put back?", { name: name(mover) });
  }
  if (obs.eat_off) return mine ? t("The eat-off: take a scone and eat it") : t("The eat-off: {name} takes a scone", { name: name(mover) });
  if (obs.stopping_allowed) return mine ? t("Your turn: take a scone from the box, or stop") : t("{name} is choosing a scone, or stop", { name: name(mover) });
  return mine ? t("Your turn: take a scone from the box") : t("{name} is choosing a scone", { name: name(mover) });
}
