// <ph-timeline>: the replay's scrubber. A range over the events of the campaign (or of one game
// session) with its marks drawn above it, play/pause, speeds, previous/next mark, and a link to
// the moment shown. It only says what the person asked for (a `seek` event with the seq, a
// `play` toggle); <ph-replay> fetches the table at that moment.
import {h, s} from "../dom.js";
/** @import {SessionSpan} from "../replay-marks.js" */

/** A mark on the strip. @typedef {{seq: number, kind: string, label: string}} Mark */

export const SPEEDS = [["1", "1 event/s"], ["4", "4 events/s"], ["16", "16 events/s"],
  ["real", "real time (pauses cut to 5 s)"]];

/** Which kind of mark shows where several share a column of the strip. */
/** @type {Record<string, number>} */
const RANK = {check: 1, combat: 2, destiny: 3, despair: 4, triumph: 4, session: 5};

export class PhTimeline extends HTMLElement {
  // built by connectedCallback(), before <ph-replay> calls anything
  /** @type {HTMLInputElement} */ range;
  /** @type {SVGElement} */ strip;
  /** @type {HTMLButtonElement} */ playButton;
  /** @type {HTMLSelectElement} */ speed;
  /** @type {HTMLSelectElement} */ session;
  /** @type {HTMLSpanElement} */ position;
  /** @type {HTMLSpanElement} */ progress;
  /** @type {HTMLButtonElement} */ copy;
  /** @type {HTMLOutputElement} */ shared;
  /** @type {string | undefined} */ shown; // the moment show() last wrote
  /** @type {Mark[]} */ marks;
  /** @type {number} */ from;
  /** @type {number} */ to;
  /** @type {number | null | undefined} */ drawing;
  /** What the game session selector's first choice, every event, is called (a replay link's
   * page shows less than the whole campaign). */
  whole = "the whole campaign";

  connectedCallback() {
    if (this.range) return;
    this.range = h("input", {type: "range", min: 1, max: 1, value: 1, step: 1,
      class: "ph-scrubber", "aria-label": "moment of the campaign"});
    this.range.addEventListener("input", () => this.seek(Number(this.range.value)));
    this.strip = s("svg", {class: "ph-marks", viewBox: "0 0 1000 24", preserveAspectRatio: "none",
      role: "img", "aria-label": "marks: checks, triumphs and despairs, destiny flips, combat turns, sessions"});
    this.playButton = h("button", {type: "button", "aria-pressed": "false",
      onclick: () => this.dispatchEvent(new CustomEvent("play"))}, "Play");
    this.speed = h("select", {name: "speed", "aria-label": "speed"},
      SPEEDS.map(([value, label]) => h("option", {value}, label)));
    this.speed.addEventListener("change", () => this.dispatchEvent(new CustomEvent("speed")));
    this.session = h("select", {name: "session", "aria-label": "game session"},
      h("option", {value: ""}, this.whole));
    this.session.addEventListener("change", () => this.dispatchEvent(new CustomEvent("session")));
    this.position = h("span", {class: "ph-position", role: "status", "aria-live": "off"});
    this.progress = h("span", {class: "ph-muted ph-progress", role: "status"});
    this.copy = h("button", {type: "button", class: "ph-quiet",
      onclick: () => this.dispatchEvent(new CustomEvent("share"))}, "Copy a link to this moment");
    this.shared = h("output", {class: "ph-shared", "aria-live": "polite"});
    this.append(
      h("div", {class: "ph-timeline-bar"}, this.strip, this.range),
      h("div", {class: "ph-timeline-controls"},
        h("button", {type: "button", class: "ph-quiet", "aria-label": "previous mark",
          onclick: () => this.jumpMark(-1)}, "◀ mark"),
        this.playButton,
        h("button", {type: "button", class: "ph-quiet", "aria-label": "next mark",
          onclick: () => this.jumpMark(1)}, "mark ▶"),
        this.speed, this.session, this.position, this.copy, this.shared, this.progress));
    this.marks = [];
  }

  get speedValue() {
    return this.speed.value;
  }

  /** The range of events shown: [from, to]. @param {number} from @param {number} to */
  setRange(from, to) {
    this.range.min = String(from);
    this.range.max = String(Math.max(from, to));
    this.from = from;
    this.to = Math.max(from, to);
    this.drawMarks();
  }

  /** @param {number} seq @param {string | null | undefined} at */
  show(seq, at) {
    // a seek shows its moment twice (asked, then drawn): the second writes nothing
    const shown = `${seq} ${this.to} ${at}`;
    if (shown === this.shown && this.range.value === String(seq)) return;
    this.shown = shown;
    this.range.value = String(seq);
    const when = at ? ` · ${new Date(at).toLocaleString()}` : "";  // the reader's clock
    this.position.textContent = `event ${seq.toLocaleString()} of ${this.to.toLocaleString()}${when}`;
    this.range.setAttribute("aria-valuetext", this.position.textContent);
  }

  /** @param {boolean} on */
  playing(on) {
    this.playButton.textContent = on ? "Pause" : "Play";
    this.playButton.setAttribute("aria-pressed", String(on));
  }

  /** @param {SessionSpan[]} sessions @param {string | null} chosen */
  setSessions(sessions, chosen) {
    const keep = chosen ?? this.session.value;
    this.session.replaceChildren(h("option", {value: ""}, this.whole),
      ...sessions.map((one) => h("option", {value: String(one.session)},
        `session ${one.session}${one.title ? `: ${one.title}` : ""}`)));
    this.session.value = sessions.some((one) => String(one.session) === String(keep))
      ? String(keep) : "";
  }

  /** @param {Mark[]} marks */
  setMarks(marks) {
    this.marks = marks;
    if (this.drawing) return; // one redraw per frame, however many pages of marks arrive
    this.drawing = requestAnimationFrame(() => {
      this.drawing = null;
      this.drawMarks();
    });
  }

  /** The marks as lines over the scrubber: one per column of the strip (1,000), the most
   * telling kind where several fall together, so a campaign of 100,000 events draws at most a
   * thousand lines, not one per check. */
  drawMarks() {
    if (!this.strip || this.to === undefined) return;
    const span = Math.max(1, this.to - this.from);
    const columns = new Map(); // x -> mark
    for (const mark of this.marks) {
      if (mark.seq < this.from || mark.seq > this.to) continue;
      const x = Math.round(((mark.seq - this.from) / span) * 999);
      const there = columns.get(x);
      if (!there || RANK[mark.kind] > RANK[there.kind]) columns.set(x, mark);
    }
    this.strip.replaceChildren(...[...columns].map(([x, mark]) => s("line", {
      x1: x + 0.5, x2: x + 0.5, y1: mark.kind === "session" ? 0 : 6, y2: 24,
      class: `ph-mark ph-mark-${mark.kind}`}, s("title", {}, `#${mark.seq}: ${mark.label}`))));
  }

  /** @param {number} direction */
  jumpMark(direction) {
    const here = Number(this.range.value);
    const marks = this.marks.filter((mark) => mark.seq >= this.from && mark.seq <= this.to);
    const next = direction > 0 ? marks.find((mark) => mark.seq > here)
      : marks.findLast((mark) => mark.seq < here);
    if (next) this.seek(next.seq);
  }

  /** @param {number} seq */
  seek(seq) {
    this.dispatchEvent(new CustomEvent("seek", {detail: seq}));
  }
}

customElements.define("ph-timeline", PhTimeline);
