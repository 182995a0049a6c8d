// <ph-roll>: free dice (`2d6+1`) for anyone but a spectator; the server parses and rolls.
// Beside the button, who sees the roll (../visibility.js), once the member's role is known.
/** @import {NamedControls} from "../dom.js" */
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {visibilityChoice, visibilityOf} from "../visibility.js";

export class PhRoll extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    this.characterSelect = h("select", {name: "character", "aria-label": "as character"});
    this.button = h("button", {type: "submit"}, "Roll");
    this.form = h("form", {class: "ph-roll-form", "aria-label": "Roll dice"},
      h("label", {}, "Roll ", h("input", {name: "expression", required: true, placeholder: "2d6+1",
        autocomplete: "off", size: 10, "aria-label": "dice expression"})),
      this.characterSelect,
      h("input", {name: "reason", placeholder: "reason (optional)", "aria-label": "reason"}),
      this.button);
    bindForm(this.form, (data) => ({
      type: "roll", expression: String(data.get("expression")).trim(),
      ...(data.get("character") ? {character: data.get("character")} : {}),
      ...(String(data.get("reason") ?? "").trim() ? {reason: String(data.get("reason")).trim()} : {}),
      ...visibilityOf(data),
    }), () => /** @type {NamedControls} */ (this.form.elements).expression.select());
    this.append(this.form);
    if (this._me) this.me = this._me;
  }

  /** The member ({member, role}): the visibility choice their role has, beside the button. */
  set me(value) {
    this._me = value;
    if (!this.form || this.visibility !== undefined) return;
    this.visibility = visibilityChoice(value, {oneShot: true});
    if (this.visibility) this.button.before(this.visibility);
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
