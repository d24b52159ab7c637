// Little Drop of Poison's table as data: what to draw, and which move each
// clickable thing plays, computed from an update message alone. Pure (no DOM):
// table.js draws what `layout` returns, and Node's unit tests call it as the
// browser does (tests/games/little_drop_of_poison/test_little_drop_of_poison_table_layout.py).
//
// Moves are found by their structured form (`action.move`: rules.md, "What the
// server sends"), seats are named from data (event keys, observation keys and
// `words` runs read by /static/words.js), and a card is drawn from the
// observation's `card_types`: nothing here reads notation, text or labels apart.

import { joinNames } from "/static/words.js";
import { t, tn } from "/static/i18n.js";

/** "1 card", "2 cards". */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** Expand {code: count} into a list of codes, in the deck's order of kinds. */
export function expand(counts, order) {
  const out = [];
  const codes = Object.keys(counts || {});
  codes.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  for (const code of codes) for (let k = 0; k < counts[code]; k += 1) out.push(code);
  return out;
}

/** What a card code means, from the observation's `card_types`:
 * {kind: poison|antidote|universal|unknown, colours, drops, words}. */
export function cardInfo(code, obs) {
  const type = (obs.card_types || {})[code];
  if (!type) return { kind: "unknown", colours: [], drops: 0, words: code };
  const colours = type.colours || [];
  let words = "universal antidote";
  if (type.kind === "antidote") words = `${colours[0]} antidote`;
  else if (type.kind === "poison") words = `${plural(type.drops, "drop")} of ${colours.join(" and ")}`;
  return { kind: type.kind, colours, drops: type.drops, words };
}

/** A card in words for a sentence, as the log words it (the game's events.card_words):
 * "a blue poison of 2 drops", "a green and purple poison of 1 drop each", "a blue
 * antidote", "a universal antidote". */
export function cardWords(code, obs) {
  const card = cardInfo(code, obs);
  const a = (words) => `${"aeio".includes(words[0]) ? "an" : "a"} ${words}`;
  if (card.kind === "poison") {
    return a(`${card.colours.join(" and ")} poison of ${plural(card.drops, "drop")}${card.colours.length > 1 ? " each" : ""}`);
  }
  if (card.kind === "antidote") return a(`${card.colours[0]} antidote`);
  return card.kind === "universal" ? "a universal antidote" : code;
}

/** The update's legal moves by their structured form: `targets` (character -> action),
 * `adds` (card code -> action), `other` ("done"/"pass" -> action), and `target`, the
 * character this seat already plays on (null when it is still to be chosen). */
export function legalMoves(update) {
  const targets = new Map();
  const adds = new Map();
  const other = new Map();
  for (const action of update.legal || []) {
    const move = action.move || {};
    if (move.kind === "target") targets.set(String(move.on), action);
    else if (move.kind === "card") adds.set(move.card, action);
    else if (move.kind === "done" || move.kind === "pass") other.set(move.kind, action);
  }
  const obs = update.observation || {};
  let target = null;
  if (obs.seat !== null && obs.seat !== undefined && obs.to_move === obs.seat) {
    const me = (obs.seats || [])[obs.seat];
    if (me && me.played_on !== null && me.played_on !== undefined) target = me.played_on;
  }
  return { targets, adds, other, target };
}

/** Seat names with a number added where two seats share one: `{name, label, who}`
 * from the shell's `baseName`/`baseLabel` (ctx), for `players` seats and the reader `you`. */
export function seatNamer(players, baseName, baseLabel, you) {
  const seen = new Map();
  const twins = new Set();
  for (let seat = 0; seat < players; seat += 1) {
    const key = baseName(seat);
    if (seen.has(key)) {
      twins.add(seen.get(key));
      twins.add(seat);
    } else {
      seen.set(key, seat);
    }
  }
  const name = (seat) => (twins.has(seat) ? `${baseName(seat)} ${seat}` : baseName(seat));
  // The shell's label is the name with "(you)" for the reader's own seat; a twin's
  // number goes in by putting that mark on our own name, never by editing its string.
  const label = (seat) => (!twins.has(seat) ? baseLabel(seat) : seat === you ? `${name(seat)} (you)` : name(seat));
  const who = (seat) => (seat === you ? "you" : name(seat));
  return { name, label, who, you };
}

/** `who` in at most `most` characters: cut, with the seat's number kept (a
 * long name is often told from another only by the end the cut takes off). */
export function shortWho(who, seat, most) {
  if (who.length <= most) return who;
  const tail = ` #${seat}`;
  return `${who.slice(0, Math.max(1, most - tail.length - 1))}\u2026${tail}`;
}

/** The character `on` ("king" or a seat as text) as `actor` would be told of it. */
export function characterWords(on, obs, names, actor = names.you) {
  if (on === "king") return `the ${obs.king ? `${obs.king} ` : ""}king`;
  const seat = Number(on);
  if (seat === actor) return actor === names.you ? "your own peasant" : "their own peasant";
  return seat === names.you ? "your peasant" : `${names.name(seat)}'s peasant`;
}

/** The header's items. */
export function headItems(obs) {
  return [
    { text: t("Assassination round {number}", { number: obs.assassination_round }) },
    { text: t("poison round {number}", { number: obs.poison_round }) },
    { text: tn("first to {count} point", "first to {count} points", obs.target), goal: true },
    // Translators: the cards left to draw.
    { text: t("deck {count}", { count: obs.deck }) },
    // Translators: the cards in the discard pile.
    { text: t("discards {count}", { count: obs.discard_count }) },
  ];
}

/** Drops per colour on a pile (a blocked colour counts zero), and the blocked colours. */
export function meters(info, obs) {
  const blocked = new Set(info.blocked || []);
  const drops = new Map((obs.colours || []).map((c) => [c, 0]));
  for (const code of Object.keys(info.cards || {})) {
    const card = cardInfo(code, obs);
    if (card.kind !== "poison") continue;
    for (const colour of card.colours) drops.set(colour, (drops.get(colour) || 0) + card.drops * info.cards[code]);
  }
  for (const colour of blocked) drops.set(colour, 0);
  return (obs.colours || []).map((colour) => ({ colour, drops: drops.get(colour) || 0, blocked: blocked.has(colour) }));
}

function doingWords(seatInfo, character, obs, names) {
  const on = seatInfo.played_on;
  if (on === null || on === undefined) return seatInfo.seat === names.you ? "your turn" : "choosing…";
  if (on === "king") return "playing on the king";
  if (on === character) return `playing on ${characterWords(character, obs, names, seatInfo.seat)}`;
  return `playing on ${names.name(Number(on))}`;
}

/** One character's mat: what it shows and, when it can be chosen, the action it plays. */
function characterMat(character, obs, moves, view) {
  const { names } = view;
  const isKing = character === "king";
  const seatInfo = isKing ? null : obs.seats[Number(character)];
  const alive = isKing ? obs.king_alive !== false : seatInfo.alive;
  const info = obs.table[character] || { cards: {}, blocked: [] };
  const lethal = isKing ? obs.king_lethal : obs.peasant_lethal;
  const bars = meters(info, obs);
  const danger = bars.filter((m) => m.drops > 0).map((m) => `${m.drops} of ${lethal} ${m.colour}`);
  const mat = {
    character,
    isKing,
    seat: isKing ? null : seatInfo.seat,
    alive,
    moving: !isKing && obs.to_move === Number(character),
    title: isKing ? (obs.king ? t("The {suit} king", { suit: obs.king }) : t("The king")) : names.label(seatInfo.seat),
    kind: isKing ? null : seatInfo.kind,
    starts: !isKing && obs.starting_seat === seatInfo.seat,
    lethal,
    meters: bars,
    faceUp: expand(info.cards, obs.cards || []),
    plays: (obs.seats || [])
      .filter((s) => s.played_on === character && s.played > 0)
      .map((s) => ({
        seat: s.seat,
        count: s.played,
        mine: s.seat === names.you,
        known: s.seat === names.you ? expand(obs.my_play || {}, obs.cards || []) : [],
        who: names.who(s.seat),
        short: shortWho(names.who(s.seat), s.seat, 12),
        last: Boolean(view.lastPlay && view.lastPlay.seat === s.seat && view.lastPlay.on === character),
      })),
    isTarget: moves.target === character,
    ariaLabel: [
      isKing ? (obs.king ? t("the {suit} king", { suit: obs.king }) : t("the king")) : tn("{name}, {role}, {count} point", "{name}, {role}, {count} points", seatInfo.score, { name: names.label(seatInfo.seat), role: seatInfo.kind || t("peasant") }),
      alive ? null : t("dead"),
      danger.length ? t("drops: {drops}", { drops: danger.join(", ") }) : t("no drops"),
    ].filter(Boolean).join("; "),
    action: null,
    hitLabel: null,
  };
  if (isKing) {
    mat.sub = `dies at ${obs.king_lethal} drops of one colour`;
  } else {
    mat.score = seatInfo.score;
    mat.gain = seatInfo.round_points;
    mat.handCount = seatInfo.hand;
    if (mat.moving) mat.doing = doingWords(seatInfo, character, obs, names);
  }
  const action = moves.targets.get(character);
  if (action) {
    mat.action = action;
    mat.hitLabel = view.selected
      ? `Put ${cardInfo(view.selected, obs).words} on ${characterWords(character, obs, names)}`
      : `Play on ${characterWords(character, obs, names)}`;
  }
  return mat;
}

/** The Done button's words, and its full name (the words come first in it). */
function doneWords(obs, names) {
  const me = obs.seats[obs.seat];
  if (!me || !me.played_on) return ["Done", "Done"];
  const on = me.played_on === "king" ? "the king" : Number(me.played_on) === obs.seat ? "your peasant" : `${names.name(Number(me.played_on))}'s peasant`;
  const words = `Done: ${plural(me.played, "card")}`;
  return [words, `${words} face down on ${on}`];
}

/** The hand: its cards (each with the action it plays, if any) and the Done/Pass buttons. */
export function handView(obs, moves, view) {
  if (obs.seat === null || obs.seat === undefined || !obs.hand || obs.phase === "over" || obs.outcome) {
    return { shown: false, title: "", cards: [], buttons: [] };
  }
  const me = obs.seats[obs.seat];
  const canChoose = moves.targets.size > 0; // a character is still to be chosen
  const cards = expand(obs.hand, obs.cards || []).map((code, slot) => {
    const card = cardInfo(code, obs);
    const add = moves.adds.get(code) || null;
    const live = canChoose || Boolean(add);
    const chosen = view.selected === code && view.selectedSlot === slot;
    let words = null;
    if (add) words = `: add ${card.words} face down on ${characterWords(moves.target, obs, view.names)}`;
    else if (live) words = `: ${card.words}; choose it, then a character`;
    return { code, slot, live, add, chosen: live && !add && chosen, words, aria: `${code}, ${card.words}` };
  });
  const buttons = [];
  const done = moves.other.get("done");
  if (done) {
    const [words, full] = doneWords(obs, view.names);
    buttons.push({ kind: "done", text: words, label: full, action: done });
  }
  const pass = moves.other.get("pass");
  if (pass) buttons.push({ kind: "pass", text: t("Pass"), label: t("Pass: you have no card to play"), action: pass });
  const title = me && !me.alive ? "Your hand (your peasant is dead this round)" : "Your hand";
  return { shown: true, title, cards, buttons };
}

function playedOn(play, names) {
  if (play.on === "king") return "the king";
  if (Number(play.on) === play.seat) return "own peasant";
  return `${Number(play.on) === names.you ? "your" : `${names.name(Number(play.on))}'s`} peasant`;
}

/** The last reveal: its key (a new one is turned over), its rows of cards and its result in words. */
export function revealView(obs, names) {
  const reveal = obs.last_reveal;
  if (!reveal) return null;
  const rows = (reveal.plays || []).map((play) => {
    const cards = expand(play.cards, obs.cards || []);
    return {
      seat: play.seat,
      who: `${play.seat === names.you ? "You" : names.name(play.seat)} → ${playedOn(play, names)}`,
      cards,
      aria: cards.map((c) => `${c} (${cardInfo(c, obs).words})`).join(", "),
    };
  });
  const deaths = (reveal.deaths || []).map((death) => {
    const victim = death.character === "king" ? "the king" : Number(death.character) === names.you ? "your peasant" : `${names.name(Number(death.character))}'s peasant`;
    const by = (death.killers || []).map(names.who);
    return `${victim} dies${by.length ? `, poisoned by ${joinNames(by)}` : ""}`;
  });
  const gained = (reveal.points || []).map((p, s) => (p ? `${names.who(s)} +${p}` : null)).filter(Boolean);
  let result = deaths.length ? `☠ ${deaths.join("; ")}.` : "Nobody dies.";
  if (gained.length) result += ` Points: ${gained.join(", ")}.`;
  else if (deaths.length) result += " No points.";
  for (const hand of reveal.discarded_hands || []) {
    const cards = expand(hand.cards, obs.cards || []);
    // in words, as the log says them (its codes, "b1 b1 g1", were the only ones left)
    if (cards.length) result += ` ${hand.seat === names.you ? "Your" : `${names.name(hand.seat)}'s`} hand is discarded face up: ${joinNames(cards.map((c) => cardWords(c, obs)))}.`;
  }
  return {
    key: `${reveal.assassination_round}.${reveal.poison_round}`,
    title: t("The reveal of poison round {poison} (assassination round {assassination})", { poison: reveal.poison_round, assassination: reveal.assassination_round }),
    rows,
    total: rows.reduce((n, row) => n + row.cards.length, 0),
    result,
  };
}

/** The line above the table: whose turn, and what they do; or who won. */
export function turnText(update, names) {
  const obs = update.observation;
  if (!obs || !obs.seats) return "";
  const outcome = update.outcome || obs.outcome;
  if (outcome) {
    const winners = (outcome.winners || []).map(names.who);
    const best = Math.max(...(outcome.scores || [0]));
    if (winners.length === 1) return `${winners[0] === "you" ? "You win" : `${winners[0]} wins`} with ${plural(best, "point")}`;
    return `${joinNames(winners)} share the win with ${plural(best, "point")}`;
  }
  const seat = obs.to_move;
  if (seat === null || seat === undefined) {
    if (obs.phase === "king") return "A new assassination round: the king is drawn";
    if (obs.phase === "peasants") return "The peasants are dealt";
    return "The poison cards are dealt";
  }
  const info = obs.seats[seat];
  if (seat === names.you && (update.legal || []).length > 0) {
    const moves = legalMoves(update);
    if (moves.other.has("pass") && !moves.targets.size) return "Your turn: you have no card, so you pass";
    if (moves.targets.size) return "Your turn: choose a card, then the king or a peasant to put it on";
    return `Your turn: add more cards on ${characterWords(info.played_on, obs, names)}, or Done`;
  }
  if (info.played_on === null || info.played_on === undefined) return `${names.name(seat)} is choosing whom to poison`;
  return `${names.name(seat)} is playing on ${characterWords(info.played_on, obs, names, seat)} (${plural(info.played, "card")} so far)`;
}

/** The latest card put face down ({seat, on}), after `events`, from `before`; a
 * reveal or a new king clears it. */
export function latestPlay(events, before) {
  let last = before;
  for (const event of events || []) {
    if (event.kind === "card" || event.kind === "target") last = { seat: event.actor, on: event.on };
    else if (event.reveal || event.kind === "king") last = null;
  }
  return last;
}

/** The sound of an event, from its data: a reveal with a death, a reveal, or none. */
export function soundOf(event) {
  const reveal = event && event.reveal;
  if (!reveal) return null;
  return (reveal.deaths || []).length ? "death" : "reveal";
}

/**
 * What to draw for `update`, read by `view`: `{names, selected, selectedSlot,
 * lastPlay}` (`names` from `seatNamer`; `selected` the card chosen in the hand).
 * Returns `{moves, selected, head, characters, hand, reveal, turn}`; each mat and
 * card that can be clicked holds the legal action it plays.
 */
export function layout(update, view) {
  const obs = update.observation;
  const moves = legalMoves(update);
  let selected = view.selected || null;
  if (selected && !(obs.hand && obs.hand[selected])) selected = null;
  if (selected && moves.targets.size === 0) selected = null;
  const seen = { ...view, selected, selectedSlot: selected ? view.selectedSlot : null };
  const list = ["king", ...(obs.seats || []).map((seat) => String(seat.seat))];
  return {
    moves,
    selected,
    head: headItems(obs),
    characters: list.map((character) => characterMat(character, obs, moves, seen)),
    hand: handView(obs, moves, seen),
    reveal: revealView(obs, view.names),
    turn: turnText(update, view.names),
  };
}
