// <ph-sr3-character>: the GM's form for a Shadowrun 3 character, new or existing: attributes,
// Reaction and initiative dice, skills (rating, linked attribute, kind), the gear that shapes
// the pools, and karma. No JSON: every field is a control named after the stats field it fills
// (`data-path` "$.stats.body"), so a refusal marks the control at fault. Built once; a table
// message only refreshes the list of characters, never what the GM is typing; when it changes
// the character being edited, the form says so (sheet-changed.js), and a save is sent with
// the sheet it was made from (`based_on`), which the server refuses if another save came since.
/** @import {NamedControls} from "../dom.js" */
import {h} from "../dom.js";
import {SheetChanges} from "../sheet-changed.js";
import {slugOf} from "../slug.js";
import {bindPathForm, labelled, setOptions, whole} from "./sr3_forms.js";
import {ATTRIBUTES} from "./sr3_declare.js";

/** @type {Array<[string, string]>} */
const CORE = [["body", "Body"], ["quickness", "Quickness"], ["strength", "Strength"],
              ["charisma", "Charisma"], ["intelligence", "Intelligence"], ["willpower", "Willpower"]];
/** @type {Array<[string, string, number | null, number, number]>} */
const MORE = [["magic", "Magic", 0, 0, 30], ["reaction", "Reaction (blank: (Q + I) / 2)", null, 0, 30],
              ["reaction_bonus", "Reaction bonus", 0, 0, 20],
              ["initiative_dice", "Initiative dice", 1, 1, 5]];
/** @type {Array<[string, string, number, number]>} */
const GEAR = [["ballistic", "Ballistic armor", 0, 30], ["impact", "Impact armor", 0, 30],
              ["vcr", "Vehicle control rig", 0, 3], ["mpcp", "Cyberterminal MPCP", 0, 20],
              ["encephalon", "Encephalon", 0, 4], ["math_spu", "Math SPU", 0, 4],
              ["task_activesoft", "Task Pool activesoft", 0, 12],
              ["cerebral_booster", "Cerebral booster", 0, 3], ["initiate_grade", "Initiate grade", 0, 30],
              ["karma_earned", "Karma earned", 0, 100000]];
/** @type {Array<[string, string]>} */
const FLAGS = [["hot_asist", "hot ASIST interface"], ["metahuman", "metahuman (Karma Pool)"]];
export const SKILL_KINDS = ["combat", "physical", "social", "technical", "build_repair", "vehicle",
                            "sorcery", "conjuring", "magical", "knowledge", "language"];
const NEW = "";

/**
 * A skill's id from what the GM typed: a group moving from a character sheet writes "Unarmed
 * Combat" or "Etiquette (Matrix)", and the server takes ids only ("unarmed-combat",
 * "etiquette-matrix"); the table shows an id as words again ("Unarmed combat"). Something with
 * no letter to start an id is left as typed, for the server to refuse naming the skill.
 * @param {string} typed
 * @returns {string}
 */
export function skillIdOf(typed) {
  const id = typed.trim().toLowerCase().normalize("NFKD").replace(/\p{M}/gu, "")
    .replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "");
  return /^[a-z]/.test(id) ? id : typed.trim().toLowerCase();
}

function numberInput(field, min, max, extra = {}) {
  return h("input", {type: "number", name: field, "data-path": `$.stats.${field}`, min, max,
                     inputmode: "numeric", class: "ph-sr3-number", ...extra});
}

export class Sr3Character extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    if (Object.hasOwn(this, "table")) { // set before this class was loaded: through the setter
      const table = this.table;
      delete this.table;
      this.table = table;
    }
    this.pick = h("select", {name: "pick", "aria-label": "Character to edit"});
    this.idInput = h("input", {name: "character", required: true, autocomplete: "off",
                          pattern: "[a-z0-9][a-z0-9_\\-]{0,39}", placeholder: "sam"});
    this.nameInput = h("input", {name: "name", required: true, autocomplete: "off", maxlength: 80,
                            placeholder: "Sam Shadow"});
    this.skills = h("tbody", {});
    this.submit = h("button", {type: "submit"}, "Create character");
    // what the last Create or Save did: the form goes on to edit a character just created,
    // which said nothing of its creation (the narrative form says "… created.")
    this.status = h("p", {class: "ph-muted ph-sr3-character-status", role: "status"});
    this.changes = new SheetChanges(() => this.load(), () => this.command());
    this.form = h("form", {class: "ph-sr3-character-form", "aria-label": "Shadowrun character"},
      h("h2", {}, "Characters"),
      h("div", {class: "ph-sr3-row"}, labelled("Edit", this.pick)),
      h("div", {class: "ph-sr3-row"}, labelled("Name", this.nameInput), labelled("Id", this.idInput)),
      h("fieldset", {}, h("legend", {}, "Attributes"), h("div", {class: "ph-sr3-grid"},
        CORE.map(([field, words]) => labelled(words, numberInput(field, 1, 30, {required: true}))),
        labelled("Essence", numberInput("essence", 0, 6, {step: "0.1", inputmode: "decimal"})),
        MORE.map(([field, words, , min, max]) => labelled(words, numberInput(field, min, max))))),
      h("fieldset", {"data-path": "$.stats.skills"}, h("legend", {}, "Skills"),
        h("div", {class: "ph-sr3-skills-box"}, h("table", {class: "ph-sr3-skills"},
          h("thead", {}, h("tr", {}, ["Skill", "Rating", "Attribute", "Kind"].map((text) =>
            h("th", {scope: "col"}, text)), // the remove buttons' column: named, not shown
            h("th", {scope: "col"}, h("span", {class: "ph-sr-only"}, "Remove")))), this.skills)),
        h("button", {type: "button", class: "ph-quiet", onclick: () => this.addSkill().focus()},
          "Add a skill")),
      h("details", {}, h("summary", {}, "Gear and karma"), h("div", {class: "ph-sr3-grid"},
        GEAR.map(([field, words, min, max]) => labelled(words, numberInput(field, min, max))),
        FLAGS.map(([field, words]) => h("label", {class: "ph-sr3-check"},
          h("input", {type: "checkbox", name: field, "data-path": `$.stats.${field}`}),
          h("span", {}, words))))),
      this.changes.notice, this.submit, this.status);
    this.pick.addEventListener("change", () => {
      this.load();
      this.status.textContent = "";
    });
    this.nameInput.addEventListener("input", () => {
      if (this.pick.value === NEW && !this.idTouched) {
        this.idInput.value = slugOf(this.nameInput.value, this.characters().map((c) => c.character));
      }
    });
    this.idInput.addEventListener("input", () => { this.idTouched = true; });
    bindPathForm(this.form, () => this.command(), (ack) => {
      this.changes.saved(ack);
      const name = this.nameInput.value.trim();
      if (this.pick.value === NEW) {
        const character = this.idInput.value.trim();
        this.pendingPick = character;
        this.render(); // the table holding it is drawn before the answer comes
        this.status.textContent = `${name} (${character}) created.`;
      } else {
        this.status.textContent = `${name} saved.`;
      }
    }, {failed: (error) => this.changes.refused(error)});
    this.append(this.form);
    this.load();
    this.render();
  }

  set table(value) {
    this._table = value;
    this.render();
  }

  characters() {
    return (this._table?.characters ?? []).filter((c) => c.stats?.system === "sr3");
  }

  render() {
    if (!this.form || !this._table) return;
    const characters = this.characters();
    setOptions(this.pick, [[NEW, "a new character"], ...characters.map((c) => [c.character, c.name])]);
    if (this.pendingPick && characters.some((c) => c.character === this.pendingPick)) {
      this.pick.value = this.pendingPick; // just created: go on editing it
      this.pendingPick = null;
      this.load();
    }
    this.changes.table(this._table);
  }

  /** Fill the form from the character picked (or the defaults of a new one). */
  load() {
    const found = this.characters().find((c) => c.character === this.pick.value);
    const stats = found?.stats ?? {body: 3, quickness: 3, strength: 3, charisma: 3,
                                    intelligence: 3, willpower: 3, essence: 6, skills: {}};
    this.idTouched = false;
    this.idInput.value = found?.character ?? "";
    this.idInput.readOnly = Boolean(found);
    this.nameInput.value = found?.name ?? "";
    const elements = /** @type {NamedControls} */ (this.form.elements);
    for (const [field] of CORE) elements[field].value = String(stats[field] ?? 3);
    elements.essence.value = String(stats.essence ?? 6);
    for (const [field, , fallback] of MORE) elements[field].value = stats[field] ?? fallback ?? "";
    for (const [field] of GEAR) elements[field].value = String(stats[field] ?? 0);
    for (const [field] of FLAGS) elements[field].checked = Boolean(stats[field]);
    this.skills.replaceChildren();
    for (const [name, skill] of Object.entries(stats.skills ?? {})) this.addSkill(name, skill);
    this.submit.textContent = found ? "Save changes" : "Create character";
    this.changes.opened(found);
  }

  addSkill(name = "", skill = {rating: 1, attribute: "quickness", kind: "physical"}) {
    const input = h("input", {name: "skill_name", "aria-label": "skill", value: name, required: true,
                              maxlength: 60, placeholder: "Pistols",
                              autocomplete: "off", class: "ph-sr3-skill-name"});
    const row = h("tr", {class: "ph-sr3-skill"},
      h("td", {}, input),
      h("td", {}, h("input", {type: "number", name: "skill_rating", "aria-label": "rating",
        min: 0, max: 20, value: String(skill.rating), class: "ph-sr3-number", inputmode: "numeric"})),
      h("td", {}, h("select", {name: "skill_attribute", "aria-label": "linked attribute"},
        ATTRIBUTES.map((a) => h("option", {value: a, selected: a === skill.attribute}, a)))),
      h("td", {}, h("select", {name: "skill_kind", "aria-label": "kind"},
        SKILL_KINDS.map((k) => h("option", {value: k, selected: k === skill.kind},
          k.replace("_", "/"))))),
      h("td", {}, h("button", {type: "button", class: "ph-quiet", onclick: () => row.remove()},
        "✕")));
    // the button names its skill, as typed (every row's read "remove skill")
    const named = () => row.querySelector("button")
      ?.setAttribute("aria-label", `remove ${input.value.trim() || "this skill"}`);
    input.addEventListener("input", named);
    named();
    this.skills.append(row);
    return input;
  }

  command() {
    const elements = /** @type {NamedControls} */ (this.form.elements);
    const stats = {system: "sr3"};
    for (const [field] of CORE) stats[field] = whole(elements[field]);
    const essence = String(elements.essence.value).trim();
    if (essence !== "") stats.essence = Number(essence);
    for (const [field] of MORE) {
      const value = whole(elements[field]);
      if (value !== null) stats[field] = value;
    }
    for (const [field] of GEAR) stats[field] = whole(elements[field], 0);
    for (const [field] of FLAGS) stats[field] = elements[field].checked;
    stats.skills = {};
    for (const [i, row] of [...this.skills.querySelectorAll("tr")].entries()) {
      const [name, rating, attribute, kind] = /** @type {NodeListOf<HTMLInputElement>} */ (
        row.querySelectorAll("input, select"));
      const id = skillIdOf(name.value);
      if (!id) { // refused, naming the row, as the narrative form does: dropping it lost its rating
        name.dataset.path = `$.skill_row_${i + 1}`;
        throw Object.assign(new Error(`skill row ${i + 1} has no name: name the skill, or remove its row`),
                            {path: name.dataset.path});
      }
      name.value = id; // the GM sees the id the skill is saved under
      if (Object.hasOwn(stats.skills, id)) throw new Error(`the skill “${id}” is listed twice`);
      name.dataset.path = `$.stats.skills.${id}`;
      rating.dataset.path = `$.stats.skills.${id}.rating`;
      attribute.dataset.path = `$.stats.skills.${id}.attribute`;
      kind.dataset.path = `$.stats.skills.${id}.kind`;
      stats.skills[id] = {rating: whole(rating, 0), attribute: attribute.value, kind: kind.value};
    }
    const command = {character: this.idInput.value.trim(), name: this.nameInput.value.trim(), stats};
    if (this.pick.value === NEW) return {type: "create_character", ...command};
    return {type: "update_character", ...command, ...this.changes.basedOn()};
  }
}

customElements.define("ph-sr3-character", Sr3Character);
