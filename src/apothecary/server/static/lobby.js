// The lobby (/): the games, a form to set up a room (generated from each game's
// option descriptions), and the open rooms to join or watch.

import { currentUser } from "./account.js";
import { showInvitations } from "./friends.js";
import { t, tn, tx } from "./i18n.js";
import { levelWord } from "./room/log.js";
import { api, keep, setting, setSetting } from "./api.js";
import { h, replace, toast } from "./dom.js";
import { firstParagraph, inline } from "./markdown.js";
import { learnButton } from "./learn.js";
import { notifyButton } from "./turns.js";

const NAME_LIMIT = 40;

export async function showLobby(main) {
  document.title = t("apothecary: poison-themed games with friends and bots");
  const gamesBox = h("div", { class: "game-cards", role: "list" }, h("p", { class: "muted" }, t("Loading the games…")));
  const formBox = h("div", { id: "setup" });
  const roomsBox = h("div", { id: "open-rooms" }, h("p", { class: "muted" }, t("Looking for open rooms…")));
  const mineBox = h("section", { id: "my-games", class: "panel my-games", "aria-labelledby": "my-games-title", hidden: true });
  const invitationsBox = h("section", { id: "invitations", class: "panel invitations", "aria-labelledby": "invitations-title", hidden: true });
  replace(
    main,
    h(
      "section",
      { class: "intro" },
      h("h1", {}, t("Pick your poison")),
      h(
        "p",
        { class: "lead" },
        t("Four tabletop games of nerve and deduction. Set up a room, send the invite to your friends, and fill the empty chairs with bots."),
      ),
    ),
    invitationsBox,
    mineBox,
    h("section", { "aria-labelledby": "games-title" }, h("h2", { id: "games-title" }, t("Choose a game")), gamesBox),
    h("section", { "aria-labelledby": "setup-title", class: "panel setup-panel" }, formBox),
    h(
      "section",
      { "aria-labelledby": "rooms-title" },
      h(
        "div",
        { class: "section-head" },
        h("h2", { id: "rooms-title" }, t("Open rooms")),
        h("button", { type: "button", class: "quiet", onclick: () => refreshRooms(roomsBox) }, t("Refresh")),
      ),
      roomsBox,
    ),
  );
  showMyGames(mineBox);
  showInvitations(invitationsBox);
  const games = await loadedInto(gamesBox, t("The games"), () => api.games());
  if (!games) return;
  const wanted = new URLSearchParams(location.search).get("game");
  let chosen = games.find((g) => g.name === wanted) || games[0];
  const cards = games.map((game) => gameCard(game, () => choose(game, true)));
  replace(gamesBox, cards);
  function choose(game, scroll = false) {
    chosen = game;
    cards.forEach((card) => {
      const on = card.dataset.game === game.name;
      card.classList.toggle("chosen", on);
      card.querySelector("button.choose").setAttribute("aria-pressed", on ? "true" : "false");
    });
    replace(formBox, setupForm(game));
    if (scroll) {
      formBox.scrollIntoView({ behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth", block: "start" });
      formBox.querySelector("#host-name")?.focus({ preventScroll: true });
    }
  }
  choose(chosen);
  refreshRooms(roomsBox);
  const timer = setInterval(() => {
    if (!roomsBox.isConnected) clearInterval(timer);
    else if (!document.hidden) refreshRooms(roomsBox);
  }, 5000);
}

function gameCard(game, onChoose) {
  const longer = h("p", { class: "card-more" });
  api
    .rules(game.name)
    .then((markdown) => {
      const first = firstParagraph(markdown, { skip: new RegExp(`registry name|\\b${game.name}\\b`, "i") });
      if (first) replace(longer, inline(first));
    })
    .catch(() => {});
  const players =
    game.min_players === game.max_players
      ? tn("{count} player", "{count} players", game.min_players)
      : t("{min}–{max} players", { min: game.min_players, max: game.max_players });
  return h(
    "div",
    { class: "game-card", role: "listitem", dataset: { game: game.name }, "aria-labelledby": `card-${game.name}` },
    h("div", { class: "card-mark", "aria-hidden": "true" }, game.title.slice(0, 1)),
    h("h3", { id: `card-${game.name}` }, game.title),
    h("p", { class: "card-summary" }, game.summary),
    longer,
    h(
      "p",
      { class: "card-facts" },
      h("span", {}, players),
      game.has_hidden_information ? h("span", {}, t("hidden information")) : h("span", {}, t("open information")),
    ),
    h(
      "div",
      { class: "card-actions" },
      h(
        "button",
        { type: "button", class: "choose", "aria-pressed": "false", onclick: onChoose },
        t("Set up {game}", { game: game.title }),
      ),
      h("a", { href: `/rules/${encodeURIComponent(game.name)}`, class: "rules-link" }, t("Read the rules")),
      game.tutorial ? learnButton(game) : null,
    ),
  );
}

// One input per option, from its description.
function optionField(option) {
  const id = `opt-${option.name}`;
  const shown = option.name.replace(/_/g, " ");
  const help = option.help ? h("small", { class: "help", id: `${id}-help` }, option.help) : null;
  const described = option.help ? `${id}-help` : null;
  let input;
  if (option.type === "bool") {
    input = h("input", { type: "checkbox", id, name: option.name, "aria-describedby": described });
    input.checked = Boolean(option.default);
    return h("div", { class: "field field-check" }, input, h("label", { for: id }, shown), help);
  }
  if (option.choices) {
    input = h(
      "select",
      { id, name: option.name, "aria-describedby": described },
      option.choices.map((c) => h("option", { value: String(c), selected: c === option.default }, String(c))),
    );
  } else if (option.type === "int" || option.type === "float") {
    input = h("input", {
      type: "number",
      id,
      name: option.name,
      inputmode: option.type === "int" ? "numeric" : "decimal",
      step: option.type === "int" ? "1" : "any",
      min: option.minimum ?? null,
      max: option.room_maximum ?? option.maximum ?? null,
      value: String(option.default),
      required: true,
      "aria-describedby": described,
    });
  } else {
    input = h("input", { type: "text", id, name: option.name, value: String(option.default ?? ""), "aria-describedby": described });
  }
  input.dataset.type = option.type;
  return h("div", { class: "field" }, h("label", { for: id }, shown), input, help);
}

function readOption(form, option) {
  const input = form.elements.namedItem(option.name);
  if (option.type === "bool") return input.checked;
  if (option.choices) {
    const found = option.choices.find((c) => String(c) === input.value);
    return found === undefined ? input.value : found;
  }
  if (option.type === "int") return parseInt(input.value, 10);
  if (option.type === "float") return parseFloat(input.value);
  return input.value;
}

function setupForm(game) {
  const nameInput = h("input", {
    type: "text",
    id: "host-name",
    name: "host_name",
    required: true,
    maxlength: NAME_LIMIT,
    autocomplete: "nickname",
    value: setting("name", ""),
    placeholder: t("e.g. Lucrezia"),
  });
  const playersInput = h("input", {
    type: "number",
    id: "players",
    name: "players",
    min: game.min_players,
    max: game.max_players,
    value: game.default_players,
    step: 1,
    inputmode: "numeric",
    required: true,
  });
  const seatsBox = h("ol", { class: "seat-choices", start: 0 });
  const levels = game.levels.map((l) => l.name);
  function drawSeats() {
    const count = Math.max(game.min_players, Math.min(game.max_players, parseInt(playersInput.value, 10) || game.default_players));
    const previous = [...seatsBox.querySelectorAll("select")].map((s) => s.value);
    replace(
      seatsBox,
      Array.from({ length: count }, (_, i) => {
        if (i === 0) return h("li", {}, h("span", { class: "seat-no" }, t("seat {seat}", { seat: 0 })), h("span", {}, t("You (the host)")));
        const id = `seat-${i}`;
        const select = h(
          "select",
          { id, name: id, "aria-label": t("Seat {seat}", { seat: i }) },
          h("option", { value: "open" }, t("Open for a person")),
          levels.map((level) => h("option", { value: level }, t("Bot: {level}", { level: levelWord(level) }))),
        );
        select.value = previous[i - 1] || "open";
        return h("li", {}, h("label", { class: "seat-no", for: id }, t("seat {seat}", { seat: i })), select);
      }),
    );
  }
  playersInput.addEventListener("input", drawSeats);
  drawSeats();

  const [timerOn, timerSeconds] = switchedNumber(
    { id: "timer-on", name: "timer_on" },
    { id: "turn-seconds", name: "turn_seconds", min: 5, max: 3600, value: 60, "aria-label": t("Seconds per move") },
  );
  // Turn-based play (docs/turn-based.md): hours a turn, the room waits with nobody there.
  const turnHours = h(
    "select",
    { id: "turn-hours", name: "turn_hours", "aria-label": t("Time per turn") },
    h("option", { value: "" }, t("Live (play now)")),
    [1, 12, 24, 72, 168].map((hours) =>
      h(
        "option",
        { value: `${hours}` },
        hours < 24 ? tn("{count} hour a turn", "{count} hours a turn", hours) : tn("{count} day a turn", "{count} days a turn", hours / 24),
      ),
    ),
  );
  const [seriesOn, seriesTarget] = switchedNumber(
    { id: "series-on", name: "series_on" },
    { id: "match-target", name: "match_target", min: 2, max: 99, value: 3, "aria-label": t("Wins needed to take the series") },
  );
  const listed = h("input", { type: "checkbox", id: "listed", name: "listed", checked: true });
  const hints = h("input", { type: "checkbox", id: "hints", name: "hints" });
  const rated = h("input", { type: "checkbox", id: "rated", name: "rated" });
  const submit = h("button", { type: "submit", class: "primary" }, t("Create the room"));

  const form = h(
    "form",
    { class: "setup", id: "setup-form", dataset: { game: game.name }, "aria-labelledby": "setup-title" },
    h("h2", { id: "setup-title" }, t("Set up {game}", { game: game.title })),
    h(
      "div",
      { class: "setup-grid" },
      h(
        "fieldset",
        {},
        h("legend", {}, t("Players")),
        h("div", { class: "field" }, h("label", { for: "host-name" }, t("Your display name")), nameInput),
        h(
          "div",
          { class: "field" },
          h("label", { for: "players" }, t("How many play")),
          playersInput,
          h("small", { class: "help" }, t("{least} to {most}", { least: game.min_players, most: game.max_players })),
        ),
        h("p", { class: "field-title" }, t("Seats")),
        seatsBox,
      ),
      h(
        "fieldset",
        {},
        h("legend", {}, t("Game options")),
        game.options.length ? game.options.map(optionField) : h("p", { class: "muted" }, t("This game has no options.")),
      ),
      h(
        "fieldset",
        {},
        h("legend", {}, t("Room")),
        h(
          "div",
          { class: "field field-check" },
          timerOn,
          h("label", { for: "timer-on" }, t("Turn timer")),
          h("span", { class: "inline-number" }, tx("{seconds} seconds a move", { seconds: timerSeconds })),
          h("small", { class: "help" }, t("When a person's time runs out, a bot plays for them until they come back.")),
        ),
        h(
          "div",
          { class: "field" },
          h("label", { for: "turn-hours" }, t("Turn-based")),
          turnHours,
          h("small", { class: "help" }, t("Hours or days a turn: you are told by e-mail and browser notification when it is yours.")),
        ),
        h(
          "div",
          { class: "field field-check" },
          seriesOn,
          h("label", { for: "series-on" }, t("Series")),
          h("span", { class: "inline-number" }, tx("first to {target} wins", { target: seriesTarget })),
        ),
        h(
          "div",
          { class: "field field-check" },
          listed,
          h("label", { for: "listed" }, t("List this room under Open rooms")),
          h("small", { class: "help" }, t("Unlisted rooms are found only through their invite link.")),
        ),
        h(
          "div",
          { class: "field field-check" },
          hints,
          h("label", { for: "hints" }, t("Hints (a casual room)")),
          h("small", { class: "help" }, t("Each seat may ask the strongest bot for a suggestion on its turn; everyone sees that hints are on.")),
        ),
        h(
          "div",
          { class: "field field-check" },
          rated,
          h("label", { for: "rated" }, t("Rated")),
          h("small", { class: "help" }, t("Games move the players' ratings: accounts and bots only, no hints, and a seat left to the bot at the end is a loss.")),
        ),
      ),
    ),
    h("div", { class: "form-actions" }, submit),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    const name = nameInput.value.trim();
    if (!name) {
      nameInput.focus();
      toast(t("Choose a display name first."), "error");
      return;
    }
    const players = parseInt(playersInput.value, 10);
    const body = {
      game: game.name,
      players,
      options: Object.fromEntries(game.options.map((o) => [o.name, readOption(form, o)])),
      seats: ["open", ...[...seatsBox.querySelectorAll("select")].map((s) => s.value)].slice(0, players),
      listed: listed.checked,
      hints: hints.checked,
      rated: rated.checked,
      host_name: name,
    };
    if (turnHours.value) body.turn_hours = parseFloat(turnHours.value);
    else if (timerOn.checked) body.turn_seconds = parseFloat(timerSeconds.value);
    if (seriesOn.checked) body.match_target = parseInt(seriesTarget.value, 10);
    submit.disabled = true;
    try {
      const answer = await api.create(body);
      setSetting("name", name);
      keep(answer.code, { seat_token: answer.seat_token, host_token: answer.host_token, seat: answer.seat, name });
      location.assign(answer.invite);
    } catch (error) {
      toast(t("The room was not created: {reason}", { reason: error.message }), "error");
      submit.disabled = false;
    }
  });
  return form;
}

// A setting that is off or a whole number: its checkbox, and the number input the checkbox turns on.
function switchedNumber(checkbox, number) {
  const on = h("input", { type: "checkbox", ...checkbox });
  const input = h("input", { type: "number", ...number, step: 1, disabled: true });
  on.addEventListener("change", () => (input.disabled = !on.checked));
  return [on, input];
}

// What `load()` gives, or null once `box` says that `what` could not be loaded.
async function loadedInto(box, what, load) {
  try {
    return await load();
  } catch (error) {
    replace(box, h("p", { class: "error" }, t("{what} could not be loaded: {error}", { what, error: error.message })));
    return null;
  }
}

const ROOMS_PAGE = 20; // rooms a page of the list shows (the server answers a page at a time)

// The list shows the page it showed last (box.dataset.offset), or the last page if the list shrank.
async function refreshRooms(box) {
  let offset = parseInt(box.dataset.offset || "0", 10);
  let page = await loadedInto(box, t("The rooms"), () => api.rooms(offset, ROOMS_PAGE));
  if (!page) return;
  if (!page.rooms.length && page.total > 0) {
    offset = Math.floor((page.total - 1) / ROOMS_PAGE) * ROOMS_PAGE;
    page = await loadedInto(box, t("The rooms"), () => api.rooms(offset, ROOMS_PAGE));
    if (!page) return;
  }
  box.dataset.offset = `${offset}`;
  const { rooms, total } = page;
  if (!rooms.length) {
    replace(box, h("p", { class: "muted" }, t("No open rooms right now. Create one above, and it shows here.")));
    return;
  }
  const turn = (to) => () => {
    box.dataset.offset = `${to}`;
    refreshRooms(box);
  };
  const pager =
    total > ROOMS_PAGE
      ? h(
          "nav",
          { class: "room-pages", "aria-label": t("Pages of open rooms") },
          h("button", { type: "button", class: "quiet", disabled: offset === 0, onclick: turn(Math.max(0, offset - ROOMS_PAGE)) }, t("Newer")),
          h("span", { class: "muted" }, ` ${t("rooms {first}–{last} of {total}", { first: offset + 1, last: offset + rooms.length, total })} `),
          h("button", { type: "button", class: "quiet", disabled: offset + rooms.length >= total, onclick: turn(offset + ROOMS_PAGE) }, t("Older")),
        )
      : null;
  replace(
    box,
    h(
      "ul",
      { class: "room-list" },
      rooms.map((room) => {
        const people = room.seats.filter((s) => s.kind === "human").map((s) => s.name);
        const open = room.open_seats.length;
        const status =
          room.status === "lobby" ? (open ? t("{open} of {seats} seats open", { open, seats: room.players }) : t("full, about to start")) : t("playing game {number}", { number: room.game_no });
        const href = `/rooms/${encodeURIComponent(room.code)}`;
        return h(
          "li",
          { class: "room-item", dataset: { code: room.code } },
          h(
            "div",
            { class: "room-what" },
            h("strong", {}, room.title),
            h("span", { class: "muted" }, ` · ${status}`),
            h("div", { class: "room-who" }, people.length ? t("with {people}", { people: people.join(", ") }) : t("no one seated yet")),
          ),
          h(
            "div",
            { class: "room-buttons" },
            room.status === "lobby" && open
              ? h("a", { class: "button primary", href: `${href}#join`, "aria-label": t("Join {game} room {code}", { game: room.title, code: room.code }) }, t("Join"))
              : null,
            h("a", { class: "button", href: `${href}#watch`, "aria-label": t("Watch {game} room {code}", { game: room.title, code: room.code }) }, t("Watch")),
          ),
        );
      }),
    ),
    pager,
  );
}

// -- My games (docs/accounts.md#my-games): the signed-in account's rooms and finished games ----

// The section's words, in one place (said when drawn: the catalog loads after this module).
const MINE = () => ({
  title: t("My games"),
  none: t("No games yet. A seat you take while signed in shows here, on every device you sign in on."),
  current: t("Playing now"),
  finished: t("Finished games"),
  yourTurn: t("your turn"),
  lobby: t("waiting to start"),
  waiting: (name) => t("waiting for {name}", { name }),
  open: t("Open"),
  replay: t("Replay"),
  results: { won: t("won"), lost: t("lost"), drawn: t("drawn") },
  // Translators: a series' wins so far, as in "series 2–1".
  series: (wins) => t("series {wins}", { wins: wins.join("–") }),
  failed: (message) => t("Your games could not be loaded: {message}", { message }),
});

async function showMyGames(box) {
  if (!(await currentUser())) return; // signed out: the section stays hidden
  box.hidden = false;
  replace(box, h("h2", { id: "my-games-title" }, MINE().title), h("p", { class: "muted" }, "…"));
  let games;
  try {
    games = await api.account.games();
  } catch (error) {
    replace(box, h("h2", { id: "my-games-title" }, MINE().title), h("p", { class: "error" }, MINE().failed(error.message)));
    return;
  }
  const { current, finished } = games;
  replace(
    box,
    h("h2", { id: "my-games-title" }, MINE().title),
    notifyButton(), // a browser notification when a turn becomes yours (turns.js)
    !current.length && !finished.length ? h("p", { class: "muted" }, MINE().none) : null,
    current.length ? [h("h3", {}, MINE().current), h("ul", { class: "room-list", id: "my-current" }, current.map(currentGame))] : null,
    finished.length ? [h("h3", {}, MINE().finished), h("ul", { class: "room-list", id: "my-finished" }, finished.map(finishedGame))] : null,
  );
}

function currentGame(game) {
  const status =
    game.status === "lobby" ? MINE().lobby : game.your_turn ? MINE().yourTurn : game.to_move === null ? "" : MINE().waiting(game.players[game.to_move]);
  const series = game.match_target ? ` · ${MINE().series(game.series)}` : "";
  return h(
    "li",
    { class: ["room-item", game.your_turn && "your-turn"], dataset: { code: game.room, turn: game.your_turn ? "yours" : "" } },
    h(
      "div",
      { class: "room-what" },
      h("strong", {}, game.title),
      h("span", { class: "muted my-status" }, status ? ` · ${status}` : "", series),
      h("div", { class: "room-who" }, game.players.join(", ")),
    ),
    h("div", { class: "room-buttons" }, h("a", { class: "button primary", href: game.link, "aria-label": t("{action} {game} room {room}", { action: MINE().open, game: game.title, room: game.room }) }, MINE().open)),
  );
}

function finishedGame(game) {
  const when = new Date(game.ended * 1000).toLocaleDateString();
  return h(
    "li",
    { class: "room-item", dataset: { code: game.room, game: `${game.game_no}` } },
    h(
      "div",
      { class: "room-what" },
      h("strong", {}, game.title),
      h("span", { class: "muted" }, ` · ${when} · ${MINE().results[game.result] || game.result}`),
      h("div", { class: "room-who" }, game.players.join(", ")),
    ),
    h("div", { class: "room-buttons" }, h("a", { class: "button", href: game.replay, "aria-label": t("{action} {game} game {number} of room {room}", { action: MINE().replay, game: game.title, number: game.game_no, room: game.room }) }, MINE().replay)),
  );
}
