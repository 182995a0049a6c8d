// <ph-d12-sheet>: the GM's character form for d12 (create and edit, no JSON): a name, and a
// row per stat with its rating; CON and CHA are always there (an extended test draws its
// refresh dice from one of them). Built once: a new `table` only updates the list of
// characters to edit, never the fields being filled in; when it changes the character being
// edited, the form says so (sheet-changed.js), and a save is sent with the sheet it was made
// from (`based_on`), which the server refuses if another save came since.
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {SheetChanges} from "../sheet-changed.js";
import {slugOf} from "../slug.js";
import {ratingsOf, setOptions} from "./d12_form.js";

const REQUIRED = ["CON", "CHA"];

export class PhD12Sheet extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    this.pick = h("select", {"aria-label": "character to edit"});
    this.idInput = h("input", {name: "character", maxlength: 40, autocomplete: "off",
                          pattern: "[a-z0-9][a-z0-9_\\-]*", placeholder: "from the name"});
    this.nameInput = h("input", {name: "name", maxlength: 80, required: true, autocomplete: "off"});
    this.rows = h("div", {class: "ph-d12-ratings"});
    this.stats = h("fieldset", {name: "stats", class: "ph-d12-stats"},
      h("legend", {}, "Stats and ratings (d12s each brings, 0-20)"), this.rows,
      h("button", {type: "button", class: "ph-quiet", onclick: () => this.addRow("", 0, true)},
        "Add a stat"));
    this.submit = h("button", {type: "submit"}, "Create the character");
    this.changes = new SheetChanges(() => this.load(), () => this.command());
    this.form = h("form", {class: "ph-d12-sheet ph-d12-form", "aria-label": "Character"},
      h("h2", {}, "Characters"),
      h("label", {}, "Edit ", this.pick),
      h("label", {}, "Name ", this.nameInput),
      h("label", {}, "Id ", this.idInput),
      this.stats, this.changes.notice, this.submit);
    this.pick.addEventListener("change", () => this.load());
    bindForm(this.form, () => this.command(), (ack) => {
      this.changes.saved(ack);
      if (this.pick.value) return;
      this.wanted = this.idInput.value || slugOf(this.nameInput.value, this.ids());
      if (this._table) this.update(); // the new table may have come before the answer
    }, {failed: (error) => this.changes.refused(error)});
    this.append(this.form);
    this.load();
    if (this._table) this.update();
  }

  set table(value) {
    this._table = value;
    if (this.form) this.update();
  }

  update() {
    setOptions(this.pick, [["", "a new character"],
      ...this._table.characters.map((c) => [c.character, c.name])]);
    if (this.wanted && this._table.characters.some((c) => c.character === this.wanted)) {
      this.pick.value = this.wanted; // just created: go on editing it
      this.wanted = null;
      this.load();
    }
    this.changes.table(this._table);
  }

  /** The ids of the characters at the table. @returns {string[]} */
  ids() {
    return (this._table?.characters ?? []).map((c) => c.character);
  }

  /** Fill the fields from the chosen character, or empty them for a new one. */
  load() {
    const chosen = this._table?.characters.find((c) => c.character === this.pick.value);
    this.idInput.value = chosen?.character ?? "";
    this.idInput.readOnly = Boolean(chosen);
    this.nameInput.value = chosen?.name ?? "";
    this.rows.replaceChildren();
    const ratings = {CON: 0, CHA: 0, ...ratingsOf(chosen)};
    for (const [stat, rating] of Object.entries(ratings)) this.addRow(stat, rating, false);
    this.submit.textContent = chosen ? "Save the character" : "Create the character";
    this.changes.opened(chosen);
  }

  addRow(stat, rating, focus) {
    const fixed = REQUIRED.includes(stat);
    const nameInput = h("input", {class: "ph-d12-stat-name", value: stat, readOnly: fixed,
      maxlength: 12, autocomplete: "off", "aria-label": "stat", placeholder: "STR"});
    const ratingInput = h("input", {type: "number", class: "ph-d12-number ph-d12-rating", min: 0,
      max: 20, value: String(rating), required: true, inputmode: "numeric",
      "aria-label": `${stat || "new stat"} rating`});
    nameInput.addEventListener("input", () => {
      ratingInput.setAttribute("aria-label", `${nameInput.value.toUpperCase() || "new stat"} rating`);
    });
    const row = h("div", {class: "ph-d12-rating-row"}, nameInput, ratingInput,
      fixed ? null : h("button", {type: "button", class: "ph-quiet", "aria-label": `remove ${stat || "this stat"}`,
        onclick: () => row.remove()}, "×"));
    this.rows.append(row);
    if (focus) nameInput.focus();
  }

  /** create_character or update_character with the whole stats (the server checks them). */
  command() {
    const ratings = {};
    for (const [i, row] of [...this.rows.children].entries()) {
      const nameInput = /** @type {HTMLInputElement} */ (row.querySelector(".ph-d12-stat-name"));
      const stat = nameInput.value.trim().toUpperCase();
      if (!stat) { // the row is marked, as the other systems' forms mark an unnamed skill row
        nameInput.dataset.path = `$.stat_row_${i + 1}`;
        throw Object.assign(new Error(`stat row ${i + 1} has no name: name the stat, or remove its row`),
                            {path: nameInput.dataset.path});
      }
      if (Object.hasOwn(ratings, stat)) throw new Error(`${stat} is named twice`);
      const rating = /** @type {HTMLInputElement} */ (row.querySelector(".ph-d12-rating")).value.trim();
      if (rating === "") throw new Error(`give ${stat} a rating, or remove its row`); // not 0
      ratings[stat] = Number(rating);
    }
    const stats = {system: "d12", ratings};
    const name = this.nameInput.value.trim();
    if (this.pick.value) {
      return {type: "update_character", character: this.pick.value, name, stats, ...this.changes.basedOn()};
    }
    return {type: "create_character", character: this.idInput.value.trim() || slugOf(name, this.ids()), name, stats};
  }
}

customElements.define("ph-d12-sheet", PhD12Sheet);
