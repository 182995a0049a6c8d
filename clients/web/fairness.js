// What the page knows of the epochs of the dice's fairness (docs/explanation/fairness.md): the
// seeds committed and revealed, and each roll's check. A roll whose epoch is still sealed is
// known at once; one whose seed was revealed is recomputed by ./fair-check.js (Web Crypto),
// which is fetched only then: a table whose seeds are all still sealed never loads it.

/** @import {EventFrame, FairStamp} from "./messages.js" */

/**
 * A roll's check: how it stands (`state`: "verified", "sealed", "mismatch" or "unavailable")
 * and how it was made; the seed and the bytes once its epoch's seed is revealed.
 * @typedef {object} Check
 * @property {string} state
 * @property {number} epoch
 * @property {number} nonce
 * @property {string} seeds the client seeds digest its stamp names
 * @property {string | null} commitment
 * @property {string} [seed]
 * @property {string} [bytes]
 * @property {string} [why]
 * @property {number} [dice]
 */

/**
 * What the page knows of the epochs (from the log's frames it holds) and each roll's check.
 * `check(frame)` -> Promise<{state, ...how}>; state is "verified", "sealed", "mismatch" or
 * "unavailable" (no Web Crypto here).
 */
export class FairChecks {
  constructor() {
    /** @type {Map<number, string>} */
    this.seeds = new Map();        // epoch -> revealed seed (hex)
    /** @type {Map<number, string>} */
    this.commitments = new Map();  // epoch -> commitment (hex)
    /** @type {Map<string, EventFrame[]>} */
    this.rolls = new Map();        // "epoch/nonce" -> frames of that roll, in seq order
    /** @type {Map<number, Promise<Check>>} */
    this.results = new Map();      // seq -> Promise of the check
    /** @type {Set<number>} */
    this.seen = new Set();
    this.lastReveal = 0;           // the seq of the latest seed_revealed the page holds
    this.campaign = "";
  }

  /** Whether a seed was revealed after event `seq` (every roll before it is then public: an
   * epoch holding a private roll is revealed only at the end of its session).
   * @param {number} seq */
  revealedAfter(seq) {
    return this.lastReveal > seq;
  }

  /** The frames of `seqs` were replaced (a sealed private roll, now whole): learn them again.
   * @param {number[]} seqs */
  forget(seqs) {
    for (const seq of seqs) {
      this.seen.delete(seq);
      this.results.delete(seq);
    }
  }

  /** Take in the log's frames (any order, any repeats); true if a seed was newly revealed.
   * @param {EventFrame[]} frames @param {string | null | undefined} campaign */
  learn(frames, campaign) {
    this.campaign = campaign ?? this.campaign;
    let revealed = false;
    for (const frame of frames) {
      if (this.seen.has(frame.seq)) continue;
      this.seen.add(frame.seq);
      const event = frame.event;
      if (event.type === "seed_committed") this.commitments.set(event.epoch, event.commitment);
      else if (event.type === "seed_revealed") {
        this.seeds.set(event.epoch, event.seed);
        this.lastReveal = Math.max(this.lastReveal, frame.seq);
        revealed = true;
      } else if (event.fair) {
        const key = `${event.fair.epoch}/${event.fair.nonce}`;
        // a frame learned again (replaced in the log) takes the place of its old copy
        const frames = (this.rolls.get(key) ?? []).filter((other) => other.seq !== frame.seq);
        frames.push(frame);
        frames.sort((a, b) => a.seq - b.seq);
        this.rolls.set(key, frames);
        for (const other of frames) this.results.delete(other.seq);
      }
    }
    if (revealed) this.results.clear();
    return revealed;
  }

  /** The check's result at once when it needs no computing (a sealed roll), else null.
   * @param {EventFrame} frame a roll's (its event has its `fair` stamp) @returns {Check | null} */
  known(frame) {
    const stamp = /** @type {FairStamp} */ (frame.event.fair);
    if (this.seeds.has(stamp.epoch)) return null;
    return {state: "sealed", epoch: stamp.epoch, nonce: stamp.nonce, seeds: stamp.seeds,
            commitment: this.commitments.get(stamp.epoch) ?? null};
  }

  /** @param {EventFrame} frame a roll's @returns {Promise<Check>} */
  check(frame) {
    let result = this.results.get(frame.seq);
    if (!result) {
      result = this.compute(frame);
      this.results.set(frame.seq, result);
    }
    return result;
  }

  /** A sealed roll at once; a revealed one recomputed by ./fair-check.js, fetched the first
   * time a seed is revealed (a table whose seeds are all sealed never loads it).
   * @param {EventFrame} frame a roll's @returns {Promise<Check>} */
  async compute(frame) {
    const stamp = /** @type {FairStamp} */ (frame.event.fair);
    const how = {epoch: stamp.epoch, nonce: stamp.nonce, seeds: stamp.seeds,
                 commitment: this.commitments.get(stamp.epoch) ?? null};
    const seed = this.seeds.get(stamp.epoch);
    if (seed === undefined) return {state: "sealed", ...how};
    const {recompute} = await import("./fair-check.js");
    return recompute(frame, seed, how, this.rolls.get(`${stamp.epoch}/${stamp.nonce}`) ?? [frame],
                     this.campaign);
  }
}
