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
export function cards(n) {
  return tn("{count} card", "{count} cards", n);
}

/** A colour of the deck in the page's language (a deck may name its own: those stay as written). */
export function colourWord(colour) {
  const named = { blue: t("blue"), green: t("green"), purple: t("purple"), red: t("red"), yellow: t("yellow"), black: t("black"), white: t("white"), orange: t("orange") };
  return Object.hasOwn(named, colour) ? named[colour] : colour;
}

const colourList = (colours) => joinNames(colours.map(colourWord));

/** "the weasel king" (`capital`: "The weasel king"), "the king" when its kind is not known. */
export function kingWords(kind, capital = false) {
  if (kind === "rat") return capital ? t("The rat king") : t("the rat king");
  if (kind === "weasel") return capital ? t("The weasel king") : t("the weasel king");
  if (kind) return capital ? t("The {suit} king", { suit: kind }) : t("the {suit} king", { suit: kind });
  return capital ? t("The king") : t("the king");
}

/** A character's kind ("rat", "weasel": the king's and each peasant's) in the page's language. */
export function kindWord(kind) {
  const named = { rat: t("rat"), weasel: t("weasel") };
  return Object.hasOwn(named, kind) ? named[kind] : kind;
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
  let words = t("universal antidote");
  if (type.kind === "antidote") words = t("{colour} antidote", { colour: colourWord(colours[0]) });
  else if (type.kind === "poison") words = tn("{count} drop of {colours}", "{count} drops of {colours}", type.drops, { colours: colourList(colours) });
  return { kind: type.kind, colours, drops: type.drops, words };
}

/** A card in words for a sentence, as the log words it (the game's events.card_words):
 * "a blue poison of 2 drops", "a green and purple poison of 1 drop each", "a blue
 * antidote", "a universal antidote". */
export function cardWords(code, obs) {
  const card = cardInfo(code, obs);
  // English says "an" before a colour starting with a vowel (no colour starts with "u").
  const an = /^[aeio]/.test(card.colours[0] || "");
  if (card.kind === "poison") {
    const colours = colourList(card.colours);
    if (card.colours.length > 1) {
      if (an) return tn("an {colours} poison of {count} drop each", "an {colours} poison of {count} drops each", card.drops, { colours });
      return tn("a {colours} poison of {count} drop each", "a {colours} poison of {count} drops each", card.drops, { colours });
    }
    if (an) return tn("an {colours} poison of {count} drop", "an {colours} poison of {count} drops", card.drops, { colours });
    return tn("a {colours} poison of {count} drop", "a {colours} poison of {count} drops", card.drops, { colours });
  }
  if (card.kind === "antidote") {
    const colour = colourWord(card.colours[0]);
    return an ? t("an {colour} antidote", { colour }) : t("a {colour} antidote", { colour });
  }
  return card.kind === "universal" ? t("a universal antidote") : code;
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
  const label = (seat) => (!twins.has(seat) ? baseLabel(seat) : seat === you ? t("{name} (you)", { name: name(seat) }) : name(seat));
  const who = (seat) => (seat === you ? t("you") : name(seat));
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
  if (on === "king") return kingWords(obs.king);
  const seat = Number(on);
  if (seat === actor) return actor === names.you ? t("your own peasant") : t("their own peasant");
  return seat === names.you ? t("your peasant") : t("{name}'s peasant", { name: names.name(seat) });
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
  if (on === null || on === undefined) return seatInfo.seat === names.you ? t("your turn") : t("choosing…");
  if (on === "king") return t("playing on the king");
  // Translators: {character} is a peasant ("their own peasant") or a seat's name.
  if (on === character) return t("playing on {character}", { character: characterWords(character, obs, names, seatInfo.seat) });
  return t("playing on {character}", { character: names.name(Number(on)) });
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
  // Translators: drops of one colour on a character against the lethal count, as in "2 of 5 blue".
  const danger = bars.filter((m) => m.drops > 0).map((m) => t("{drops} of {lethal} {colour}", { drops: m.drops, lethal, colour: colourWord(m.colour) }));
  const mat = {
    character,
    isKing,
    seat: isKing ? null : seatInfo.seat,
    alive,
    moving: !isKing && obs.to_move === Number(character),
    title: isKing ? (kingWords(obs.king, true)) : names.label(seatInfo.seat),
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
      isKing ? (kingWords(obs.king)) : tn("{name}, {role}, {count} point", "{name}, {role}, {count} points", seatInfo.score, { name: names.label(seatInfo.seat), role: seatInfo.kind ? kindWord(seatInfo.kind) : t("peasant") }),
      alive ? null : t("dead"),
      danger.length ? t("drops: {drops}", { drops: danger.join(", ") }) : t("no drops"),
    ].filter(Boolean).join("; "),
    action: null,
    hitLabel: null,
  };
  if (isKing) {
    mat.sub = t("dies at {count} drops of one colour", { count: obs.king_lethal });
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
      ? t("Put {card} on {character}", { card: cardInfo(view.selected, obs).words, character: characterWords(character, obs, names) })
      : t("Play on {character}", { character: characterWords(character, obs, names) });
  }
  return mat;
}

/** The Done button's words, and its full name (the words come first in it). */
function doneWords(obs, names) {
  const me = obs.seats[obs.seat];
  if (!me || !me.played_on) return [t("Done"), t("Done")];
  const on = me.played_on === "king" ? t("the king") : Number(me.played_on) === obs.seat ? t("your peasant") : t("{name}'s peasant", { name: names.name(Number(me.played_on)) });
  const words = t("Done: {cards}", { cards: cards(me.played) });
  return [words, t("Done: {cards} face down on {character}", { cards: cards(me.played), character: on })];
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
    // Translators: after a card's code on its button ("b2: add ..."); keep the leading ": ".
    if (add) words = t(": add {card} face down on {character}", { card: card.words, character: characterWords(moves.target, obs, view.names) });
    else if (live) words = t(": {card}; choose it, then a character", { card: card.words });
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
  const title = me && !me.alive ? t("Your hand (your peasant is dead this round)") : t("Your hand");
  return { shown: true, title, cards, buttons };
}

function playedOn(play, names) {
  if (play.on === "king") return t("the king");
  if (Number(play.on) === play.seat) return t("own peasant");
  return Number(play.on) === names.you ? t("your peasant") : t("{name}'s peasant", { name: names.name(Number(play.on)) });
}

/** The last reveal: its key (a new one is turned over), its rows of cards and its result in words. */
export function revealView(obs, names) {
  const reveal = obs.last_reveal;
  if (!reveal) return null;
  const rows = (reveal.plays || []).map((play) => {
    const cards = expand(play.cards, obs.cards || []);
    return {
      seat: play.seat,
      who: `${play.seat === names.you ? t("You") : names.name(play.seat)} → ${playedOn(play, names)}`,
      cards,
      aria: cards.map((c) => `${c} (${cardInfo(c, obs).words})`).join(", "),
    };
  });
  const deaths = (reveal.deaths || []).map((death) => {
    const victim = death.character === "king" ? t("the king") : Number(death.character) === names.you ? t("your peasant") : t("{name}'s peasant", { name: names.name(Number(death.character)) });
    const by = (death.killers || []).map(names.who);
    return by.length ? t("{victim} dies, poisoned by {names}", { victim, names: joinNames(by) }) : t("{victim} dies", { victim });
  });
  const gained = (reveal.points || []).map((p, s) => (p ? `${names.who(s)} +${p}` : null)).filter(Boolean);
  const said = [deaths.length ? `☠ ${t("{deaths}.", { deaths: deaths.join("; ") })}` : t("Nobody dies.")];
  if (gained.length) said.push(t("Points: {points}.", { points: gained.join(", ") }));
  else if (deaths.length) said.push(t("No points."));
  for (const hand of reveal.discarded_hands || []) {
    const cards = expand(hand.cards, obs.cards || []);
    // in words, as the log says them (its codes, "b1 b1 g1", were the only ones left)
    const shown = joinNames(cards.map((c) => cardWords(c, obs)));
    if (cards.length) said.push(hand.seat === names.you ? t("Your hand is discarded face up: {cards}.", { cards: shown }) : t("{name}'s hand is discarded face up: {cards}.", { name: names.name(hand.seat), cards: shown }));
  }
  const result = said.join(" ");
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
    const you = outcome.winners.length === 1 && outcome.winners[0] === names.you;
    if (winners.length === 1) return you ? tn("You win with {count} point", "You win with {count} points", best) : tn("{name} wins with {count} point", "{name} wins with {count} points", best, { name: winners[0] });
    return tn("{names} share the win with {count} point", "{names} share the win with {count} points", best, { names: joinNames(winners) });
  }
  const seat = obs.to_move;
  if (seat === null || seat === undefined) {
    if (obs.phase === "king") return t("A new assassination round: the king is drawn");
    if (obs.phase === "peasants") return t("The peasants are dealt");
    return t("The poison cards are dealt");
  }
  const info = obs.seats[seat];
  if (seat === names.you && (update.legal || []).length > 0) {
    const moves = legalMoves(update);
    if (moves.other.has("pass") && !moves.targets.size) return t("Your turn: you have no card, so you pass");
    if (moves.targets.size) return t("Your turn: choose a card, then the king or a peasant to put it on");
    return t("Your turn: add more cards on {character}, or Done", { character: characterWords(info.played_on, obs, names) });
  }
  if (info.played_on === null || info.played_on === undefined) return t("{name} is choosing whom to poison", { name: names.name(seat) });
  return t("{name} is playing on {character} ({cards} so far)", { name: names.name(seat), character: characterWords(info.played_on, obs, names, seat), cards: cards(info.played) });
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
