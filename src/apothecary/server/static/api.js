// The HTTP API (docs/protocol.md) and what the client keeps in localStorage.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// `body` is sent as JSON, `raw` (a string that is JSON already) as it is.
// `full` answers { data, headers } (for a header such as X-Total-Count), not the data alone.
// `same` adds the header that says the request comes from this server's own pages
// (state-changing account requests need it: docs/accounts.md#cross-site-requests).
async function request(method, path, { body, raw, token, text = false, full = false, same = false } = {}) {
  const headers = {};
  if (same) headers["x-apothecary"] = "1";
  if (body !== undefined || raw !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    let code = "http_error";
    let message = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      code = data.error || code;
      message = data.message || (typeof data.detail === "string" ? data.detail : message);
      if (Array.isArray(data.detail)) message = data.detail.map((d) => d.msg).join("; ");
    } catch {
      /* not JSON */
    }
    throw new ApiError(response.status, code, message);
  }
  const data = await (text ? response.text() : response.json());
  return full ? { data, headers: response.headers } : data;
}

let gamesCache = null;

export const api = {
  games() {
    gamesCache = gamesCache || request("GET", "/api/games");
    return gamesCache;
  },
  async game(name) {
    const games = await api.games();
    return games.find((g) => g.name === name) || request("GET", `/api/games/${encodeURIComponent(name)}`);
  },
  rules: (name) => request("GET", `/api/games/${encodeURIComponent(name)}/rules`, { text: true }),
  // One page of the open rooms, newest first, and how many there are in all.
  async rooms(offset = 0, limit = 20) {
    const { data, headers } = await request("GET", `/api/rooms?offset=${offset}&limit=${limit}`, { full: true });
    return { rooms: data, total: parseInt(headers.get("x-total-count") || `${data.length}`, 10) };
  },
  room: (code) => request("GET", `/api/rooms/${encodeURIComponent(code)}`),
  // `same`: a rated room seats the signed-in account, which needs the header (docs/ratings.md).
  create: (body) => request("POST", "/api/rooms", { body, same: true }),
  // A learn-to-play room, created seated and started (docs/client.md#learn-to-play).
  tutorial: (game, name) => request("POST", "/api/rooms/tutorial", { body: { game, name } }),
  claim: (code, name, seat) =>
    request("POST", `/api/rooms/${encodeURIComponent(code)}/seats`, {
      body: seat === null || seat === undefined ? { name } : { name, seat },
      same: true,
    }),
  start: (code, token) => request("POST", `/api/rooms/${encodeURIComponent(code)}/start`, { token }),
  freeSeat: (code, seat, token) => request("DELETE", `/api/rooms/${encodeURIComponent(code)}/seats/${seat}`, { token }),
  seatBot: (code, seat, level, token) =>
    request("PUT", `/api/rooms/${encodeURIComponent(code)}/seats/${seat}/bot`, { body: { level }, token }),
  rematch: (code, token) => request("POST", `/api/rooms/${encodeURIComponent(code)}/rematch`, { token }),
  hint: (code, token) => request("POST", `/api/rooms/${encodeURIComponent(code)}/hint`, { token }),
  // Replays (docs/client.md#replays): a finished game's facts, what view V saw after k moves, its analysis.
  replay: (code, gameNo) => request("GET", `/api/replays/${encodeURIComponent(code)}/${gameNo}`),
  replayStep: (code, gameNo, step, view) =>
    request("GET", `/api/replays/${encodeURIComponent(code)}/${gameNo}/steps/${step}?view=${encodeURIComponent(view)}`),
  analysis: (code, gameNo) => request("POST", `/api/replays/${encodeURIComponent(code)}/${gameNo}/analysis`),
  // A record file's text as it is (the server reads and checks it).
  upload: (record) => request("POST", "/api/replays", { raw: record }),
  // Ratings (docs/ratings.md): a game's boards, one per player count; a person's profile.
  leaderboard: (game) => request("GET", `/api/leaderboard/${encodeURIComponent(game)}`),
  profile: (name) => request("GET", `/api/users/${encodeURIComponent(name)}`),
  // The account (docs/accounts.md); the session is an HttpOnly cookie the browser sends.
  account: {
    whoami: () => request("GET", "/api/account"),
    signUp: (name, password) => request("POST", "/api/account/sign-up", { body: { name, password }, same: true }),
    signIn: (name, password) => request("POST", "/api/account/sign-in", { body: { name, password }, same: true }),
    signOut: () => request("POST", "/api/account/sign-out", { same: true }),
    signOutEverywhere: () => request("POST", "/api/account/sign-out-everywhere", { same: true }),
    changePassword: (current, next) =>
      request("POST", "/api/account/password", { body: { current, new: next }, same: true }),
    remove: (password) => request("POST", "/api/account/delete", { body: { password }, same: true }),
    // The account's seats (docs/accounts.md#your-seats-follow-you): link seats by their tokens,
    // list its games, and get a seat's token on this device.
    claimSeats: (seats) => request("POST", "/api/account/seats", { body: { seats }, same: true }),
    games: () => request("GET", "/api/account/games"),
    seat: (code) => request("POST", `/api/account/games/${encodeURIComponent(code)}/seat`, { same: true }),
    // Your-turn e-mails (docs/turn-based.md): the account's address and whether it wants them.
    mail: () => request("GET", "/api/account/email"),
    setMail: (email, turnMail) =>
      request("POST", "/api/account/email", { body: { email, turn_mail: turnMail }, same: true }),
    // Passkeys (docs/accounts.md#passkeys): WebAuthn's options as JSON, and the browser's answers.
    passkeys: {
      list: () => request("GET", "/api/account/passkeys"),
      registerOptions: (password) =>
        request("POST", "/api/account/passkeys/register/options", { body: { password }, same: true }),
      register: (credential, label) =>
        request("POST", "/api/account/passkeys/register", { body: { credential, label }, same: true }),
      remove: (id) => request("POST", `/api/account/passkeys/${encodeURIComponent(id)}/delete`, { same: true }),
      signInOptions: (name) =>
        request("POST", "/api/account/passkeys/sign-in/options", { body: { name }, same: true }),
      signIn: (credential) => request("POST", "/api/account/passkeys/sign-in", { body: { credential }, same: true }),
    },
  },
  // The seat a your-turn e-mail's link opens: { room, token, user }.
  turnLink: (link) => request("POST", "/api/turn-link", { body: { link }, same: true }),
  // Friends (docs/accounts.md#friends): the list, requests, blocks and invitations to rooms.
  friends: {
    list: () => request("GET", "/api/friends"),
    ask: (name) => request("POST", "/api/friends/requests", { body: { name }, same: true }),
    accept: (name) => request("POST", `/api/friends/requests/${encodeURIComponent(name)}/accept`, { same: true }),
    decline: (name) => request("POST", `/api/friends/requests/${encodeURIComponent(name)}/decline`, { same: true }),
    remove: (name) => request("DELETE", `/api/friends/${encodeURIComponent(name)}`, { same: true }),
    block: (name) => request("POST", "/api/friends/blocks", { body: { name }, same: true }),
    unblock: (name) => request("DELETE", `/api/friends/blocks/${encodeURIComponent(name)}`, { same: true }),
    invite: (name, room) => request("POST", "/api/friends/invitations", { body: { name, room }, same: true }),
    dismiss: (room) => request("DELETE", `/api/friends/invitations/${encodeURIComponent(room)}`, { same: true }),
  },
};

// Whether `url` answers 2xx within `wait` ms (a stopped server never does; a proxy in front
// of a dead one answers 502): the connection's probe of /health while it waits to reconnect.
export async function answers(url, wait) {
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

// -- localStorage: per room {seat_token, host_token, seat, name}; the last display name ----------

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const roomKey = (code) => `apothecary.room.${code}`;

export function kept(code) {
  try {
    return JSON.parse(storage()?.getItem(roomKey(code)) || "{}") || {};
  } catch {
    return {};
  }
}

// A new seat token kept is announced ("apothecary:seat"), so that account.js can link the seat
// to the signed-in account whichever page took it.
export function keep(code, changes) {
  const next = { ...kept(code), ...changes };
  for (const [k, v] of Object.entries(next)) if (v === null || v === undefined) delete next[k];
  storage()?.setItem(roomKey(code), JSON.stringify(next));
  if (typeof changes.seat_token === "string") {
    window.dispatchEvent(new CustomEvent("apothecary:seat", { detail: { room: code, token: changes.seat_token } }));
  }
  return next;
}

// Every seat token this browser keeps: [{room, token}] (what a guest who signs up claims).
export function keptSeats() {
  const store = storage();
  const seats = [];
  for (let i = 0; store && i < store.length; i++) {
    const key = store.key(i);
    if (!key || !key.startsWith(roomKey(""))) continue;
    const token = kept(key.slice(roomKey("").length)).seat_token;
    if (typeof token === "string") seats.push({ room: key.slice(roomKey("").length), token });
  }
  return seats;
}

export function setting(name, fallback = null) {
  const value = storage()?.getItem(`apothecary.${name}`);
  return value === null || value === undefined ? fallback : value;
}

export function setSetting(name, value) {
  storage()?.setItem(`apothecary.${name}`, String(value));
}
