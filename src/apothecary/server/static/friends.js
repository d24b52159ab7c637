// Friends (docs/accounts.md#friends): the account page's Friends panel (friends and who is
// online, requests to answer, people blocked, a form to ask someone), the lobby's
// invitations to rooms, and the room lobby's "invite a friend by user name". Both lists
// poll the server while they are on the page (every POLL ms), which also keeps the account
// online for its friends.

import { api } from "./api.js";
import { currentUser } from "./account.js";
import { h, replace, toast } from "./dom.js";
import { t } from "./i18n.js";

const POLL = 30_000;

// Redraw `box` from `load()` now and every POLL ms while `box` is in the document.
function polled(box, load, draw) {
  const once = async () => {
    try {
      draw(await load());
    } catch (error) {
      replace(box, h("p", { class: "error" }, t("The friends list could not be loaded: {message}", { message: error.message })));
    }
  };
  once();
  const timer = setInterval(() => (box.isConnected ? once() : clearInterval(timer)), POLL);
  return once;
}

// A button that calls `act()`, then `after()`; a refusal is shown as a toast.
function action(label, act, after, attrs = {}) {
  return h(
    "button",
    {
      type: "button",
      ...attrs,
      onclick: async () => {
        try {
          await act();
        } catch (error) {
          toast(error.message);
        }
        after();
      },
    },
    label,
  );
}

// A one-field form: a user name, submitted to `act(name)`; its refusal shown in the form.
function nameForm(id, label, button, act) {
  const input = h("input", { id: `${id}-name`, name: "name", type: "text", required: true, maxlength: 24, autocomplete: "off" });
  const message = h("p", { class: "error form-error", role: "alert", "aria-live": "polite" });
  const form = h(
    "form",
    { id, class: "friend-form", novalidate: true },
    h("label", { for: input.id }, label),
    h("div", { class: "invite-row" }, input, h("button", { type: "submit" }, button)),
    message,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    replace(message);
    try {
      await act(input.value.trim());
      input.value = "";
    } catch (error) {
      replace(message, error.message);
    }
  });
  return form;
}

// The account page's Friends panel.
export function friendsPanel() {
  const list = h("div", { id: "friends-lists" }, h("p", { class: "muted" }, t("Loading…")));
  const panel = h(
    "section",
    { id: "friends", class: "panel friends-panel", "aria-labelledby": "friends-title" },
    h("h2", { id: "friends-title" }, t("Friends")),
    list,
  );
  const refresh = polled(list, () => api.friends.list(), (data) => replace(list, friendsLists(data, () => refresh())));
  panel.append(
    nameForm("add-friend", t("Add a friend by user name"), t("Send a request"), async (name) => {
      const answer = await api.friends.ask(name);
      toast(answer.state === "friends" ? t("You and {name} are friends now.", { name }) : t("Friend request sent to {name}.", { name }));
      refresh();
    }),
    nameForm("block-someone", t("Block someone by user name"), t("Block"), async (name) => {
      await api.friends.block(name);
      toast(t("{name} is blocked.", { name }));
      refresh();
    }),
  );
  return panel;
}

function friendsLists(data, refresh) {
  const row = (name, id, ...controls) => h("li", { class: "friend", "data-name": name, id }, h("span", { class: "friend-name" }, name), ...controls);
  return [
    h("h3", {}, t("Your friends")),
    data.friends.length
      ? h(
          "ul",
          { id: "friend-list", class: "friend-list" },
          data.friends.map((friend) =>
            row(
              friend.name,
              `friend-${friend.name}`,
              h("span", { class: friend.online ? "presence online" : "presence" }, friend.online ? t("online") : t("offline")),
              action(t("Remove"), () => api.friends.remove(friend.name), refresh, { class: "quiet" }),
              action(t("Block"), () => api.friends.block(friend.name), refresh, { class: "quiet" }),
            ),
          ),
        )
      : h("p", { class: "muted" }, t("No friends yet: ask someone by their user name below.")),
    data.incoming.length
      ? [
          h("h3", {}, t("Asking to be your friend")),
          h(
            "ul",
            { id: "incoming-list", class: "friend-list" },
            data.incoming.map((name) =>
              row(
                name,
                `incoming-${name}`,
                action(t("Accept"), () => api.friends.accept(name), refresh, { class: "primary" }),
                action(t("Decline"), () => api.friends.decline(name), refresh),
                action(t("Block"), () => api.friends.block(name), refresh, { class: "quiet" }),
              ),
            ),
          ),
        ]
      : null,
    data.outgoing.length
      ? [
          h("h3", {}, t("Waiting for an answer")),
          h(
            "ul",
            { id: "outgoing-list", class: "friend-list" },
            data.outgoing.map((name) => row(name, `outgoing-${name}`, action(t("Withdraw"), () => api.friends.remove(name), refresh, { class: "quiet" }))),
          ),
        ]
      : null,
    data.blocked.length
      ? [
          h("h3", {}, t("Blocked")),
          h(
            "ul",
            { id: "blocked-list", class: "friend-list" },
            data.blocked.map((name) => row(name, `blocked-${name}`, action(t("Unblock"), () => api.friends.unblock(name), refresh, { class: "quiet" }))),
          ),
        ]
      : null,
  ];
}

// The lobby's invitations to rooms (hidden while there are none, or signed out).
export async function showInvitations(box) {
  if (!(await currentUser())) return;
  const draw = (data) => {
    box.hidden = !data.invitations.length;
    replace(
      box,
      h("h2", { id: "invitations-title" }, t("Invitations")),
      h(
        "ul",
        { class: "room-list", id: "invitation-list" },
        data.invitations.map((invitation) =>
          h(
            "li",
            { class: "invitation", "data-room": invitation.room },
            h("span", {}, t("{name} invites you to {game}", { name: invitation.from, game: invitation.title })),
            " ",
            h("a", { href: invitation.link, class: "button primary", id: `join-${invitation.room}` }, t("Go to the room")),
            " ",
            action(t("Dismiss"), () => api.friends.dismiss(invitation.room), () => once(), { class: "quiet" }),
          ),
        ),
      ),
    );
  };
  const once = polled(box, () => api.friends.list(), draw);
}

// The room lobby's form: invite a friend to room `code` by user name (signed in only).
export function inviteFriendForm(code) {
  const box = h("div", { id: "invite-friend" });
  currentUser().then((user) => {
    if (!user) return;
    replace(
      box,
      nameForm("invite-friend-form", t("Invite a friend by user name"), t("Invite"), async (name) => {
        await api.friends.invite(name, code);
        toast(t("{name} is invited; the invitation shows in their lobby.", { name }));
      }),
    );
  });
  return box;
}
