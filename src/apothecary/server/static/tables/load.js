// The one table loader of the room and the replay. A game's info (its /api/games
// entry) says where its table is ("table": {"script", "style"}, served from the
// game's own package; null for a game without one): no URL is guessed from the
// game's name. A table that does not load falls back to the generic one.
import { stylesheet } from "../dom.js";

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
