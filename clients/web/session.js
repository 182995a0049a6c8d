// Where the page's campaign and token come from: a join link's fragment
// (`/#campaign=edge&token=...`), which browsers never send to a server, moved at once to this
// browser's storage and cleared from the address bar (and from history), so a token never sits
// in a bookmark, a screenshot of the URL or the server's logs.

const KEY = "poolhall.tokens";

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

/** {campaign, token} for this page, or {campaign, token: null} when none is known. */
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

export function remember(campaign, token) {
  const tokens = stored();
  tokens[campaign] = token;
  localStorage.setItem(KEY, JSON.stringify(tokens));
}

export function forget(campaign) {
  const tokens = stored();
  delete tokens[campaign];
  localStorage.setItem(KEY, JSON.stringify(tokens));
}

export function knownCampaigns() {
  return Object.keys(stored());
}

/** A join link for a member: the same origin, the token in the fragment. */
export function joinLink(campaign, token, origin = window.location.origin) {
  return `${origin}/#campaign=${encodeURIComponent(campaign)}&token=${encodeURIComponent(token)}`;
}
