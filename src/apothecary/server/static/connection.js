// A room's WebSocket (/ws/rooms/CODE): the hello, reconnects (a back-off cut short by
// probing /health), pings against a socket that died without a close, and the one move
// in flight (sent once per position, resent once on the next socket if it went
// unanswered). The room screen gives it hooks and never touches the socket itself.

import { language } from "./i18n.js";
import { answers } from "./api.js";

const RETRY_DELAYS = [500, 1000, 2000, 4000, 8000];
const PING_EVERY = 15000;
const PONG_WAIT = 6000;
const HEALTH_EVERY = 400;
const HEALTH_WAIT = 1000;
const WELCOME_WAIT = 20000; // longer than a cluster takes to move a room (docs/deploy.md)

export class Connection {
  /**
   * `hooks`: `token()` (the seat token to say hello with, or null), `message(message,
   * ws)` (each message, in order; may be async), `lost(offline)` (the socket is gone,
   * a reconnect is on its way), `act(action)` (make the move again on a new socket:
   * whether it went), `unlock()` (a refused move: the choice is open again), and
   * optionally `closed(code)` (the server closed the socket with this code, before
   * `lost`: 4003 is the host freeing the seat).
   */
  constructor(code, hooks) {
    this.code = code;
    this.hooks = hooks;
    this.ws = null;
    this.attempt = 0;
    this.everConnected = false;
    this.stopped = false;
    this.sentFor = null; // the state_id a move is on its way from
    this.unanswered = null;
    this.resend = null;
    this.chain = Promise.resolve();
  }

  /** Connect, and follow the network and the page's visibility. */
  start() {
    this.connect();
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("offline", () => {
      this.hooks.lost(true);
      if (this.ws) this.ws.close();
    });
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && !this.ws && !this.stopped) this.reconnectNow();
    });
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.waiting = null; // ends the /health probe of the wait before (probeHealth)
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/rooms/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    ws.welcomed = false;
    ws.addEventListener("open", () => {
      // The language travels with the hello: the server says the table's words in it.
      ws.send(JSON.stringify({ type: "hello", token: this.hooks.token(), lang: language() }));
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
      this.chain = this.chain.then(() => this.received(message, ws)).catch((error) => console.error(error));
    });
    ws.addEventListener("close", (event) => {
      if (this.ws === ws) this.hooks.closed?.(event.code);
      this.lost(ws);
    });
    // A stopped server takes the connection but never answers it: try again later.
    setTimeout(() => {
      if (this.ws === ws && !ws.welcomed) this.lost(ws);
    }, WELCOME_WAIT);
    // A socket can die without a close (a laptop lid, a lost Wi-Fi): ping, and give up on silence.
    ws.pinger = setInterval(() => this.probe(ws), PING_EVERY);
  }

  received(message, ws) {
    if (message.type === "welcome") {
      ws.welcomed = true;
      this.attempt = 0;
      this.everConnected = true;
    }
    return this.hooks.message(message, ws);
  }

  // Ping; a socket that says nothing back within PONG_WAIT is taken for dead.
  probe(ws) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
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
    this.hooks.lost(navigator.onLine === false);
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

  /** A new socket now (a seat just taken, the network back), the back-off forgotten. */
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

  /** Whether the socket is open and welcomed (only then does a message go). */
  ready() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN && this.ws.welcomed);
  }

  /** Send `message`; false when not connected. */
  send(message) {
    if (!this.ready()) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send the move `action` of position `stateId`, once per position until it is answered. */
  act(action, stateId) {
    if (this.sentFor === stateId) return false;
    if (!this.send({ type: "act", action, state_id: stateId })) return false;
    this.sentFor = stateId;
    this.unanswered = { action, state_id: stateId, ws: this.ws, resent: false };
    // The server answers a move at once (an update, or an error): silence means it is
    // stopped or the socket is dead, which a ping tells sooner than the next regular one.
    this.probe(this.ws);
    return true;
  }

  // The socket of an unanswered move is gone: whether the server applied the move is told
  // by the next socket's first update (settle). The choice is open again either way.
  keepUnanswered(ws) {
    this.sentFor = null;
    if (this.unanswered && this.unanswered.ws === ws) this.resend = this.unanswered;
    this.unanswered = null;
  }

  /** An update came: a new position answers the move sent from the old one. */
  updated(msg) {
    if (this.sentFor !== msg.state_id) this.sentFor = this.unanswered = null;
  }

  /**
   * After the moves are drawn: a new socket's first update (`msg.fresh`) still at the
   * position the move was sent in means the server never applied it: it is made again,
   * once (a move names its state_id, so it is never applied twice); a position that moved
   * on means it was applied, or overtaken (a timer, a bot). Gives whether a move is on its
   * way from this position (the moves stay locked).
   */
  settle(msg) {
    if (msg.fresh) {
      const resend = this.resend;
      this.resend = null;
      if (resend && !resend.resent && resend.state_id === msg.state_id && this.hooks.act(resend.action)) this.unanswered.resent = true;
    }
    return this.sentFor === msg.state_id;
  }

  /** The server refused something on `ws`: if a move went on it, it is answered (a refusal
   * changes nothing) and the choice is open again. */
  refused(ws) {
    if (!this.unanswered || this.unanswered.ws !== ws) return;
    this.sentFor = this.unanswered = null;
    this.hooks.unlock();
  }
}
