// <ph-report-link>: opens the post-game report (the page `poolhall report --html` writes) of the
// game session shown, or of the whole campaign. The server answers a one-time path: the report
// opens in a new tab with no token in its URL.
import {h} from "../dom.js";
import {act, clearError, showError} from "../actions.js";
/** @import {Refusal} from "../actions.js" */
/** @import {ReportReady} from "../messages.js" */

export class PhReportLink extends HTMLElement {
  /** @type {HTMLButtonElement} */ button;
  /** @type {HTMLSpanElement} */ opened;
  /** @type {number | null | undefined} */ _session;

  connectedCallback() {
    if (this.button) return;
    this.setAttribute("data-ph-errors", "");
    this.button = h("button", {type: "button", class: "ph-quiet",
      onclick: () => this.open()}, "Post-game report");
    this.opened = h("span", {class: "ph-report-opened"});
    this.append(this.button, " ", this.opened);
  }

  /** The game session the report is about (null: the whole campaign).
   * @param {string | number | null} value */
  set session(value) {
    this._session = value ? Number(value) : null;
    if (this.button) {
      this.button.textContent = this._session ? `Report of session ${this._session}`
        : "Report of the campaign";
    }
  }

  async open() {
    clearError(this);
    this.button.disabled = true;
    try {
      /** @type {ReportReady} */
      const answer = await act(this, {type: "report", ...(this._session ? {session: this._session} : {})});
      const tab = window.open(answer.path, "_blank");
      if (tab) tab.opener = null; // the report runs no script; still, it gets no handle back
      this.opened.replaceChildren(tab ? "" : h("a", {href: answer.path, target: "_blank",
        rel: "noopener"}, "open the report"));
    } catch (thrown) {
      const error = /** @type {Refusal} */ (thrown);
      showError(this, error.message, error.path ?? null);
    } finally {
      this.button.disabled = false;
    }
  }
}

customElements.define("ph-report-link", PhReportLink);
