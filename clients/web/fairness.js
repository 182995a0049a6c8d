// What the page knows of the epochs of the dice's fairness (docs/explanation/fairness.md): the
// seeds committed and revealed, and each roll's check. A roll whose epoch is still sealed is
// known at once; one whose seed was revealed is recomputed by ./fair-check.js (Web Crypto),
// which is fetched only then: a table whose seeds are all still sealed never loads it.
//
// A roll is "verified" only once its seed was checked against its epoch's commitment: without
// that the server could have chosen the seed after it saw the members' seeds. The commitment
// (`seed_committed`) is usually older than the lines a page loads (the last 50), so the page
// asks the server for the table as it stood after the roll (`state_at`, whose `fair` names
// the epoch's commitment), once an epoch; a roll whose commitment it could not get is
// "unconfirmed": its faces match its seed, its seed was not checked against a commitment.

/** @import {Command, EventFrame, FairStamp} from "./messages.js" */

/**
 * A roll's check: how it stands (`state`: "verified", "unconfirmed", "sealed", "mismatch",
 * "lost" (its epoch's seed was lost: never to be checked) or "unavailable") and how it was made; the seed and the bytes once its epoch's seed is revealed.
 * @typedef {object} Check
 * @property {string} state
 * @property {number} epoch
 * @property {number} nonce
 * @property {string} seeds the client seeds digest its stamp names
 * @property {string | null} commitment
 * @property {boolean} [asked] the commitment was asked of the server (not among the lines held)
 * @property {string} [seed]
 * @property {string} [bytes]
 * @property {string} [why]
 * @property {number} [dice]
 * @property {string} [unchecked] what the page could not check from the lines it holds
 */

/** How the page asks the server something (a connection's `request`).
 * @typedef {(command: Command) => Promise<any>} Ask */

/**
 * What the page knows of the epochs (from the log's frames it holds) and each roll's check.
 * `check(frame)` -> Promise<{state, ...how}>; state is "verified", "unconfirmed" (no
 * commitment to check the seed against), "sealed", "mismatch" or "unavailable" (no Web
 * Crypto here).
 */
export class FairChecks {
  /** @param {{frames: EventFrame[], seedsNow: Record<string, string>}} log the log whose
   * lines these are: the client seeds in force at a roll are read from it (./fair-check.js) */
  constructor(log) {
    this.log = log;
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
    /** @type {Ask | null} how to ask the server for a commitment older than the lines held */
    this.ask = null;
    /** @type {Map<number, Promise<string | null>>} */
    this.asked = new Map();        // epoch -> the commitment the server gave (null: none)
    /** @type {Set<number>} */
    this.unconfirmed = new Set();  // epochs whose rolls were checked without their commitment
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

  /** Take in the log's frames (any order, any repeats); true if rolls are to be checked
   * again: a seed was newly revealed, or the commitment of an epoch whose rolls were checked
   * without it came ("Load older").
   * @param {EventFrame[]} frames @param {string | null | undefined} campaign */
  learn(frames, campaign) {
    this.campaign = campaign ?? this.campaign;
    let revealed = false;
    for (const frame of frames) {
      if (this.seen.has(frame.seq)) continue;
      this.seen.add(frame.seq);
      const event = frame.event;
      if (event.type === "seed_committed") {
        this.commitments.set(event.epoch, event.commitment);
        if (this.unconfirmed.delete(event.epoch)) revealed = true;
      } else if (/^seed_[rl]/.test(event.type)) { // seed_revealed, or seed_lost
        this.seeds.set(event.epoch, event.seed ?? ""); // "": lost, never to be checked
        this.lastReveal = Math.max(this.lastReveal, frame.seq);
        revealed = true;
      } else if (event.fair && event.type !== "private_roll") { // sealed: no dice
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
    return {state: "sealed", ...stamp, commitment: this.commitments.get(stamp.epoch) ?? null};
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
   * time a seed is revealed (a table whose seeds are all sealed never loads it), against its
   * commitment: from the lines held, else asked of the server.
   * @param {EventFrame} frame a roll's @returns {Promise<Check>} */
  async compute(frame) {
    const stamp = /** @type {FairStamp} */ (frame.event.fair);
    /** @type {{epoch: number, nonce: number, seeds: string, commitment: string | null, asked?: boolean}} */
    const how = {...stamp, commitment: this.commitments.get(stamp.epoch) ?? null}; // a stamp is {epoch, nonce, seeds}
    const seed = this.seeds.get(stamp.epoch);
    if (seed === undefined) return {state: "sealed", ...how};
    const {canCheck, commitmentAt, recompute} = await import("./fair-check.js");
    if (how.commitment === null && canCheck()) {
      how.commitment = await this.askCommitment(stamp.epoch, frame.seq, commitmentAt);
      if (how.commitment !== null) how.asked = true;
    }
    const frames = this.rolls.get(`${stamp.epoch}/${stamp.nonce}`) ?? [frame];
    const result = await recompute(frame, seed, how, frames, this);
    if (result.state === "unconfirmed") {
      if (this.commitments.has(stamp.epoch)) return this.compute(frame); // its line came meanwhile
      this.unconfirmed.add(stamp.epoch); // learn() says to check again when its line comes
    }
    return result;
  }

  /** The commitment of `epoch` as the server has it, asked once an epoch (the rolls of one
   * epoch share the answer); null when this page cannot ask or the server gave none.
   * @param {number} epoch @param {number} seq a roll of that epoch
   * @param {(ask: Ask, seq: number, epoch: number) => Promise<string | null>} commitmentAt */
  askCommitment(epoch, seq, commitmentAt) {
    const ask = this.ask;
    if (!ask) return Promise.resolve(null);
    let answer = this.asked.get(epoch);
    if (!answer) {
      answer = commitmentAt(ask, seq, epoch).catch(() => null); // refused: said on the mark
      this.asked.set(epoch, answer);
    }
    return answer;
  }
}
