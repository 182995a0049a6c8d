// The page of a member the table no longer opens to (removed by the GM, or a token that opens
// no seat): the table goes, with every control in it, and a notice says why, in the server's
// words, and what to do next. Pressing a control there only got "send join with your token
// first", and a reload left a nearly blank page with an empty Roll form. Fetched only then.
import {h, replace} from "./dom.js";
import {noteSeat} from "./session.js";
/** @import {PhApp} from "./elements/ph-app.js" */

/** Every part of `app`'s table and its controls give way to the notice; the header keeps Leave
 * this table. This browser notes it: a join link for another member replaces that seat
 * without asking. @param {PhApp} app @param {string} words the server's refusal */
export function closeTable(app, words) {
  noteSeat(app.connection.campaign, {closed: true});
  app.showView("table"); // Leave this table in the header, which alone stays
  app.problem.hidden = true;
  app.motion.hidden = true;
  replace(app, app.header, closedNotice(words));
  app.leave.focus();
}

/** The notice shown in place of the table. @param {string} words the server's refusal */
export function closedNotice(words) {
  return h("section", {class: "ph-closed", role: "alert", "aria-label": "This table is closed to you"},
    h("h2", {}, "This table is closed to you"),
    h("p", {class: "ph-closed-why"}, `${words.charAt(0).toUpperCase()}${words.slice(1)}.`),
    h("p", {}, "If you should be at this table, ask the GM for a new join link. "
      + "Leave this table, above, forgets it in this browser."));
}
