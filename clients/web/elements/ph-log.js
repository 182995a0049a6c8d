// <ph-log>: the table's log, newest last, each line an event as the table saw it (dice drawn
// as dice). Lines are built once per event and kept (keyed by seq), so a new event costs one
// line, not a redraw of the whole log.
//
// Every line stays in the DOM (find-in-page, screen readers, and the tests' view of the log);
// a new event adds one line and lays out only it. `content-visibility: auto` on the lines was
// measured to make scrolling a 2,000-line log slower, not faster (tests/bench/browser_table.py).
// Older events come back a page at a time: scrolling to the top (or the "Load older" button,
// for keyboards) raises `ph-older`; <ph-app> asks the server for a `history` page and hands
// the lines down again.
import {clock, h} from "../dom.js";
import {describeCore} from "../describe.js";

export const OLDER_EVENT = "ph-older";
const NEAR_TOP_PX = 120;

export class PhLog extends HTMLElement {
  constructor() {
    super();
    this.lines = new Map(); // seq -> <li>
    this.system = null;
    this.names = null;
    this.frames = [];
    this.exhausted = true;
    this.loading = false;
  }

  connectedCallback() {
    if (this.list) return;
    this.setAttribute("aria-label", "Table log");
    this.older = h("button", {type: "button", class: "ph-quiet ph-log-older", hidden: true,
                              onclick: () => this.askOlder()}, "Load older");
    this.list = h("ol", {class: "ph-log-lines", "aria-live": "polite", "aria-relevant": "additions",
                         tabindex: 0, "aria-label": "Log lines"});
    this.list.addEventListener("scroll", () => {
      if (this.list.scrollTop < NEAR_TOP_PX) this.askOlder();
    }, {passive: true});
    this.append(h("h2", {}, "Log"), this.older, this.list);
    this.render();
  }

  /** The log's frames (oldest first), names for ids, the game system's module, and whether
   * the server has nothing older. */
  update(frames, names, system, exhausted = true) {
    this.frames = frames;
    this.names = names;
    this.system = system;
    this.exhausted = exhausted;
    this.loading = false;
    this.render();
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
    this.render();
  }

  render() {
    if (!this.list || !this.names) return;
    this.older.hidden = this.exhausted;
    this.older.disabled = this.loading;
    const list = this.list;
    const wanted = new Set(this.frames.map((frame) => frame.seq));
    for (const [seq, line] of this.lines) {
      if (!wanted.has(seq)) {
        line.remove();
        this.lines.delete(seq);
      }
    }
    const stuck = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    const firstShown = list.firstElementChild;
    const heightBefore = list.scrollHeight;
    let previous = null;
    let abovePrevious = firstShown !== null; // new lines here go above what was shown
    let prepended = false;
    for (const frame of this.frames) {
      let line = this.lines.get(frame.seq);
      if (line === firstShown) abovePrevious = false;
      if (!line) {
        line = this.line(frame);
        this.lines.set(frame.seq, line);
        if (previous) previous.after(line);
        else list.prepend(line);
        prepended ||= abovePrevious;
      }
      previous = line;
    }
    if (stuck && !prepended) list.scrollTop = list.scrollHeight;
    else if (prepended) list.scrollTop += list.scrollHeight - heightBefore; // keep the view
  }

  line(frame) {
    const body = this.system?.describe(frame, this.names) ?? describeCore(frame, this.names)
      ?? h("span", {class: "ph-muted"}, frame.event.type.replaceAll("_", " "));
    return h("li", {class: "ph-log-line", "data-seq": frame.seq, "data-type": frame.event.type},
      h("time", {datetime: frame.at}, clock(frame.at)), " ",
      h("span", {class: "ph-actor"}, this.names.member(frame.actor)), " ", body);
  }
}

customElements.define("ph-log", PhLog);
