// Passkeys (docs/accounts.md#passkeys) on the /account page: signed out, "Sign in with a
// passkey" (with no user name the authenticator offers the passkeys it holds for this site;
// with the sign-in form's name, only that account's); signed in, the account's passkeys,
// adding one and removing one. The server gives WebAuthn's options as JSON (binary fields
// base64url) and checks the browser's answer; this file only converts between the two.

import { api } from "./api.js";
import { h, replace, toast } from "./dom.js";
import { t } from "./i18n.js";

// Whether this browser can use passkeys at all (WebAuthn needs a secure context: https, or
// http on localhost).
export function passkeysAvailable() {
  return Boolean(window.PublicKeyCredential && navigator.credentials && window.isSecureContext);
}

function fromB64(encoded) {
  const plain = atob(encoded.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (encoded.length % 4)) % 4));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0)).buffer;
}

function toB64(buffer) {
  let plain = "";
  for (const byte of new Uint8Array(buffer)) plain += String.fromCharCode(byte);
  return btoa(plain).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const descriptors = (list) => (list || []).map((d) => ({ ...d, id: fromB64(d.id) }));

// The browser's answer as WebAuthn's JSON (toJSON where the browser has it).
function answer(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: toB64(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = toB64(r.authenticatorData);
    response.signature = toB64(r.signature);
    response.userHandle = r.userHandle ? toB64(r.userHandle) : null;
  }
  return {
    id: credential.id,
    rawId: toB64(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment,
  };
}

// The browser's own refusal (the person cancelled, or no passkey here) in words.
function cancelled(error) {
  if (error && (error.name === "NotAllowedError" || error.name === "AbortError"))
    return new Error(t("No passkey was used (cancelled, or none for this site on this device)."));
  if (error && error.name === "InvalidStateError") return new Error(t("This device has a passkey of the account already."));
  return error;
}

async function create(options) {
  const publicKey = {
    ...options,
    challenge: fromB64(options.challenge),
    user: { ...options.user, id: fromB64(options.user.id) },
    excludeCredentials: descriptors(options.excludeCredentials),
  };
  try {
    return answer(await navigator.credentials.create({ publicKey }));
  } catch (error) {
    throw cancelled(error);
  }
}

async function get(options) {
  const publicKey = { ...options, challenge: fromB64(options.challenge), allowCredentials: descriptors(options.allowCredentials) };
  try {
    return answer(await navigator.credentials.get({ publicKey }));
  } catch (error) {
    throw cancelled(error);
  }
}

// Signed out: a button that signs in with a passkey; `nameOf()` (the sign-in form's user
// name) narrows it to that account's passkeys when filled; `after()` runs once signed in.
export function passkeySignIn(nameOf, after) {
  const message = h("p", { class: "error form-error", role: "alert", "aria-live": "polite" });
  const button = h("button", { type: "button", id: "passkey-sign-in" }, t("Sign in with a passkey"));
  button.addEventListener("click", async () => {
    replace(message);
    button.disabled = true;
    try {
      const name = (nameOf() || "").trim() || null;
      const { options } = await api.account.passkeys.signInOptions(name);
      await api.account.passkeys.signIn(await get(options));
      await after();
    } catch (error) {
      replace(message, error.message);
    } finally {
      button.disabled = false;
    }
  });
  return h(
    "section",
    { class: "panel account-form", id: "passkey", "aria-labelledby": "passkey-title" },
    h("h2", { id: "passkey-title" }, t("Passkey")),
    h("p", { class: "muted" }, t("No password to type: your device's fingerprint, face or PIN signs you in.")),
    message,
    h("div", { class: "actions" }, button),
  );
}

function row(key, refresh) {
  const when = (seconds) => new Date(seconds * 1000).toLocaleDateString();
  const used = key.last_used ? t("last used {date}", { date: when(key.last_used) }) : t("never used yet");
  const remove = h("button", { type: "button", class: "quiet" }, t("Remove"));
  remove.setAttribute("aria-label", t("Remove the passkey {label}", { label: key.label }));
  remove.addEventListener("click", async () => {
    remove.disabled = true;
    try {
      await api.account.passkeys.remove(key.id);
      toast(t("Passkey removed."));
    } finally {
      await refresh();
    }
  });
  return h(
    "li",
    { class: "passkey", "data-id": key.id },
    h("span", { class: "passkey-label" }, key.label),
    " ",
    h("span", { class: "muted" }, t("added {date}, {used}", { date: when(key.created), used })),
    " ",
    remove,
  );
}

// Signed in: the account's passkeys, fields to name a new one and confirm the password,
// and a button to add it.
export function passkeysPanel() {
  const list = h("ul", { id: "passkey-list", class: "passkey-list" });
  const message = h("p", { class: "error form-error", role: "alert", "aria-live": "polite" });
  const label = h("input", { id: "passkey-label", name: "label", type: "text", maxlength: 64 });
  // Adding a way in asks for the password again, as changing the password does.
  const password = h("input", {
    id: "passkey-password",
    name: "password",
    type: "password",
    maxlength: 256,
    autocomplete: "current-password",
    required: true,
  });
  const add = h("button", { type: "button", class: "primary", id: "add-passkey" }, t("Add a passkey"));
  const refresh = async () => {
    try {
      const { passkeys } = await api.account.passkeys.list();
      replace(list, passkeys.length ? passkeys.map((key) => row(key, refresh)) : h("li", { class: "muted" }, t("No passkeys yet.")));
    } catch (error) {
      replace(message, error.message);
    }
  };
  add.addEventListener("click", async () => {
    replace(message);
    add.disabled = true;
    try {
      const { options } = await api.account.passkeys.registerOptions(password.value);
      password.value = "";
      await api.account.passkeys.register(await create(options), label.value.trim() || null);
      label.value = "";
      toast(t("Passkey added: you can sign in with it now."));
      await refresh();
    } catch (error) {
      replace(message, error.message);
    } finally {
      add.disabled = false;
    }
  });
  refresh();
  return h(
    "section",
    { class: "panel account-form", id: "passkeys", "aria-labelledby": "passkeys-title" },
    h("h2", { id: "passkeys-title" }, t("Passkeys")),
    h("p", { class: "muted" }, t("Sign in with this device's fingerprint, face or PIN instead of the password.")),
    list,
    h("div", { class: "field" }, h("label", { for: label.id }, t("Name for a new passkey (optional)")), label),
    h("div", { class: "field" }, h("label", { for: password.id }, t("Password, to confirm")), password),
    message,
    h("div", { class: "actions" }, add),
  );
}
