// Where the page's campaign and token come from: a join link's fragment
// (`/#campaign=edge&token=...`), which browsers never send to a server, moved at once to this
// browser's storage and cleared from the address bar (and from history), so a token never sits
// in a bookmark, a screenshot of the URL or the server's logs.

const KEY = "poolhall.tokens";
const REPLACED = "poolhall.replaced."; // a token a newer link replaced, this tab only

/** This browser's tokens by campaign. @returns {Record<string, string>} */
function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

/**
 * {campaign, token} for this page, or {campaign, token: null} when none is known.
 * @param {Location} [location]
 * @returns {{campaign: string | null, token: string | null, known?: string[]}}
 */
export function currentSession(location = window.location) {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const campaign = fragment.get("campaign");
  const token = fragment.get("token");
  if (campaign && token) {
    remember(campaign, token);
    history.replaceState(null, "", `${location.pathname}#campaign=${encodeURIComponent(campaign)}`);
    return {campaign, token};
  }
  if (campaign) return {campaign, token: stored()[campaign] ?? null};
  const known = Object.keys(stored());
  return {campaign: known.length === 1 ? known[0] : null, token: known.length === 1
    ? stored()[known[0]] : null, known};
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
  if (tokens[campaign] && tokens[campaign] !== token) {
    sessionStorage.setItem(REPLACED + campaign, tokens[campaign]); // see openedAsReplayLink
  }
  tokens[campaign] = token;
  localStorage.setItem(KEY, JSON.stringify(tokens));
}

/** A replay link's token was opened as a join link (at `/`, not `/replay`): hand it to this
 * tab's replay page, which keeps replay tokens apart, and put back the member's own token it
 * replaced in this browser (if it replaced one). The page to go to.
 * @param {string} campaign @param {string} token */
export function openedAsReplayLink(campaign, token) {
  sessionStorage.setItem(`poolhall.replay.${campaign}`, token);
  const replaced = sessionStorage.getItem(REPLACED + campaign);
  sessionStorage.removeItem(REPLACED + campaign);
  const tokens = stored();
  if (replaced) tokens[campaign] = replaced;
  else delete tokens[campaign];
  localStorage.setItem(KEY, JSON.stringify(tokens));
  return `/replay#campaign=${encodeURIComponent(campaign)}`;
}

/** @param {string} campaign */
export function forget(campaign) {
  const tokens = stored();
  delete tokens[campaign];
  localStorage.setItem(KEY, JSON.stringify(tokens));
}

export function knownCampaigns() {
  return Object.keys(stored());
}

/** A join link for a member: the same origin, the token in the fragment.
 * @param {string} campaign @param {string} token @param {string} [origin] */
export function joinLink(campaign, token, origin = window.location.origin) {
  return `${origin}/#campaign=${encodeURIComponent(campaign)}&token=${encodeURIComponent(token)}`;
}
