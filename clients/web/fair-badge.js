// A roll's fairness mark in the log, and how it was checked. The page recomputes each roll
// once its epoch's seed is revealed (./fairness.js); the mark says "verified", "unconfirmed",
// "sealed" or "mismatch" and, pressed, the log's panel shows how: the epoch, nonce, commitment, seed and
// bytes used, whose client seeds were in force, and whether the reader's own was one of them.
// Kept apart from <ph-log>, which only places the mark on the line: the log's job is the
// window of lines, this one's is what a check means to the person reading it. The panel's
// words (./fair-how.js) are fetched when a mark is first pressed.
import {h} from "./dom.js";
/** @import {EventFrame, Names} from "./messages.js" */
/** @import {Check, FairChecks} from "./fairness.js" */

/** What a mark needs from the log it sits in (a <ph-log>).
 * @typedef {{fair: FairChecks, frames: EventFrame[], seedsNow: Record<string, string>,
 *   fairPanel: HTMLElement, names: Names | null, member: string | null}} MarkedLog */

/** @type {Record<string, [string, string, string]>} */
export const FAIR_WORDS = {      // a roll's check: its mark, its name, and what it means
  checking: ["…", "checking", "being recomputed from its epoch's revealed seed"],
  verified: ["✓", "verified",
             "recomputed from the revealed seed, which hashes to its commitment: every face matches"],
  // faces that match a seed never checked against its commitment prove nothing of when the
  // seed was chosen: not a ✓ (./fair-check.js recompute)
  unconfirmed: ["?", "commitment unchecked", "every face matches the revealed seed, but the "
    + "seed could not be checked against its commitment here: Load older, or poolhall verify"],
  sealed: ["○", "sealed", "sealed: checked here once its epoch's seed is revealed"],
  // a failed check and a lost seed always say why (./fair-check.js recompute): the mark's
  // title and the panel's "why" say it, these words head the panel
  mismatch: ["✗", "mismatch", "failed"],
  // the server lost the seed: the dice can never be recomputed, so never a ✓ (nor "sealed")
  lost: ["✗", "seed lost", "never checkable"],
  unavailable: ["–", "cannot check here", "cannot check here: needs https or localhost"],
};

/** A roll's check: a button that says how it stands (one size whatever it says: the line
 * was measured with it); pressed, the log's panel shows how it was checked.
 * @param {EventFrame} frame @param {MarkedLog} log */
export function fairBadge(frame, log) {
  /** @type {Check | null} */
  let result = null;
  const explain = async () => {
    if (!result) return;
    const shown = result;
    const {how, seedsInForce} = await import("./fair-how.js"); // once: the module is kept
    const seeds = await seedsInForce(frame, log.frames, log.seedsNow);
    log.fairPanel.replaceChildren(h("h3", {}, `Roll #${frame.seq}`), how(shown, seeds, log));
    log.fairPanel.dataset.seq = String(frame.seq);
    log.fairPanel.hidden = false;
  };
  // which roll each mark is ("Ana's roll #12: dice sealed"): arrowing through the marks, every
  // one read "dice sealed", the line itself unnamed
  const which = `${log.names?.member(frame.actor) ?? frame.actor}'s roll #${frame.seq}: dice `;
  const badge = h("button", {type: "button", class: "ph-fair ph-quiet", tabindex: -1, // one Tab stop: ./log-marks.js
                             onclick: explain});
  // the title says why a check failed when it says (the seed does not give a face, the roll
  // was not made while its epoch was open ...), else what the mark means
  /** @param {string} state @param {string} [why] */
  const says = (state, why) => {
    badge.dataset.state = state;
    const [mark, name, meaning] = FAIR_WORDS[state];
    badge.textContent = mark;
    badge.setAttribute("aria-label", which + name);
    badge.title = why ?? meaning;
  };
  says("checking");
  const shown = (/** @type {Check} */ checked) => {
    result = checked;
    says(checked.state, checked.why);
    // the panel open on this roll says how it stands now (a seed revealed while it was open)
    if (!log.fairPanel.hidden && log.fairPanel.dataset.seq === String(frame.seq)) explain();
  };
  const known = log.fair.known(frame); // a sealed roll: drawn as it is, no waiting
  if (known) shown(known);
  else log.fair.check(frame).then(shown);
  return badge;
}
