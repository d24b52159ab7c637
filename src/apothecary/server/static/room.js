// The room screen (/rooms/CODE): a coordinator. The connection (connection.js) brings
// the room's messages; each update goes to the parts that draw it, each in its own
// module under room/: the room's lobby and the host's tools (lobby.js), the seats bar
// (seats.js), the status line (status.js), the table (tables/load.js), your moves
// (moves.js), the log (log.js), the chat (chat.js) and the result (result.js).

import { ApiError, api, keep, kept } from "./api.js";
import { h, prefersReducedMotion, replace, toast } from "./dom.js";
import { Connection } from "./connection.js";
import { banner, roomPage, rulesDialog, soundButton } from "./room/page.js";
import { ChatPanel, tabbed } from "./room/chat.js";
import { CoachPanel } from "./room/coach.js";
import { GameLog, awayWords } from "./room/log.js";
import { HostTools, RoomLobby } from "./room/lobby.js";
import { MovesPanel } from "./room/moves.js";
import { SeatNames } from "./room/names.js";
import { drawResult, reasonRuns, winnersWords } from "./room/result.js";
import { PageScroll } from "./room/scroll.js";
import { drawSeatsBar, seatChips } from "./room/seats.js";
import { StatusLine } from "./room/status.js";
import * as sound from "./sound.js";
import { loadTable, mountTable, soundOf } from "./tables/load.js";
import { t, tn } from "/static/i18n.js";

const SEAT_FREED = 4003; // the close code of a seat the host freed

export async function showRoom(main, code) {
  let info;
  try {
    info = await api.room(code);
  } catch (error) {
    const missing = error instanceof ApiError && error.status === 404;
    replace(
      main,
      h(
        "section",
        { class: "panel notice" },
        h("h1", {}, missing ? t("No such room") : t("The room could not be opened")),
        h("p", {}, missing ? t("No room has the code {code}. Check the invite link.", { code }) : error.message),
        h("p", {}, h("a", { href: "/", class: "button primary" }, t("Go to the lobby"))),
      ),
    );
    return;
  }
  const game = await api.game(info.game);
  new RoomScreen(main, code, info, game).start();
}

class RoomScreen {
  constructor(main, code, info, game) {
    this.main = main;
    this.code = code;
    this.info = info; // the room's public facts (welcome.room, GET /api/rooms/CODE)
    this.game = game; // the /api/games entry
    this.msg = null; // the last update
    this.you = null;
    this.gameNo = null;
    this.table = null; // the mounted table's handle
    this.loaded = null; // the table's module: {module, kind}
    this.holding = false;
    const saved = kept(code);
    this.token = saved.seat_token || null;
    this.hostToken = saved.host_token || null;
    this.names = new SeatNames(() => (this.msg && this.msg.seats) || this.info.seats || [], () => this.you);
    this.connection = new Connection(code, {
      token: () => this.token,
      message: (message, ws) => this.onMessage(message, ws),
      lost: (offline) => this.lost(offline),
      closed: (closeCode) => this.closed(closeCode),
      act: (id) => this.act(id),
      unlock: () => this.moves.lock(false),
    });
    this.scroll = new PageScroll();
  }

  start() {
    document.title = t("{game} · apothecary", { game: this.info.title });
    this.build();
    this.connection.start();
    setInterval(() => this.status.tick(), 250);
    document.addEventListener("pointerdown", () => sound.unlock(), { once: false, passive: true });
    document.addEventListener("keydown", () => sound.unlock(), { passive: true });
  }

  build() {
    this.watchers = h("span", { class: "watchers", "aria-live": "off" });
    this.banner = banner({ id: "banner", class: "banner" });
    this.awayText = h("span", { id: "away-text" });
    const takeBack = h("button", { type: "button", class: "primary", id: "take-back", onclick: () => this.send({ type: "back" }) }, t("Take my seat back"));
    this.awayBox = h("div", { id: "away", class: "banner banner-warn", hidden: true }, this.awayText, takeBack);
    this.notice = h("div", { id: "notice", class: "banner banner-bad", hidden: true });
    this.lobby = new RoomLobby(this);
    this.hostTools = new HostTools(this);
    this.seatsBar = h("ol", { id: "seats", class: "seats-bar", "aria-label": t("Seats") });
    this.status = new StatusLine();
    this.result = h("section", { id: "result", class: "result panel", hidden: true, "aria-labelledby": "result-title" });
    this.tableSlot = h("div", { class: "table-slot" });
    this.moves = new MovesPanel(this);
    this.coach = new CoachPanel(this);
    // Both lists scroll: tabindex 0 lets the keyboard reach them to scroll (arrows, Page Down).
    const logList = h("ol", { id: "log", class: "log", tabindex: "0", "aria-live": "polite", "aria-label": t("What happened") });
    this.log = new GameLog(logList, this.names, () => this.you);
    this.chat = new ChatPanel((message) => this.send(message), () => this.you);
    const logTab = h("button", { type: "button", role: "tab", id: "tab-log", "aria-controls": "log-panel", "aria-selected": "true" }, t("Log"));
    const logPanel = h("section", { id: "log-panel", role: "tabpanel", "aria-labelledby": "tab-log", class: "side-panel" }, h("h2", { class: "side-title" }, t("Log")), logList);
    tabbed([logTab, this.chat.tab], [logPanel, this.chat.panel], (index) => {
      if (index === 1) this.chat.seen();
      if (index === 0) this.log.scroll(true);
    });
    this.root = roomPage(this.code, this.info, {
      watchers: this.watchers,
      banners: [this.banner.element, this.notice, this.awayBox],
      lobby: this.lobby.element,
      play: [this.seatsBar, this.status.element, this.coach.element, this.result, this.tableSlot, this.moves.element],
      side: [h("div", { class: "tabs", role: "tablist", "aria-label": t("Log and chat") }, logTab, this.chat.tab), logPanel, this.chat.panel, this.hostTools.element],
      rules: rulesDialog(this.info.game, this.info.title),
      sound: soundButton(),
    });
    replace(this.main, this.root);
    this.root.dataset.status = this.info.status;
  }

  // -- the connection's hooks ------------------------------------------------------------------
  lost(offline) {
    this.banner.show(offline ? t("You are offline. Reconnecting when the network is back…") : t("Connection lost. Reconnecting…"));
    this.root.classList.add("offline");
  }

  // The host freed this device's seat (close code 4003, docs/protocol.md): its token
  // opens nothing now, so the page forgets it, says so, and watches from the next socket
  // (the lobby offers the open seats again).
  closed(closeCode) {
    if (closeCode !== SEAT_FREED) return;
    this.token = null;
    keepSeat(this.code, null);
    this.freed = true;
    replace(this.notice, h("span", { id: "seat-freed" }, t("The host freed your seat. You are watching now; you may take an open seat again.")));
    this.notice.hidden = false;
  }

  send(message) {
    if (this.connection.send(message)) return true;
    toast(t("Not connected right now; try again in a moment."), "error");
    return false;
  }

  /** Make the legal move `id` of the position shown (once per position, until it is answered). */
  act(id) {
    const msg = this.msg;
    if (!msg || !(msg.legal || []).some((a) => a.id === id)) return false;
    if (this.connection.sentFor !== msg.state_id && !this.connection.ready()) {
      toast(t("Not connected right now; try again in a moment."), "error");
      return false;
    }
    if (!this.connection.act(id, msg.state_id)) return false;
    this.moves.lock();
    return true;
  }

  async onMessage(message, ws) {
    switch (message.type) {
      case "welcome":
        this.banner.hide();
        this.notice.hidden = !this.freed; // the freed seat's words stay until a seat is taken
        this.root.classList.remove("offline");
        this.info = message.room;
        this.setYou(message.you);
        this.fresh = true;
        this.chat.reset(message.chat);
        break;
      case "update":
        await this.onUpdate(message);
        break;
      case "presence":
        this.onPresence(message);
        break;
      case "chat":
        this.chat.add(message, true);
        break;
      case "error":
        this.onError(message, ws);
        break;
      default:
        break; // pong, and anything newer than this client
    }
  }

  onError(message, ws) {
    if (!ws.welcomed && message.error === "forbidden") {
      // The token is not a seat's of this room (an old room, another server): drop it.
      this.token = null;
      keepSeat(this.code, null);
      this.connection.stopped = true;
      const watch = () => {
        this.connection.stopped = false;
        this.notice.hidden = true;
        this.connection.connect();
      };
      replace(
        this.notice,
        h("span", {}, t("This device's key to a seat in this room is not valid any more. ")),
        h("button", { type: "button", class: "primary", id: "watch-instead", onclick: watch }, t("Watch instead")),
      );
      this.notice.hidden = false;
      this.banner.hide();
      return;
    }
    if (!ws.welcomed && message.error === "not_found") {
      this.connection.stopped = true;
      replace(this.notice, h("span", {}, t("This room does not exist any more. ")), h("a", { href: "/" }, t("Go to the lobby")));
      this.notice.hidden = false;
      return;
    }
    this.connection.refused(ws);
    if (message.error === "tutorial_wrong_move") this.coach.wrong(message.message);
    else toast(message.message || message.error, "error");
  }

  setYou(you) {
    this.you = you === undefined ? null : you;
    if (this.you !== null) keepSeat(this.code, this.you);
    this.root.dataset.you = this.you === null ? "" : String(this.you);
  }

  // -- the parts' hooks ------------------------------------------------------------------------
  /** A seat was just taken on this device (the lobby's join form): connect with its token. */
  seated(token) {
    this.token = token;
    this.freed = false;
    this.connection.reconnectNow();
  }

  async hostCall(call) {
    try {
      await call();
    } catch (error) {
      toast(error.message, "error");
    }
  }

  rematch() {
    return this.hostCall(() => api.rematch(this.code, this.hostToken));
  }

  // -- updates ---------------------------------------------------------------------------------
  async onUpdate(msg) {
    const fresh = Boolean(this.fresh);
    this.fresh = false;
    msg.fresh = fresh; // the first update on a connection carries the whole game's events
    // How far the device's clock is from the server's, so countdowns are the server's.
    if (typeof msg.now === "number") this.status.skew = msg.now - Date.now() / 1000;
    const previous = this.msg;
    const newGame = this.gameNo !== null && msg.game_no !== this.gameNo;
    this.msg = msg;
    this.setYou(msg.you);
    this.info = { ...this.info, status: msg.status, game_no: msg.game_no, seats: msg.seats };
    Object.assign(this.root.dataset, { status: msg.status, stateId: msg.state_id || "", gameNo: String(msg.game_no) });
    this.connection.updated(msg);
    // The next game of a series keeps the last one's lines and result under their own
    // heading (it starts a few seconds after the result, too soon to read it all); only
    // that one game is kept. A rematch, or a new connection, starts the log afresh.
    const series = msg.match_target !== null && msg.match_target !== undefined;
    if (fresh || (newGame && !series)) this.log.clear();
    else if (newGame) this.log.dropBefore(msg.game_no - 1);
    if (newGame && this.table) this.unmountTable();
    this.gameNo = msg.game_no;

    this.drawWatchers(msg);
    this.drawAway(msg);
    this.chat.drawForm();
    this.hostTools.draw(msg);
    if (msg.status === "lobby") {
      this.lobby.element.hidden = false;
      this.lobby.draw(msg);
      document.title = t("{game} · waiting to start · apothecary", { game: this.info.title });
      return;
    }
    this.lobby.element.hidden = true;
    if (!this.table) await this.mountTable();
    this.drawGame(msg, previous, fresh || newGame);
  }

  // Someone joined or left (a presence message): the last update takes in who is
  // connected and how many watch, and only the parts that show it are drawn again.
  onPresence(message) {
    const msg = this.msg;
    if (!msg || !Array.isArray(message.connected) || message.connected.length !== msg.seats.length) return;
    msg.seats = msg.seats.map((place, i) => ({ ...place, connected: Boolean(message.connected[i]) }));
    msg.spectators = message.spectators;
    this.info = { ...this.info, seats: msg.seats };
    this.drawWatchers(msg);
    this.hostTools.draw(msg);
    if (msg.status === "lobby") this.lobby.draw(msg);
    else drawSeatsBar(this.seatsBar, seatChips(msg, this.you, this.names, this.holding));
  }

  // An update of a game under way or over: the table first, then the parts around it.
  drawGame(msg, previous, fromStart) {
    this.releaseLog(); // lines held back by the last update go first, in order
    const ended = msg.status === "over" && msg.outcome && !this.log.hasResult(msg.game_no);
    const last = ended ? this.log.resultLine(msg, this.winners(msg.outcome), reasonRuns(msg.outcome)) : null;
    const lines = () => this.log.add(msg.events || [], msg.game_no, fromStart, last, msg.notices || []);
    try {
      this.table.update(msg);
    } catch (error) {
      console.error("the table failed to draw this update", error);
    }
    // A table still showing how the game ended (glasses still turning over, say)
    // holds the result, and the log's last lines, back until it is done or skipped:
    // the headline would tell first.
    this.holding = msg.status === "over" && Boolean(this.table?.holdsResult?.());
    if (this.holding) this.heldLines = lines;
    else lines();
    this.drawAround(msg);
    this.moves.draw(msg);
    this.coach.draw(msg);
    if (this.connection.settle(msg)) this.moves.lock();
    // The game ended while you looked on: in a tall layout (a phone, a full desktop room)
    // the page is scrolled to the moves, so bring the winner into view, once.
    if (msg.status === "over" && previous && previous.status !== "over" && previous.game_no === msg.game_no) this.scroll.showResult(this.result);
    this.cues(previous, msg);
    this.scroll.bringTurnIntoView(previous, msg, this.table, this.moves.element);
  }

  // The seats bar, the status line and the result, which wait for a held result alike.
  drawAround(msg) {
    drawSeatsBar(this.seatsBar, seatChips(msg, this.you, this.names, this.holding));
    this.status.draw(msg, this);
    drawResult(this.result, msg, this, this.holding);
  }

  // "Ann (you) wins", "Ann, Bob and Cy share the win", "Nobody wins".
  winners(outcome) {
    return winnersWords(outcome, (seat) => this.names.seatLabel(seat));
  }

  // The table has shown how the game ended (its ctx.settled()): the result, held back, shows.
  releaseResult() {
    if (!this.holding || !this.msg) return;
    this.holding = false;
    this.releaseLog();
    this.drawAround(this.msg);
    this.scroll.showResult(this.result);
  }

  releaseLog() {
    const lines = this.heldLines;
    this.heldLines = null;
    if (lines) lines();
  }

  // Sounds: the game's end, a death or a reveal (as the table's soundOf says of the
  // events: the shell never guesses from their words), and your turn starting.
  cues(previous, msg) {
    const yourTurn = (msg.legal || []).length > 0;
    const wasYourTurn = previous && previous.state_id === msg.state_id ? (previous.legal || []).length > 0 : false;
    document.title = yourTurn ? `● ${t("Your turn · {game} · apothecary", { game: this.info.title })}` : t("{game} · apothecary", { game: this.info.title });
    if (msg.fresh) return;
    const sounds = new Set((msg.events || []).map((event) => soundOf(this.loaded?.module, event)));
    const died = sounds.has("death");
    const revealed = sounds.has("reveal");
    if (msg.status === "over" && previous && previous.status !== "over") sound.play("over");
    else if (died) sound.play("death");
    else if (revealed) sound.play("reveal");
    if (yourTurn && !wasYourTurn) setTimeout(() => sound.play("turn"), died || revealed ? 450 : 0);
  }

  drawWatchers(msg) {
    const n = msg.spectators || 0;
    this.watchers.textContent = n ? tn("{count} watching", "{count} watching", n) : "";
    this.watchers.hidden = !n;
  }

  drawAway(msg) {
    const place = this.you === null ? null : msg.seats[this.you];
    this.awayBox.hidden = !(place && place.away && msg.status === "playing");
    if (!this.awayBox.hidden) this.awayText.textContent = awayWords(place);
  }

  // -- the table module ------------------------------------------------------------------------
  async mountTable() {
    this.loaded = this.loaded || (await loadTable(this.game, this.info.game));
    const slot = h("div", { class: "table-area" });
    replace(this.tableSlot, slot);
    const screen = this;
    const ctx = {
      game: this.game,
      options: this.info.options,
      players: this.info.players,
      get you() {
        return screen.you;
      },
      seatName: (seat) => this.names.seatName(seat),
      seatLabel: (seat) => this.names.seatLabel(seat),
      act: (id) => this.act(id),
      prefersReducedMotion: prefersReducedMotion(),
      settled: () => this.releaseResult(),
    };
    const { table, kind } = await mountTable(this.loaded, slot, ctx);
    this.table = table;
    this.root.dataset.table = kind;
  }

  unmountTable() {
    try {
      this.table?.destroy?.();
    } catch (error) {
      console.error(error);
    }
    this.table = null;
    replace(this.tableSlot);
  }
}

// This device's seat in room `code` (null: none, and its token goes with it).
function keepSeat(code, seat) {
  keep(code, seat === null ? { seat_token: null, seat: null } : { seat });
}
