// Small DOM helpers. Text is always inserted as text (never as HTML).

const SVG_NS = "http://www.w3.org/2000/svg";

function build(element, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(element.style, value);
    else if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (key === "text") element.textContent = String(value);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

// Append children: nodes as they are, strings and numbers as text, arrays flattened, null skipped.
export function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// h("button", {class: "x", onclick: f}, "Label", otherNode)
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(element) {
  while (element.firstChild) element.firstChild.remove();
  return element;
}

// The tables' builders (tables/kit.js re-exports them): an element added to
// `parent` if given, each attribute set as its string (null, undefined and false
// left out), so `{"aria-pressed": true}` reads "true" as the tables expect.
function attached(node, attrs, parent) {
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    // a style object goes through CSSOM: a style attribute is inline CSS, which the CSP refuses
    else if (key === "style" && value && typeof value === "object") Object.assign(node.style, value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** An SVG element with `attrs`, added to `parent` if given. */
export function svgNode(tag, attrs = {}, parent = null) {
  return attached(document.createElementNS(SVG_NS, tag), attrs, parent);
}

/** An SVG <text> at `x`, `y` saying `words`. */
export function svgText(parent, x, y, words, attrs = {}) {
  const node = svgNode("text", { x, y, ...attrs }, parent);
  node.textContent = words;
  return node;
}

/** An HTML element added to `parent` if given; `attrs` is its class name, or its attributes (`text`: its words). */
export function htmlNode(tag, attrs = {}, parent = null) {
  return attached(document.createElement(tag), typeof attrs === "string" ? { class: attrs } : attrs, parent);
}

/** `words` cut to `most` characters, with "…" where they were cut. */
export function clip(words, most) {
  return words.length <= most ? words : `${words.slice(0, most - 1)}\u2026`;
}

export function replace(element, ...children) {
  clear(element);
  return append(element, children);
}

// A short message at the bottom of the screen (role=status; errors role=alert).
export function toast(message, kind = "info") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = h("div", { id: "toasts", class: "toasts" });
    document.body.append(box);
  }
  const item = h("div", { class: ["toast", `toast-${kind}`], role: kind === "error" ? "alert" : "status" }, message);
  box.append(item);
  setTimeout(() => item.classList.add("toast-leaving"), 4500);
  setTimeout(() => item.remove(), 5000);
  return item;
}

export const prefersReducedMotion = () =>
  window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// A small flask, drawn in SVG, for the brand.
export function flask(size = 28) {
  return s(
    "svg",
    { viewBox: "0 0 32 32", width: size, height: size, "aria-hidden": "true", class: "flask" },
    s("path", {
      d: "M12 3h8v2h-1v7.2l7.4 11.6A4 4 0 0 1 23 30H9a4 4 0 0 1-3.4-6.2L13 12.2V5h-1z",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": "2",
      "stroke-linejoin": "round",
    }),
    s("path", { d: "M9.2 21h13.6l2.3 3.6A2 2 0 0 1 23.4 28H8.6a2 2 0 0 1-1.7-3.4z", fill: "var(--accent)" }),
    s("circle", { cx: "14", cy: "24.5", r: "1.2", fill: "var(--bg)" }),
    s("circle", { cx: "18.5", cy: "23", r: "0.8", fill: "var(--bg)" }),
  );
}

// Stylesheets added by key, each as the promise of its load.
const sheets = new Map();

// Add the stylesheet at `href` once per `key`; the promise settles when it has
// loaded (or failed, or after `most` ms), so a table is never drawn before its
// CSS applies: drawn unstyled for a moment, its text took sizes of its own.
export function stylesheet(href, key, most = 3000) {
  if (!sheets.has(key)) {
    sheets.set(
      key,
      new Promise((done) => {
        const link = h("link", { rel: "stylesheet", href, dataset: { css: key } });
        link.addEventListener("load", () => done(true));
        link.addEventListener("error", () => done(false));
        setTimeout(() => done(false), most);
        document.head.append(link);
      }),
    );
  }
  return sheets.get(key);
}
