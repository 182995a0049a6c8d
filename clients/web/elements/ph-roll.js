// <ph-roll>: free dice (`2d6+1`) for anyone but a spectator; the server parses and rolls.
// Beside the button, who sees the roll (../visibility.js), once the member's role is known.
// On a phone the form sticks above the views' bar, so it keeps to one line: the dice, Roll,
// and "More", which opens the rest (as which character, the reason, who sees it). It took
// about 220 of 844 px and hid a check's controls. A roll that is not public always shows its
// choice, so a private roll is never made with the choice out of sight. In the phone's Table
// view, where the log is out of sight, the member's latest free roll (this form's or another's,
// `showRolled`) is shown under the form: a roll made there showed its result nowhere on screen.
/** @import {NamedControls} from "../dom.js" */
import {h} from "../dom.js";
import {bindForm, rolled} from "../actions.js";
import {visibilityChoice, visibilityOf} from "../visibility.js";

export class PhRoll extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    this.characterSelect = h("select", {name: "character", "aria-label": "as character"});
    this.button = h("button", {type: "submit", class: "ph-roll-go"}, "Roll");
    this.more = h("div", {class: "ph-roll-more", id: "ph-roll-more"},
      this.characterSelect,
      h("input", {name: "reason", placeholder: "reason (optional)", "aria-label": "reason"}));
    this.toggle = h("button", {type: "button", class: "ph-quiet ph-roll-toggle",
                               "aria-expanded": "false", "aria-controls": "ph-roll-more"}, "More");
    this.toggle.addEventListener("click", () => this.open(this.toggle.ariaExpanded !== "true"));
    this.form = h("form", {class: "ph-roll-form", "aria-label": "Roll dice"},
      h("label", {}, "Roll ", h("input", {name: "expression", required: true, placeholder: "2d6+1",
        autocomplete: "off", size: 10, "aria-label": "dice expression"})),
      this.more, this.button, this.toggle);
    bindForm(this.form, (data) => ({
      type: "roll", expression: String(data.get("expression")).trim(),
      ...(data.get("character") ? {character: data.get("character")} : {}),
      ...(String(data.get("reason") ?? "").trim() ? {reason: String(data.get("reason")).trim()} : {}),
      ...visibilityOf(data),
    }), (ack) => {
      /** @type {NamedControls} */ (this.form.elements).expression.select();
      rolled(this, ack);
    });
    this.result = h("div", {class: "ph-roll-last", hidden: true});
    this.append(this.form, this.result);
    // on a phone the form is fixed above the views' bar (table.css): the page keeps room for
    // it below its content, and when it scrolls a control into view, whatever its height (one
    // line at 100% text, three at 200%, more with "More" open or a roll's result under it)
    new ResizeObserver(() => document.documentElement.style.setProperty(
      "--ph-roll-height", `${this.offsetHeight}px`)).observe(this);
    if (this._me) this.me = this._me;
  }

  /** Show the line of the member's latest roll (a copy of its log line) under the form; shown
   * in the phone's Table view only (table.css): elsewhere the log is in sight.
   * @param {HTMLElement} line */
  showRolled(line) {
    this.result.replaceChildren(h("span", {class: "ph-roll-last-what"}, "Your roll: "), line);
    this.result.hidden = false;
  }

  /** Show or fold the rest of the form (on a phone; elsewhere it is always shown).
   * @param {boolean} open */
  open(open) {
    this.toggle.ariaExpanded = String(open);
    this.toggle.textContent = open ? "Less" : "More";
    this.form.toggleAttribute("data-open", open);
  }

  /** The member ({member, role}): the visibility choice their role has, beside the button. */
  set me(value) {
    this._me = value;
    if (!this.form || this.visibility !== undefined) return;
    this.visibility = visibilityChoice(value, {oneShot: true});
    if (this.visibility) this.more.append(this.visibility);
  }

  /** The characters this member may roll for. */
  update(characters) {
    if (!this.form) return;
    const key = characters.map((c) => `${c.character}\u0000${c.name}`).join("\u0001");
    if (key === this.shownKey) return; // unchanged: leave an open list and the choice alone
    this.shownKey = key;
    const chosen = this.characterSelect.value;
    this.characterSelect.replaceChildren(h("option", {value: ""}, "no character"),
      ...characters.map((c) => h("option", {value: c.character}, c.name)));
    this.characterSelect.value = characters.some((c) => c.character === chosen) ? chosen : "";
  }
}

customElements.define("ph-roll", PhRoll);
