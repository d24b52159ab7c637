// Accounts (docs/accounts.md): the header's "Sign in" link or the signed-in name, and the
// /account page: sign in (with a password or a passkey) or sign up when signed out; sign out
// (here or everywhere), a new password, passkeys (passkeys.js) and deleting the account when
// signed in. The session is an HttpOnly cookie this
// script never sees; it asks the server who is signed in.

import { api, keep, kept, keptSeats } from "./api.js";
import { h, replace, toast } from "./dom.js";
import { language, t } from "/static/i18n.js";
import { notifyButton } from "./turns.js";
import { passkeySignIn, passkeysAvailable, passkeysPanel } from "./passkeys.js";
import { friendsPanel } from "./friends.js";

// The header's link: "Sign in", or the account's name; both lead to /account.
export async function accountLink(nav) {
  const link = h("a", { href: "/account", class: "nav-link", id: "account-link" }, t("Sign in"));
  nav.append(link);
  const user = await currentUser();
  if (user) {
    replace(link, user.name);
    link.setAttribute("aria-label", t("Your account: {name}", { name: user.name }));
    link.dataset.user = user.name;
  }
}

async function signedIn() {
  return (await api.account.whoami()).user;
}

export async function showAccount(main) {
  document.title = t("Your account · apothecary");
  replace(main, h("p", { class: "muted" }, t("Loading…")));
  let user = null;
  try {
    user = await signedIn();
  } catch (error) {
    replace(main, h("section", { class: "panel" }, h("h1", {}, t("The server did not answer")), h("p", {}, error.message)));
    return;
  }
  if (user) replace(main, signedInPage(user));
  else replace(main, signedOutPage());
}

// A form of labelled fields whose submit calls `act(values)`; its errors are shown in the form.
function form(id, title, fields, label, act) {
  const message = h("p", { class: "error form-error", role: "alert", "aria-live": "polite" });
  const inputs = fields.map(([name, text, attrs]) => {
    const input = h("input", { id: `${id}-${name}`, name, required: true, ...attrs });
    return [name, input, h("div", { class: "field" }, h("label", { for: input.id }, text), input)];
  });
  const submit = h("button", { type: "submit", class: "primary" }, label);
  const element = h(
    "form",
    { id, class: "panel account-form", "aria-labelledby": `${id}-title`, novalidate: true },
    h("h2", { id: `${id}-title` }, title),
    inputs.map(([, , field]) => field),
    message,
    h("div", { class: "actions" }, submit),
  );
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    replace(message);
    const values = Object.fromEntries(inputs.map(([name, input]) => [name, input.value]));
    submit.disabled = true;
    try {
      await act(values);
    } catch (error) {
      replace(message, error.message);
    } finally {
      submit.disabled = false;
    }
  });
  return element;
}

const PASSWORD = { type: "password", maxlength: 256 };

function signedOutPage() {
  const reload = () => location.assign("/account");
  return h(
    "section",
    { class: "account-page", "aria-labelledby": "account-title" },
    h("h1", { id: "account-title" }, t("Your account")),
    h(
      "p",
      { class: "lead" },
      t("An account is optional: anyone can play from an invite link. Sign in to keep your name."),
    ),
    h(
      "div",
      { class: "account-forms" },
      form(
        "sign-in",
        t("Sign in"),
        [
          ["name", t("User name"), { type: "text", autocomplete: "username", maxlength: 24 }],
          ["password", t("Password"), { ...PASSWORD, autocomplete: "current-password" }],
        ],
        t("Sign in"),
        async (values) => {
          await api.account.signIn(values.name, values.password);
          await claimKeptSeats();
          reload();
        },
      ),
      form(
        "sign-up",
        t("New account"),
        [
          ["name", t("User name (3–24 letters, digits, _ . -)"), { type: "text", autocomplete: "username", maxlength: 24 }],
          ["password", t("Password (a long passphrase is best)"), { ...PASSWORD, autocomplete: "new-password" }],
        ],
        t("Make the account"),
        async (values) => {
          await api.account.signUp(values.name, values.password);
          await claimKeptSeats();
          reload();
        },
      ),
      passkeysAvailable() &&
        passkeySignIn(
          () => document.getElementById("sign-in-name")?.value,
          async () => {
            await claimKeptSeats();
            reload();
          },
        ),
    ),
  );
}

function signedInPage(user) {
  const home = () => location.assign("/account");
  return h(
    "section",
    { class: "account-page", "aria-labelledby": "account-title" },
    h("h1", { id: "account-title" }, t("Signed in as {name}", { name: user.name })),
    h("p", { class: "muted" }, t("Account made {date}.", { date: new Date(user.created * 1000).toLocaleDateString(language()) })),
    h(
      "div",
      { class: "actions account-actions" },
      h(
        "button",
        {
          type: "button",
          id: "sign-out",
          onclick: async () => {
            await api.account.signOut();
            home();
          },
        },
        t("Sign out"),
      ),
      h(
        "button",
        {
          type: "button",
          class: "quiet",
          id: "sign-out-everywhere",
          onclick: async () => {
            await api.account.signOutEverywhere();
            home();
          },
        },
        t("Sign out on every device"),
      ),
    ),
    h(
      "div",
      { class: "account-forms" },
      mailForm(),
      form(
        "new-password",
        t("Change the password"),
        [
          ["current", t("Current password"), { ...PASSWORD, autocomplete: "current-password" }],
          ["new", t("New password"), { ...PASSWORD, autocomplete: "new-password" }],
        ],
        t("Change it"),
        async (values) => {
          await api.account.changePassword(values.current, values.new);
          toast(t("Password changed; every other device is signed out."));
        },
      ),
      passkeysAvailable() && passkeysPanel(),
      form(
        "delete-account",
        t("Delete the account"),
        [["password", t("Password, to confirm"), { ...PASSWORD, autocomplete: "current-password" }]],
        t("Delete it for good"),
        async (values) => {
          await api.account.remove(values.password);
          home();
        },
      ),
    ),
    friendsPanel(),
  );
}

// Your-turn e-mails (docs/turn-based.md): an address, and whether to be mailed; the
// button that lets this browser notify (asked from a click, as browsers require).
function mailForm() {
  const message = h("p", { class: "form-error", role: "status", "aria-live": "polite" });
  const email = h("input", { id: "mail-email", name: "email", type: "email", autocomplete: "email", maxlength: 254 });
  const wanted = h("input", { id: "mail-turns", name: "turn_mail", type: "checkbox", checked: true });
  const submit = h("button", { type: "submit", class: "primary", id: "mail-save" }, t("Save"));
  const element = h(
    "form",
    { id: "turn-mail", class: "panel account-form", "aria-labelledby": "turn-mail-title", novalidate: true },
    h("h2", { id: "turn-mail-title" }, t("Your turn, by e-mail")),
    h("p", { class: "muted" }, t("In a turn-based room, an e-mail tells you when it is your turn, with a link to your seat.")),
    h("div", { class: "field" }, h("label", { for: email.id }, t("E-mail address (empty: none)")), email),
    h("div", { class: "field check" }, wanted, h("label", { for: wanted.id }, t("E-mail me when it is my turn"))),
    message,
    h("div", { class: "actions" }, submit, notifyButton()),
  );
  api.account
    .mail()
    .then((kept) => {
      email.value = kept.email || "";
      wanted.checked = kept.turn_mail;
    })
    .catch(() => {});
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      await api.account.setMail(email.value.trim() || null, wanted.checked);
      replace(message, t("Saved."));
    } catch (error) {
      replace(message, error.message);
    } finally {
      submit.disabled = false;
    }
  });
  return element;
}

// -- your seats follow you (docs/accounts.md#your-seats-follow-you) ---------------------------

// Who is signed in (null: nobody, or the server has no accounts), asked once a page.
let account = null;
export function currentUser() {
  account = account || signedIn().catch(() => null);
  return account;
}

// The seats this browser keeps, linked to the account just signed in to (a guest keeps their
// seats and games). Never fails: a seat that cannot be linked stays this browser's alone.
async function claimKeptSeats() {
  const seats = keptSeats();
  if (seats.length) await api.account.claimSeats(seats).catch(() => {});
}

// Before room `code` opens: a seat this browser keeps is linked to the signed-in account,
// and without one, the account's seat there (taken on another device) is kept here.
export async function seatFollows(code) {
  try {
    if (!(await currentUser())) return;
    const token = kept(code).seat_token;
    if (token) await api.account.claimSeats([{ room: code, token }]);
    else {
      const seat = await api.account.seat(code);
      keep(code, { seat_token: seat.token, seat: seat.seat, name: seat.name });
    }
  } catch {
    /* no seat of the account's there, or another's: the room opens as for a guest */
  }
}

// A seat taken on any page (a claim, a room created with a name) becomes the account's.
window.addEventListener("apothecary:seat", async (event) => {
  if (await currentUser()) api.account.claimSeats([event.detail]).catch(() => {});
});
