// Scrolling the room page to what matters (your turn, the result) without pulling it
// from under a person who just scrolled it themselves.

import { prefersReducedMotion } from "../dom.js";

const SCROLLED_LATELY = 5000; // ms: a person who scrolled this recently is left where they are
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);

export class PageScroll {
  constructor() {
    this.scrolledAt = undefined;
  }

  // Your turn starts: on a phone your own place on the table (your glass, say) and
  // the move buttons were below the first screen. Bring both into view, once a turn,
  // and not when the person has just scrolled themselves or is typing. A page that opens
  // on your turn opens at its top (the seats, the status line), as every page does.
  bringTurnIntoView(previous, msg, table, moves) {
    this.watch();
    const yours = (m) => Boolean(m && (m.legal || []).length);
    const starts = Boolean(previous) && yours(msg) && !(yours(previous) && previous.game_no === msg.game_no);
    const place = starts && table?.yourPlace?.();
    if (!place || Date.now() - this.scrolledAt < SCROLLED_LATELY || document.activeElement?.matches("input, textarea, select")) return;
    const [a, b] = [place.getBoundingClientRect(), moves.getBoundingClientRect()];
    const [top, bottom, room] = [Math.min(a.top, b.top), Math.max(a.bottom, b.bottom), window.innerHeight];
    if (top >= 0 && bottom <= room) return;
    // both when they fit (bottom edge at the window's), else your place at the top
    const by = bottom - top + 16 <= room ? (bottom > room ? bottom - room + 8 : top - 8) : a.top - 8;
    window.scrollBy({ top: by, behavior: prefersReducedMotion() ? "auto" : "smooth" });
  }

  // When the person last scrolled the page themselves (wheel, touch, keys), so a turn's
  // scroll does not pull the page from under them.
  watch() {
    if (this.scrolledAt !== undefined) return;
    this.scrolledAt = 0;
    const mark = () => (this.scrolledAt = Date.now());
    for (const kind of ["wheel", "touchmove"]) window.addEventListener(kind, mark, { passive: true });
    window.addEventListener("keydown", (event) => {
      // keys scroll the page only from the page itself (on a button, Space presses it)
      if (SCROLL_KEYS.has(event.key) && (event.target === document.body || event.target === document.documentElement)) mark();
    });
  }

  /** Scroll the result's headline into view when it is not (the page stays put when it is). */
  showResult(result) {
    const title = result.querySelector("h2");
    if (!title || result.hidden) return;
    const box = title.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    result.scrollIntoView({ block: "start", behavior: prefersReducedMotion() ? "auto" : "smooth" });
  }
}
