// The room's lobby before a game (the invite link and its QR code, the seats, the
// join form, the host's start and "Seat a bot"), and the host's tools during one (let
// a bot play for someone who left).

import { api, keep, setSetting, setting } from "../api.js";
import { h, replace, toast } from "../dom.js";
import { inviteFriendForm } from "../friends.js";
import { svg as qrSvg } from "../qr.js";
import { t, tn } from "/static/i18n.js";
import { levelWord } from "./log.js";

const NAME_LIMIT = 40;

export class RoomLobby {
  /** `screen` gives `code`, `you`, `hostToken`, `game`, `info`, `names`, `hostCall(call)` and `seated(token)`. */
  constructor(screen) {
    this.screen = screen;
    this.element = h("div", { id: "room-lobby", class: "room-lobby" });
  }

  draw(msg) {
    const room = this.screen;
    const invite = `${location.origin}/rooms/${room.code}`;
    const isHost = Boolean(room.hostToken);
    const seated = room.you !== null;
    const open = msg.seats.filter((s) => s.kind === "open").map((s) => s.seat);
    const levels = room.game.levels.map((l) => l.name);
    const linkInput = h("input", { type: "text", readonly: true, value: invite, id: "invite-link", "aria-label": t("Invite link") });
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
          toast(t("The invite link is copied."));
        },
      },
      t("Copy the link"),
    );
    const seatRows = msg.seats.map((place) => this.seatRow(place, isHost, levels));
    const parts = [];
    const invitePanel = h(
        "section",
        { class: "panel invite", "aria-labelledby": "invite-title" },
        h("h2", { id: "invite-title" }, t("Invite your friends")),
        h("p", {}, t("Send them this link, or let them scan the code. Anyone with the link may take an open seat or watch.")),
        h("div", { class: "invite-row" }, linkInput, copy),
        h("div", { class: "qr-box" }, qrSvg(invite, { label: t("QR code of the invite link {link}", { link: invite }) })),
        // Made once, so a redraw keeps what is typed in it.
        (this.inviteFriend = this.inviteFriend || inviteFriendForm(room.code)),
      );
    const seatPanel = h(
      "section",
      { class: "panel seats-panel", "aria-labelledby": "seats-title" },
      h("h2", { id: "seats-title" }, t("Seats")),
      h("ol", { class: "lobby-seats", id: "lobby-seats" }, seatRows),
      this.roomFacts(),
    );
    if (!seated && open.length) seatPanel.append(this.joinForm(open));
    else if (!seated) seatPanel.append(h("p", { class: "muted" }, t("Every seat is taken. You are watching; the game shows here when it starts.")));
    if (seated) seatPanel.append(h("p", {}, t("You sit in seat {seat} as {name}.", { seat: room.you, name: room.names.seatName(room.you) })));
    if (isHost) {
      const fallback = room.info.settings?.fallback_level || "medium";
      seatPanel.append(
        h(
          "div",
          { class: "start-row" },
          h(
            "button",
            { type: "button", class: "primary", id: "start-game", onclick: () => room.hostCall(() => api.start(room.code, room.hostToken)) },
            open.length ? t("Start now") : t("Start the game"),
          ),
          open.length ? h("small", { class: "help" }, t("Open seats get a {level} bot.", { level: fallback })) : null,
        ),
      );
    } else if (seated) {
      seatPanel.append(h("p", { class: "muted" }, t("Waiting for the host to start the game…")));
    }
    // A visitor first sees where to sit; the host first sees how to invite.
    if (seated) parts.push(invitePanel, seatPanel);
    else parts.push(seatPanel, invitePanel);
    const focused = document.activeElement && this.element.contains(document.activeElement) ? document.activeElement.id : null;
    const typed = this.element.querySelector("#join-name")?.value;
    replace(this.element, parts);
    if (typed !== undefined && this.element.querySelector("#join-name")) this.element.querySelector("#join-name").value = typed;
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    else if (!this.joinFocused && location.hash === "#join" && this.element.querySelector("#join-name")) {
      this.joinFocused = true;
      this.element.querySelector("#join-name").focus();
    }
  }

  // One seat of the lobby: who sits there, the host's "Seat a bot" for an open one and
  // "Free this seat" for another person's.
  seatRow(place, isHost, levels) {
    const room = this.screen;
    const you = place.seat === room.you;
    let who;
    if (place.kind === "open") who = h("span", { class: "muted" }, t("open: waiting for a person"));
    else if (place.kind === "bot") who = h("span", {}, `${place.name}`, h("span", { class: "tag" }, t("bot")));
    else who = h("span", {}, place.name, you ? h("span", { class: "tag tag-you" }, t("you")) : null);
    const controls = [];
    if (isHost && place.kind === "open") {
      const select = h(
        "select",
        { "aria-label": t("Bot level for seat {seat}", { seat: place.seat }) },
        levels.map((l) => h("option", { value: l }, levelWord(l))),
      );
      select.value = room.info.settings?.fallback_level && levels.includes(room.info.settings.fallback_level) ? room.info.settings.fallback_level : levels[0];
      controls.push(
        select,
        h(
          "button",
          {
            type: "button",
            class: "quiet",
            dataset: { seatBot: String(place.seat) },
            onclick: () => room.hostCall(() => api.seatBot(room.code, place.seat, select.value, room.hostToken)),
          },
          t("Seat a bot"),
        ),
      );
    }
    if (isHost && place.kind === "human" && !you) {
      // Someone the host may not know took the seat: the host opens it again (their
      // token dies and their page says so), after a confirm, since it cannot be undone.
      const free = () => {
        if (!window.confirm(t("Free seat {seat}? {name} leaves it, and anyone may take it.", { seat: place.seat, name: place.name }))) return;
        room.hostCall(() => api.freeSeat(room.code, place.seat, room.hostToken));
      };
      controls.push(
        h(
          "button",
          { type: "button", class: "quiet", dataset: { freeSeat: String(place.seat) }, "aria-label": t("Free seat {seat} ({name})", { seat: place.seat, name: place.name }), onclick: free },
          t("Free this seat"),
        ),
      );
    }
    return h(
      "li",
      { class: ["lobby-seat", place.kind, you && "is-you"], dataset: { seat: String(place.seat) } },
      h("span", { class: "seat-no" }, t("seat {seat}", { seat: place.seat })),
      h("span", { class: ["dot", place.kind === "human" && (place.connected ? "on" : "off")], "aria-hidden": "true" }),
      who,
      place.kind === "human" ? h("span", { class: "sr-only" }, place.connected ? t("(here)") : t("(not connected)")) : null,
      controls.length ? h("span", { class: "seat-controls" }, controls) : null,
    );
  }

  roomFacts() {
    const room = this.screen;
    const settings = room.info.settings || {};
    const facts = [];
    const options = Object.entries(room.info.options || {});
    const defaults = Object.fromEntries((room.game.options || []).map((o) => [o.name, o.default]));
    const changed = options.filter(([k, v]) => defaults[k] !== v);
    facts.push(tn("{count} player", "{count} players", room.info.players));
    if (settings.turn_hours) facts.push(tn("turn-based: {count} hour a turn", "turn-based: {count} hours a turn", settings.turn_hours));
    else facts.push(settings.turn_seconds ? t("{seconds} s a move", { seconds: Math.round(settings.turn_seconds) }) : t("no turn timer"));
    if (settings.match_target) facts.push(tn("a series: first to {count} win", "a series: first to {count} wins", settings.match_target));
    facts.push(settings.listed === false ? t("unlisted") : t("listed"));
    if (settings.hints) facts.push(t("hints on: a seat may ask the strongest bot on its turn"));
    // Translators: a game option changed from its default, as in "cheese rule: on".
    changed.forEach(([k, v]) => facts.push(t("{option}: {value}", { option: k.replace(/_/g, " "), value: v === true ? t("on") : v === false ? t("off") : v })));
    return h("p", { class: "facts muted" }, facts.join(" · "));
  }

  joinForm(open) {
    const room = this.screen;
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
      h("option", { value: "" }, t("Any open seat")),
      open.map((s) => h("option", { value: String(s) }, t("seat {seat}", { seat: s }))),
    );
    const form = h(
      "form",
      { class: "join-form", id: "join-form" },
      h("h3", {}, t("Take a seat")),
      h("div", { class: "field" }, h("label", { for: "join-name" }, t("Your display name")), name),
      h("div", { class: "field" }, h("label", { for: "join-seat" }, t("Seat")), seat),
      h(
        "div",
        { class: "form-actions" },
        h("button", { type: "submit", class: "primary" }, t("Sit down")),
        h("span", { class: "muted" }, t("or just watch: you already are.")),
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
        const answer = await api.claim(room.code, shown, seat.value === "" ? null : Number(seat.value));
        setSetting("name", shown);
        keep(room.code, { seat_token: answer.token, seat: answer.seat, name: shown });
        room.seated(answer.token);
      } catch (error) {
        toast(t("No seat: {error}", { error: error.message }), "error");
      }
    });
    return form;
  }
}

export class HostTools {
  /** `screen` as for RoomLobby. */
  constructor(screen) {
    this.screen = screen;
    this.element = h("div", { id: "host-tools", class: "host-tools" });
    this.signature = null;
  }

  draw(msg) {
    const room = this.screen;
    if (!room.hostToken || msg.status !== "playing") {
      replace(this.element);
      this.signature = null;
      return;
    }
    const people = msg.seats.filter((s) => s.kind === "human" && s.seat !== room.you && !s.away);
    const signature = people.map((s) => `${s.seat}:${s.name}:${s.connected}`).join("|");
    if (signature === this.signature && this.element.firstChild) return;
    this.signature = signature;
    if (!people.length) {
      replace(this.element);
      return;
    }
    const levels = room.game.levels.map((l) => l.name);
    const who = h("select", { id: "host-seat", "aria-label": t("Whose seat") }, people.map((s) => h("option", { value: String(s.seat) }, s.connected ? room.names.seatName(s.seat) : t("{name} (not here)", { name: room.names.seatName(s.seat) }))));
    const level = h("select", { id: "host-level", "aria-label": t("Bot level") }, levels.map((l) => h("option", { value: l }, levelWord(l))));
    // The level the room's timer would hand the seat to, not the list's first (easy).
    const fallback = room.info.settings?.fallback_level;
    if (levels.includes(fallback)) level.value = fallback;
    const previous = this.element.querySelector("details");
    const details = h(
      "details",
      { class: "host-details", open: previous?.open || null },
      h("summary", {}, t("Host: let a bot play for someone who left")),
      h(
        "div",
        { class: "host-row" },
        who,
        level,
        h(
          "button",
          { type: "button", onclick: () => room.hostCall(() => api.seatBot(room.code, Number(who.value), level.value, room.hostToken)) },
          t("Hand over"),
        ),
      ),
      h("small", { class: "help" }, t("The seat stays theirs: they take it back by playing.")),
    );
    replace(this.element, details);
  }
}
