// The page of a member the table no longer opens to (removed by the GM, or a token that opens
// no seat): the table goes, with every control in it, and a notice says why, in the server's
// words, and what to do next. Pressing a control there only got "send join with your token
// first", and a reload left a nearly blank page with an empty Roll form. Fetched only then.
import {h} from "./dom.js";

/** The notice shown in place of the table. @param {string} words the server's refusal */
export function closedNotice(words) {
  return h("section", {class: "ph-closed", role: "alert", "aria-label": "This table is closed to you"},
    h("h2", {}, "This table is closed to you"),
    h("p", {class: "ph-closed-why"}, `${words.charAt(0).toUpperCase()}${words.slice(1)}.`),
    h("p", {}, "If you should be at this table, ask the GM for a new join link. "
      + "Leave this table, above, forgets it in this browser."));
}
