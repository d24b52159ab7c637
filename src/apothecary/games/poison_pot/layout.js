// Poison Pot's table as pure data: from an update message and its legal moves,
// where every circle, piece, mark and seat chip goes, which move each circle plays
// when chosen, and the words to show (seats kept as numbers, as the server's words
// are). No DOM: table.js draws this and handles input, and Node's unit tests call
// it as the browser does (tests/games/poison_pot/test_poison_pot_table_layout.py).
//
// Moves are found by their `move` (rules.md, "What the server sends"), seats are
// numbers in word runs (/static/words.js reads them): nothing here reads notation,
// a label or an event's text.

import { t, tn, tx } from "/static/i18n.js";

export const D = 60; // distance between neighbouring circles (SVG units)
export const PIECE = 24; // radius of a piece
export const HIT = 29; // radius of a circle's click/tap target
export const WIDE = 700; // a table area at least this wide (CSS px) puts the players beside the board
const SQRT3_2 = Math.sqrt(3) / 2;
export const ROWS = "abcdefghi";
const NEIGHBOURS = [[1, 0], [-1, 0], [1, -1], [0, -1], [0, 1], [-1, 1]];
/** Each colour's look: a letter and a pattern besides the colour, so no one needs to tell colours apart. */
export const LOOK = {
  red: { letter: "R", pattern: "stripes", word: "red" },
  blue: { letter: "B", pattern: "dots", word: "blue" },
  yellow: { letter: "Y", pattern: "hatch", word: "yellow" },
};
export const COLOURS = ["red", "blue", "yellow"];
const CHIP_H = 80; // a seat chip's height

/** The board's geometry from its radius: names, axial coordinates, centres, neighbours. */
export function geometry(radius, names) {
  const cells = [];
  const index = new Map();
  let n = 0;
  for (let row = 0; row <= 2 * radius; row += 1) {
    const r = row - radius;
    const first = Math.max(-radius, -radius - r);
    const last = Math.min(radius, radius - r);
    for (let q = first; q <= last; q += 1) {
      const name = names[n] || `${ROWS[row]}${q - first + 1}`;
      cells.push({ n, name, q, r, row, x: (q + r / 2) * D, y: r * D * SQRT3_2 });
      index.set(`${q},${r}`, n);
      n += 1;
    }
  }
  for (const cell of cells) {
    cell.neighbours = [];
    for (const [dq, dr] of NEIGHBOURS) {
      const other = index.get(`${cell.q + dq},${cell.r + dr}`);
      if (other !== undefined) cell.neighbours.push(other);
    }
  }
  const byName = new Map(cells.map((cell) => [cell.name, cell]));
  return { radius, cells, byName };
}

/** Per colour, the largest groups that touch no pot (the circles of each), and their size. */
export function safeGroups(geo, board) {
  const pot = board.indexOf("pot");
  const nearPot = new Set(pot >= 0 ? [pot, ...geo.cells[pot].neighbours] : []);
  const seen = new Set();
  const best = {};
  for (const cell of geo.cells) {
    const colour = board[cell.n];
    if (!LOOK[colour] || seen.has(cell.n)) continue;
    const group = [];
    const stack = [cell.n];
    seen.add(cell.n);
    while (stack.length) {
      const c = stack.pop();
      group.push(c);
      for (const m of geo.cells[c].neighbours) {
        if (!seen.has(m) && board[m] === colour) {
          seen.add(m);
          stack.push(m);
        }
      }
    }
    if (group.some((c) => nearPot.has(c))) continue;
    const entry = best[colour] || (best[colour] = { size: 0, groups: [] });
    if (group.length > entry.size) {
      entry.size = group.length;
      entry.groups = [group];
    } else if (group.length === entry.size) {
      entry.groups.push(group);
    }
  }
  return { best, nearPot };
}

/**
 * The legal moves by their structured form: `slides` maps a circle to the map of
 * its destinations' circles to the legal action; `places` a circle to its placement.
 */
export function legalByMove(legal) {
  const slides = new Map();
  const places = new Map();
  for (const action of legal || []) {
    const move = action && action.move;
    if (!move) continue;
    if (move.kind === "slide") {
      if (!slides.has(move.from)) slides.set(move.from, new Map());
      slides.get(move.from).set(move.to, action);
    } else if (move.kind === "place") {
      places.set(move.on, action);
    }
  }
  return { slides, places };
}

/** A cauldron's colour (a seat's colour) in the page's language. */
export function colourWord(colour) {
  const named = { red: t("red"), blue: t("blue"), yellow: t("yellow") };
  return Object.hasOwn(named, colour) ? named[colour] : colour;
}

/** "the pot" or "the red cauldron". */
export function pieceWords(kind) {
  return kind === "pot" ? t("the pot") : t("the {colour} cauldron", { colour: colourWord(kind) });
}

/**
 * What this turn may slide, from the legal slides' pieces: on the first turn's board
 * only the pot stands, and "the pot or any cauldron" offered what was not there.
 */
export function slidable(moves) {
  const kinds = new Set();
  for (const destinations of moves.slides.values()) {
    for (const action of destinations.values()) kinds.add(action.move.piece);
  }
  const pot = kinds.delete("pot");
  for (const kind of kinds) if (!LOOK[kind]) kinds.delete(kind);
  const cauldrons = kinds.size === 0 ? "" : kinds.size === 1 ? t("a {colour} cauldron", { colour: colourWord([...kinds][0]) }) : t("a cauldron");
  return pot && cauldrons ? t("the pot or {cauldrons}", { cauldrons }) : pot ? t("the pot") : cauldrons || t("a piece");
}

/**
 * The SVG frame around the board: its view box, the board's edges and the
 * hexagon's corners. `wide` puts the players in a column right of the board,
 * else in a row under it.
 */
export function frameOf(radius, players, wide) {
  const frame = Math.max(radius, 3); // small boards keep room for the corners
  const half = radius * D + D * 0.62;
  const left = -(frame * D + D * 0.62) - D * 0.55;
  const top = -(frame * D * SQRT3_2) - D * 0.75;
  const bottom = frame * D * SQRT3_2 + D * 0.75;
  const width = 2 * -left;
  const column = wide ? 250 : 0;
  const strip = wide ? 0 : 92;
  const height = Math.max(bottom - top + strip, wide ? players * 92 + 8 : 0);
  const corners = [];
  for (let k = 0; k < 6; k += 1) {
    const angle = (Math.PI / 3) * k;
    corners.push([Number((half * Math.cos(angle)).toFixed(1)), Number((half * Math.sin(angle)).toFixed(1))]);
  }
  return { wide, left, top, bottom, width, height, viewBox: [left, top, width + column, height], corners };
}

/**
 * What choosing each circle does, by circle name: `{role, label, play}` plays the
 * legal action `play` (its id), `{role, label, select, pressed}` picks up a piece
 * (or puts it back, `select` null); a circle absent from the map is no control.
 * `selected` is the circle whose piece is picked up, if any (ignored when it has
 * no slide).
 */
export function controls(obs, moves, selected, geo) {
  const out = new Map();
  const chosen = selected && moves.slides.has(selected) ? selected : null;
  const targets = chosen ? moves.slides.get(chosen) : new Map();
  const kindAt = (name) => (geo.byName.has(name) ? obs.board[geo.byName.get(name).n] : "");
  for (const cell of geo.cells) {
    const name = cell.name;
    if (moves.places.has(name)) {
      const action = moves.places.get(name);
      out.set(name, { role: "place", play: action.id, label: (action.move.colour || obs.drawn ? t("Place the {colour} cauldron on {square}", { colour: colourWord(action.move.colour || obs.drawn), square: name }) : t("Place the drawn cauldron on {square}", { square: name })) });
    } else if (targets.has(name)) {
      const action = targets.get(name);
      out.set(name, { role: "target", play: action.id, label: t("Slide {piece} from {from} to {to}", { piece: pieceWords(action.move.piece), from: chosen, to: name }) });
    } else if (moves.slides.has(name)) {
      const count = moves.slides.get(name).size;
      const what = pieceWords(kindAt(name));
      const isSelected = name === chosen;
      out.set(name, {
        role: isSelected ? "selected" : "movable",
        select: isSelected ? null : name,
        pressed: isSelected,
        count,
        label: isSelected
          ? tn("{piece} on {square}, chosen: now choose its {count} destination (Escape to put it back)", "{piece} on {square}, chosen: now choose one of its {count} destinations (Escape to put it back)", count, { piece: what, square: name })
          : tn("Slide {piece} on {square} ({count} destination)", "Slide {piece} on {square} ({count} destinations)", count, { piece: what, square: name }),
      });
    }
  }
  return { selected: chosen, controls: out };
}

/** The last move's marks: the slide's path (from, to, and the arrow's ends) and the last placement. */
export function lastMarks(obs, geo) {
  const marks = { from: null, path: null, placed: null, badge: null };
  if (obs.last_slide) {
    const from = geo.byName.get(obs.last_slide[0]);
    const to = geo.byName.get(obs.last_slide[1]);
    if (from && to) {
      const dx = to.x - from.x;
      const dy = to.y - from.y;
      const len = Math.hypot(dx, dy) || 1;
      const ux = dx / len;
      const uy = dy / len;
      marks.from = { x: from.x, y: from.y };
      marks.path = { x1: from.x + ux * 8, y1: from.y + uy * 8, x2: to.x - ux * (PIECE + 5), y2: to.y - uy * (PIECE + 5) };
    }
  }
  const cell = obs.last_placement ? geo.byName.get(obs.last_placement) : null;
  if (cell) {
    marks.placed = { x: cell.x, y: cell.y };
    const x = cell.x + PIECE * 0.72;
    const y = cell.y - PIECE * 0.72;
    marks.badge = `M${x} ${y - 7}L${x + 7} ${y}L${x} ${y + 7}L${x - 7} ${y}z`;
  }
  return marks;
}

/** The update's outcome (the room's, else the observation's), or null. */
function outcomeOf(update) {
  return update.outcome || (update.observation && update.observation.outcome) || null;
}

/**
 * One chip per seat: where it goes, its colour, whether it is moving or won,
 * what it says ("safe group", "sliding", "wins" ...) and the number shown. The
 * seat's name is not here: table.js names `seat` from the room.
 */
export function chips(update, frame) {
  const obs = update.observation;
  const n = obs.players || (obs.colours || []).length;
  const gap = frame.wide ? 12 : 8;
  const w = frame.wide ? 236 : (frame.width - 12 - gap * (n - 1)) / n;
  const outcome = outcomeOf(update);
  const winners = (outcome && outcome.winners) || [];
  const scores = (update.outcome && update.outcome.scores) || null;
  const out = [];
  for (let seat = 0; seat < n; seat += 1) {
    const [x, y] = frame.wide
      ? [frame.left + frame.width + 8, frame.top + 14 + seat * (CHIP_H + gap)]
      : [frame.left + 6 + seat * (w + gap), frame.bottom + 4];
    const moving = obs.to_move === seat && obs.phase !== "over";
    const won = winners.includes(seat);
    const size = (obs.groups || [])[seat] ?? 0;
    // a tie broken by the last placements scores half a point off the group
    const broken = Boolean(scores) && scores[seat] !== size;
    // Translators: a seat chip's state, under its colour (one or two short words).
    let state = broken ? t("score") : t("safe group");
    if (won) state = winners.length > 1 ? t("shares the win") : t("wins");
    else if (moving) state = obs.phase === "place" ? t("placing") : obs.phase === "draw" ? t("drawing") : t("sliding");
    out.push({ seat, colour: obs.colours[seat], x, y, w, h: CHIP_H, moving, won, state, score: String(broken ? scores[seat] : size) });
  }
  return out;
}

/** The drawn cauldron, the face-down counts and how far the game is, for the board's corners. */
export function corners(update, frame, you) {
  const obs = update.observation;
  const total = (obs.board || []).length - 1;
  const players = obs.players || (obs.colours || []).length;
  return {
    remaining: COLOURS.map((colour) => ({ colour, count: (obs.remaining || {})[colour] ?? 0 })),
    neutral: obs.neutral && LOOK[obs.neutral] ? obs.neutral : null,
    drawn: obs.drawn && LOOK[obs.drawn] ? obs.drawn : null,
    drawnNote: obs.to_move === you ? t("yours to place") : t("to be placed"),
    drawnAt: frame.wide ? { x: frame.left + frame.width + 12, y: frame.top + 14 + players * 92 + 26 } : null,
    placed: t("{count} of {total} placed", { count: obs.placed ?? 0, total }),
  };
}

/** The screen reader's summary of the board: where the pot and each colour stand. */
export function summary(obs) {
  const parts = [t("The pot is on {square}.", { square: obs.pot })];
  for (const colour of COLOURS) {
    const where = [];
    obs.board.forEach((kind, n) => {
      if (kind === colour) where.push(obs.circles[n]);
    });
    if (where.length) parts.push(t("{colour}: {squares}.", { colour: colourWord(colour), squares: where.join(", ") }));
  }
  return parts.join(" ");
}

/**
 * The line over the table, as word runs (strings and `{seat: n}` / `{seats: [...]}`,
 * read with /static/words.js): who is to do what, or who won. Sentences whose
 * verb agrees with "you" are written for `you` apart, so a run never has to be
 * read back to fix its grammar.
 */
export function turnWords(update, legal, you) {
  const obs = update.observation;
  if (!obs) return [];
  const outcome = outcomeOf(update);
  if (outcome) {
    const winners = outcome.winners || [];
    // Translators: a colour's score, as in "red 7".
    const scores = (outcome.scores || []).map((v, s) => t("{colour} {score}", { colour: colourWord(obs.colours[s]), score: v })).join(", ");
    if (winners.length === 1) return winners[0] === you ? [t("You win: {scores}", { scores })] : tx("{name} wins: {scores}", { name: { seat: winners[0] }, scores });
    return tx("{names} share the win: {scores}", { names: { seats: winners }, scores });
  }
  const seat = obs.to_move;
  if (seat === null || seat === undefined) return [];
  const colour = colourWord(obs.colours[seat]);
  const mine = seat === you && (legal || []).length > 0;
  if (obs.phase === "slide") {
    if (!mine) return tx("{name} ({colour}) is sliding a piece", { name: { seat }, colour });
    const moves = legalByMove(legal);
    // (one piece to slide, the pot on the first turn, is no piece to choose)
    const one = moves.slides.size === 1;
    const what = slidable(moves);
    return [one ? t("Your turn: slide {piece} (choose it, then where it goes)", { piece: what }) : t("Your turn: slide {piece} (choose a piece, then where it goes)", { piece: what })];
  }
  if (obs.phase === "draw") return seat === you ? [t("You turn up a cauldron")] : tx("{name} ({colour}) turns up a cauldron", { name: { seat }, colour });
  if (obs.phase === "place") {
    const drawn = colourWord(obs.drawn);
    if (mine) return [t("Your turn: place the {drawn} cauldron you drew on an empty circle", { drawn })];
    return tx("{name} ({colour}) places the {drawn} cauldron", { name: { seat }, colour, drawn });
  }
  return [];
}

/** A name cut to `most` characters with an ellipsis (at least one letter stays). */
export function clipName(name, most) {
  const whole = String(name);
  // (a cut at a space would leave "easy …": the space goes)
  return whole.length <= most ? whole : `${whole.slice(0, Math.max(1, most - 1)).trimEnd()}…`;
}

/**
 * A seat chip's name in `most` characters. Two seats of one name (two "easy
 * bot"s) are told apart by their number, kept when the name is cut: "easy b… #1".
 * The twins are found in the update's `seats` (the room's data), never in the
 * words of a name; without them the chip shows `label` (the shell's name), cut.
 */
export function chipName(update, seat, label, you, most) {
  const seats = Array.isArray(update.seats) ? update.seats : [];
  const own = seats[seat] && seats[seat].name;
  const twins = own ? seats.filter((s) => s && s.name === own).length : 0;
  if (twins < 2) return clipName(label, most);
  // the name is cut so that its number (and "(you)") always shows
  const mark = seat === you ? t("{name} (you)", { name: `#${seat}` }) : `#${seat}`;
  return `${clipName(own, Math.max(1, most - mark.length - 1))} ${mark}`;
}

/**
 * Everything the table draws for `update` and its `legal` moves: the geometry,
 * frame, pieces, the pot's zone, safe groups, last-move marks, each circle's control, the corners,
 * the seat chips, the turn's words and the summary. `you` is the reading seat
 * (the update's own `you` when not given), `selected` the circle whose piece is
 * picked up, `wide` the two-column arrangement.
 */
export function layout(update, legal, { you = update.you ?? null, selected = null, wide = false } = {}) {
  const obs = update.observation;
  const geo = geometry(obs.radius, obs.circles || []);
  const players = obs.players || (obs.colours || []).length;
  const frame = frameOf(obs.radius, players, wide);
  const moves = legalByMove(legal);
  const chosen = controls(obs, moves, selected, geo);
  const { best, nearPot } = safeGroups(geo, obs.board);
  // which empty circles the pot poisons
  const zone = [...nearPot].filter((c) => obs.board[c] === "").map((c) => ({ x: geo.cells[c].x, y: geo.cells[c].y }));
  const pieces = geo.cells.filter((cell) => obs.board[cell.n]).map((cell) => ({ circle: cell.name, kind: obs.board[cell.n], x: cell.x, y: cell.y }));
  const halos = [];
  for (const colour of obs.colours || []) {
    for (const group of (best[colour] && best[colour].groups) || []) halos.push({ colour, circles: group });
  }
  return {
    geo,
    frame,
    moves,
    selected: chosen.selected,
    controls: chosen.controls,
    pieces,
    zone,
    halos,
    marks: lastMarks(obs, geo),
    corners: corners(update, frame, you),
    chips: chips(update, frame),
    turn: turnWords(update, legal, you),
    summary: summary(obs),
  };
}

/** The sound an event calls for, from its kind: turning up a face-down cauldron is a reveal; nobody dies. */
export function soundOf(event) {
  return event && event.kind === "draw" ? "reveal" : null;
}
