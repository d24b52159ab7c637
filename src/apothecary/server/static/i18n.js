// The page's language: the server's gettext catalogs compiled to JSON
// (/static/locale/LANG.json, made by `python -m apothecary.i18n check`), read once
// before the page is drawn. `t("msgid", {name})` says a message with its values put
// in by name, `tn` a plural, `tp` one with a context. The language comes from the
// lobby's choice (kept in localStorage), else the browser's languages, else English;
// the room socket's hello sends it, so the server says the table's words in it.

/** Every language shipped, each by its own name (the lobby's menu). */
export const LANGUAGES = { en: "English", fr: "Français", de: "Deutsch", es: "Español" };

const STORED = "apothecary.lang";
// Each language's plural rule, as gettext's Plural-Forms say it (the page may not
// eval the catalog's formula: the CSP refuses it). A new language adds its rule.
const MILLIONS = (n) => n !== 0 && n % 1000000 === 0;
const PLURAL = {
  fr: (n) => (n === 0 || n === 1 ? 0 : MILLIONS(n) ? 1 : 2),
  es: (n) => (n === 1 ? 0 : MILLIONS(n) ? 1 : 2),
};
const otherwise = (n) => (n !== 1 ? 1 : 0);

let current = "en";
let messages = {};

/** The first shipped language among `preferences` (codes such as "de-CH"), or "en". */
export function negotiate(preferences) {
  for (const preference of preferences || []) {
    const main = String(preference).toLowerCase().split(/[-_]/)[0];
    if (Object.hasOwn(LANGUAGES, main)) return main;
  }
  return "en";
}

/** The language this page should read: the stored choice, else the browser's. */
export function chosenLanguage() {
  let stored = null;
  try {
    stored = localStorage.getItem(STORED);
  } catch {
    stored = null; // storage refused (a private window): the browser's settings
  }
  if (stored && Object.hasOwn(LANGUAGES, stored)) return stored;
  return negotiate(navigator.languages || [navigator.language]);
}

/** Keep `code` as this browser's choice (the lobby's menu); the page reloads in it. */
export function chooseLanguage(code) {
  try {
    localStorage.setItem(STORED, code);
  } catch {
    // nowhere to keep it: this page only
  }
}

/** Load the catalog of `code` (the chosen language by default); English needs none. */
export async function loadLanguage(code = chosenLanguage()) {
  current = Object.hasOwn(LANGUAGES, code) ? code : "en";
  messages = {};
  document.documentElement.lang = current;
  if (current === "en") return current;
  try {
    const response = await fetch(`/static/locale/${current}.json`);
    if (response.ok) messages = (await response.json()).messages || {};
  } catch {
    messages = {}; // no catalog: the English, rather than no page
  }
  return current;
}

/** The language the page reads. */
export function language() {
  return current;
}

// A catalog's message with its {name} values put in: a walk over the message (the
// catalog's own text, never the server's words), so nothing here reads words apart.
function fill(message, params) {
  const parts = String(message).split("{");
  let out = parts[0];
  for (const part of parts.slice(1)) {
    const end = part.indexOf("}");
    const name = end < 0 ? null : part.slice(0, end);
    if (name !== null && Object.hasOwn(params, name)) out += String(params[name]) + part.slice(end + 1);
    else out += `{${part}`;
  }
  return out;
}

/** `msgid` in the page's language, each {name} given by `params`. */
export function t(msgid, params = {}) {
  const said = messages[msgid];
  return fill(typeof said === "string" && said ? said : msgid, params);
}

/** `msgid` as a list of pieces for `h(...)`: its words, and each {name} given by
 * `params` as it is (a node stays a node: a seat's name in the log is an element). */
export function tx(msgid, params = {}) {
  const said = messages[msgid];
  const parts = String(typeof said === "string" && said ? said : msgid).split(/(\{\w+\})/);
  return parts.filter(Boolean).map((part) => {
    const name = part.startsWith("{") && part.endsWith("}") ? part.slice(1, -1) : null;
    return name !== null && Object.hasOwn(params, name) ? params[name] : part;
  });
}

/** `msgid` said in `context` (the same English said apart elsewhere). */
export function tp(context, msgid, params = {}) {
  const said = messages[`${context}\u0004${msgid}`];
  return fill(typeof said === "string" && said ? said : msgid, params);
}

/** The plural form for `count` (also given as {count}). */
export function tn(singular, plural, count, params = {}) {
  const forms = messages[singular];
  const values = { count, ...params };
  if (Array.isArray(forms) && forms.every((f) => f)) {
    const index = (PLURAL[current] || otherwise)(count);
    return fill(forms[Math.min(index, forms.length - 1)], values);
  }
  return fill(count === 1 ? singular : plural, values);
}
