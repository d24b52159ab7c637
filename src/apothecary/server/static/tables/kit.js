// What the game tables share (a plain ES module; each table imports what it
// needs): SVG and HTML elements with their text always set as text, shapes that
// act as buttons (focusable, Enter and Space), the seats' names from the
// shell's ctx, the keyboard's place kept across a redraw, and a watch on the
// table's width (moves are found by their `move`, in each table's layout.js). What a table draws, and what its moves mean, stay in its
// own file.

// The element builders are dom.js's (one DOM helper module); the names stay the tables'.
export { clear, clip, htmlNode as html, svgNode as svg, svgText as text } from "../dom.js";
import { svgNode as svg, svgText as text } from "../dom.js";


/** How wide `node` (an SVG text in the page) is drawn, in its picture's units; 0 when it
 * is not laid out (then the callers' character counts are all there is to go by). */
export function textWidth(node) {
  try {
    return node.getComputedTextLength();
  } catch {
    return 0;
  }
}

/**
 * `node` (an SVG text in the page) made no wider than `width` units: its words are
 * given again by `shorten(most)` with one character fewer at a time until they fit.
 * Character counts only guess a width (a bold "W" is three "i"s), so the drawn words
 * are measured.
 */
export function fitText(node, width, shorten) {
  for (let most = node.textContent.length - 1; most > 1 && textWidth(node) > width; most -= 1) {
    node.textContent = shorten(most);
  }
  return node;
}

/**
 * A test of whether a line of words fits in `width` units, drawn in `parent` with
 * `attrs` (its class): measured on a probe drawn and taken away again, or by its
 * `most` characters while the picture is not laid out.
 */
export function lineFits(parent, attrs, width, most) {
  return (line) => {
    const probe = text(parent, 0, 0, line, attrs);
    const drawn = textWidth(probe);
    probe.remove();
    return drawn ? drawn <= width : line.length <= most;
  };
}

const mounted = new Map();

/** An id for one mounted table (`prefix1`, `prefix2`, …), for the ids its SVG patterns need. */
export function mountId(prefix) {
  const n = (mounted.get(prefix) || 0) + 1;
  mounted.set(prefix, n);
  return `${prefix}${n}`;
}

/**
 * The seats' words from the shell's `ctx`: `name(s)` (or "seat N" without a
 * shell), `label(s)` (the name with "(you)" for your seat) and `who(s)`
 * ("you" for the seat `you()` gives, else its name).
 */
export function seatWords(ctx, you = () => ctx.you) {
  const name = (s) => (ctx.seatName ? ctx.seatName(s) : `seat ${s}`);
  const label = (s) => (ctx.seatLabel ? ctx.seatLabel(s) : name(s));
  const who = (s) => (s === you() ? "you" : name(s));
  return { name, label, who };
}

/** A click on `node` (which goes no further), or Enter or Space while it has the focus, calls `handler(node)`. */
export function onActivate(node, handler) {
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    handler(node);
  });
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      handler(node);
    }
  });
}

/** `node` as a button to the keyboard and to screen readers: focusable, role=button, named `words`. */
export function asButton(node, words) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", words);
}

/**
 * A shape that makes a move: a button named `words` (its <title> too), with
 * `data-key` = `key` and the class `cls`, calling `handler(node)` on a click,
 * Enter or Space.
 */
export function clickable(node, key, words, cls, handler) {
  asButton(node, words);
  node.dataset.key = key;
  node.classList.add(cls);
  svg("title", {}, node).textContent = words;
  onActivate(node, handler);
}

/** Before a redraw: the `data-key` of what has the focus inside `board`, if anything does. */
export function focusedKey(board) {
  return document.activeElement && board.contains(document.activeElement) ? document.activeElement.dataset.key : null;
}

/** After a redraw: the focus back on `key` if it is still on `board`, else on the first `fallback`. */
export function refocus(board, key, fallback) {
  if (!key) return;
  const again = board.querySelector(`[data-key="${key}"][tabindex]`) || board.querySelector(fallback);
  if (again) again.focus();
}

/**
 * The keyboard's place across updates that redraw the table: give the function
 * this returns, after each update, whether the focus was on the table before it
 * and how to `find()` where it goes now. Once the focus was on the table, it is
 * put on what `find()` gives as soon as it gives something, unless the person
 * has put the focus somewhere (on the table or elsewhere: the chat, the log).
 */
export function focusKeeper() {
  let wanted = false;
  return (wasInside, find) => {
    if (wasInside) wanted = true;
    if (!wanted) return;
    const active = document.activeElement;
    if (active && active !== document.body) {
      wanted = false;
      return;
    }
    const again = find();
    if (again) {
      again.focus({ preventScroll: true });
      wanted = false;
    }
  };
}

/**
 * Calls `onChange(wide)` each time `root` comes to be at least `min` CSS px wide
 * (`wide` true) or stops being so (false), where the browser can tell. Gives the
 * function that stops watching.
 */
export function watchWidth(root, min, onChange) {
  if (typeof ResizeObserver !== "function") return () => {};
  let wide = root.clientWidth >= min;
  const observer = new ResizeObserver(() => {
    const now = root.clientWidth >= min;
    if (now !== wide) {
      wide = now;
      onChange(now);
    }
  });
  observer.observe(root);
  return () => observer.disconnect();
}
