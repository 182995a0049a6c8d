// A roll's fairness mark in the log, and how it was checked. The page recomputes each roll
// once its epoch's seed is revealed (./fairness.js); the mark says "verified", "sealed" or
// "mismatch" and, pressed, the log's panel shows how: the epoch, nonce, commitment, seed and
// bytes used, whose client seeds were in force, and whether the reader's own was one of them.
// Kept apart from <ph-log>, which only places the mark on the line: the log's job is the
// window of lines, this one's is what a check means to the person reading it.
import {h} from "./dom.js";
import {seedsInForce} from "./fairness.js";
/** @import {EventFrame, Names} from "./messages.js" */
/** @import {Check, FairChecks, SeedsAt} from "./fairness.js" */

/** What a mark needs from the log it sits in (a <ph-log>).
 * @typedef {{fair: FairChecks, frames: EventFrame[], seedsNow: Record<string, string>,
 *   fairPanel: HTMLElement, names: Names | null, member: string | null}} MarkedLog */

/** @type {Record<string, [string, string, string]>} */
const FAIR_WORDS = {      // a roll's check: its mark, its name, and what it means
  checking: ["…", "checking", "being recomputed from its epoch's revealed seed"],
  verified: ["✓", "verified", "recomputed from the revealed seed: every face matches"],
  sealed: ["○", "sealed", "sealed: checked here once its epoch's seed is revealed"],
  mismatch: ["✗", "mismatch", "the revealed seed does not give these dice"],
  unavailable: ["–", "cannot check here", "cannot check here: needs https or localhost"],
};

/** A roll's check: a button that says how it stands (one size whatever it says: the line
 * was measured with it); pressed, the log's panel shows how it was checked.
 * @param {EventFrame} frame @param {MarkedLog} log */
export function fairBadge(frame, log) {
  /** @type {Check | null} */
  let result = null;
  const badge = h("button", {type: "button", class: "ph-fair ph-quiet", "data-state": "checking",
                             onclick: async () => {
    if (!result) return;
    const shown = result;
    const seeds = await seedsInForce(frame, log.frames, log.seedsNow);
    log.fairPanel.replaceChildren(h("h3", {}, `Roll #${frame.seq}`), how(shown, seeds, log));
    log.fairPanel.hidden = false;
  }, "aria-label": `dice ${FAIR_WORDS.checking[1]}`, title: FAIR_WORDS.checking[2]},
  FAIR_WORDS.checking[0]);
  const shown = (/** @type {Check} */ checked) => {
    result = checked;
    badge.dataset.state = checked.state;
    const [mark, name, meaning] = FAIR_WORDS[checked.state];
    badge.textContent = mark;
    badge.setAttribute("aria-label", `dice ${name}`);
    badge.title = meaning;
  };
  const known = log.fair.known(frame); // a sealed roll: drawn as it is, no waiting
  if (known) shown(known);
  else log.fair.check(frame).then(shown);
  return badge;
}

/** How a roll was checked: its epoch, nonce, commitment, seed and the bytes it used; the
 * client seeds in force (seedsInForce) and whether this member's own was one.
 * @param {Check} result @param {SeedsAt} seeds @param {MarkedLog} log */
function how(result, seeds, log) {
  const names = /** @type {Names} */ (log.names); // a line is drawn once names are known
  const rows = [
    ["check", FAIR_WORDS[result.state][2]], ["epoch", result.epoch], ["nonce", result.nonce],
    ["commitment", result.commitment ?? "not in the log loaded here"],
    ["seed", result.seed ?? "not revealed yet"], ["client seeds digest", result.seeds],
    ["client seeds in force", seedsWords(seeds, names)],
    ["your seed", ownSeedWords(seeds, log.member)],
    ["bytes used", result.bytes], ["why", result.why],
  ];
  return h("dl", {class: "ph-fair-how"}, rows.filter(([, value]) => value !== undefined)
    .flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, String(value))]));
}

/** Whose seeds were in force at a roll, and whether they give its stamp's digest.
 * @param {SeedsAt} seeds @param {Names} names */
function seedsWords({seeds, unknown, digest, matches}, names) {
  if (unknown.length) {
    return `${unknown.map(names.member).join(", ")} changed their seed since; the one `
      + "before is older than the lines loaded here: Load older";
  }
  const whose = seeds.size ? [...seeds.keys()].sort().map(names.member).join(", ") : "none";
  if (matches === null) return `${whose} (the digest cannot be checked here)`;
  return matches ? `${whose}: the seeds set in the log give this digest`
    : `${whose}: the seeds set in the log give ${digest}, not this digest`;
}

/** This member's own seed at a roll, and whether it was mixed in.
 * @param {SeedsAt} seeds @param {string | null} member */
function ownSeedWords({seeds, unknown, matches}, member) {
  if (member === null) return undefined;
  if (unknown.includes(member)) return "set before the log loaded here: Load older";
  if (!seeds.has(member)) return "none: you had set no seed before this roll";
  const seed = `“${seeds.get(member)}”`;
  if (matches === true) return `${seed}, mixed in`;
  if (matches === false) return `${seed} was in force, but the digest is not of the seeds in force`;
  return `${seed} was in force (the digest cannot be checked here)`;
}
