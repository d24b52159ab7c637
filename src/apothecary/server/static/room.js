// The room screen (/rooms/CODE): the room's lobby (invite link, QR code, seats,
// start), then the table with its seats bar, status line, legal actions, log,
// chat and result; and the WebSocket connection behind it.

import { ApiError, api, keep, kept, setting, setSetting } from "./api.js";
import { h, prefersReducedMotion, replace, s as svgEl, toast } from "./dom.js";
import { render as renderMarkdown } from "./markdown.js";
import { svg as qrSvg } from "./qr.js";
import * as sound from "./sound.js";
import { loadTable } from "./tables/load.js";

const CHAT_LIMIT = 500;
const NAME_LIMIT = 40;
const COLLAPSE_OVER = 12;
const SCROLLED_LATELY = 5000; // ms: a person who scrolled this recently is left where they are
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);
const RETRY_DELAYS = [500, 1000, 2000, 4000, 8000];
const PING_EVERY = 15000;
const PONG_WAIT = 6000;
const HEALTH_EVERY = 400;
const HEALTH_WAIT = 1000;
const WELCOME_WAIT = 20000; // longer than a cluster takes to move a room (docs/deploy.md)

export async function showRoom(main, code) {
  let info;
  try {
    info = await api.room(code);
  } catch (error) {
    replace(
      main,
      h(
        "section",
        { class: "panel notice" },
        h("h1", {}, error instanceof ApiError && error.status === 404 ? "No such room" : "The room could not be opened"),
        h("p", {}, error instanceof ApiError && error.status === 404 ? `No room has the code ${code}. Check the invite link.` : error.message),
        h("p", {}, h("a", { href: "/", class: "button primary" }, "Go to the lobby")),
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
    this.table = null;
    this.tableKind = null;
    this.chain = Promise.resolve();
    this.ws = null;
    this.attempt = 0;
    this.everConnected = false;
    this.stopped = false;
    this.sentFor = null;
    this.logCount = 0;
    const saved = kept(code);
    this.token = saved.seat_token || null;
    this.hostToken = saved.host_token || null;
  }

  // -- the page --------------------------------------------------------------------------------
  start() {
    document.title = `${this.info.title} · apothecary`;
    this.build();
    this.connect();
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("offline", () => {
      this.showBanner("You are offline. Reconnecting when the network is back…");
      if (this.ws) this.ws.close();
    });
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && !this.ws && !this.stopped) this.reconnectNow();
    });
    setInterval(() => this.tick(), 250);
    document.addEventListener("pointerdown", () => sound.unlock(), { once: false, passive: true });
    document.addEventListener("keydown", () => sound.unlock(), { passive: true });
  }

  build() {
    const rulesDialog = h(
      "dialog",
      { id: "rules-dialog", class: "rules-dialog", "aria-labelledby": "rules-dialog-title" },
      h(
        "div",
        { class: "dialog-head" },
        h("h2", { id: "rules-dialog-title" }, `Rules of ${this.info.title}`),
        h("button", { type: "button", class: "quiet", onclick: () => rulesDialog.close(), "aria-label": "Close the rules" }, "Close"),
      ),
      h("div", { class: "markdown", id: "rules-body" }, h("p", { class: "muted" }, "Loading…")),
    );
    this.rulesDialog = rulesDialog;
    this.soundButton = h("button", { type: "button", class: "quiet sound-toggle", onclick: () => this.toggleSound() });
    this.drawSoundButton();
    this.watchers = h("span", { class: "watchers", "aria-live": "off" });
    this.banner = h("div", { id: "banner", class: "banner", role: "status", hidden: true });
    this.awayText = h("span", { id: "away-text" });
    this.awayBox = h(
      "div",
      { id: "away", class: "banner banner-warn", hidden: true },
      this.awayText,
      h("button", { type: "button", class: "primary", id: "take-back", onclick: () => this.send({ type: "back" }) }, "Take my seat back"),
    );
    this.notice = h("div", { id: "notice", class: "banner banner-bad", hidden: true });
    this.lobbyPanel = h("div", { id: "room-lobby", class: "room-lobby" });
    this.seatsBar = h("ol", { id: "seats", class: "seats-bar", "aria-label": "Seats" });
    this.statusText = h("span", { class: "status-text" });
    this.clockText = h("span", { class: "clock-text" });
    this.clock = h(
      "span",
      { id: "clock", class: "clock", role: "timer", hidden: true },
      svgEl(
        "svg",
        { viewBox: "0 0 16 16", "aria-hidden": "true" },
        svgEl("circle", { cx: "8", cy: "9", r: "6", fill: "none", stroke: "currentColor", "stroke-width": "1.6" }),
        svgEl("path", { d: "M8 5.5V9l2.2 1.6M6.5 1.5h3", fill: "none", stroke: "currentColor", "stroke-width": "1.6", "stroke-linecap": "round" }),
      ),
      this.clockText,
    );
    this.status = h("p", { id: "status", class: "status-line", "aria-live": "polite" }, this.statusText, this.clock);
    this.result = h("section", { id: "result", class: "result panel", hidden: true, "aria-labelledby": "result-title" });
    this.tableSlot = h("div", { class: "table-slot" });
    this.legal = h("section", { id: "legal", class: "legal", "aria-label": "Your moves" });
    // Both lists scroll: tabindex 0 lets the keyboard reach them to scroll (arrows, Page Down).
    this.log = h("ol", { id: "log", class: "log", tabindex: "0", "aria-live": "polite", "aria-label": "What happened" });
    this.chatLog = h("ol", { id: "chat-log", class: "chat-log", tabindex: "0", "aria-live": "polite", "aria-label": "Table talk" });
    this.chatForm = this.buildChatForm();
    this.hostTools = h("div", { id: "host-tools", class: "host-tools" });
    const logTab = h("button", { type: "button", role: "tab", id: "tab-log", "aria-controls": "log-panel", "aria-selected": "true" }, "Log");
    this.chatTab = h(
      "button",
      { type: "button", role: "tab", id: "tab-chat", "aria-controls": "chat-panel", "aria-selected": "false", tabindex: "-1" },
      "Chat",
      h("span", { class: "unread", hidden: true, "aria-label": "new messages" }, "•"),
    );
    const logPanel = h("section", { id: "log-panel", role: "tabpanel", "aria-labelledby": "tab-log", class: "side-panel" }, h("h2", { class: "side-title" }, "Log"), this.log);
    const chatPanel = h(
      "section",
      { id: "chat-panel", role: "tabpanel", "aria-labelledby": "tab-chat", class: "side-panel", hidden: true },
      h("h2", { class: "side-title" }, "Table talk"),
      this.chatLog,
      this.chatForm,
    );
    const tabs = [logTab, this.chatTab];
    const panels = [logPanel, chatPanel];
    const select = (index) => {
      tabs.forEach((tab, i) => {
        tab.setAttribute("aria-selected", i === index ? "true" : "false");
        tab.tabIndex = i === index ? 0 : -1;
        panels[i].hidden = i !== index;
      });
      if (index === 1) this.chatTab.querySelector(".unread").hidden = true;
      if (index === 0) this.scrollLog(true);
    };
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => select(i));
      tab.addEventListener("keydown", (event) => {
        if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
          const next = (i + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length;
          select(next);
          tabs[next].focus();
        }
      });
    });
    this.selectTab = select;
    this.chatPanel = chatPanel;

    this.root = h(
      "section",
      { id: "room", class: "room", dataset: { code: this.code, game: this.info.game } },
      h(
        "header",
        { class: "room-head" },
        h(
          "div",
          { class: "room-name" },
          h("p", { class: "eyebrow" }, "Room ", h("code", { class: "room-code" }, this.code)),
          h("h1", {}, this.info.title),
        ),
        h(
          "div",
          { class: "head-tools" },
          this.watchers,
          this.info.settings?.hints
            ? h("span", { class: "badge hints-badge", id: "hints-badge", title: "Each seat may ask the strongest bot for a suggestion on its turn" }, "Hints on")
            : null,
          h("button", { type: "button", class: "quiet", id: "rules-button", onclick: () => this.openRules(), "aria-haspopup": "dialog" }, "Rules"),
          this.soundButton,
        ),
      ),
      this.banner,
      this.notice,
      this.awayBox,
      this.lobbyPanel,
      h(
        "div",
        { class: "game-layout", id: "game-panel" },
        h("div", { class: "play-column" }, this.seatsBar, this.status, this.result, this.tableSlot, this.legal),
        h(
          "aside",
          { class: "side", "aria-label": "Log and chat" },
          h("div", { class: "tabs", role: "tablist", "aria-label": "Log and chat" }, tabs),
          logPanel,
          chatPanel,
          this.hostTools,
        ),
      ),
      rulesDialog,
    );
    replace(this.main, this.root);
    this.root.dataset.status = this.info.status;
  }

  buildChatForm() {
    const input = h("input", {
      type: "text",
      id: "chat-input",
      maxlength: CHAT_LIMIT,
      autocomplete: "off",
      placeholder: "Say something to the table",
      "aria-label": "Chat message",
    });
    const form = h(
      "form",
      { class: "chat-form", id: "chat-form" },
      input,
      h("button", { type: "submit" }, "Send"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim().slice(0, CHAT_LIMIT);
      if (!text) return;
      if (this.send({ type: "chat", text })) input.value = "";
    });
    this.chatInput = input;
    return form;
  }

  async openRules() {
    const body = this.rulesDialog.querySelector("#rules-body");
    if (!body.dataset.loaded) {
      try {
        const markdown = await api.rules(this.info.game);
        replace(body, renderMarkdown(markdown));
        body.dataset.loaded = "yes";
      } catch (error) {
        replace(body, h("p", { class: "error" }, `The rules could not be loaded: ${error.message}`));
      }
    }
    this.rulesDialog.showModal();
  }

  toggleSound() {
    sound.unlock();
    sound.setMuted(!sound.isMuted());
    this.drawSoundButton();
  }

  drawSoundButton() {
    const muted = sound.isMuted();
    this.soundButton.textContent = muted ? "Sound off" : "Sound on";
    this.soundButton.setAttribute("aria-pressed", muted ? "false" : "true");
    this.soundButton.setAttribute("title", muted ? "Turn the sound cues on" : "Mute the sound cues");
  }

  showBanner(text) {
    this.banner.textContent = text;
    this.banner.hidden = false;
  }

  hideBanner() {
    this.banner.hidden = true;
  }

  // -- the connection --------------------------------------------------------------------------
  connect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.waiting = null; // ends the /health probe of the wait before (probeHealth)
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/rooms/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    ws.welcomed = false;
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token }));
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      ws.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.chain = this.chain.then(() => this.onMessage(message, ws)).catch((error) => console.error(error));
    });
    ws.addEventListener("close", () => this.lost(ws));
    // A stopped server takes the connection but never answers it: try again later.
    setTimeout(() => {
      if (this.ws === ws && !ws.welcomed) this.lost(ws);
    }, WELCOME_WAIT);
    // A socket can die without a close (a laptop lid, a lost Wi-Fi): ping, and give up on silence.
    ws.pinger = setInterval(() => this.probe(ws), PING_EVERY);
  }

  // Ping; a socket that says nothing back within PONG_WAIT is taken for dead.
  probe(ws) {
    if (ws.readyState !== WebSocket.OPEN) return;
    const asked = Date.now();
    ws.send(JSON.stringify({ type: "ping" }));
    setTimeout(() => {
      if (this.ws === ws && (ws.lastHeard || 0) < asked) this.lost(ws);
    }, PONG_WAIT);
  }

  // The socket is gone (closed, or silent): at once, not after the browser's closing
  // handshake with a server that may never answer it. A move sent on it and not answered
  // is kept to be sent again on the next socket.
  lost(ws) {
    if (this.ws !== ws) return;
    this.ws = null;
    clearInterval(ws.pinger);
    this.keepUnanswered(ws);
    if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close();
    if (this.stopped) return;
    this.showBanner(
      navigator.onLine === false ? "You are offline. Reconnecting when the network is back…" : "Connection lost. Reconnecting…",
    );
    this.root.classList.add("offline");
    this.retryLater();
  }

  // Back off (0.5, 1, 2, 4, then 8 s), but ask /health meanwhile, so that a server that
  // comes back is reconnected to within a second, not after the rest of the wait.
  retryLater() {
    if (navigator.onLine === false) {
      this.retryTimer = setTimeout(() => this.connect(), 30000); // the online event comes first
      return;
    }
    const delay = RETRY_DELAYS[Math.min(this.attempt, RETRY_DELAYS.length - 1)] * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
    if (delay > HEALTH_EVERY * 2) this.probeHealth();
  }

  // Only a change from not answering to answering cuts the wait short: a server that
  // answers /health all along but closes the socket (a room moving between processes,
  // a full queue) keeps the back-off.
  probeHealth() {
    const waiting = {};
    this.waiting = waiting;
    let failed = false;
    const ask = async () => {
      if (this.waiting !== waiting) return;
      const up = await answers("/health", HEALTH_WAIT);
      if (this.waiting !== waiting) return;
      if (up && failed) {
        this.connect();
        return;
      }
      failed = failed || !up;
      setTimeout(ask, HEALTH_EVERY * (0.8 + Math.random() * 0.4));
    };
    ask();
  }

  reconnectNow() {
    if (this.stopped) return;
    this.attempt = 0;
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      clearInterval(old.pinger);
      this.keepUnanswered(old);
      old.close();
    }
    this.connect();
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.ws.welcomed) {
      toast("Not connected right now; try again in a moment.", "error");
      return false;
    }
    this.ws.send(JSON.stringify(message));
    return true;
  }

  act(id) {
    const msg = this.msg;
    if (!msg || !(msg.legal || []).some((a) => a.id === id)) return false;
    if (this.sentFor === msg.state_id) return false; // one move per position, until it is answered
    if (!this.send({ type: "act", action: id, state_id: msg.state_id })) return false;
    this.sentFor = msg.state_id;
    this.unanswered = { action: id, state_id: msg.state_id, ws: this.ws, resent: false };
    this.lockMoves();
    // The server answers a move at once (an update, or an error): silence means it is
    // stopped or the socket is dead, which a ping tells sooner than the next regular one.
    this.probe(this.ws);
    return true;
  }

  lockMoves() {
    this.legal.querySelectorAll("button[data-action]").forEach((b) => (b.disabled = true));
  }

  // The socket of an unanswered move is gone: whether the server applied the move is told
  // by the next socket's first update (resendUnanswered). The choice is open again either way.
  keepUnanswered(ws) {
    this.sentFor = null;
    if (this.unanswered && this.unanswered.ws === ws) this.resend = this.unanswered;
    this.unanswered = null;
  }

  // On a new socket's first update: still the position the move was sent in, so the server
  // never applied it; send it again, once (a move names its state_id, so it is never applied
  // twice). A position that moved on means it was applied, or overtaken (a timer, a bot).
  resendUnanswered(msg) {
    const resend = this.resend;
    this.resend = null;
    if (!resend || resend.resent || resend.state_id !== msg.state_id) return;
    if (this.act(resend.action)) this.unanswered.resent = true;
  }

  // After the moves are drawn: a new socket's first update may call for the move again;
  // an update of the position a move is on its way from keeps the moves locked.
  settleMove(msg) {
    if (msg.fresh) this.resendUnanswered(msg);
    if (this.sentFor === msg.state_id) this.lockMoves();
  }

  // The server refused something on the socket a move went on: it answered the move (a
  // refusal changes nothing), so the choice is open again.
  releaseMove(ws) {
    if (!this.unanswered || this.unanswered.ws !== ws) return;
    this.sentFor = this.unanswered = null;
    this.legal.querySelectorAll("button[data-action]").forEach((b) => (b.disabled = false));
  }

  async onMessage(message, ws) {
    switch (message.type) {
      case "welcome":
        ws.welcomed = true;
        this.attempt = 0;
        this.everConnected = true;
        this.hideBanner();
        this.notice.hidden = true;
        this.root.classList.remove("offline");
        this.info = message.room;
        this.setYou(message.you);
        this.fresh = true;
        replace(this.chatLog);
        (message.chat || []).forEach((entry) => this.addChat(entry, false));
        break;
      case "update":
        await this.onUpdate(message);
        break;
      case "chat":
        this.addChat(message, true);
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
      keep(this.code, { seat_token: null, seat: null });
      this.stopped = true;
      replace(
        this.notice,
        h("span", {}, "This device's key to a seat in this room is not valid any more. "),
        h(
          "button",
          {
            type: "button",
            class: "primary",
            id: "watch-instead",
            onclick: () => {
              this.stopped = false;
              this.notice.hidden = true;
              this.connect();
            },
          },
          "Watch instead",
        ),
      );
      this.notice.hidden = false;
      this.hideBanner();
      return;
    }
    if (!ws.welcomed && message.error === "not_found") {
      this.stopped = true;
      replace(this.notice, h("span", {}, "This room does not exist any more. "), h("a", { href: "/" }, "Go to the lobby"));
      this.notice.hidden = false;
      return;
    }
    this.releaseMove(ws);
    toast(message.message || message.error, "error");
  }

  setYou(you) {
    this.you = you === undefined ? null : you;
    if (this.you !== null) keep(this.code, { seat: this.you });
    this.root.dataset.you = this.you === null ? "" : String(this.you);
  }

  // -- names -----------------------------------------------------------------------------------
  seats() {
    return (this.msg && this.msg.seats) || this.info.seats || [];
  }

  // The seat's name alone, even when another seat has the same one.
  ownName(seat) {
    const place = this.seats()[seat];
    if (!place) return `seat ${seat}`;
    return place.name || (place.kind === "open" ? "open seat" : `seat ${seat}`);
  }

  seatName(seat) {
    const seats = this.seats();
    const place = seats[seat];
    const name = this.ownName(seat);
    const twins = place ? seats.filter((s) => s.name === place.name).length : 0;
    return twins > 1 ? `${name} (seat ${seat})` : name;
  }

  seatLabel(seat) {
    return seat === this.you ? `${this.seatName(seat)} (you)` : this.seatName(seat);
  }

  // "seat 2 drinks" -> nodes with the seat's name; your seat marked. A list of seats
  // ("seats 0, 1, 2", "survivors 0 and 1", as some outcomes say) becomes names joined
  // the usual way ("Ann (you), Bob and Cy"); "survivors" keeps its word.
  named(text, { capital = false } = {}) {
    const parts = [];
    for (const piece of seatRuns(text)) {
      if (typeof piece === "string") {
        parts.push(piece);
        continue;
      }
      parts.push(...naturalJoin(piece.seats.map((seat) => this.who(seat))));
    }
    if (capital && typeof parts[0] === "string") parts[0] = parts[0].replace(/^./, (c) => c.toUpperCase());
    return parts;
  }

  // A seat's name as the log and the result show it (yours marked).
  who(seat) {
    return h("span", { class: ["who", seat === this.you && "you"], dataset: { seat: String(seat) } }, this.seatLabel(seat));
  }

  namedText(text) {
    return seatRuns(text)
      .map((piece) => (typeof piece === "string" ? piece : naturalJoin(piece.seats.map((seat) => this.seatLabel(seat))).join("")))
      .join("");
  }

  // -- updates ---------------------------------------------------------------------------------
  async onUpdate(msg) {
    const fresh = Boolean(this.fresh);
    this.fresh = false;
    msg.fresh = fresh; // the first update on a connection carries the whole game's events
    // How far the device's clock is from the server's, so countdowns are the server's.
    if (typeof msg.now === "number") this.skew = msg.now - Date.now() / 1000;
    const previous = this.msg;
    const newGame = this.gameNo !== null && msg.game_no !== this.gameNo;
    this.msg = msg;
    this.setYou(msg.you);
    this.info = { ...this.info, status: msg.status, game_no: msg.game_no, seats: msg.seats };
    this.root.dataset.status = msg.status;
    this.root.dataset.stateId = msg.state_id || "";
    this.root.dataset.gameNo = String(msg.game_no);
    if (this.sentFor !== msg.state_id) this.sentFor = this.unanswered = null; // answered: a new position
    // The next game of a series keeps the last one's lines and result under their own
    // heading (it starts a few seconds after the result, too soon to read it all); only
    // that one game is kept. A rematch, or a new connection, starts the log afresh.
    const series = msg.match_target !== null && msg.match_target !== undefined;
    if (fresh || (newGame && !series)) this.clearLog();
    else if (newGame) this.dropLogBefore(msg.game_no - 1);
    if (newGame && this.table) this.unmountTable();
    this.gameNo = msg.game_no;

    this.drawWatchers(msg);
    this.drawAway(msg);
    this.drawHostTools(msg);
    if (msg.status === "lobby") {
      this.lobbyPanel.hidden = false;
      this.drawRoomLobby(msg);
      document.title = `${this.info.title} · waiting to start · apothecary`;
      return;
    }
    this.lobbyPanel.hidden = true;
    if (!this.table) await this.mountTable();
    this.releaseLog(); // lines held back by the last update go first, in order
    const ended = msg.status === "over" && msg.outcome && !this.log.querySelector(`li.log-result[data-game="${msg.game_no}"]`);
    const lines = () => this.addEvents(msg.events || [], msg.game_no, fresh || newGame, ended ? this.resultLine(msg) : null, msg.notices || []);
    if (this.table) {
      try {
        this.table.update(msg);
      } catch (error) {
        console.error("the table failed to draw this update", error);
      }
    }
    // A table still showing how the game ended (glasses still turning over, say)
    // holds the result, and the log's last lines, back until it is done or skipped:
    // the headline would tell first.
    this.holding = msg.status === "over" && Boolean(this.table?.holdsResult?.());
    if (this.holding) this.heldLines = lines;
    else lines();
    this.drawSeatsBar(msg);
    this.drawStatus(msg);
    this.drawLegal(msg);
    this.settleMove(msg);
    this.drawResult(msg);
    // The game ended while you looked on: in a tall layout (a phone, a full desktop room)
    // the page is scrolled to the moves, so bring the winner into view, once.
    if (msg.status === "over" && previous && previous.status !== "over" && previous.game_no === msg.game_no) this.showResult();
    this.cues(previous, msg, fresh);
    this.bringTurnIntoView(previous, msg);
  }

  cues(previous, msg, fresh) {
    const yourTurn = (msg.legal || []).length > 0;
    const wasYourTurn = previous && previous.state_id === msg.state_id ? (previous.legal || []).length > 0 : false;
    document.title = `${yourTurn ? "● Your turn · " : ""}${this.info.title} · apothecary`;
    if (fresh) return;
    const events = msg.events || [];
    const died = events.some(
      (e) =>
        e.died === true ||
        (Array.isArray(e.deaths) && e.deaths.length > 0) ||
        (Array.isArray(e.reveal) && e.reveal.some((r) => r && r.died)) ||
        /\b(dies|die|died|dead)\b/.test(e.text || ""),
    );
    const revealed = events.some((e) => e.reveal || /reveal|turned over/.test(`${e.kind} ${e.text || ""}`));
    if (msg.status === "over" && previous && previous.status !== "over") sound.play("over");
    else if (died) sound.play("death");
    else if (revealed) sound.play("reveal");
    if (yourTurn && !wasYourTurn) setTimeout(() => sound.play("turn"), died || revealed ? 450 : 0);
  }

  // -- the table module ------------------------------------------------------------------------
  async mountTable() {
    const name = this.info.game;
    const { module, kind } = await loadTable(this.game, name);
    this.tableKind = kind;
    const root = h("div", { class: "table-area", dataset: { table: this.tableKind } });
    replace(this.tableSlot, root);
    const screen = this;
    const ctx = {
      game: this.game,
      options: this.info.options,
      players: this.info.players,
      get you() {
        return screen.you;
      },
      seatName: (seat) => this.seatName(seat),
      seatLabel: (seat) => this.seatLabel(seat),
      act: (id) => this.act(id),
      prefersReducedMotion: prefersReducedMotion(),
      settled: () => this.releaseResult(),
    };
    try {
      this.table = module.mount(root, ctx) || {};
    } catch (error) {
      console.error(`the ${this.tableKind} table failed to mount; using the generic one`, error);
      const generic = await import("/static/tables/generic.js");
      const fresh = h("div", { class: "table-area", dataset: { table: "generic" } });
      replace(this.tableSlot, fresh);
      this.tableKind = "generic";
      this.table = generic.mount(fresh, ctx);
    }
    this.root.dataset.table = this.tableKind;
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

  // -- the room's lobby ------------------------------------------------------------------------
  drawRoomLobby(msg) {
    const invite = `${location.origin}/rooms/${this.code}`;
    const isHost = Boolean(this.hostToken);
    const seated = this.you !== null;
    const open = msg.seats.filter((s) => s.kind === "open").map((s) => s.seat);
    const levels = this.game.levels.map((l) => l.name);
    const linkInput = h("input", { type: "text", readonly: true, value: invite, id: "invite-link", "aria-label": "Invite link" });
    const copy = h(
      "button",
      {
        type: "button",
        id: "copy-invite",
        class: "primary",
        onclick: async () => {
          try {
            await navigator.clipboard.writeText(invite);
          } catch {
            linkInput.select();
            document.execCommand?.("copy");
          }
          toast("The invite link is copied.");
        },
      },
      "Copy the link",
    );
    const seatRows = msg.seats.map((place) => {
      const you = place.seat === this.you;
      let who;
      if (place.kind === "open") who = h("span", { class: "muted" }, "open: waiting for a person");
      else if (place.kind === "bot") who = h("span", {}, `${place.name}`, h("span", { class: "tag" }, "bot"));
      else who = h("span", {}, place.name, you ? h("span", { class: "tag tag-you" }, "you") : null);
      const controls = [];
      if (isHost && place.kind === "open") {
        const select = h(
          "select",
          { "aria-label": `Bot level for seat ${place.seat}` },
          levels.map((l) => h("option", { value: l }, l)),
        );
        select.value = this.info.settings?.fallback_level && levels.includes(this.info.settings.fallback_level) ? this.info.settings.fallback_level : levels[0];
        controls.push(
          select,
          h(
            "button",
            {
              type: "button",
              class: "quiet",
              dataset: { seatBot: String(place.seat) },
              onclick: () => this.hostCall(() => api.seatBot(this.code, place.seat, select.value, this.hostToken)),
            },
            "Seat a bot",
          ),
        );
      }
      return h(
        "li",
        { class: ["lobby-seat", place.kind, you && "is-you"], dataset: { seat: String(place.seat) } },
        h("span", { class: "seat-no" }, `seat ${place.seat}`),
        h("span", { class: ["dot", place.kind === "human" && (place.connected ? "on" : "off")], "aria-hidden": "true" }),
        who,
        place.kind === "human" ? h("span", { class: "sr-only" }, place.connected ? "(here)" : "(not connected)") : null,
        controls.length ? h("span", { class: "seat-controls" }, controls) : null,
      );
    });
    const parts = [];
    const invitePanel = h(
        "section",
        { class: "panel invite", "aria-labelledby": "invite-title" },
        h("h2", { id: "invite-title" }, "Invite your friends"),
        h("p", {}, "Send them this link, or let them scan the code. Anyone with the link may take an open seat or watch."),
        h("div", { class: "invite-row" }, linkInput, copy),
        h("div", { class: "qr-box" }, qrSvg(invite, { label: `QR code of the invite link ${invite}` })),
      );
    const seatPanel = h(
      "section",
      { class: "panel seats-panel", "aria-labelledby": "seats-title" },
      h("h2", { id: "seats-title" }, "Seats"),
      h("ol", { class: "lobby-seats", id: "lobby-seats" }, seatRows),
      this.roomFacts(),
    );
    if (!seated && open.length) seatPanel.append(this.joinForm(open));
    else if (!seated) seatPanel.append(h("p", { class: "muted" }, "Every seat is taken. You are watching; the game shows here when it starts."));
    if (seated) seatPanel.append(h("p", {}, `You sit in seat ${this.you} as ${this.seatName(this.you)}.`));
    if (isHost) {
      const fallback = this.info.settings?.fallback_level || "medium";
      seatPanel.append(
        h(
          "div",
          { class: "start-row" },
          h(
            "button",
            { type: "button", class: "primary", id: "start-game", onclick: () => this.hostCall(() => api.start(this.code, this.hostToken)) },
            open.length ? "Start now" : "Start the game",
          ),
          open.length ? h("small", { class: "help" }, `Open seats get a ${fallback} bot.`) : null,
        ),
      );
    } else if (seated) {
      seatPanel.append(h("p", { class: "muted" }, "Waiting for the host to start the game…"));
    }
    // A visitor first sees where to sit; the host first sees how to invite.
    if (seated) parts.push(invitePanel, seatPanel);
    else parts.push(seatPanel, invitePanel);
    const focused = document.activeElement && this.lobbyPanel.contains(document.activeElement) ? document.activeElement.id : null;
    const typed = this.lobbyPanel.querySelector("#join-name")?.value;
    replace(this.lobbyPanel, parts);
    if (typed !== undefined && this.lobbyPanel.querySelector("#join-name")) this.lobbyPanel.querySelector("#join-name").value = typed;
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    else if (!this.joinFocused && location.hash === "#join" && this.lobbyPanel.querySelector("#join-name")) {
      this.joinFocused = true;
      this.lobbyPanel.querySelector("#join-name").focus();
    }
  }

  roomFacts() {
    const settings = this.info.settings || {};
    const facts = [];
    const options = Object.entries(this.info.options || {});
    const defaults = Object.fromEntries((this.game.options || []).map((o) => [o.name, o.default]));
    const changed = options.filter(([k, v]) => defaults[k] !== v);
    facts.push(`${this.info.players} players`);
    facts.push(settings.turn_seconds ? `${Math.round(settings.turn_seconds)} s a move` : "no turn timer");
    if (settings.match_target) facts.push(`a series: first to ${settings.match_target} wins`);
    facts.push(settings.listed === false ? "unlisted" : "listed");
    if (settings.hints) facts.push("hints on: a seat may ask the strongest bot on its turn");
    changed.forEach(([k, v]) => facts.push(`${k.replace(/_/g, " ")}: ${v === true ? "on" : v === false ? "off" : v}`));
    return h("p", { class: "facts muted" }, facts.join(" · "));
  }

  joinForm(open) {
    const name = h("input", {
      type: "text",
      id: "join-name",
      required: true,
      maxlength: NAME_LIMIT,
      autocomplete: "nickname",
      value: setting("name", ""),
    });
    const seat = h(
      "select",
      { id: "join-seat" },
      h("option", { value: "" }, "Any open seat"),
      open.map((s) => h("option", { value: String(s) }, `seat ${s}`)),
    );
    const form = h(
      "form",
      { class: "join-form", id: "join-form" },
      h("h3", {}, "Take a seat"),
      h("div", { class: "field" }, h("label", { for: "join-name" }, "Your display name"), name),
      h("div", { class: "field" }, h("label", { for: "join-seat" }, "Seat"), seat),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "submit", class: "primary" }, "Sit down"),
        h("span", { class: "muted" }, "or just watch: you already are."),
      ),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const shown = name.value.trim();
      if (!shown) {
        name.focus();
        return;
      }
      try {
        const answer = await api.claim(this.code, shown, seat.value === "" ? null : Number(seat.value));
        setSetting("name", shown);
        keep(this.code, { seat_token: answer.token, seat: answer.seat, name: shown });
        this.token = answer.token;
        this.reconnectNow();
      } catch (error) {
        toast(`No seat: ${error.message}`, "error");
      }
    });
    return form;
  }

  async hostCall(call) {
    try {
      await call();
    } catch (error) {
      toast(error.message, "error");
    }
  }

  // -- the game's view -------------------------------------------------------------------------
  drawWatchers(msg) {
    const n = msg.spectators || 0;
    this.watchers.textContent = n ? `${n} watching` : "";
    this.watchers.hidden = !n;
  }

  drawAway(msg) {
    const place = this.you === null ? null : msg.seats[this.you];
    this.awayBox.hidden = !(place && place.away && msg.status === "playing");
    if (!this.awayBox.hidden) this.awayText.textContent = awayWords(place);
  }

  drawSeatsBar(msg) {
    const series = msg.match_target !== null && msg.match_target !== undefined;
    const over = msg.status === "over" && !this.holding;
    const winners = new Set((msg.outcome && msg.outcome.winners) || []);
    replace(
      this.seatsBar,
      msg.seats.map((place) => {
        const turn = !over && msg.to_move === place.seat;
        const bits = [];
        if (place.seat === this.you) bits.push("you");
        if (place.kind === "bot") bits.push("bot");
        if (place.away) bits.push("away, a bot plays");
        if (place.kind === "human") bits.push(place.connected ? "here" : "not connected");
        if (turn) bits.push("to move");
        if (over && winners.has(place.seat)) bits.push("winner");
        return h(
          "li",
          {
            class: ["seat-chip", turn && "turn", place.seat === this.you && "is-you", place.away && "away", over && winners.has(place.seat) && "won"],
            dataset: { seat: String(place.seat) },
            "aria-label": `${this.seatName(place.seat)}, seat ${place.seat}: ${bits.join(", ")}${series ? `, ${place.wins} wins` : ""}`,
            "aria-current": turn ? "true" : null,
          },
          h("span", { class: ["dot", place.kind === "bot" ? "bot" : place.connected ? "on" : "off"], "aria-hidden": "true" }),
          // The chip's own line says the seat, so twins need no "(seat N)" here.
          h("span", { class: "chip-name", title: this.seatName(place.seat) }, this.ownName(place.seat)),
          h("span", { class: "chip-seat", "aria-hidden": "true" }, place.seat === this.you ? `seat ${place.seat} · you` : `seat ${place.seat}`),
          place.away ? h("span", { class: "tag tag-warn", "aria-hidden": "true" }, "away") : null,
          turn ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶") : null,
          over && winners.has(place.seat) ? h("span", { class: "tag tag-good", "aria-hidden": "true" }, "won") : null,
          series ? h("span", { class: "wins", "aria-hidden": "true" }, `★ ${place.wins}`) : null,
        );
      }),
    );
  }

  statusWords(msg) {
    if (msg.status === "over" && !this.holding) {
      const reason = msg.outcome?.reason ? `: ${this.namedText(msg.outcome.reason)}` : "";
      return `Game over${reason}`;
    }
    let own = null;
    if (this.table && typeof this.table.turnText === "function") {
      try {
        own = this.table.turnText(msg);
      } catch (error) {
        console.error(error);
      }
    }
    if (own) return own;
    const seat = msg.to_move;
    const who = seat === null || seat === undefined || seat < 0 ? null : `${this.seatName(seat)} (seat ${seat})`;
    switch (msg.waiting_for) {
      case "human":
        if (seat === this.you) return (msg.legal || []).length ? "Your turn: choose a move" : "Your turn";
        return `Waiting for ${who}`;
      case "bot":
        if (msg.seats[seat]?.away) return `A bot is playing for ${who}, who is away`;
        return `${who} is thinking…`;
      case "chance":
        return "The game draws by chance…";
      case "next_game":
        return "The next game of the series starts in a moment…";
      default:
        return "Waiting…";
    }
  }

  drawStatus(msg) {
    const words = this.statusWords(msg);
    if (this.statusText.textContent !== words) this.statusText.textContent = words;
    this.status.classList.toggle("your-turn", (msg.legal || []).length > 0);
    this.tick();
  }

  tick() {
    const msg = this.msg;
    if (!msg || !msg.deadline || msg.status !== "playing") {
      this.clock.hidden = true;
      return;
    }
    const left = Math.max(0, msg.deadline - (Date.now() / 1000 + (this.skew || 0)));
    const whole = Math.ceil(left);
    const text = `${String(Math.floor(whole / 60))}:${String(whole % 60).padStart(2, "0")}`;
    this.clock.hidden = false;
    if (this.clockText.textContent !== text) {
      this.clockText.textContent = text;
      this.clock.setAttribute("aria-label", `${whole} seconds left to move`);
    }
    this.clock.classList.toggle("warn", left < 10);
  }

  drawLegal(msg) {
    const legal = msg.legal || [];
    if (this.you === null) {
      replace(this.legal, h("p", { class: "muted watching" }, "You are watching this game."));
      return;
    }
    if (!legal.length) {
      replace(this.legal);
      this.legal.hidden = true;
      return;
    }
    this.legal.hidden = false;
    const focusedNotation = document.activeElement?.dataset?.notation;
    const buttons = legal.map((action) =>
      h(
        "button",
        {
          type: "button",
          class: "move",
          dataset: { action: String(action.id), notation: action.notation },
          title: action.notation,
          onclick: () => this.act(action.id),
        },
        this.namedText(action.label || action.notation),
      ),
    );
    const list = h("div", { class: "moves" }, buttons);
    if (legal.length > COLLAPSE_OVER) {
      replace(
        this.legal,
        h("details", { class: "moves-details" }, h("summary", {}, `All ${legal.length} moves as buttons`), list),
      );
    } else {
      replace(this.legal, h("h2", { class: "moves-title" }, "Your moves"), list);
    }
    if (this.info.settings?.hints && this.token) this.legal.append(this.hintBox(msg, buttons));
    const again = focusedNotation && buttons.find((b) => b.dataset.notation === focusedNotation);
    if (again) again.focus();
  }

  // A casual room's hint: the strongest bot's suggestion for this position, asked of the
  // server with the seat token (it is computed from the committed game, for this seat only).
  hintBox(msg, buttons) {
    const answer = h("span", { class: "hint-answer", id: "hint-answer", "aria-live": "polite" });
    const ask = async () => {
      button.disabled = true;
      replace(answer, "Thinking…");
      try {
        const response = await fetch(`/api/rooms/${encodeURIComponent(this.code)}/hint`, {
          method: "POST",
          headers: { authorization: `Bearer ${this.token}` },
        });
        const data = await response.json();
        if (!response.ok) throw new Error(data.message || response.statusText);
        if (data.state_id !== msg.state_id) {
          replace(answer, "The position moved on; ask again.");
          return;
        }
        const best = data.suggestion;
        replace(answer, "The bot suggests: ", h("strong", {}, this.namedText(best.label || best.notation)));
        for (const b of buttons) b.classList.toggle("hinted", b.dataset.notation === best.notation);
      } catch (error) {
        replace(answer, `No hint: ${error.message}`);
      } finally {
        button.disabled = false;
      }
    };
    const button = h("button", { type: "button", class: "quiet", id: "hint", onclick: ask }, "Hint");
    return h("p", { class: "hint-line" }, button, " ", answer);
  }

  drawResult(msg) {
    if (msg.status !== "over" || !msg.outcome || this.holding) {
      this.result.hidden = true;
      return;
    }
    const outcome = msg.outcome;
    const winners = new Set(outcome.winners || []);
    const scores = outcome.scores || [];
    const order = msg.seats.map((s) => s.seat).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
    const youWon = this.you !== null && winners.has(this.you);
    const headline = youWon ? (winners.size > 1 ? "You share the win!" : "You win!") : this.winnersWords(outcome);
    const series = msg.match_target !== null && msg.match_target !== undefined;
    const isHost = Boolean(this.hostToken);
    const parts = [
      h("h2", { id: "result-title" }, headline),
      outcome.reason ? h("p", { class: "reason" }, this.named(outcome.reason, { capital: true })) : null,
      h(
        "table",
        { class: "scores" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Score"), series ? h("th", { scope: "col" }, "Series") : null)),
        h(
          "tbody",
          {},
          order.map((seat) =>
            h(
              "tr",
              { class: [winners.has(seat) && "won", seat === this.you && "is-you"] },
              h("td", {}, winners.has(seat) ? h("span", { class: "crown", "aria-label": "winner" }, "♛ ") : null, this.seatLabel(seat)),
              h("td", { class: "num" }, formatScore(scores[seat])),
              series ? h("td", { class: "num" }, `${msg.seats[seat].wins} / ${msg.match_target}`) : null,
            ),
          ),
        ),
      ),
    ];
    if (series) {
      if (msg.series_winner !== null && msg.series_winner !== undefined) {
        parts.push(h("p", { class: "series-line" }, `${this.seatLabel(msg.series_winner)} takes the series, first to ${msg.match_target} wins.`));
      } else if (msg.waiting_for === "next_game") {
        parts.push(h("p", { class: "series-line" }, `First to ${msg.match_target} wins takes the series. The next game starts in a moment…`));
      }
    }
    const actions = h("div", { class: "form-actions" });
    if (isHost && msg.waiting_for !== "next_game") {
      actions.append(
        h(
          "button",
          { type: "button", class: "primary", id: "rematch", onclick: () => this.hostCall(() => api.rematch(this.code, this.hostToken)) },
          series && msg.series_winner !== null ? "Play a new series" : "Rematch",
        ),
      );
    } else if (msg.waiting_for !== "next_game") {
      actions.append(h("span", { class: "muted" }, "The host may offer a rematch."));
    }
    actions.append(
      h("a", { href: `/replay/${encodeURIComponent(this.code)}/${msg.game_no}`, class: "button", id: "open-replay" }, "Open the replay"),
    );
    actions.append(h("a", { href: "/", class: "button" }, "Back to the lobby"));
    parts.push(actions);
    replace(this.result, parts);
    this.result.hidden = false;
  }

  // "Ann (you) wins", "Ann, Bob and Cy share the win", "Nobody wins".
  winnersWords(outcome) {
    const names = (outcome.winners || []).map((s) => this.seatLabel(s));
    if (!names.length) return "Nobody wins";
    return `${naturalJoin(names).join("")} ${names.length > 1 ? "share the win" : "wins"}`;
  }

  // The table has shown how the game ended (its ctx.settled()): the result, held back, shows.
  releaseResult() {
    if (!this.holding || !this.msg) return;
    this.holding = false;
    this.releaseLog();
    this.drawSeatsBar(this.msg);
    this.drawStatus(this.msg);
    this.drawResult(this.msg);
    this.showResult();
  }

  releaseLog() {
    const lines = this.heldLines;
    this.heldLines = null;
    if (lines) lines();
  }

  // Your turn starts: on a phone your own place on the table (your glass, say) and
  // the move buttons were below the first screen. Bring both into view, once a turn,
  // and not when the person has just scrolled themselves or is typing. A page that opens
  // on your turn opens at its top (the seats, the status line), as every page does.
  bringTurnIntoView(previous, msg) {
    this.watchScrolling();
    const yours = (m) => Boolean(m && (m.legal || []).length);
    const starts = Boolean(previous) && yours(msg) && !(yours(previous) && previous.game_no === msg.game_no);
    const place = starts && this.table?.yourPlace?.();
    if (!place || Date.now() - this.scrolledAt < SCROLLED_LATELY || document.activeElement?.matches("input, textarea, select")) return;
    const [a, b] = [place.getBoundingClientRect(), this.legal.getBoundingClientRect()];
    const [top, bottom, room] = [Math.min(a.top, b.top), Math.max(a.bottom, b.bottom), window.innerHeight];
    if (top >= 0 && bottom <= room) return;
    // both when they fit (bottom edge at the window's), else your place at the top
    const by = bottom - top + 16 <= room ? (bottom > room ? bottom - room + 8 : top - 8) : a.top - 8;
    window.scrollBy({ top: by, behavior: prefersReducedMotion() ? "auto" : "smooth" });
  }

  // When the person last scrolled the page themselves (wheel, touch, keys), so a turn's
  // scroll does not pull the page from under them.
  watchScrolling() {
    if (this.scrolledAt !== undefined) return;
    this.scrolledAt = 0;
    const mark = () => (this.scrolledAt = Date.now());
    for (const kind of ["wheel", "touchmove"]) window.addEventListener(kind, mark, { passive: true });
    window.addEventListener("keydown", (event) => {
      // keys scroll the page only from the page itself (on a button, Space presses it)
      if (SCROLL_KEYS.has(event.key) && (event.target === document.body || event.target === document.documentElement)) mark();
    });
  }

  // Scroll the result's headline into view when it is not (the page stays put when it is).
  showResult() {
    const title = this.result.querySelector("h2");
    if (!title || this.result.hidden) return;
    const box = title.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    this.result.scrollIntoView({ block: "start", behavior: prefersReducedMotion() ? "auto" : "smooth" });
  }

  // -- the log and the chat --------------------------------------------------------------------
  clearLog() {
    replace(this.log);
    this.logCount = 0;
  }

  // Forget the lines of the games before game `gameNo` (a series keeps one game back).
  dropLogBefore(gameNo) {
    for (const item of [...this.log.children]) {
      if (Number(item.dataset.game) < gameNo) item.remove();
    }
  }

  // The log's last line of a game: who won, and why.
  resultLine(msg) {
    const reason = msg.outcome.reason;
    return h(
      "li",
      { class: "log-result", dataset: { game: String(msg.game_no) } },
      h("span", { class: "log-text" }, `Game ${msg.game_no}: ${this.winnersWords(msg.outcome)}`),
      reason ? h("ul", { class: "log-then" }, h("li", {}, this.named(reason, { capital: true }))) : null,
    );
  }

  addEvents(events, gameNo, fromStart, last = null, notices = []) {
    // Whether to follow is judged before the batch goes in: measured after, a batch
    // taller than the slack left the log "not near the bottom" and it stopped following.
    const follow = fromStart || this.logAtBottom();
    if (fromStart) {
      this.log.setAttribute("aria-busy", "true");
      this.log.append(h("li", { class: "log-game", dataset: { game: String(gameNo) } }, `Game ${gameNo} begins`));
    }
    for (const [kind, entry] of inStepOrder(events, notices)) {
      if (kind === "notice") {
        const line = this.noticeLine(entry, gameNo);
        if (line) this.log.append(line);
        continue;
      }
      this.log.append(this.eventLine(entry, gameNo));
      this.logCount += 1;
    }
    if (last) this.log.append(last);
    if (fromStart) this.log.removeAttribute("aria-busy");
    this.scrollLog(follow);
  }

  eventLine(event, gameNo) {
    const then = Array.isArray(event.then) ? event.then : [];
    let own = String(event.text || event.notation || "…");
    const tail = then.length ? `; ${then.join("; ")}` : "";
    if (tail && own.endsWith(tail)) own = own.slice(0, -tail.length);
    else if (tail) then.length = 0;
    // A bot's move for an away person says so, not as if they had made it.
    const byBot = typeof event.by_bot === "string" ? h("span", { class: "by-bot" }, `${event.by_bot} bot for `, this.who(event.actor), ": ") : null;
    const data = { step: String(event.step ?? ""), game: String(gameNo), ...(byBot ? { byBot: event.by_bot } : {}) };
    return h(
      "li",
      { class: ["log-event", event.actor === this.you && !byBot && "mine"], dataset: data },
      h("span", { class: "log-text" }, byBot, this.named(own, { capital: !byBot })),
      then.length ? h("ul", { class: "log-then" }, then.map((t) => h("li", {}, this.named(t)))) : null,
    );
  }

  // A notice of the table (someone left, came back, was handed to a bot), from its data.
  noticeLine(notice, gameNo) {
    const words = noticeWords(notice, this.who(notice.seat));
    if (!words) return null; // a kind newer than this client
    return h(
      "li",
      { class: "log-notice", dataset: { notice: notice.kind, seat: String(notice.seat), step: String(notice.step ?? ""), game: String(gameNo) } },
      h("span", { class: "log-text" }, words),
    );
  }

  // At (or within a line of) the bottom: a reader who scrolled further up keeps their place.
  logAtBottom() {
    const box = this.log;
    return box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  }

  scrollLog(follow) {
    if (follow) this.log.scrollTop = this.log.scrollHeight;
  }

  addChat(entry, live) {
    const mine = this.you !== null && entry.seat === this.you;
    const item = h(
      "li",
      { class: ["chat-line", mine && "mine"], dataset: { id: String(entry.id ?? "") } },
      h("span", { class: "chat-who" }, mine ? `${entry.name} (you)` : entry.name || `seat ${entry.seat}`),
      h("span", { class: "chat-text" }, entry.text),
    );
    this.chatLog.append(item);
    this.chatLog.scrollTop = this.chatLog.scrollHeight;
    if (live && this.chatPanel.hidden && !mine) this.chatTab.querySelector(".unread").hidden = false;
    this.drawChatForm();
  }

  drawChatForm() {
    const watching = this.you === null;
    this.chatForm.hidden = watching;
    let note = this.chatPanel.querySelector(".chat-note");
    if (watching && !note) {
      note = h("p", { class: "chat-note muted" }, "Spectators read the table talk; players write it.");
      this.chatPanel.append(note);
    } else if (!watching && note) note.remove();
  }

  drawHostTools(msg) {
    this.drawChatForm();
    if (!this.hostToken || msg.status !== "playing") {
      replace(this.hostTools);
      this.hostSignature = null;
      return;
    }
    const people = msg.seats.filter((s) => s.kind === "human" && s.seat !== this.you && !s.away);
    const signature = people.map((s) => `${s.seat}:${s.name}:${s.connected}`).join("|");
    if (signature === this.hostSignature && this.hostTools.firstChild) return;
    this.hostSignature = signature;
    if (!people.length) {
      replace(this.hostTools);
      return;
    }
    const levels = this.game.levels.map((l) => l.name);
    const who = h("select", { id: "host-seat", "aria-label": "Whose seat" }, people.map((s) => h("option", { value: String(s.seat) }, `${this.seatName(s.seat)}${s.connected ? "" : " (not here)"}`)));
    const level = h("select", { id: "host-level", "aria-label": "Bot level" }, levels.map((l) => h("option", { value: l }, l)));
    // The level the room's timer would hand the seat to, not the list's first (easy).
    const fallback = this.info.settings?.fallback_level;
    if (levels.includes(fallback)) level.value = fallback;
    const previous = this.hostTools.querySelector("details");
    const details = h(
      "details",
      { class: "host-details", open: previous?.open || null },
      h("summary", {}, "Host: let a bot play for someone who left"),
      h(
        "div",
        { class: "host-row" },
        who,
        level,
        h(
          "button",
          { type: "button", onclick: () => this.hostCall(() => api.seatBot(this.code, Number(who.value), level.value, this.hostToken)) },
          "Hand over",
        ),
      ),
      h("small", { class: "help" }, "The seat stays theirs: they take it back by playing."),
    );
    replace(this.hostTools, details);
  }
}

// The text cut into strings and runs of seats: "seat N" (one seat), "seats N, M and K"
// (a list), or "survivors N, M" (a list after a word that stays, as a string before it).
const SEAT_RUN = /\bseat (\d+)\b|\bseats (\d+(?:(?:,? and |, )\d+)*)\b|\b(survivors )(\d+(?:(?:,? and |, )\d+)+)\b/g;

export function seatRuns(text) {
  const whole = String(text);
  const pieces = [];
  let at = 0;
  for (const m of whole.matchAll(SEAT_RUN)) {
    if (m.index > at) pieces.push(whole.slice(at, m.index));
    if (m[3]) pieces.push(m[3]);
    const list = m[1] ?? m[2] ?? m[4];
    pieces.push({ seats: list.split(/,? and |, /).map(Number) });
    at = m.index + m[0].length;
  }
  if (at < whole.length) pieces.push(whole.slice(at));
  return pieces;
}

// Why a bot plays for you, from your seat's away_reason (null: a seat stored before reasons).
function awayWords(place) {
  const bot = aBot(place.level);
  if (place.away_reason === "host") return `The host handed your seat to ${bot} while you were away. `;
  if (place.away_reason === "timeout") return `Your time ran out, so ${bot} is playing for you. `;
  return `${bot.replace(/^a/, "A")} is playing for you. `;
}

// "a medium bot", "an easy bot", "a bot" (no level known).
function aBot(level) {
  if (!level) return "a bot";
  return `${/^[aeiou]/i.test(level) ? "an" : "a"} ${level} bot`;
}

// A notice's words around the node naming its seat; null for a kind this client does not know.
function noticeWords(notice, who) {
  const bot = aBot(notice.level);
  switch (notice.kind) {
    case "left":
      return [who, " left the table"];
    case "returned":
      return [who, " is back at the table"];
    case "bot_plays":
      if (notice.reason === "host") return [who, ` is away: the host handed the seat to ${bot}`];
      if (notice.reason === "timeout") return ["Time ran out for ", who, `: ${bot} plays for them`];
      return [`${bot.replace(/^a/, "A")} plays for `, who];
    case "took_back":
      return [who, " took the seat back from the bot"];
    default:
      return null;
  }
}

// Events and notices in the order they happened: a notice names the step it came before.
function inStepOrder(events, notices) {
  const merged = [];
  let next = 0;
  for (const event of events) {
    while (next < notices.length && notices[next].step <= (event.step ?? Infinity)) merged.push(["notice", notices[next++]]);
    merged.push(["event", event]);
  }
  while (next < notices.length) merged.push(["notice", notices[next++]]);
  return merged;
}

// [a] -> [a]; [a, b] -> [a, " and ", b]; [a, b, c] -> [a, ", ", b, " and ", c].
export function naturalJoin(items) {
  return items.flatMap((item, i) => (i === 0 ? [item] : [i === items.length - 1 ? " and " : ", ", item]));
}

// Whether `url` answers 2xx within `wait` ms (a stopped server never does; a proxy in front
// of a dead one answers 502).
async function answers(url, wait) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), wait);
  try {
    return (await fetch(url, { cache: "no-store", signal: abort.signal })).ok;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

function formatScore(score) {
  if (score === null || score === undefined) return "—";
  return Number.isInteger(score) ? String(score) : String(Math.round(score * 100) / 100);
}
