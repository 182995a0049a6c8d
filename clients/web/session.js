// Where the page's campaign and token come from: a join link's fragment
// (`/#campaign=edge&token=...`), which browsers never send to a server, moved at once to this
// browser's storage and cleared from the address bar (and from history), so a token never sits
// in a bookmark, a screenshot of the URL or the server's logs.
//
// A link opened over a seat this browser already had at that table replaced it at once: a GM
// who opened a player's link to check it became that player in every tab, and a broken copy
// of a link (a character short) locked its player out although their own token still worked.
// Now such a link's token waits in this tab alone (`pending`) until the server welcomes it:
// a refused one replaces nothing, and one for another member is asked about first
// (seat-question.js, fetched only then).
//
// So does a damaged link, one the server refuses as `invalid` (a token over 128 characters, a
// campaign that is no id), in any browser: it was kept for good in one with no seat there,
// and its refusal said "connecting…" for ever, tried again every 10 s (damaged-link.js).

const KEY = "poolhall.tokens";
export const SEATS = "poolhall.seats"; // what each token is: {campaign: Seat}
export const PENDING = "poolhall.pending."; // a link's token over another seat, this tab only

/** What this browser knows of its seat at a table, from the welcome last had there: the
 * landing page lists the title, and a link for another member says whose seat it replaces.
 * @typedef {{title?: string, member?: string, role?: string, closed?: boolean}} Seat */

/** A map kept in this browser's storage, with no prototype: keyed by campaigns' ids, and
 * `{}["constructor"]` is Object's function, which was taken for a seat at "constructor".
 * @param {string} key @returns {Record<string, any>} */
export function read(key) {
  try {
    return Object.assign(Object.create(null), JSON.parse(localStorage.getItem(key) ?? "{}"));
  } catch {
    return Object.create(null);
  }
}

/** This browser's tokens by campaign. @returns {Record<string, string>} */
export function stored() {
  return read(KEY);
}

/** Characters a token never ends in (`ph_` and URL-safe base64: server/auth.py new_token) but a
 * link copied from chat or mail often does: a space, a full stop, a comma, a closing bracket. */
export const TRAILING = /[\s.,;:!?)\]}>'"]+$/;

/** Text glued onto a token ("…Xk2Thanks"): every token poolhall issues (server/auth.py
 * new_token) is `ph_` and 43 characters of URL-safe base64, so what follows is not the
 * token's (an admin token of the operator's own is opened by the owner's page, not here). */
export const GLUED = /^(ph_[\w-]{43}).+/s;
/** A campaign's id (events/base.py Slug): a link naming none is damaged. */
export const CAMPAIGN_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/**
 * {campaign, token} for this page, or {campaign, token: null} when none is known. A link's
 * token for a table where this browser already has another seat is `pending`: held in this
 * tab only until the server welcomes it and, for another member's seat, the person says yes.
 * @param {Location} [location]
 * @returns {{campaign: string | null, token: string | null, pending?: boolean, known?: string[]}}
 */
export function currentSession(location = window.location) {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const campaign = fragment.get("campaign");
  const linked = fragment.get("token")?.trim().replace(TRAILING, "").replace(GLUED, "$1");
  if (campaign && linked) {
    const kept = stored()[campaign];
    if ((kept && kept !== linked) || linked.length > 128 || !CAMPAIGN_ID.test(campaign)) {
      sessionStorage.setItem(PENDING + campaign, linked); // damaged too: see the top
    } else {
      sessionStorage.removeItem(PENDING + campaign);
      remember(campaign, linked);
    }
    history.replaceState(null, "", `${location.pathname}#campaign=${encodeURIComponent(campaign)}`);
  }
  if (campaign) {
    const pending = sessionStorage.getItem(PENDING + campaign);
    if (pending) return {campaign, token: pending, pending: true};
    return {campaign, token: stored()[campaign] ?? null};
  }
  const known = Object.keys(stored());
  return {campaign: known.length === 1 ? known[0] : null, token: known.length === 1
    ? stored()[known[0]] : null, known};
}

/** Keep what the page learnt of its seat at `campaign` (null: forget it).
 * @param {string} campaign @param {Seat | null} seat */
export function noteSeat(campaign, seat) {
  const seats = read(SEATS);
  seats[campaign] = seat && {...seats[campaign], ...seat};
  localStorage.setItem(SEATS, JSON.stringify(seats));
}

/** A join link opened in this same tab (pasted in the address bar after "Leave this table",
 * say) changes only the fragment: the browser loads nothing, and the page stayed as it was
 * with the token in the address bar. Now the token is moved out at once and the table it
 * names is opened; a fragment naming the table already open, with no token, changes nothing
 * (leaving clears it).
 * @param {string | null} campaign the table this page opened, if any */
export function followJoinLinks(campaign) {
  addEventListener("hashchange", () => {
    const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
    const linked = fragment.get("campaign");
    if (!linked || (linked === campaign && !fragment.get("token"))) return;
    currentSession(); // the token kept in this browser, cleared from the address bar
    location.reload();
  });
}

/** @param {string} campaign @param {string} token */
export function remember(campaign, token) {
  const tokens = stored();
  tokens[campaign] = token;
  localStorage.setItem(KEY, JSON.stringify(tokens));
}

/** A replay link's token was opened as a join link (at `/`, not `/replay`): hand it to this
 * tab's replay page, which keeps replay tokens apart. The page to go to. (It replaced the
 * member's own token in this browser only when this browser had none there: see pending.)
 * @param {string} campaign @param {string} token */
export function openedAsReplayLink(campaign, token) {
  sessionStorage.setItem(`poolhall.replay.${campaign}`, token);
  sessionStorage.removeItem(PENDING + campaign);
  // only the replay token itself, if it was kept as this browser's seat (a browser with no
  // seat there): never another seat's (this may run twice while the page goes)
  if (stored()[campaign] === token) forget(campaign);
  return `/replay#campaign=${encodeURIComponent(campaign)}`;
}

/** @param {string} campaign */
export function forget(campaign) {
  const tokens = stored();
  delete tokens[campaign];
  localStorage.setItem(KEY, JSON.stringify(tokens));
  noteSeat(campaign, null);
  sessionStorage.removeItem(PENDING + campaign);
}

export function knownCampaigns() {
  return Object.keys(stored());
}

/** A join link for a member: the same origin, the token in the fragment.
 * @param {string} campaign @param {string} token @param {string} [origin] */
export function joinLink(campaign, token, origin = window.location.origin) {
  return `${origin}/#campaign=${encodeURIComponent(campaign)}&token=${encodeURIComponent(token)}`;
}
