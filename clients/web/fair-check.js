// The page checks the dice for itself: each roll of an epoch whose seed was revealed is
// recomputed here (fetched by ./fairness.js the first time a seed is revealed, and by the
// "how" panel), with the browser's Web Crypto (HMAC-SHA256, SHA-256), from the seed, the
// campaign, the epoch, the client seeds digest and the nonce the log recorded — no library.
// The one thing asked of the server is an epoch's commitment when its `seed_committed` is
// older than the lines the page holds (`commitmentAt`). The algorithm is
// docs/explanation/fairness.md's, the same as events/fair.py and the reference verifier; the
// order of each event's dice is projections/fair_draws.py's, read by ./fair-record.js, which
// checks too what each event says of its own dice.
//
// Web Crypto's `crypto.subtle` exists only in a secure context (https, or http on localhost /
// 127.0.0.1): on a LAN address over plain http every roll says it cannot be checked here.

import {countProblem, drawnProblem, drawsOf, resultProblem} from "./fair-record.js";

/** @import {EventFrame, FairStamp, GameEvent} from "./messages.js" */
/** @import {Ask, Check} from "./fairness.js" */

/**
 * The members' seeds in force at a roll (seedsInForce).
 * @typedef {{seeds: Map<string, string>, unknown: string[], digest: string | null, matches: boolean | null}} SeedsAt
 */

const DOMAIN = new TextEncoder().encode("poolhall-roll-v1");
const hex = (/** @type {ArrayBuffer | number[]} */ bytes) => [...new Uint8Array(bytes)]
  .map((b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (/** @type {string} */ text) => new Uint8Array(
  /** @type {RegExpMatchArray} */ (text.match(/../g)).map((pair) => parseInt(pair, 16)));

/** Whether this page can check (Web Crypto is there only in a secure context). */
export function canCheck() {
  return Boolean(globalThis.isSecureContext && globalThis.crypto?.subtle);
}

/**
 * The client seeds digest (events/fair.py `client_seeds_digest`): SHA-256 over the seeds in
 * force (`Map` member -> seed), sorted by member id, each pair written `u16 len(member) |
 * member | u16 len(seed) | seed` (UTF-8, big-endian byte counts); hex. Needs Web Crypto.
 * @param {Map<string, string>} seeds
 */
export async function clientSeedsDigest(seeds) {
  const encoder = new TextEncoder();
  const parts = [];
  // member ids are slugs (ASCII): sorting by UTF-16 units is Python's sort by code points
  for (const member of [...seeds.keys()].sort()) {
    for (const text of [member, /** @type {string} */ (seeds.get(member))]) {
      const data = encoder.encode(text);
      parts.push(new Uint8Array([data.length >> 8, data.length & 0xff]), data);
    }
  }
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

/** The HMAC message of a roll without its block counter.
 * @param {string} campaign @param {number} epoch @param {Uint8Array} digest @param {number} nonce */
function rollMessage(campaign, epoch, digest, nonce) {
  const name = new TextEncoder().encode(campaign);
  const out = new Uint8Array(16 + 2 + name.length + 4 + 32 + 8 + 4);
  const view = new DataView(out.buffer);
  out.set(DOMAIN, 0);
  view.setUint16(16, name.length);
  out.set(name, 18);
  let at = 18 + name.length;
  view.setUint32(at, epoch);
  out.set(digest, at + 4);
  view.setBigUint64(at + 36, BigInt(nonce));
  return out; // the last 4 bytes: the counter, set per block
}

/** The faces of dice of `sides` for one roll, and the stream's bytes read (for "how").
 * @param {string} seedHex @param {string} campaign @param {number} epoch @param {string} digestHex
 * @param {number} nonce @param {number[]} sides */
export async function deriveFaces(seedHex, campaign, epoch, digestHex, nonce, sides) {
  const key = await crypto.subtle.importKey("raw", fromHex(seedHex),
                                            {name: "HMAC", hash: "SHA-256"}, false, ["sign"]);
  const message = rollMessage(campaign, epoch, fromHex(digestHex), nonce);
  const counterAt = message.length - 4;
  let block = new Uint8Array(0);
  let at = 0;
  let counter = 0;
  /** @type {number[]} */
  const used = [];
  /** @type {number[]} */
  const faces = [];
  for (const n of sides) {
    const limit = 256 - (256 % n);
    for (;;) {
      if (at >= block.length) {
        new DataView(message.buffer).setUint32(counterAt, counter);
        block = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
        at = 0;
        counter += 1;
      }
      const byte = block[at];
      at += 1;
      used.push(byte);
      if (byte < limit) {
        faces.push((byte % n) + 1);
        break;
      }
    }
  }
  return {faces, bytes: hex(used)};
}

/**
 * The members' seeds in force when the roll `frame` was made, and whether they give the
 * digest its stamp names: `{seeds: Map member -> seed, unknown: [member], digest, matches}`.
 *
 * `frames`: the log's lines the page holds, in a row (no gap) and holding `frame`; `now`: the
 * seeds in force after the last of them (the `table` message's `fair.client_seeds`), for
 * seeds set before the first. A member's seed at the roll is the last one they set before it
 * among those lines; if they set none there: none at all when the lines begin at the log's
 * first event, else the one in force now if they set none since either, else unknown (set
 * before the lines held, changed after the roll). `digest` (hex) and `matches` are null when
 * a seed is unknown or Web Crypto is missing.
 * @param {EventFrame} frame @param {EventFrame[]} frames @param {Record<string, string>} [now]
 * @returns {Promise<SeedsAt>}
 */
export async function seedsInForce(frame, frames, now = {}) {
  const whole = (frames[0]?.seq ?? 1) <= 1;
  /** @type {Map<string, Array<[number, string]>>} */
  const sets = new Map(); // member -> [[seq, seed], ...] in log order
  for (const {seq, event} of frames) {
    if (event.type !== "client_seed_set") continue;
    if (!sets.has(event.member)) sets.set(event.member, []);
    /** @type {Array<[number, string]>} */ (sets.get(event.member)).push([seq, event.seed]);
  }
  /** @type {Map<string, string>} */
  const seeds = new Map();
  /** @type {string[]} */
  const unknown = [];
  for (const member of new Set([...Object.keys(now ?? {}), ...sets.keys()])) {
    const own = sets.get(member) ?? [];
    const before = own.filter(([seq]) => seq < frame.seq).at(-1);
    if (before) seeds.set(member, before[1]);
    else if (whole) continue;
    else if (own.length === 0) seeds.set(member, now[member]);
    else unknown.push(member);
  }
  const digest = unknown.length === 0 && canCheck() ? await clientSeedsDigest(seeds) : null;
  const matches = digest === null ? null
    : digest === /** @type {FairStamp} */ (frame.event.fair).seeds; // a roll's frame
  return {seeds, unknown, digest, matches};
}

/** The commitment of `epoch` as the server's log has it: the `fair` of the table as it stood
 * after event `seq`, a roll of that epoch (`state_at`: one request, however far back its
 * `seed_committed` is); null if that table is of another epoch or names no commitment.
 * @param {Ask} ask @param {number} seq @param {number} epoch @returns {Promise<string | null>} */
export async function commitmentAt(ask, seq, epoch) {
  const snapshot = await ask({type: "state_at", seq});
  const fair = snapshot?.fair;
  const commitment = fair?.epoch === epoch ? fair.commitment : null;
  return typeof commitment === "string" && /^[0-9a-f]{64}$/.test(commitment) ? commitment : null;
}

/** Why the roll at `seq` was not made while its `epoch` was open, by the log's lines the page
 * holds (`frames`: their seed_committed, seed_revealed and seed_lost), or null. A roll proves
 * something only between its epoch's commitment (before it, the seed could be chosen to give
 * the faces wanted) and its reveal (after it, anyone knows the seed): `poolhall verify` says
 * the same. An epoch's lines older than those held are the server's word (commitmentAt).
 * @param {number} seq @param {number} epoch @param {EventFrame[]} frames
 * @returns {string | null} */
export function outsideItsEpoch(seq, epoch, frames) {
  const why = (/** @type {string} */ words) => `not made while its epoch was open: ${words}`;
  /** @type {[number, string, number] | undefined} */
  let last; // the last seed_* line before the roll
  for (const {seq: at, event} of frames) {
    if (!event.type.startsWith("seed_")) continue;
    const [type, of] = [event.type, event.epoch];
    const mark = /** @type {[number, string, number]} */ ([at, type, of]);
    if (of === epoch && type === "seed_committed" && at > seq) {
      return why(`a roll of epoch ${epoch} made before its commitment`);
    }
    if (of === epoch && type !== "seed_committed" && at < seq) {
      return why(`a roll of epoch ${epoch} made after its seed was ${
        type === "seed_lost" ? "lost" : "revealed"}`);
    }
    if (at < seq && (!last || at > last[0])) last = mark;
  }
  if (last && last[1] === "seed_committed" && last[2] !== epoch) {
    return why(`a roll of epoch ${epoch} made while epoch ${last[2]} was open`);
  }
  if (last && last[1] !== "seed_committed") {
    return why(`a roll of epoch ${epoch} made after epoch ${last[2]} ended, before another began`);
  }
  return null;
}

/** The rolls of `epoch` among the log's lines the page holds (`frames`, in a row), in log
 * order, up to its end: each one's nonce and seqs (the events of one command sharing a nonce
 * are one roll), whether the epoch's `seed_committed` is among them (then every roll of the epoch is), and
 * its `seed_revealed` or `seed_lost` lines.
 * @param {number} epoch @param {EventFrame[]} frames */
export function epochRolls(epoch, frames) {
  /** @type {Array<{nonce: number, command: string, seqs: number[]}>} */
  const rolls = [];
  let committed = false;
  /** @type {GameEvent[]} */
  const ends = [];
  for (const {seq, command, event} of frames) {
    if (event.epoch === epoch && event.type === "seed_committed") committed = true;
    else if (event.epoch === epoch && /^seed_[rl]/.test(event.type)) ends.push(event);
    // a roll after its epoch ended is not one of its rolls (outsideItsEpoch says so)
    if (event.fair?.epoch !== epoch || event.type.startsWith("seed_") || ends.length) continue;
    const last = rolls.at(-1);
    if (last && last.nonce === event.fair.nonce && last.command === command) last.seqs.push(seq);
    else rolls.push({nonce: event.fair.nonce, command, seqs: [seq]});
  }
  return {rolls, committed, ends};
}

/** Why the roll at `seq` is not in its place among its epoch's rolls, by the lines the page
 * holds, or null. Nonces run 0, 1, 2 ... with no gap: a nonce skipped is a roll dealt and
 * hidden (a server rerolling until it likes the dice), a nonce used twice a roll dealt again.
 * The nonce before the first roll the page holds is known only when the epoch's commitment
 * is among the lines (0 comes first); else that roll is taken as it is, never a false ✗.
 * @param {number} seq @param {number} epoch @param {EventFrame[]} frames
 * @returns {string | null} */
export function nonceProblem(seq, epoch, frames) {
  const {rolls, committed} = epochRolls(epoch, frames);
  const at = rolls.findIndex((roll) => roll.seqs.includes(seq));
  if (at < 0) return null;
  const {nonce} = rolls[at];
  if (rolls.some((roll, i) => i !== at && roll.nonce === nonce)) {
    return `nonce ${nonce} used twice in epoch ${epoch}: a roll was dealt again`;
  }
  const next = at > 0 ? rolls[at - 1].nonce + 1 : committed ? 0 : nonce;
  return nonce === next ? null
    : `nonce ${nonce} where ${next} comes next in epoch ${epoch}: a roll is missing`;
}

/** What the epoch's end says against its rolls, by the lines held, or null: a seed said lost
 * and revealed later (after its epoch ended: verify reports it too), or a reveal counting
 * another number of rolls than the epoch holds (known only when its commitment is among the
 * lines: then every roll of the epoch is). `unchecked` says what the page could not check.
 * @param {number} epoch @param {EventFrame[]} frames
 * @returns {{why: string | null, unchecked?: string}} */
export function endProblem(epoch, frames) {
  const {rolls, committed, ends} = epochRolls(epoch, frames);
  if (ends.some((end) => end.type === "seed_lost") && ends.some((end) => end.seed)) {
    return {why: `epoch ${epoch}'s seed was said lost, then revealed after its epoch ended`};
  }
  const reveal = ends.find((end) => end.seed);
  if (!reveal || typeof reveal.rolls !== "number") return {why: null};
  if (!committed) {
    return {why: null, unchecked: `that epoch ${epoch} held the ${reveal.rolls} rolls its reveal `
      + "says: its commitment is older than the lines loaded here (Load older)"};
  }
  return {why: reveal.rolls === rolls.length ? null
    : `epoch ${epoch}'s reveal says it held ${reveal.rolls} rolls; the log holds ${rolls.length}: `
      + "a roll is missing"};
}

/** A roll of a revealed epoch checked: the seed against its commitment, that the roll was made
 * while its epoch was open (outsideItsEpoch), that it names the client seeds in force (a
 * server that ignored the members' seeds could choose the dice), then every die drawn
 * with the roll's stamp (`frames`: the frames of that epoch and nonce, in seq order; a roll
 * and the dice joining it later share one) against the faces the seed gives. "verified" needs
 * all of it (docs/explanation/fairness.md): with no commitment to check the seed against, faces
 * that match are "unconfirmed", since a seed chosen after the roll's client seeds were known
 * would match them too. An epoch whose seed the server lost ("": `seed_lost`) is "lost".
 * @param {EventFrame} frame @param {string} seed the epoch's revealed seed (hex; "": lost)
 * @param {{epoch: number, nonce: number, seeds: string, commitment: string | null, asked?: boolean}} how
 * @param {EventFrame[]} frames
 * @param {{campaign: string, log: {frames: EventFrame[], seedsNow: Record<string, string>}}} fair
 *   the page's FairChecks
 * @returns {Promise<Check>} */
export async function recompute(frame, seed, how, frames, fair) {
  if (!seed) {
    return {state: "lost", why: `the server lost epoch ${how.epoch}'s seed: these dice can never `
      + "be checked", ...how};
  }
  if (!canCheck()) return {state: "unavailable", seed, ...how};
  const commitment = hex(await crypto.subtle.digest("SHA-256", fromHex(seed)));
  if (how.commitment !== null && commitment !== how.commitment) {
    return {state: "mismatch", seed, why: "the seed does not hash to its commitment", ...how};
  }
  const lines = fair.log.frames;
  const outside = outsideItsEpoch(frames[0]?.seq ?? frame.seq, how.epoch, lines);
  if (outside) return {state: "mismatch", seed, why: outside, ...how};
  // a nonce skipped or used twice, a seed said lost then revealed, a reveal's count of rolls
  const {why, unchecked} = endProblem(how.epoch, lines);
  const place = nonceProblem(frame.seq, how.epoch, lines) ?? why;
  if (place) return {state: "mismatch", seed, why: place, ...how};
  // the seeds the stamp names must be those in force (null: the page cannot tell, said in the
  // mark's detail): a server that ignored them knew the dice when it committed
  const {matches} = await seedsInForce(frames[0] ?? frame, fair.log.frames, fair.log.seedsNow);
  if (matches === false) {
    return {state: "mismatch", seed, why: "the roll's client seeds digest is not of the seeds in "
      + "force: the server did not mix in the members' seeds", ...how};
  }
  // what the table acted on (a total, a result) is not a face: faces that match beside a
  // forged result are no proof (resultProblem, as projections/fair_results.py)
  for (const one of frames) {
    const event = one.event; // dice left out (by the roll, or by earlier lines), a result forged
    const problem = countProblem(event) ?? drawnProblem(one, lines) ?? resultProblem(event);
    if (problem) return {state: "mismatch", seed, why: problem, ...how};
  }
  const draws = frames.flatMap((f) => /** @type {Array<[number, number]>} */ (drawsOf(f.event))
    .map(([sides, face]) => [f.seq, sides, face]));
  const {faces, bytes} = await deriveFaces(seed, fair.campaign, how.epoch, how.seeds,
                                           how.nonce, draws.map(([, sides]) => sides));
  const wrong = draws.findIndex(([, , face], i) => faces[i] !== face);
  const mine = draws.filter(([seq]) => seq === frame.seq).length;
  if (wrong >= 0) {
    const [, sides, face] = draws[wrong];
    return {state: "mismatch", seed, bytes, why: `a d${sides} shows ${face}; the seed gives ${faces[wrong]}`,
            ...how};
  }
  return {state: how.commitment === null ? "unconfirmed" : "verified", seed, bytes, dice: mine,
          unchecked, ...how};
}
