// How a roll's fairness mark was checked, shown in the log's panel when the mark is pressed
// (./fair-badge.js fetches this module then, with ./fair-check.js, which it imports): the
// epoch, nonce, commitment, seed and bytes used, whose client seeds were in force, and
// whether the reader's own was one of them.
import {h} from "./dom.js";
import {FAIR_WORDS} from "./fair-badge.js";
import {seedsInForce} from "./fair-check.js";
/** @import {Names} from "./messages.js" */
/** @import {Check} from "./fairness.js" */
/** @import {SeedsAt} from "./fair-check.js" */
/** @import {MarkedLog} from "./fair-badge.js" */

export {seedsInForce};

/** How a roll was checked: its epoch, nonce, commitment, seed and the bytes it used; the
 * client seeds in force (seedsInForce) and whether this member's own was one.
 * @param {Check} result @param {SeedsAt} seeds @param {MarkedLog} log */
export function how(result, seeds, log) {
  const names = /** @type {Names} */ (log.names); // a line is drawn once names are known
  const rows = [
    ["check", FAIR_WORDS[result.state][2]], ["epoch", result.epoch], ["nonce", result.nonce],
    ["commitment", commitmentWords(result)],
    ["seed", result.state === "lost" ? "lost by the server" : result.seed ?? "not revealed yet"], ["client seeds digest", result.seeds],
    ["client seeds in force", seedsWords(seeds, names)],
    ["your seed", ownSeedWords(seeds, log.member)],
    ["bytes used", result.bytes], ["why", result.why], ["not checked here", result.unchecked],
  ];
  return h("dl", {class: "ph-fair-how"}, rows.filter(([, value]) => value !== undefined)
    .flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, String(value))]));
}

/** The commitment the seed was checked against, and where the page found it.
 * @param {Check} result */
function commitmentWords({state, commitment, asked}) {
  if (commitment === null) {
    return state === "unconfirmed"
      ? "not checked: not in the log loaded here, and the server did not give it (Load older)"
      : "not in the log loaded here";
  }
  return asked ? `${commitment} (asked of the server: older than the log loaded here)` : commitment;
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
