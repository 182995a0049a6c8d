// <ph-log>: the table's log, newest last, each line an event as the table saw it (dice drawn
// as dice). Lines are built once per event and kept (keyed by seq), so a new event costs one
// line, not a redraw of the whole log.
import {clock, h} from "../dom.js";
import {describeCore} from "../describe.js";

export class PhLog extends HTMLElement {
  constructor() {
    super();
    this.lines = new Map(); // seq -> <li>
    this.system = null;
    this.names = null;
    this.frames = [];
  }

  connectedCallback() {
    if (!this.list) {
      this.setAttribute("aria-label", "Table log");
      this.list = h("ol", {class: "ph-log-lines", "aria-live": "polite", "aria-relevant": "additions"});
      this.append(h("h2", {}, "Log"), this.list);
    }
    this.render();
  }

  update(frames, names, system) {
    this.frames = frames;
    this.names = names;
    this.system = system;
    this.render();
  }

  render() {
    if (!this.list) return;
    const wanted = new Set(this.frames.map((frame) => frame.seq));
    for (const [seq, line] of this.lines) {
      if (!wanted.has(seq)) {
        line.remove();
        this.lines.delete(seq);
      }
    }
    const stuck = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    let previous = null;
    for (const frame of this.frames) {
      let line = this.lines.get(frame.seq);
      if (!line) {
        line = this.line(frame);
        this.lines.set(frame.seq, line);
        if (previous) previous.after(line);
        else this.list.prepend(line);
      }
      previous = line;
    }
    if (stuck) this.list.scrollTop = this.list.scrollHeight;
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
