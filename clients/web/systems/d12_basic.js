// <ph-d12-basic>: a basic test in one go (`roll_basic_test`, what "5d12 dt7" means on the
// command line). The GM's starts and rolls a test at once; a player's rolls the basic test the
// GM called for their character with that pool and DT (the server says so if there is none).
// The GM may roll it in secret; a player's is rolled in the open (the GM called it).
import {h} from "../dom.js";
import {bindForm, wholeField} from "../actions.js";
import {visibilityChoice, visibilityOf} from "../visibility.js";
import {setOptions} from "./d12_form.js";

export class PhD12Basic extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    this.character = h("select", {name: "character"});
    this.button = h("button", {type: "submit"}, "Roll the test");
    this.form = h("form", {class: "ph-d12-basic ph-d12-form", "aria-label": "Roll a basic test"},
      h("div", {class: "ph-d12-row"},
        h("label", {}, "d12s ", h("input", {type: "number", name: "dice", min: 1, max: 100,
          required: true, inputmode: "numeric", class: "ph-d12-number"})),
        h("label", {}, "DT ", h("input", {type: "number", name: "dt", min: 1, max: 12, required: true,
          inputmode: "numeric", class: "ph-d12-number"})),
        h("label", {}, "for ", this.character),
        this.button));
    bindForm(this.form, (data) => ({
      type: "roll_basic_test", dice: wholeField(data, "dice", "d12s"), dt: wholeField(data, "dt", "DT"),
      character: data.get("character") ? String(data.get("character")) : null,
      ...visibilityOf(data),
    }));
    // folded away: tests are mostly called by the GM and rolled from their cards
    this.append(h("details", {class: "ph-d12-fold"}, h("summary", {}, "Basic test"), this.form));
    if (this.characters) this.update(this.characters, this.gm);
  }

  /** The characters this member may roll for (the GM may also roll for no one). */
  update(characters, gm) {
    this.characters = characters;
    this.gm = gm;
    if (!this.form) return;
    if (gm && !this.visibility) {
      this.visibility = visibilityChoice({role: "gm"});
      this.button.before(this.visibility);
    }
    setOptions(this.character, [...(gm ? [["", "no one"]] : []),
      ...characters.map((c) => [c.character, c.name])]);
  }
}

customElements.define("ph-d12-basic", PhD12Basic);
