// The one table loader of the room and the replay. A game's info (its /api/games
// entry) says where its table is ("table": {"script", "style"}, served from the
// game's own package; null for a game without one): no URL is guessed from the
// game's name. A table that does not load, or does not mount, falls back to the
// generic one.
import { replace, stylesheet } from "../dom.js";

/** The table module of `game` (its /api/games entry) named `name`: {module, kind}. */
export async function loadTable(game, name) {
  const table = game && game.table;
  if (table && table.script) {
    try {
      const module = await import(table.script);
      // The table's own CSS, loaded before the table is drawn.
      if (table.style) await stylesheet(table.style, `table-${name}`);
      return { module, kind: name };
    } catch (error) {
      if (!String(error).includes("Failed to fetch")) console.warn(`the table of ${name} did not load:`, error);
    }
  }
  return { module: await import("./generic.js"), kind: "generic" };
}

/**
 * Mount the loaded table (`loaded`, from loadTable) in `slot` with the shell's `ctx`
 * (docs/client.md: the table contract): {table, kind}. A table whose mount throws is
 * replaced by the generic one, so a broken table never leaves the room without one.
 */
export async function mountTable(loaded, slot, ctx) {
  slot.dataset.table = loaded.kind;
  try {
    return { table: loaded.module.mount(slot, ctx) || {}, kind: loaded.kind };
  } catch (error) {
    console.error(`the ${loaded.kind} table failed to mount; using the generic one`, error);
    const generic = await import("./generic.js");
    replace(slot);
    slot.dataset.table = "generic";
    return { table: generic.mount(slot, ctx) || {}, kind: "generic" };
  }
}

/** The sound an event makes ("death", "reveal" or null), as the table's `soundOf` says:
 * a table that does not say makes none (the shell never guesses from the words). */
export function soundOf(module, event) {
  if (!module || typeof module.soundOf !== "function") return null;
  try {
    return module.soundOf(event) || null;
  } catch (error) {
    console.error(error);
    return null;
  }
}
