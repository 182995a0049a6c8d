// The sr3 system's part of the page (to be filled: panel, character form, log lines).
import {h} from "../dom.js";

class Table extends HTMLElement {
  set table(value) {
    this._table = value;
    this.render();
  }

  set views(value) {
    this._views = value;
    this.render();
  }

  render() {
    this.replaceChildren(h("p", {class: "ph-muted"}, "sr3 table"));
  }
}

customElements.define("ph-sr3-table", Table);

export const panel = "ph-sr3-table";
export const sheet = null;

/** The log line of one of this system's events, or null if it is not one. */
export function describe(frame, names) {
  return null;
}
