// <ph-log>: the table's log, newest last, each line an event as the table saw it (dice drawn
// as dice).
//
// Windowed: only the lines in and near the view are in the DOM (a 2,000-line log laid out
// whole dropped frames when scrolled fast; `content-visibility: auto` on every line was
// measured and was much slower still: tests/bench/browser_table.py). Two spacers above
// and below the lines shown stand for the lines that are not, so the scrollbar is true to the
// whole log. Lines differ in height (dice wrap on a phone): each is measured once it has been
// laid out, and the lines never shown are counted at the height the first ones measured.
// The view is kept by its anchor — the line at its top and how far into it — so lines put
// above it ("Load older") or below it (new events while one reads older ones) never move what
// is read; a view at the bottom stays there as events arrive. A line's DOM is built when it is
// first shown and kept (a few hundred, most recently shown first), keyed by seq.
//
// Screen readers: the list is a plain scrollable list (keyboard: Tab to it, then the arrows,
// Page Up/Down, Home/End); lines carry their place in the log (aria-posinset/-setsize). New
// events are announced by a separate live region holding a copy of the last few new lines —
// not by the list, whose lines come and go as it scrolls. Find-in-page sees only the lines
// near the view.
//
// Each roll carries a badge: the page recomputes it once its epoch's seed is revealed
// (../fairness.js) and says "verified", "unconfirmed" (no commitment to check its seed
// against), "sealed" or "mismatch"; opened, it shows how
// (../fair-badge.js).
//
// A private roll this member may not see is a line that says who rolled it and how, and
// nothing of the dice (../private-rolls.js); when the session ends the server sends it whole
// and <ph-app> hands the seqs to `replaced()`: those lines are built, measured and checked
// again from the whole events, marked as revealed at the session's end, and announced, all
// of them in one announcement ("2 private rolls revealed at the session's end: ..."), the
// first few in words: a sighted reader sees the lines change in place, a screen reader was
// told nothing.
//
// Older events come back a page at a time: scrolling to the top (or the "Load older" button,
// for keyboards) raises `ph-older`; <ph-app> asks the server for a `history` page and hands
// the lines down again.
import {afterPaint, clock, h} from "../dom.js";
import {describeCore} from "../describe.js";
import {fairBadge} from "../fair-badge.js";
import {FairChecks} from "../fairness.js";
import {keepLineFocus} from "../lost-focus.js";
import {markStop, roveMarks} from "../log-marks.js";
import {privateMark, sealedWords} from "../private-rolls.js";
/** @import {EventFrame, GameSystem, Me, Names} from "../messages.js" */

/** A line of the list: an <li> that knows its frame's seq (the spacers have none).
 * @typedef {HTMLLIElement & {seq?: number}} LogLine */

export const OLDER_EVENT = "ph-older";
const NEAR_TOP_PX = 120;  // scrolled this close to the top: fetch older lines
const STUCK_PX = 40;      // this close to the bottom: follow new lines
const AHEAD_PX = 480;     // lines kept in the DOM beyond each edge of the view ...
const REFILL_PX = 400;    // ... and filled in again when the view comes this close to an edge:
                          // a few lines at a time as one scrolls (nine at a time, at 160 px,
                          // made a frame of fast scrolling too long now and then)
const FIRST_GUESS_PX = 32; // a line's height before any line was measured
const KEEP_BUILT = 400;   // built lines kept while not shown
export const ANNOUNCED = 3; // new lines kept in the live region

export class PhLog extends HTMLElement {
  // built by connectedCallback(); draw() and scrolled() run only once it has
  /** @type {HTMLButtonElement} */ older;
  /** @type {HTMLLIElement} */ above;
  /** @type {HTMLLIElement} */ below;
  /** @type {HTMLOListElement | undefined} */ list;
  /** @type {HTMLDivElement} */ announcer;
  /** @type {HTMLElement} */ fairPanel;

  constructor() {
    super();
    /** @type {EventFrame[]} */
    this.frames = [];
    /** @type {GameSystem | null | undefined} */
    this.system = null;
    /** @type {Names | null} */
    this.names = null;
    this.exhausted = true;
    this.loading = false;
    /** @type {Map<number, LogLine>} */
    this.built = new Map();    // seq -> <li>, least recently shown first
    /** @type {Map<number, number>} */
    this.heights = new Map();  // seq -> measured height (px) at the list's current width
    /** @type {number | null} */
    this.guess = null;         // the height of a line never shown (set by the first measured)
    /** @type {Float64Array | null} */
    this.tops = null;          // tops[i]: the y of frames[i] in the whole log; tops[n]: its height
    /** @type {[number, number | undefined, number | undefined] | null} */
    this.modelOf = null;       // [n, first seq, last seq] the tops were counted for
    this.from = 0;             // frames[from, to) are the lines in the DOM
    this.to = 0;
    this.covered = [0, 0];     // the y range those lines cover
    this.stuck = true;         // the view follows the newest line
    /** @type {{seq: number, delta: number} | null} */
    this.anchor = null;        // {seq, delta}: the line at the view's top, and how far into it
    /** @type {number | null} */
    this.newest = null;        // the newest seq drawn (for announcing what comes after it)
    /** @type {[number, number] | null} */
    this.size = null;          // the list's [width, height] as last seen
    this.settling = false;     // resized, not yet drawn again
    /** @type {number | null} */
    this.placedAt = null;      // where draw() last put the view (its scroll event is not the reader's)
    this.touched = false;      // the reader scrolled, pressed, touched or typed on the list since
    /** @type {[number, number | undefined, number | undefined] | null} */
    this.drawnOf = null;       // [n, first seq, last seq] of the log last drawn
    this.fair = new FairChecks(this); // each roll checked against its epoch's revealed seed
    this.campaign = "";
    /** @type {Me | null} */
    this.me = null;               // {member, role}: the words of private rolls depend on who reads
    /** @type {Set<number>} */
    this.revealed = new Set();    // seqs received sealed, then whole at the session's end
    /** @type {number[]} */
    this.unsaid = [];             // those not announced yet
    this.stale = false;           // lines replaced in place: draw again though the seqs are the same
    /** @type {(() => void) | null} */
    this.refocus = null;          // gives the focus back to a line built again (lost-focus.js)
    /** @type {string | null} */
    this.member = null;           // this page's member: is their own seed in a roll's?
    /** @type {Record<string, string>} */
    this.seedsNow = {};           // the client seeds in force after the last line (the table's)
  }

  connectedCallback() {
    if (this.list) return;
    this.setAttribute("aria-label", "Table log");
    this.older = h("button", {type: "button", class: "ph-quiet ph-log-older", hidden: true,
                              onclick: () => this.askOlder()}, "Load older");
    // the spacers stand for the lines not in the DOM (padding would stretch the list past its
    // max-height once it is taller than that)
    this.above = h("li", {class: "ph-log-spacer", "aria-hidden": "true", role: "presentation"});
    this.below = h("li", {class: "ph-log-spacer", "aria-hidden": "true", role: "presentation"});
    this.list = h("ol", {class: "ph-log-lines", tabindex: 0, "aria-label": "Log lines"},
                  this.above, this.below);
    this.list.addEventListener("scroll", () => this.scrolled(), {passive: true});
    for (const input of ["wheel", "pointerdown", "keydown", "touchstart"]) {
      this.list.addEventListener(input, () => { this.touched = true; }, {passive: true});
    }
    this.list.addEventListener("keydown", (event) => this.keyed(event));
    roveMarks(this.list); // the rolls' marks: one Tab stop, the arrows between them
    this.announcer = h("div", {class: "ph-sr-only", role: "log", "aria-live": "polite",
                               "aria-label": "New log lines"});
    this.fairPanel = h("section", {class: "ph-fair-panel", hidden: true, "aria-live": "polite",
                                   "aria-label": "How the roll was checked"});
    this.append(h("h2", {}, "Log"), this.older, this.list, this.fairPanel, this.announcer);
    new ResizeObserver((entries) => {
      const {width, height} = entries[entries.length - 1].contentRect;
      const [wide, high] = this.size ?? [width, height];
      this.size = [width, height];
      if (width !== wide) { // lines wrap differently now: measure them again
        this.heights.clear();
        this.guess = null;
        this.tops = null;
      } else if (height === high) {
        return;
      }
      // the window was resized: the view again, and
      // not inside the observer (no resize loop). A scroll event until then is the browser
      // clamping the list to its new size, not the reader: it does not unstick the view.
      this.settling = true;
      requestAnimationFrame(() => {
        this.settling = false;
        this.draw();
      });
    }).observe(this.list);
    this.draw();
  }

  /** The log's frames (oldest first, seqs in a row), names for ids, the game system's module,
   * and whether the server has nothing older.
   * @param {EventFrame[]} frames @param {Names} names @param {GameSystem | null | undefined} system
   * @param {boolean} [exhausted] */
  update(frames, names, system, exhausted = true) {
    // the store appends to the same array: compare what was drawn, not the array
    const [n, first, last] = this.drawnOf ?? [];
    const same = frames.length === n && frames[0]?.seq === first && frames.at(-1)?.seq === last;
    let redraw = !same || exhausted !== this.exhausted || this.loading || !this.names || this.stale;
    // lines only added below the view move nothing the reader sees: the view is left where
    // the browser has it (placed again from its anchor, it could move by a line when a line
    // above had changed height since the anchor was taken)
    let below = !same && n !== undefined && frames[0]?.seq === first && frames.length > n
      && !this.loading && !this.stale && exhausted === this.exhausted && Boolean(this.names);
    this.stale = false;
    // lines only added: only those are new to the checks
    if (this.fair.learn(below ? frames.slice(/** @type {number} */ (n)) : frames, this.campaign)) { // a seed revealed: rolls checked again
      this.refocus ??= keepLineFocus(this, ".ph-log-line");
      for (const line of this.built.values()) line.remove();
      this.built.clear();
      redraw = true;
      below = false;
    }
    this.frames = frames;
    this.names = names;
    this.system = system;
    this.exhausted = exhausted;
    this.loading = false;
    if (redraw) this.draw(!below); // a `table` message alone changes no line: nothing to do
    this.refocus?.();
    this.refocus = null;
    if (this.unsaid.length) { // announced by ../say-revealed.js, fetched only then
      const seqs = this.unsaid.splice(0);
      import("../say-revealed.js").then(({sayRevealed}) => sayRevealed(this, seqs), () => {});
    }
  }

  /** The frames of `seqs` were replaced in the log (the sealed private rolls, now whole):
   * their lines are built, measured and checked again on the next update.
   * @param {number[]} seqs */
  replaced(seqs) {
    this.refocus ??= keepLineFocus(this, ".ph-log-line");
    this.unsaid.push(...seqs);
    for (const seq of seqs) {
      this.revealed.add(seq);
      this.built.get(seq)?.remove();
      this.built.delete(seq);
      this.heights.delete(seq);
    }
    this.fair.forget(seqs);
    this.tops = null;
    this.stale = true;
  }

  /** Seed events beyond the lines held (a replay reads them all with its timeline): learned
   * for the rolls' checks, the lines shown checked again when one brings a seed.
   * @param {EventFrame[]} frames */
  learnSeeds(frames) {
    if (!this.fair.learn(frames, this.campaign)) return;
    this.refocus ??= keepLineFocus(this, ".ph-log-line");
    for (const line of this.built.values()) line.remove();
    this.built.clear();
    this.stale = true;
    if (this.names) this.update(this.frames, this.names, this.system, this.exhausted);
  }

  askOlder() {
    if (this.exhausted || this.loading || this.frames.length === 0) return;
    this.loading = true;
    this.older.disabled = true;
    this.dispatchEvent(new CustomEvent(OLDER_EVENT, {bubbles: true,
      detail: {before: this.frames[0].seq}}));
  }

  /** The request for older lines failed (disconnected): the button may be tried again. */
  olderFailed() {
    this.loading = false;
    this.draw();
  }

  /** Put in the DOM the lines the view needs, keep the view where it is (or at the bottom).
   * `place` false: the reader is scrolling (refilling as they go), so the view is left where
   * the browser has it: setting `scrollTop` would cut short a smooth scroll (Home, PageDown).
   * @param {boolean} [place] */
  draw(place = true) {
    if (!this.list || !this.names) return;
    // written only when changed: writing the same value is still a change of the attribute,
    // and the style of the page is worked out again after every event
    if (this.older.hidden !== this.exhausted) this.older.hidden = this.exhausted;
    if (this.older.disabled !== this.loading) this.older.disabled = this.loading;
    const list = this.list;
    const frames = this.frames;
    const n = frames.length;
    const view = list.clientHeight || window.innerHeight;
    let tops = this.model();
    const top = this.wantedTop(tops, view);
    const from = n ? this.indexAt(tops, top - AHEAD_PX) : 0;
    const to = n ? this.indexAt(tops, top + view + AHEAD_PX) + 1 : 0;
    this.show(from, to);
    markStop(list);
    // the spacers stand for the lines not shown: measuring the ones shown cannot change them
    // (unless it sets the first guess), so they are sized before the one layout measuring takes
    this.space(tops, from, to);
    const guessed = this.guess;
    if (this.measure(from, to)) {
      tops = this.model();
      if (guessed !== this.guess) this.space(tops, from, to);
    }
    // a full list has a fixed height and is laid out on its own (`contain: strict`): a new
    // line then lays out the list, not the page around it
    const full = tops[n] > list.clientHeight + 1;
    if (full !== list.classList.contains("ph-log-full")) list.classList.toggle("ph-log-full", full);
    this.covered = [tops[from], tops[to]];
    this.drawnOf = [n, frames[0]?.seq, frames[n - 1]?.seq];
    // the list's height may have changed with its lines (the first ones, before 55vh fill it)
    const settled = this.wantedTop(tops, list.clientHeight || view);
    if ((place || this.stuck) && Math.abs(list.scrollTop - settled) >= 1) {
      list.scrollTop = settled;
      this.placedAt = settled; // the scroll event this causes is ours, not the reader's
      this.touched = false;
      // it comes before the next frame's callbacks, or never (the list was already there)
      requestAnimationFrame(() => { this.placedAt = null; });
    }
    this.announce();
  }

  /** @param {Float64Array} tops @param {number} from @param {number} to */
  space(tops, from, to) {
    this.above.style.height = `${tops[from]}px`;
    this.below.style.height = `${tops[this.frames.length] - tops[to]}px`;
  }

  /** Where the view's top should be: the bottom if it follows new lines, else its anchor.
   * @param {Float64Array} tops @param {number} view */
  wantedTop(tops, view) {
    const n = this.frames.length;
    const bottom = Math.max(0, tops[n] - view);
    if (this.stuck || !this.anchor) return bottom;
    const at = this.find(this.anchor.seq);
    if (at < 0) { // the line read is gone (a new snapshot, a new moment of a replay)
      this.stuck = true;
      return bottom;
    }
    return Math.max(0, Math.min(tops[at] + this.anchor.delta, bottom));
  }

  /** End goes to the newest line and follows from there. The browser's own End scrolls
   * (animated) to the bottom the list had when it was pressed; lines measured on the way
   * can make the list taller than that, and the view would stop short of the newest line.
   * @param {KeyboardEvent} event */
  keyed(event) {
    if (event.key !== "End" || event.altKey || event.shiftKey || event.metaKey) return;
    event.preventDefault();
    this.stuck = true;
    this.anchor = null;
    this.draw();
  }

  scrolled() {
    const list = /** @type {HTMLOListElement} */ (this.list); // scroll events come once it is
    const n = this.frames.length;
    if (!n || !this.names) return;
    if (this.placedAt !== null && !this.touched) {
      // draw() put the view there and drew the lines around it, and the reader did nothing
      // since: reading where the list is would lay the page out in the middle of the frame
      // (the new line's style, its dice starting to roll), before the frame's own layout
      const top = this.placedAt;
      this.placedAt = null;
      if (top < NEAR_TOP_PX) this.askOlder();
      return;
    }
    const tops = this.model();
    const top = list.scrollTop;
    const view = list.clientHeight;
    const ours = this.placedAt !== null && Math.abs(top - this.placedAt) < 1;
    this.placedAt = null;
    if (!this.settling && !ours) {
      // the list as laid out decides, not the model (stale for a moment after a resize)
      this.stuck = list.scrollHeight - top - view < STUCK_PX;
      const at = this.indexAt(tops, top);
      this.anchor = {seq: this.frames[at].seq, delta: top - tops[at]};
    }
    const [above, below] = this.covered;
    if ((this.from > 0 && top - REFILL_PX < above) || (this.to < n && top + view + REFILL_PX > below)) {
      this.draw(false);
    }
    if (top < NEAR_TOP_PX) this.askOlder();
  }

  /** The y of every line (measured, or the guess), counted again when the log changed. */
  model() {
    const frames = this.frames;
    const n = frames.length;
    const key = this.modelOf;
    if (this.tops && key && key[0] === n && key[1] === frames[0]?.seq && key[2] === frames[n - 1]?.seq) {
      return this.tops;
    }
    const guess = this.guess ?? FIRST_GUESS_PX;
    const tops = new Float64Array(n + 1);
    // lines only added below: the tops counted before still hold
    const kept = this.tops && key && key[0] < n && key[1] === frames[0]?.seq
      && key[2] === frames[key[0] - 1]?.seq ? key[0] : 0;
    if (kept) tops.set(/** @type {Float64Array} */ (this.tops).subarray(0, kept + 1));
    for (let i = kept; i < n; i += 1) tops[i + 1] = tops[i] + (this.heights.get(frames[i].seq) ?? guess);
    this.tops = tops;
    this.modelOf = [n, frames[0]?.seq, frames[n - 1]?.seq];
    return tops;
  }

  /** The index of the line at y (the first or the last line beyond the log's ends).
   * @param {Float64Array} tops @param {number} y */
  indexAt(tops, y) {
    let low = 0;
    let high = this.frames.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (tops[middle] <= y) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The index of the frame with `seq`, or -1 (frames are in seq order). @param {number} seq */
  find(seq) {
    let low = 0;
    let high = this.frames.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const here = this.frames[middle].seq;
      if (here === seq) return middle;
      if (here < seq) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** Make frames[from, to) the list's lines, in order, moving as few nodes as possible.
   * @param {number} from @param {number} to */
  show(from, to) {
    const list = /** @type {HTMLOListElement} */ (this.list); // called by draw(), once it is
    const wanted = new Set();
    for (let i = from; i < to; i += 1) wanted.add(this.frames[i].seq);
    for (const line of /** @type {LogLine[]} */ ([...list.children])) {
      if (line.seq !== undefined && !wanted.has(line.seq)) line.remove();
    }
    let next = this.above.nextElementSibling;
    const size = this.exhausted ? String(this.frames.length) : "-1";
    for (let i = from; i < to; i += 1) {
      const line = this.lineOf(this.frames[i]);
      if (line === next) next = line.nextElementSibling; // the same node
      else list.insertBefore(line, next);
      const place = this.exhausted ? String(i + 1) : String(this.frames[i].seq);
      if (line.getAttribute("aria-posinset") !== place) line.setAttribute("aria-posinset", place);
      if (line.getAttribute("aria-setsize") !== size) line.setAttribute("aria-setsize", size);
    }
    this.from = from;
    this.to = to;
    this.forget();
  }

  /** Measure the lines shown that were not yet; returns whether any was.
   * @param {number} from @param {number} to */
  measure(from, to) {
    let measured = false;
    let sum = 0;
    for (let i = from; i < to; i += 1) {
      const seq = this.frames[i].seq;
      if (this.heights.has(seq)) continue;
      const height = /** @type {LogLine} */ (this.built.get(seq)).getBoundingClientRect().height; // shown: built
      if (height === 0) return measured; // not laid out (the log is hidden): measure later
      this.heights.set(seq, height);
      sum += height;
      measured = true;
    }
    if (measured) {
      this.tops = null;
      if (this.guess === null) this.guess = sum / this.heights.size;
    }
    return measured;
  }

  /** The built line of a frame (built now if it was not), marked as just shown.
   * @param {EventFrame} frame */
  lineOf(frame) {
    let line = this.built.get(frame.seq);
    if (line) this.built.delete(frame.seq);
    else line = this.line(frame);
    this.built.set(frame.seq, line);
    return line;
  }

  /** Drop the least recently shown lines beyond the few hundred kept. */
  forget() {
    let extra = this.built.size - KEEP_BUILT - (this.to - this.from);
    for (const [seq, line] of this.built) {
      if (extra <= 0) break;
      if (line.isConnected) continue;
      this.built.delete(seq);
      extra -= 1;
    }
  }

  /** Copy the lines after the newest one drawn before into the live region (not on the first
   * draw: a page opening reads out nothing). */
  announce() {
    const n = this.frames.length;
    const newest = n ? this.frames[n - 1].seq : null;
    const before = this.newest;
    this.newest = newest;
    if (before === null || newest === null || newest <= before) return;
    const fresh = this.frames.slice(Math.max(this.find(before) + 1, n - ANNOUNCED));
    for (const frame of fresh) { // its dice roll once (table.css: CSS only; the text is there)
      const line = this.built.get(frame.seq);
      if (!line || line.classList.contains("ph-fresh")) continue;
      line.classList.add("ph-fresh");
      line.addEventListener("animationend", () => line.classList.remove("ph-fresh"), {once: true});
    }
    afterPaint(() => { // the line on screen first
      for (const frame of fresh) {
        this.announcer.append(plainCopy(this.built.get(frame.seq) ?? this.line(frame)));
      }
      while (this.announcer.childElementCount > ANNOUNCED) this.announcer.firstElementChild?.remove();
    });
  }

  /** A copy (a <p>) of the roll's line among a command's events `seqs`, passing over the fair
   * dice's seed events that may come with it (the first roll after a server started ends the
   * open epoch first); null while the log does not hold it: the latest roll shown by the roll
   * form on a phone's Table view. @param {number[]} seqs */
  copyOf(seqs) {
    for (const seq of seqs) {
      const frame = this.frames[this.names ? this.find(seq) : -1];
      if (frame && !frame.event.type.startsWith("seed_")) {
        return plainCopy(this.built.get(seq) ?? this.line(frame));
      }
    }
    return null;
  }

  /** @param {EventFrame} frame @returns {LogLine} */
  line(frame) {
    const names = /** @type {Names} */ (this.names); // lines are drawn once names are known
    const time = h("time", {datetime: frame.at}, clock(frame.at));
    if (frame.event.type === "private_roll") { // sealed: who rolled and how, nothing more
      const line = h("li", {class: "ph-log-line ph-sealed", "data-seq": frame.seq,
                            "data-type": "private_roll", "data-visibility": frame.event.visibility},
        time, " ", sealedWords(frame, names, this.me));
      /** @type {LogLine} */ (line).seq = frame.seq;
      return line;
    }
    const body = this.system?.describe(frame, names) ?? describeCore(frame, names)
      ?? h("span", {class: "ph-muted"}, frame.event.type.replaceAll("_", " "));
    const revealed = this.revealed.has(frame.seq) || this.fair.revealedAfter(frame.seq);
    const line = h("li", {class: "ph-log-line", "data-seq": frame.seq, "data-type": frame.event.type,
                          "data-revealed": this.revealed.has(frame.seq) ? "true" : null},
      time, " ", h("span", {class: "ph-actor"}, names.member(frame.actor)), " ", body,
      privateMark(frame, names, this.me, revealed),
      frame.event.fair ? fairBadge(frame, this) : null);
    /** @type {LogLine} */ (line).seq = frame.seq;
    return line;
  }
}

/** A line's words and dice as a <p>. The roll's check mark is a button on the line; in a copy
 * it was read out as "dice checking, button" after every roll, and pressed nothing: it is not
 * copied. @param {HTMLElement} line */
export function plainCopy(line) {
  return h("p", {}, [...line.childNodes]
    .filter((node) => !(node instanceof Element && node.classList.contains("ph-fair")))
    .map((node) => node.cloneNode(true)));
}

customElements.define("ph-log", PhLog);
