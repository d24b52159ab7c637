// The generic table: any game's observation as a readable definition list.
// The shell's legal-action buttons are how one plays with it; a game with a
// table of its own (named by its game's manifest) draws a real board instead.

import { eventRuns, readWords } from "../words.js";
import { t } from "/static/i18n.js";

function words(key) {
  return String(key).replace(/_/g, " ");
}

function scalar(value) {
  if (value === null || value === undefined) return "—";
  if (value === true) return "yes";
  if (value === false) return "no";
  return String(value);
}

const isScalar = (v) => v === null || typeof v !== "object";

// An object whose values are scalars or short lists of scalars: one row of a table.
const isFlatRecord = (v) =>
  v !== null &&
  typeof v === "object" &&
  !Array.isArray(v) &&
  Object.values(v).every((x) => isScalar(x) || (Array.isArray(x) && x.length <= 12 && x.every(isScalar)));

export function mount(root, ctx) {
  root.classList.add("generic-table");
  const heading = document.createElement("h2");
  heading.className = "generic-title";
  heading.textContent = t("What you can see");
  const last = document.createElement("p");
  last.className = "generic-last";
  const body = document.createElement("div");
  body.className = "generic-body";
  root.append(heading, last, body);

  // Records side by side: one row each (a seat's name first when there is one per seat).
  function grid(records, perSeat) {
    const keys = [...new Set(records.flatMap((r) => Object.keys(r)))].filter((k) => !(perSeat && k === "seat"));
    const table = document.createElement("table");
    table.className = "generic-grid";
    const head = table.createTHead().insertRow();
    for (const label of [perSeat ? "seat" : "#", ...keys]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = words(label);
      head.append(th);
    }
    const body = table.createTBody();
    records.forEach((record, i) => {
      const row = body.insertRow();
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = perSeat ? ctx.seatLabel(i) : String(i);
      row.append(th);
      for (const key of keys) {
        const cell = row.insertCell();
        const item = record[key];
        cell.textContent = Array.isArray(item) ? (item.length ? item.map(scalar).join(", ") : "—") : scalar(item);
      }
    });
    const wrap = document.createElement("div");
    wrap.className = "generic-grid-wrap";
    wrap.append(table);
    return wrap;
  }

  // A value as nodes. Arrays as long as the table (one entry per seat) are labelled by seat.
  function render(value, depth) {
    if (isScalar(value)) {
      const span = document.createElement("span");
      span.textContent = scalar(value);
      return span;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) {
        const span = document.createElement("span");
        span.className = "muted";
        span.textContent = t("none");
        return span;
      }
      const perSeat = ctx.players > 1 && value.length === ctx.players;
      if (value.every(isFlatRecord) && value.length > 1) return grid(value, perSeat);
      if (!perSeat && value.every(isScalar)) {
        const span = document.createElement("span");
        span.textContent = value.map(scalar).join(", ");
        return span;
      }
      if (perSeat) {
        const dl = document.createElement("dl");
        dl.className = "generic-seats";
        value.forEach((item, seat) => {
          const dt = document.createElement("dt");
          dt.textContent = ctx.seatLabel(seat);
          const dd = document.createElement("dd");
          dd.append(render(item, depth + 1));
          dl.append(dt, dd);
        });
        return dl;
      }
      const ol = document.createElement("ol");
      ol.start = 0;
      for (const item of value) {
        const li = document.createElement("li");
        li.append(render(item, depth + 1));
        ol.append(li);
      }
      return ol;
    }
    if (Object.keys(value).length === 0) {
      const span = document.createElement("span");
      span.className = "muted";
      span.textContent = t("none");
      return span;
    }
    const dl = document.createElement("dl");
    if (depth === 0) dl.className = "generic-top";
    for (const [key, item] of Object.entries(value)) {
      const dt = document.createElement("dt");
      dt.textContent = words(key);
      const dd = document.createElement("dd");
      dd.append(render(item, depth + 1));
      dl.append(dt, dd);
    }
    return dl;
  }

  return {
    update(msg) {
      const events = msg.events || [];
      if (events.length) {
        last.textContent = t("Last: {event}", { event: readWords(eventRuns(events[events.length - 1]), (seat) => ctx.seatLabel(seat)) });
      }
      body.replaceChildren(render(msg.observation ?? {}, 0));
    },
    destroy() {
      root.replaceChildren();
    },
  };
}
