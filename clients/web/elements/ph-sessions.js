// <ph-sessions>: the GM starts a game session (with a title) and ends it. Both forms stay in
// the DOM and are shown or hidden as the table says whether a session is running, so a table
// message arriving while the GM types a title leaves the title alone. Ending asks first: it
// cannot be undone, and it reveals the session's dice seed and every private roll in it.
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {askFirst} from "../confirm.js";

export class PhSessions extends HTMLElement {
  connectedCallback() {
    if (this.start) return;
    this.start = h("form", {class: "ph-session-start", "aria-label": "Start a game session"},
      h("label", {}, "Title ", h("input", {name: "title", maxlength: 80, autocomplete: "off",
                                           placeholder: "optional"})),
      h("button", {type: "submit"}, "Start game session"));
    this.running = h("span", {class: "ph-session-running"});
    const ask = h("button", {type: "button", class: "ph-quiet"}, "End game session");
    const [confirm, asking] = askFirst(ask, "End the session for everyone? Its dice seed and its"
      + " private rolls are shown to the whole table.",
      h("button", {type: "submit", class: "ph-danger ph-small"}, "Yes, end it"), "Keep playing");
    /** Show the question (or the button again), the keyboard on what is shown, unless `focus`
     * is false (the table closed it). */
    this.asking = asking;
    this.end = h("form", {class: "ph-session-end", "aria-label": "End the game session",
                          hidden: true},
      this.running, ask, confirm);
    bindForm(this.start, (data) => ({
      type: "start_session",
      ...(String(data.get("title") ?? "").trim() ? {title: String(data.get("title")).trim()} : {}),
    }), () => this.start.reset());
    bindForm(this.end, () => ({type: "end_session"}));
    // the server restarted during a private roll (docs: fairness.md): rolls wait for the GM
    this.wait = h("p", {class: "ph-error", hidden: true},
      "The dice wait: end or start a session to roll on.");
    this.append(h("h2", {}, "Game session"), this.wait, this.start, this.end);
  }

  set table(table) {
    if (!this.start || !table) return;
    const focused = [this.start, this.end].find((form) => form.contains(document.activeElement));
    this.wait.hidden = !table.dice_wait;
    this.start.hidden = table.in_session;
    if (this.end.hidden !== !table.in_session) this.asking(false, false); // a new session
    this.end.hidden = !table.in_session;
    this.running.textContent = table.in_session ? `Game session ${table.session} is running. ` : "";
    if (focused?.hidden) { // the form the GM used went away: keep the keyboard nearby
      (table.in_session ? this.end : this.start).querySelector("button").focus();
    }
  }
}

customElements.define("ph-sessions", PhSessions);
