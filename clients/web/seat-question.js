// A join link opened in a browser that already has a seat at that table (session.js
// `pending`), fetched only then. Opening a link replaced the seat at once: a GM who opened a
// player's link to check it was that player from then on, their own link shown only once, and
// a broken copy of a link locked its player out. Now a link for another member asks first,
// naming both seats, and offers the kept seat's link to copy before it is forgotten; a link
// the server refuses says so and keeps the seat. A damaged link (damaged-link.js) is pending
// in any browser, and its refusal says why in words of its own.
import {h, replace} from "./dom.js";
import {PENDING, SEATS, joinLink, noteSeat, read, remember, stored} from "./session.js";
import {linkProblem} from "./damaged-link.js";
/** @import {Seat} from "./session.js" */
/** @import {PhApp} from "./elements/ph-app.js" */

/** @param {string} campaign */
function dropPending(campaign) {
  sessionStorage.removeItem(PENDING + campaign);
}

/** The link's token is this browser's seat at `campaign` from now on.
 * @param {string} campaign @param {string} token */
function accept(campaign, token) {
  dropPending(campaign);
  noteSeat(campaign, null); // the seat replaced: what was known of it goes with it
  remember(campaign, token);
}

/** Settle the pending link of `app` (ph-app.js settleSeat), called on each change while it
 * is pending: refused (`refused`: the server's words), the seat stays and the page says so;
 * welcomed as the seat's own member, or over a seat the table closed, or as a replay link
 * (ph-app.js hands that to the replay page), it opens at once; welcomed as another member, the
 * page asks once the table names them. @param {PhApp} app @param {string} [refused] */
export function settle(app, refused) {
  const {campaign, token} = app.connection;
  const seat = /** @type {Seat} */ (read(SEATS)[campaign] ?? {});
  if (refused !== undefined) {
    app.dataset.closed = "";
    const damaged = linkProblem(campaign, token);
    refusedLink(app, {campaign, words: damaged ?? refused, title: seat.title ?? campaign,
                      role: ROLE_WORDS[seat.role ?? ""], damaged: damaged !== null});
    return;
  }
  const {welcome, table} = app.store.state;
  if (!welcome || app.dataset.asking !== undefined) return;
  if (welcome.role === "replay" || seat.closed || seat.member === welcome.member) {
    if (welcome.role !== "replay") accept(campaign, token);
    app.pending = false;
    app.render(new Set(["welcome", "table", "log", "views"]));
    return;
  }
  if (!table) return; // the link's member, and the seat's, are named by the table
  app.dataset.asking = "";
  app.connection.stop();
  const name = (/** @type {string | undefined} */ member) => table.members.find((m) => m.member === member)?.name;
  askToReplace(app, {campaign, token, title: welcome.name,
    seat: seat.member && name(seat.member) ? {name: name(seat.member), role: seat.role} : {},
    linked: {name: name(welcome.member) ?? welcome.member, role: welcome.role}});
}

/** @type {Record<string, string>} */
const ROLE_WORDS = {gm: "GM", player: "player", spectator: "spectator"};

/** A seat as the question names it: its member's name and role, when known.
 * @typedef {{name?: string, role?: string}} Named */

/** "Han (GM)", or null for a seat this browser did not note (kept before it did).
 * @param {Named} seat */
function words(seat) {
  return seat.name ? `${seat.name} (${ROLE_WORDS[seat.role ?? ""] ?? seat.role})` : null;
}

/** Ask whether the link's member (`linked`) replaces this browser's seat at the table; the
 * table is not drawn meanwhile. Yes keeps the link's token, No the seat; either opens the table.
 * @param {HTMLElement} app
 * @param {{campaign: string, token: string, title: string, seat: Named,
 *          linked: {name: string, role: string}}} asked */
function askToReplace(app, {campaign, token, title, seat, linked}) {
  const kept = words(seat);
  const newSeat = `${linked.name} (${ROLE_WORDS[linked.role] ?? linked.role})`;
  const role = ROLE_WORDS[seat.role ?? ""];
  const yes = h("button", {type: "button"}, `Open as ${linked.name}`);
  const no = h("button", {type: "button", class: "ph-quiet"}, kept ? `Stay ${kept}` : "Keep this browser's seat");
  const copy = h("button", {type: "button", class: "ph-quiet"}, kept ? `Copy ${seat.name}'s link first`
    : "Copy this browser's link first");
  const said = h("span", {class: "ph-muted", role: "status"});
  const link = h("input", {class: "ph-link", readonly: true, hidden: true,
                           "aria-label": `join link for ${seat.name ?? "this browser's seat"}`});
  yes.addEventListener("click", () => {
    accept(campaign, token);
    location.reload();
  });
  no.addEventListener("click", () => {
    dropPending(campaign);
    location.reload();
  });
  copy.addEventListener("click", async () => {
    const mine = joinLink(campaign, stored()[campaign] ?? "");
    try {
      await navigator.clipboard.writeText(mine);
      said.textContent = "copied: keep it somewhere safe";
    } catch { // no clipboard (plain http on a LAN): shown, selected, for Ctrl+C
      link.value = mine;
      link.hidden = false;
      link.focus();
      link.select();
      said.textContent = "selected: press Ctrl+C (⌘C) to copy";
    }
  });
  // Escape is the choice that forgets nothing, as in the table's other questions (confirm.js)
  replace(app, h("section", {class: "ph-closed ph-seat-question", role: "alertdialog",
                             "aria-labelledby": "ph-seat-question", "aria-describedby": "ph-seat-why",
                             onkeydown: (/** @type {KeyboardEvent} */ event) => {
                               if (event.key === "Escape") no.click();
                             }},
    h("h2", {id: "ph-seat-question"}, `Open ${title} as ${linked.name}?`),
    h("p", {id: "ph-seat-why"}, kept
      ? `This browser sits at ${title} as ${kept}. Open it as ${newSeat} instead? Your ${role ?? ""}`
        + " seat will be forgotten in this browser unless you keep its link."
      : `This browser already has a seat at ${title}. Open it as ${newSeat} instead? That seat`
        + " will be forgotten in this browser unless you keep its link."),
    h("div", {class: "ph-confirm"}, yes, no, copy), link, said));
  no.focus(); // the choice that forgets nothing
}

/** The link's token was refused: this browser's seat stays, and the page says so (the seat's
 * role as noted; its member's name only the table would say). A damaged link (`damaged`) may
 * come where this browser has no seat: nothing was kept, and the landing page's form takes
 * another link.
 * @param {HTMLElement} app
 * @param {{campaign: string, words: string, title: string, role: string | undefined,
 *          damaged: boolean}} refused */
function refusedLink(app, {campaign, words: said, title, role, damaged}) {
  dropPending(campaign);
  const kept = Boolean(stored()[campaign]);
  const back = h("button", {type: "button"}, kept ? "Back to the table" : "Open another link");
  back.addEventListener("click", () => kept ? location.reload()
    : import("./landing.js").then(({landing}) => {
      landing(app, null);
      app.querySelector("input")?.focus();
    }));
  replace(app, h("section", {class: "ph-closed", role: "alert", "aria-label": "This join link opens nothing"},
    h("h2", {}, damaged ? "This join link is damaged" : `This join link does not open ${title}`),
    h("p", {class: "ph-closed-why"}, `${said.charAt(0).toUpperCase()}${said.slice(1)}.`),
    h("p", {}, kept ? `This browser keeps its ${role ? `${role} ` : ""}seat there: the link changed`
      + " nothing. Check that it was copied whole, or ask the GM for a new one."
      : "Nothing was kept in this browser. Check that the link was copied whole, with nothing"
      + " after it, or ask the GM for a new one."),
    back));
  back.focus();
}
