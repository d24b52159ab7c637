// Tea, Scones and Arsenic: what the table shows, as data. Pure (no DOM), so
// Node's unit tests call it as the browser does: `layout(update, legal, names)`
// reads the update's observation and events and the legal actions' `move`
// (rules.md, "What the server sends") and says what each part of the table
// holds, which move each clickable thing plays, and the words to show, with
// every seat named by `names.name(seat)`. table.js draws it and handles input.
// Nothing here reads a notation, a label or an event's text.

import { joinNames, readWords } from "/static/words.js";
import { t } from "/static/i18n.js";

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
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

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
  const name = names.name || ((s) => `seat ${s}`);
  const label = names.label || name;
  const who = (s) => (s === you ? "you" : name(s));
  const own = (s) => (seats[s] && seats[s].name ? `${seats[s].name}${s === you ? " (you)" : ""}` : label(s));
  return { name, label, who, own };
}

function control(key, words, action) {
  return { key, words, id: action.id, move: action.move };
}

function stripOf(obs, latest, names) {
  const { who } = names;
  const bits = [`Lethal dose ${obs.lethal_dose}`];
  if (obs.players === 1) bits.push("solo: eat all you can and live");
  if (obs.little_spoon) bits.push("little spoon in play");
  const owing = obs.seats.map((s, i) => [i, s.honour_turns_left]).filter(([, t]) => t > 0);
  let honour = "";
  if (obs.eat_off) honour = `Eat-off: ${obs.eat_off.map(who).join(", ")} must eat`;
  else if (obs.phase === "over") honour = "The game is over";
  else if (obs.main_game_over) honour = "The main game is over";
  else if (owing.length) honour = `Honour turns owed: ${owing.map(([s, t]) => `${who(s)} ${t}`).join(", ")} \u2014 nobody may stop`;
  else if (obs.players > 1) honour = "No honour turns owed: stopping is allowed";
  // the action's own words: what it set off (then_words) is told by the log
  const last = latest ? `Last: ${readWords(latest.words, names.name)}` : null;
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
    note: !alive ? "" : left <= 3 ? `\u26a0 ${left} more kills you` : `${left} more kills you`,
    warn: left <= 3,
    cells,
    footer: ifEat ? `if you eat the scone in hand: ${total} + ${hand} \u2192 ${total + hand}` : "0",
    footerBold: ifEat,
    lethalNote: ifEat ? "" : `${lethal} lethal`,
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
      control: take ? control(`kind-${k}`, `Take a kind-${k} scone (${count} left)`, take) : null,
      title: t("kind {kind}: {count} unmarked", { kind: k, count }),
      last: !!latest && latest.kind === "draw" && latest.scone === k && latest.marked_by === null,
    });
  }
  const lastBack = latest && (latest.kind === "back" || latest.kind === "spoon") && !latest.shuffle;
  const marked = box.marked.map((m, i) => {
    const dose = known(m.dose) ? `dose ${m.dose}` : "dose ?";
    const take = findMove(legal, { kind: "draw", marked: i });
    // whose mark, cut to the chip with the seat's number kept ("by medium b… #1")
    const most = wide ? 14 : 12;
    const tail = ` #${m.by}`;
    const by = m.by === obs.seat ? "you" : `${clip(names.own(m.by), Math.max(2, most - tail.length))}${tail}`;
    const words = `Take the marked kind-${m.kind} scone ${who(m.by)} put back (${dose})`;
    return {
      index: i,
      kind: m.kind,
      by: m.by,
      byText: `by ${by}`,
      dose,
      known: known(m.dose),
      control: take ? control(`marked-${i}`, words, take) : null,
      title: t("kind {kind}, put back by {name}, {dose}", { kind: m.kind, name: who(m.by), dose }),
      last: !!lastBack && i === box.marked.length - 1,
    };
  });
  return {
    heading: `The box: ${plural(box.scones, "scone")}`,
    shuffle: shuffleMove ? control("shuffle", "\u21bb shuffle", shuffleMove) : null,
    justShuffled: !!latest && (latest.kind === "shuffle" || (latest.kind === "back" && !!latest.shuffle)),
    kinds,
    marked,
  };
}

// The scone-in-hand panel's buttons: which move each plays and what it says.
const HAND_CHOICES = [
  [{ kind: "eat" }, "eat", "Eat it"],
  [{ kind: "back", shuffle: false }, "back", "Put back (\u22121 cube)"],
  [{ kind: "back", shuffle: true }, "back+shuffle", "Put back + shuffle"],
  [{ kind: "spoon" }, "spoon", "Use your little spoon"],
  [{ kind: "pass" }, "pass", "Let them eat"],
];

// How a solo tea ended: the score is the scones eaten if alive, 0 if dead.
function soloWords(obs, names) {
  const seat = obs.seats[0];
  const subject = obs.seat === 0 ? "You" : names.name(0);
  const scones = plural(seat.scones, "scone");
  if (seat.alive) return `${subject} ate ${scones} and lived: score ${seat.scones}.`;
  return `${subject} died at dose ${seat.total} after ${scones}: score 0.`;
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
  for (const [want, key, shown] of HAND_CHOICES) {
    const action = findMove(legal, want);
    if (action) {
      const c = control(`hand-${key}`, shown, action);
      c.label = `${shown}: ${readWords(action.words, who, { capital: true })}`;
      c.tone = key === "eat" ? "eat" : key === "spoon" ? "spoon" : "";
      choices.push(c);
    }
  }
  let title;
  let detail = "";
  if (obs.phase === "over") {
    title = "The tea is over";
    // solo has no rival to win "with most scones" against: its score and fate
    detail = obs.players === 1 ? soloWords(obs, names) : reasonOf(update, names);
  } else if (hand) {
    const holder = obs.turn;
    const dose = known(hand.dose) ? String(hand.dose) : "?";
    if (holder === you) title = obs.phase === "spoon" ? `You chose to eat a kind-${hand.kind} scone` : `In your hand: kind ${hand.kind}, dose ${dose}`;
    else title = `${name(holder)} ${obs.phase === "spoon" ? "chose to eat" : "holds"} a kind-${hand.kind} scone`;
    if (obs.phase === "spoon") detail = mover === you ? "Send it back with your little spoon?" : `${who(mover)} may use a spoon`;
    else if (holder !== you) detail = `dose ${dose}: eat or put back?`;
    else if (obs.seats[you].cubes === 0 || obs.eat_off) detail = obs.eat_off ? "The eat-off: you must eat." : "No cube left: you must eat.";
    else detail = "Eat it, or put it back for a sugar cube.";
  } else if (mover === you) {
    title = "Your turn: take a scone";
    detail = `Tap a kind in the box${obs.box.marked.length ? " or a marked scone" : ""}${obs.stopping_allowed ? ", or stop (under your cup)" : ""}.`;
  } else if (mover === null || mover === undefined) {
    title = "A scone is being drawn";
  } else {
    title = `${name(mover)} is choosing a scone`;
    detail = obs.stopping_allowed ? "(or stopping)" : "";
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
    let state = seat.alive ? (seat.stopped ? "\u25a0 stopped" : "eating") : `dead at dose ${seat.total}`;
    if (winner) state = n === 1 ? "\u2605 survived" : "\u2605 winner";
    else if (toMove && seat.alive) state = obs.to_move === s ? "\u25b6 to play" : "\u25b6 their turn";
    const extras = [];
    if (obs.little_spoon) extras.push(seat.spoon ? "has spoon" : "spoon used");
    if (seat.honour_turns_left) extras.push(`owes ${seat.honour_turns_left}`);
    const eaten = !!latest && (latest.kind === "eat" || latest.kind === "pass") && (latest.actor === s || latest.eater === s);
    return {
      seat: s,
      name: clip(names.own(s), wide ? 22 : 14),
      fullName: `${names.label(s)}${seat.alive ? "" : ", dead"}`,
      alive: seat.alive,
      you: s === obs.seat,
      turn,
      toMove,
      last: !!latest && latest.actor === s,
      winner,
      state,
      scones: plural(seat.scones, "scone"),
      total: known(seat.total) ? `dose ${seat.total}` : "dose ?",
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
  const stop = stopMove ? control("stop", "\u25a0 Stop eating (keep your scones)", stopMove) : null;
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
    if (obs.players === 1) return obs.seats[0].alive ? `Tea is over: ${obs.seats[0].scones} scones eaten, and alive` : "Tea is over: the arsenic won";
    if (!w.length) return "Tea is over: nobody survived";
    if (w.length === 1) return w[0] === you ? `You win with ${obs.seats[you].scones} scones` : `${name(w[0])} wins with ${obs.seats[w[0]].scones} scones`;
    return `${joinNames(w.map((s) => (s === you ? "you" : name(s))))} share the win`;
  }
  const mover = obs.to_move;
  if (mover === null || mover === undefined) return `${name(obs.turn)} takes a scone`;
  const mine = mover === you;
  const hand = obs.hand;
  if (obs.phase === "spoon") return mine ? `${name(obs.turn)} chose to eat: use your little spoon, or let them eat` : `${name(mover)} may use the little spoon on ${obs.turn === you ? "your" : name(obs.turn) + "'s"} scone`;
  if (obs.phase === "decide") {
    if (mine) {
      const dose = hand && hand.dose !== null ? ` (dose ${hand.dose})` : "";
      return obs.seats[you].cubes && !obs.eat_off ? `Your scone${dose}: eat it, or put it back for a sugar cube` : `Your scone${dose}: you must eat it`;
    }
    return `${name(mover)} looks at the dose: eat or put back?`;
  }
  const stop = obs.stopping_allowed ? ", or stop" : "";
  if (obs.eat_off) return mine ? "The eat-off: take a scone and eat it" : `The eat-off: ${name(mover)} takes a scone`;
  return mine ? `Your turn: take a scone from the box${stop}` : `${name(mover)} is choosing a scone${stop}`;
}
