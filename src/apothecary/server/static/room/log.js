// The log ("What happened"): each event in the words the server sent (its own words and
// the clauses it set off, `words` and `then_words`), the table's notices (someone left,
// came back, was handed to a bot) between them in step order, and a game's result line.

import { h, replace } from "../dom.js";
import { t, tx } from "/static/i18n.js";

/** Events and notices in the order they happened (a notice names the step it came before):
 * a list of ["event", event] and ["notice", notice]. */
export function inStepOrder(events, notices) {
  const merged = [];
  let next = 0;
  for (const event of events) {
    while (next < notices.length && notices[next].step <= (event.step ?? Infinity)) merged.push(["notice", notices[next++]]);
    merged.push(["event", event]);
  }
  while (next < notices.length) merged.push(["notice", notices[next++]]);
  return merged;
}

/** A bot level's name ("easy") in the page's language; a level this page does not know stays as the server names it. */
export function levelWord(level) {
  // Translators: the bots' levels, in the host's menu.
  const known = { easy: t("easy"), medium: t("medium"), hard: t("hard") };
  return Object.hasOwn(known, level) ? known[level] : level;
}

/** "a medium bot", "an easy bot", "a bot" (no level known). */
export function aBot(level) {
  if (!level) return t("a bot");
  const known = { easy: t("an easy bot"), medium: t("a medium bot"), hard: t("a hard bot") };
  if (Object.hasOwn(known, level)) return known[level];
  // Translators: {level} is a bot's level as the server names it ("strong", "random", ...).
  return "aeiou".includes(level[0].toLowerCase()) ? t("an {level} bot", { level }) : t("a {level} bot", { level });
}

/** "A medium bot": aBot with a capital. */
export function ABot(level) {
  const words = aBot(level);
  return words[0].toUpperCase() + words.slice(1);
}

/** Why a bot plays for you, from your seat's away_reason (null: a seat stored before reasons). */
export function awayWords(place) {
  const bot = aBot(place.level);
  if (place.away_reason === "host") return `${t("The host handed your seat to {bot} while you were away.", { bot })} `;
  if (place.away_reason === "timeout") return `${t("Your time ran out, so {bot} is playing for you.", { bot })} `;
  return `${t("{bot} is playing for you.", { bot: ABot(place.level) })} `;
}

/** A notice's words around `who` (the node naming its seat); null for a kind this client does not know. */
export function noticeWords(notice, who) {
  const bot = aBot(notice.level);
  switch (notice.kind) {
    case "left":
      return tx("{name} left the table", { name: who });
    case "returned":
      return tx("{name} is back at the table", { name: who });
    case "bot_plays":
      if (notice.reason === "host") return tx("{name} is away: the host handed the seat to {bot}", { name: who, bot });
      if (notice.reason === "timeout") return tx("Time ran out for {name}: {bot} plays for them", { name: who, bot });
      return tx("{bot} plays for {name}", { bot: ABot(notice.level), name: who });
    case "took_back":
      return tx("{name} took the seat back from the bot", { name: who });
    default:
      return null;
  }
}

export class GameLog {
  /** `list` is the log's <ol>; `names` a SeatNames; `you()` your seat or null. */
  constructor(list, names, you) {
    this.list = list;
    this.names = names;
    this.you = you;
    this.count = 0;
  }

  clear() {
    replace(this.list);
    this.count = 0;
  }

  /** Forget the lines of the games before game `gameNo` (a series keeps one game back). */
  dropBefore(gameNo) {
    for (const item of [...this.list.children]) {
      if (Number(item.dataset.game) < gameNo) item.remove();
    }
  }

  /** Whether game `gameNo` has its result line already. */
  hasResult(gameNo) {
    return Boolean(this.list.querySelector(`li.log-result[data-game="${gameNo}"]`));
  }

  /** The log's last line of a game: who won (`winners`, words), and why. */
  resultLine(msg, winners, reason) {
    return h(
      "li",
      { class: "log-result", dataset: { game: String(msg.game_no) } },
      h("span", { class: "log-text" }, `${t("Game {number}:", { number: msg.game_no })} `, winners),
      reason.length ? h("ul", { class: "log-then" }, h("li", {}, this.names.pieces(reason, { capital: true }))) : null,
    );
  }

  add(events, gameNo, fromStart, last = null, notices = []) {
    // Whether to follow is judged before the batch goes in: measured after, a batch
    // taller than the slack left the log "not near the bottom" and it stopped following.
    const follow = fromStart || this.atBottom();
    if (fromStart) {
      this.list.setAttribute("aria-busy", "true");
      this.list.append(h("li", { class: "log-game", dataset: { game: String(gameNo) } }, t("Game {number} begins", { number: gameNo })));
    }
    for (const [kind, entry] of inStepOrder(events, notices)) {
      if (kind === "notice") {
        const line = this.noticeLine(entry, gameNo);
        if (line) this.list.append(line);
        continue;
      }
      this.list.append(this.eventLine(entry, gameNo));
      this.count += 1;
    }
    if (last) this.list.append(last);
    if (fromStart) this.list.removeAttribute("aria-busy");
    this.scroll(follow);
  }

  eventLine(event, gameNo) {
    const own = Array.isArray(event.words) && event.words.length ? event.words : ["…"];
    const then = Array.isArray(event.then_words) ? event.then_words : [];
    // A bot's move for an away person says so, not as if they had made it.
    const byBot = typeof event.by_bot === "string" ? h("span", { class: "by-bot" }, tx("{level} bot for {who}:", { level: event.by_bot, who: this.names.who(event.actor) }), " ") : null;
    const data = { step: String(event.step ?? ""), game: String(gameNo), ...(byBot ? { byBot: event.by_bot } : {}) };
    return h(
      "li",
      { class: ["log-event", event.actor === this.you() && !byBot && "mine"], dataset: data },
      h("span", { class: "log-text" }, byBot, this.names.pieces(own, { capital: !byBot })),
      then.length ? h("ul", { class: "log-then" }, then.map((runs) => h("li", {}, this.names.pieces(runs)))) : null,
    );
  }

  // A notice of the table, from its data.
  noticeLine(notice, gameNo) {
    const words = noticeWords(notice, this.names.who(notice.seat));
    if (!words) return null; // a kind newer than this client
    return h(
      "li",
      { class: "log-notice", dataset: { notice: notice.kind, seat: String(notice.seat), step: String(notice.step ?? ""), game: String(gameNo) } },
      h("span", { class: "log-text" }, words),
    );
  }

  // At (or within a line of) the bottom: a reader who scrolled further up keeps their place.
  atBottom() {
    const box = this.list;
    return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  }

  scroll(follow) {
    if (follow) this.list.scrollTop = this.list.scrollHeight;
  }
}
