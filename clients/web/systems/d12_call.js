// <ph-d12-call>: the GM calls for a test (rules step 1 and 3): the character, the stats that
// apply (their ratings make the pool: the server assembles it), basic or extended with the
// stat whose dice join after each round, a label, and the DT or the opponent's stat.
// Built once; a new `table` updates its option lists in place. A test called in secret
// (`gm`) is the GM's alone until the session ends: its rounds, DT and story too.
/** @import {NamedControls} from "../dom.js" */
import {h, replace} from "../dom.js";
import {bindForm} from "../actions.js";
import {visibilityChoice, visibilityOf} from "../visibility.js";
import {DtFields, ratingsOf, setOptions} from "./d12_form.js";

export class PhD12Call extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    this.character = h("select", {name: "character", required: true});
    this.stats = h("fieldset", {name: "stats", class: "ph-d12-stats"});
    this.extended = h("input", {type: "checkbox", name: "extended"});
    this.refresh = h("select", {name: "refresh"});
    setOptions(this.refresh, [["CON", "CON"], ["CHA", "CHA"]]);
    this.refreshLabel = h("label", {}, "dice join from ", this.refresh);
    this.dtFields = new DtFields();
    this.form = h("form", {class: "ph-d12-call ph-d12-form", "aria-label": "Call for a test"},
      h("h3", {}, "Call for a test"),
      h("label", {}, "Character ", this.character),
      this.stats,
      h("div", {class: "ph-d12-row"},
        h("label", {class: "ph-d12-check"}, this.extended, " Extended test"),
        this.refreshLabel),
      h("label", {}, "Label ", h("input", {name: "label", maxlength: 120, autocomplete: "off",
                                          placeholder: "bar fight"})),
      this.dtFields.node,
      h("div", {class: "ph-d12-row"}, visibilityChoice({role: "gm"}),
        h("button", {type: "submit"}, "Call the test")));
    this.character.addEventListener("change", () => {
      this.syncStats();
      this.dtFields.update(this._table?.characters ?? [], this.character.value);
    });
    this.extended.addEventListener("change", () => this.syncKind());
    bindForm(this.form, (data) => ({
      type: "call_threshold_test",
      character: String(data.get("character") ?? ""),
      stats: data.getAll("stats").map(String),
      extended: this.extended.checked,
      refresh: this.extended.checked ? this.refresh.value : null,
      label: String(data.get("label") ?? "").trim(),
      ...this.dtFields.fields(),
      ...visibilityOf(data),
    }), () => this.called());
    this.append(this.form);
    this.syncKind();
    if (this._table) this.update();
  }

  set table(value) {
    this._table = value;
    if (this.form) this.update();
  }

  update() {
    const characters = this._table.characters;
    setOptions(this.character, characters.map((c) => [c.character, c.name]));
    this.dtFields.update(characters, this.character.value);
    this.syncStats();
  }

  /** A checkbox per stat of the chosen character, showing its rating; ticks are kept. */
  syncStats() {
    const chosen = this._table?.characters.find((c) => c.character === this.character.value);
    const ratings = Object.entries(ratingsOf(chosen));
    const signature = JSON.stringify([this.character.value, ratings]);
    if (this.stats.dataset.signature === signature) return;
    const ticked = new Set([.../** @type {NodeListOf<HTMLInputElement>} */ (this.stats.querySelectorAll("input:checked"))]
      .map((box) => box.value));
    replace(this.stats, h("legend", {}, "Stats that apply"),
      ratings.length ? ratings.map(([stat, rating]) => h("label", {class: "ph-d12-check"},
        h("input", {type: "checkbox", name: "stats", value: stat, checked: ticked.has(stat)}),
        ` ${stat} `, h("span", {class: "ph-muted"}, String(rating))))
        : h("span", {class: "ph-muted"}, "no character with d12 stats yet"));
    this.stats.dataset.signature = signature;
  }

  /** The test is on the table: the next call starts afresh, for the same character and seen
   * by the same people (the ticks, the label, extended or not, the DT and the opponent were
   * this test's: an opponent left chosen kept the DT field disabled for the next call). */
  called() {
    for (const box of /** @type {NodeListOf<HTMLInputElement>} */ (this.stats.querySelectorAll("input:checked"))) {
      box.checked = false;
    }
    /** @type {NamedControls} */ (this.form.elements).label.value = "";
    this.extended.checked = false;
    this.refresh.value = "CON";
    this.syncKind();
    this.dtFields.clear();
  }

  syncKind() {
    this.refreshLabel.hidden = !this.extended.checked;
  }
}

customElements.define("ph-d12-call", PhD12Call);
