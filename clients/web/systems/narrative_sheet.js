// <ph-narrative-sheet>: the GM's character form: create a character or edit one (name, the
// six characteristics, skills with rank and linked characteristic), sent as create_character
// or update_character. No JSON: every value has its control. The form is built once; a table
// message only refreshes the list of characters, never what the GM is typing; when it changes
// the character being edited, the form says so (sheet-changed.js), and a save is sent with
// the sheet it was made from (`based_on`), which the server refuses if another save came since.
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {SheetChanges} from "../sheet-changed.js";
import {slugOf} from "../slug.js";
import {CHARACTERISTICS, CHARACTERISTIC_MAX, RANK_MAX} from "./narrative_words.js";
import {levelWords} from "./narrative_describe.js";
import {labelled, setOptions} from "./narrative_forms.js";

const NEW = "";
const SLUG = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const SKILL = /^[A-Za-z][A-Za-z0-9 ()'/&.-]{0,39}$/;

export class NarrativeSheet extends HTMLElement {
  set table(value) {
    this._table = value;
    if (!this.form) this.build();
    setOptions(this.choice, [[NEW, "a new character"],
      ...(value?.characters ?? []).map((c) => [c.character, c.name])], NEW);
    if (value) this.changes.table(value);
  }

  build() {
    this.classList.add("ph-nd-sheet");
    this.choice = h("select", {name: "edit"});
    this.choice.addEventListener("change", () => this.load());
    this.idInput = h("input", {name: "character", required: true, maxlength: 40, autocomplete: "off",
                               pattern: "[a-z0-9][a-z0-9_\\-]{0,39}", placeholder: "han"});
    this.nameInput = h("input", {name: "name", required: true, maxlength: 80, autocomplete: "off",
                                 placeholder: "Han Solo"});
    this.nameInput.addEventListener("input", () => {
      if (this.choice.value === NEW && !this.idTouched) {
        this.idInput.value = slugOf(this.nameInput.value, this.ids());
      }
    });
    this.idInput.addEventListener("input", () => { this.idTouched = true; });
    const characteristics = CHARACTERISTICS.map((c) => labelled(levelWords(c),
      h("input", {name: c, type: "number", min: 0, max: CHARACTERISTIC_MAX, value: "2", required: true,
                  inputmode: "numeric", class: "ph-nd-count"})));
    this.skillRows = h("ol", {class: "ph-nd-skill-rows"});
    const addSkill = h("button", {type: "button", class: "ph-quiet"}, "Add a skill");
    addSkill.addEventListener("click", () => this.skillRow().querySelector("input").focus());
    this.submit = h("button", {type: "submit"}, "Create character");
    this.status = h("p", {class: "ph-muted ph-nd-sheet-status", role: "status"});
    this.changes = new SheetChanges(() => this.load(), () => this.command(new FormData(this.form)));
    this.form = h("form", {class: "ph-nd-sheet-form", "aria-label": "Character sheet"},
      h("h2", {}, "Characters"),
      labelled("character", this.choice),
      h("div", {class: "ph-nd-sheet-names"}, labelled("name", this.nameInput), labelled("id", this.idInput)),
      h("fieldset", {name: "stats", class: "ph-nd-characteristics"}, h("legend", {}, "Characteristics"),
        characteristics),
      h("fieldset", {class: "ph-nd-skills"}, h("legend", {}, "Skills"), this.skillRows, addSkill),
      this.changes.notice, this.submit, this.status);
    bindForm(this.form, (data) => this.command(data), (ack) => this.saved(ack),
             {failed: (error) => this.changes.refused(error)});
    this.append(this.form);
    this.load();
  }

  /** One skill's row: its name, rank and characteristic, and a button that removes it, named
   * after the skill as it is typed ("remove Cool": every row's was "remove this skill"). */
  skillRow(name = "", rank = 1, characteristic = "agility") {
    const skill = h("input", {name: "skill_name", value: name, maxlength: 40, autocomplete: "off",
                              placeholder: "Ranged (Light)"});
    const row = h("li", {class: "ph-nd-skill-row"},
      labelled("skill", skill),
      labelled("rank", h("input", {name: "skill_rank", type: "number", min: 0, max: RANK_MAX,
                                   value: String(rank), inputmode: "numeric", class: "ph-nd-count"})),
      labelled("characteristic", h("select", {name: "skill_characteristic"},
        CHARACTERISTICS.map((c) => h("option", {value: c, selected: c === characteristic}, levelWords(c))))));
    const remove = h("button", {type: "button", class: "ph-quiet"}, "Remove");
    const named = () => remove.setAttribute("aria-label", `remove ${skill.value.trim() || "this skill"}`);
    named();
    skill.addEventListener("input", named);
    remove.addEventListener("click", () => row.remove());
    row.append(remove);
    this.skillRows.append(row);
    return row;
  }

  /** The ids of the characters at the table. @returns {string[]} */
  ids() {
    return (this._table?.characters ?? []).map((c) => c.character);
  }

  /** Fill the form from the chosen character (or empty it for a new one). */
  load() {
    const chosen = this._table?.characters.find((c) => c.character === this.choice.value);
    const stats = chosen?.stats ?? {};
    this.idTouched = false;
    this.idInput.value = chosen?.character ?? "";
    this.idInput.readOnly = Boolean(chosen);
    this.nameInput.value = chosen?.name ?? "";
    for (const c of CHARACTERISTICS) this.form.elements[c].value = String(stats[c] ?? 2);
    this.skillRows.replaceChildren();
    for (const [name, skill] of Object.entries(stats.skills ?? {})) {
      this.skillRow(name, skill.rank, skill.characteristic);
    }
    this.submit.textContent = chosen ? "Save changes" : "Create character";
    this.status.textContent = "";
    this.changes.opened(chosen);
  }

  command(data) {
    const character = String(data.get("character") ?? "").trim();
    if (!SLUG.test(character)) {
      throw refusal("the id is lowercase letters, digits, '-' and '_' (at most 40 characters)", "$.character");
    }
    const stats = {system: "narrative", skills: {}};
    for (const c of CHARACTERISTICS) {
      stats[c] = whole(data.get(c), CHARACTERISTIC_MAX, levelWords(c), `$.${c}`);
    }
    // row by row, as the d12 form does: a row left without a name is refused, naming the row,
    // rather than dropped (its rank would be lost without a word)
    [...this.skillRows.children].forEach((row, i) => {
      const [nameInput, rankInput] = /** @type {NodeListOf<HTMLInputElement>} */ (row.querySelectorAll("input"));
      const where = `$.skill_row_${i + 1}`;
      nameInput.dataset.path = `${where}.name`;
      rankInput.dataset.path = `${where}.rank`;
      const name = nameInput.value.trim();
      if (!name) throw refusal(`skill row ${i + 1} has no name: name the skill, or remove its row`, `${where}.name`);
      if (!SKILL.test(name)) throw refusal(`the skill “${name}” starts with a letter and has at most 40 letters, digits, spaces or ()'/&.-`, `${where}.name`);
      if (Object.hasOwn(stats.skills, name)) throw refusal(`the skill “${name}” is listed twice`, `${where}.name`);
      const rank = whole(rankInput.value, RANK_MAX, `the rank of ${name}`, `${where}.rank`);
      stats.skills[name] = {rank, characteristic: /** @type {HTMLSelectElement} */ (row.querySelector("select")).value};
    });
    const name = String(data.get("name") ?? "").trim();
    this.pending = {character, name, created: this.choice.value === NEW};
    if (this.choice.value === NEW) return {type: "create_character", character, name, stats};
    return {type: "update_character", character, name, stats, ...this.changes.basedOn()};
  }

  /** @param {{seqs?: number[]}} ack */
  saved(ack) {
    this.changes.saved(ack);
    const {character, name, created} = this.pending ?? {};
    if (created) {
      this.choice.value = NEW;
      this.load();
      this.status.textContent = `${name} (${character}) created.`;
    } else {
      this.status.textContent = `${name} saved.`;
    }
  }
}

/** An Error the form shows, marking the field at `path` (actions.js bindForm).
 * @param {string} message @param {string} path */
function refusal(message, path) {
  return Object.assign(new Error(message), {path});
}

/** A whole number from 0 to `max` from the field `words` names; an empty field is refused too
 * (`Number("")` is 0: an emptied Agility was saved as 0 without a word).
 * @param {FormDataEntryValue | null} raw @param {number} max @param {string} words @param {string} path */
function whole(raw, max, words, path) {
  const text = String(raw ?? "").trim();
  const value = Number(text);
  if (text === "" || !Number.isInteger(value) || value < 0 || value > max) {
    throw refusal(`${words} is a whole number from 0 to ${max}${text === "" ? ": it is empty" : ""}`, path);
  }
  return value;
}

customElements.define("ph-narrative-sheet", NarrativeSheet);
