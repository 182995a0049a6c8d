// The table's one store: fed only by the WebSocket (connection.js), read by the elements.
// It folds no rule: the table itself comes whole from the server's `table` messages; the log
// is the event frames as they came, with no gap and no duplicate (seq decides).

/** @import {EventFrame, Snapshot, TableNow, View, Welcome} from "./messages.js" */

export const LOG_KEEP = 5000; // lines kept in the page; older ones come back as history pages

/**
 * What the page knows, as the elements read it.
 * @typedef {object} TableState
 * @property {"connecting" | "live" | "reconnecting" | "offline" | "back" | "closed"} connection
 * @property {string | null} problem
 * @property {string | null} [refused] the code of a join refused for good
 * @property {Welcome | null} welcome
 * @property {TableNow | null} table
 * @property {EventFrame[]} log
 * @property {Map<string, any>} views
 * @property {boolean} olderExhausted
 * @property {number[]} revealedNow
 * @property {number} [snapshotSeq]
 * @property {string} [snapshotHash]
 */

export class Store extends EventTarget {
  constructor() {
    super();
    /** @type {TableState} */
    this.state = {
      connection: "connecting", // connecting | live | reconnecting | offline | back | closed
      problem: null,             // why the connection stopped for good, in plain words
      welcome: null,             // {role, member, campaign, name, system, head, head_hash}
      table: null,               // the latest `table` message (TableNow)
      log: [],                   // event frames, oldest first
      views: new Map(),          // about -> data (odds, combat turn, sheets ...)
      olderExhausted: false,     // no history before log[0]
      revealedNow: [],           // the seqs the last `revealed` message put in place of sealed lines
    };
  }

  /** The last event this page has, for a resume: [seq, hash].
   * @returns {[number, string | null | undefined]} */
  get last() {
    const log = this.state.log;
    if (log.length === 0) return [this.state.snapshotSeq ?? 0, this.state.snapshotHash ?? null];
    const frame = log[log.length - 1];
    return [frame.seq, frame.hash];
  }

  /** Change some parts and tell the elements which. @param {Partial<TableState>} parts */
  set(parts) {
    Object.assign(this.state, parts);
    this.changed(Object.keys(parts));
  }

  /** @param {string[]} keys */
  changed(keys) {
    this.dispatchEvent(new CustomEvent("change", {detail: new Set(keys)}));
  }

  /** @param {Welcome} message */
  welcome(message) {
    this.set({welcome: message});
  }

  /** A snapshot replaces the log with its recent frames: the page was too far behind (or new).
   * @param {Snapshot} message */
  snapshot(message) {
    this.state.snapshotSeq = message.seq;
    this.state.snapshotHash = message.head_hash;
    this.set({log: message.recent.slice(), olderExhausted: message.recent.length === 0
              || message.recent[0].seq <= 1});
  }

  /** A live or missed event; returns false on a gap (the caller resyncs).
   * @param {EventFrame} frame */
  event(frame) {
    const [seq] = this.last;
    if (frame.seq <= seq) return true;       // a duplicate: already shown
    if (frame.seq !== seq + 1) return false;  // a gap: never show a table with a hole
    const log = this.state.log;
    log.push(frame);
    if (log.length > LOG_KEEP) {
      log.splice(0, log.length - LOG_KEEP);
      this.state.olderExhausted = false;
    }
    this.changed(["log"]);
    return true;
  }

  /** Older events from a history page, put before what the log holds.
   * @param {EventFrame[]} frames */
  older(frames) {
    const first = this.state.log[0]?.seq ?? Infinity;
    const before = frames.filter((frame) => frame.seq < first);
    this.set({log: [...before, ...this.state.log], olderExhausted: before.length === 0
              || before[0].seq <= 1});
  }

  /** Private rolls revealed at the session's end (`revealed`): each sealed line the log
   * holds of those seqs (a `private_roll` frame) is replaced by the whole event, in place.
   * @param {EventFrame[]} frames */
  revealed(frames) {
    const log = this.state.log;
    const first = log[0]?.seq;
    const replaced = [];
    for (const frame of frames) {
      const at = frame.seq - first; // the log's seqs are in a row
      if (at >= 0 && at < log.length && log[at].seq === frame.seq
          && log[at].event.type === "private_roll" && frame.event.type !== "private_roll") {
        log[at] = frame;
        replaced.push(frame.seq);
      }
    }
    if (replaced.length) this.set({revealedNow: replaced});
    return replaced;
  }

  /** The seqs of the sealed lines the log holds. */
  sealed() {
    return this.state.log.filter((frame) => frame.event.type === "private_roll")
      .map((frame) => frame.seq);
  }

  /** @param {TableNow} message */
  table(message) {
    this.set({table: message});
  }

  /** @param {View} message */
  view(message) {
    this.state.views.set(message.about, message.data);
    this.changed(["views"]);
  }
}
