// A damaged link: one the server refuses as `invalid` whatever is tried (a token longer than any
// it issues, a paragraph glued on after a space; a campaign that is no table's id). Opened, it
// said "connecting…" for ever, trying again every 10 s (each try a failed join of its address:
// four such tabs got the next member there refused `rate_limited`), also after a reload, and
// the only button left, Leave this table, forgot the seat the browser had there. Now its join
// is tried once, as a link over a seat is (session.js `pending`, whether or not this browser
// has a seat there), and its refusal says why in these words (seat-question.js); the landing
// page and the replay page say them before trying it at all. Fetched only by those.
import {CAMPAIGN_ID, GLUED, TRAILING} from "./session.js";

/** The longest token a join may carry (events/messages.py Join). */
const TOKEN_MAX = 128;

/** A link's token as the server should get it: what chat or mail put after it dropped (as
 * session.js currentSession does). @param {string} text @returns {string} */
export function linkToken(text) {
  return text.trim().replace(TRAILING, "").replace(GLUED, "$1");
}

/** Why the server refuses a link's campaign and token as `invalid`, in words; null: it does
 * not. @param {string} campaign @param {string} token the link's, through linkToken
 * @returns {string | null} */
export function linkProblem(campaign, token) {
  if (!CAMPAIGN_ID.test(campaign)) {
    return `its campaign “${campaign.slice(0, 60)}” is not a table's id (lowercase letters,`
      + " digits, - and _, at most 40)";
  }
  if (token.length > TOKEN_MAX) {
    return `its token has ${token.length} characters, more than any token poolhall makes`
      + ` (${TOKEN_MAX} at most)`;
  }
  return null;
}
