// <ph-sr3-declare>: a player declares a test for their own character (the GM for anyone): what
// is rolled (a skill, an attribute, a number of dice, or pool dice alone for a Dodge), the kind
// of test (which decides the pools it may draw on), the target number or an open test, the
// test it answers and the situation. The server answers with the odds (`test:<character>`),
// shown by <ph-sr3-declared>. The form is built once; table messages only refresh its options.
// A declaration is public; with "who sees this roll" set to a private choice the same form
// rolls the test at once instead (`roll_pool_test` with its visibility, no pool dice), so a
// GM's secret test or a player's blind one shows nothing of what it is before it is rolled.
import {h} from "../dom.js";
import {visibilityChoice} from "../visibility.js";
import {bindPathForm, labelled, setOptions, whole} from "./sr3_forms.js";

export const TEST_KINDS = [
  ["other", "other"], ["combat", "combat (attack)"],
  ["dodge", "dodge"], ["damage_resistance", "damage resistance"], ["perception", "perception"],
  ["control", "vehicle control (rigged)"], ["matrix", "Matrix"],
  ["matrix_etiquette", "Etiquette (Matrix)"], ["ic_resistance", "resisting IC"],
  ["spell", "spellcasting"], ["spell_defense", "spell defense"], ["dispelling", "dispelling"],
  ["drain", "drain resistance"], ["spell_resistance", "spell resistance"],
  ["conjuring", "conjuring"], ["magical_skill", "other magical skill"],
];
const SKILL_KIND_TESTS = {combat: "combat", sorcery: "spell", conjuring: "conjuring",
                          magical: "magical_skill", vehicle: "control"};
export const ATTRIBUTES = ["body", "quickness", "strength", "charisma", "intelligence",
                           "willpower", "magic", "reaction"];
const FLAGS = [["surprised", "surprised"], ["rigged", "rigged into the vehicle"],
               ["astral", "on the astral plane"], ["magic", "magic-related"],
               ["elemental", "elemental manipulation spell"]];

/** An id as words: "unarmed-combat" -> "Unarmed combat". */
export function title(word) {
  const plain = word.replaceAll("_", " ").replaceAll("-", " ");
  return plain[0].toUpperCase() + plain.slice(1);
}

/** The dice an attribute test of `name` rolls, as the server counts them
 * (server/rules/sr3_tests.py `_attribute`): Reaction, which the stats may leave blank, is its
 * natural rating ((Quickness + Intelligence) / 2, rounded down, unless given) plus its bonus. */
function attributeDice(stats, name) {
  if (name !== "reaction") return stats[name];
  const natural = stats.reaction ?? Math.floor((stats.quickness + stats.intelligence) / 2);
  return natural + (stats.reaction_bonus ?? 0);
}

export class Sr3Declare extends HTMLElement {
  constructor() {
    super();
    this.characters = [];
    /** @type {{member: string, role: string} | null} who this page is (set before it is drawn) */
    this.me = null;
  }

  connectedCallback() {
    if (this.form) return;
    const number = (name, extra = {}) => h("input", {type: "number", name, inputmode: "numeric",
                                                      class: "ph-sr3-number", ...extra});
    this.character = h("select", {name: "character"});
    this.base = h("select", {name: "skill", "data-path": "$.skill"});
    this.dice = number("dice", {min: 0, max: 100, value: "4"});
    this.diceField = labelled("Dice", this.dice, {hidden: true});
    this.kind = h("select", {name: "kind"},
      TEST_KINDS.map(([value, text]) => h("option", {value}, text)));
    this.tn = number("tn", {min: 2, max: 100, value: "4"});
    this.open = h("input", {type: "checkbox", name: "open"});
    this.opposes = number("opposes", {min: 1, placeholder: "—"});
    this.reason = h("input", {name: "reason", maxlength: 200, autocomplete: "off",
                              placeholder: "optional"});
    this.visibility = visibilityChoice(this.me, {oneShot: true});
    this.submit = h("button", {type: "submit"}, "Declare");
    this.visibility?.addEventListener("change", () => {
      this.submit.textContent = this.private() ? "Roll in private" : "Declare";
    });
    this.form = h("form", {class: "ph-sr3-declare-form", "aria-label": "Declare a test"},
      h("h2", {}, "Declare a test"),
      h("div", {class: "ph-sr3-row"},
        labelled("Character", this.character), labelled("Roll", this.base), this.diceField,
        labelled("Test", this.kind)),
      h("div", {class: "ph-sr3-row"},
        labelled("Target number", this.tn),
        h("label", {class: "ph-sr3-check"}, this.open, h("span", {}, "open test (no TN)")),
        labelled("Against test #", this.opposes)),
      h("details", {class: "ph-sr3-situation"}, h("summary", {}, "Situation"),
        h("div", {class: "ph-sr3-row"}, FLAGS.map(([name, words]) => h("label",
          {class: "ph-sr3-check"}, h("input", {type: "checkbox", name}), h("span", {}, words))))),
      h("div", {class: "ph-sr3-row"}, labelled("Reason", this.reason),
        this.visibility, this.submit));
    this.character.addEventListener("change", () => this.refreshBase());
    this.base.addEventListener("change", () => this.baseChosen());
    this.kind.addEventListener("change", () => {
      if (this.kind.value === "dodge") this.base.value = "none";
      this.diceField.hidden = this.base.value !== "dice";
    });
    this.open.addEventListener("change", () => {
      this.tn.disabled = this.open.checked;
    });
    // declared (or rolled in private): the next test has its own reason, and answers a test
    // only if told which (a test # left in place had the next attack recorded as answering an
    // old one); a refusal keeps both
    bindPathForm(this.form, () => this.command(), () => {
      this.reason.value = "";
      this.opposes.value = "";
    });
    this.append(this.form);
    this.update(this.characters);
  }

  /** The characters this member may declare tests for. */
  update(characters) {
    this.characters = characters.filter((c) => c.stats?.system === "sr3");
    if (!this.form) return;
    this.hidden = this.characters.length === 0;
    setOptions(this.character, this.characters.map((c) => [c.character, c.name]));
    this.refreshBase();
  }

  refreshBase() {
    const stats = this.characters.find((c) => c.character === this.character.value)?.stats;
    const skills = Object.entries(stats?.skills ?? {});
    const options = [
      ...skills.map(([name, skill]) => [`skill:${name}`, `${title(name)} ${skill.rating}`]),
      ...ATTRIBUTES.filter((name) => name !== "magic" || stats?.magic)
        .map((name) => [`attribute:${name}`, `${title(name)}${stats ? ` ${attributeDice(stats, name)}` : ""}`]),
      ["dice", "a number of dice"], ["none", "pool dice only (dodge)"]];
    const another = this.baseFor !== this.character.value;
    if (another) {
      this.baseFor = this.character.value; // another character: start from their first skill
      this.base.value = "";
    }
    setOptions(this.base, options);
    if (another) this.baseChosen();
    this.diceField.hidden = this.base.value !== "dice";
  }

  baseChosen() {
    this.diceField.hidden = this.base.value !== "dice";
    const [source, name] = this.base.value.split(":");
    if (this.base.value === "none") {
      this.kind.value = "dodge";
    } else if (source === "skill") {
      const stats = this.characters.find((c) => c.character === this.character.value)?.stats;
      const suggested = SKILL_KIND_TESTS[stats?.skills?.[name]?.kind];
      this.kind.value = suggested ?? (this.kind.value === "dodge" ? "other" : this.kind.value);
    } else if (this.kind.value === "dodge") {
      this.kind.value = "other";
    }
  }

  /** Whether the chosen visibility is a private one (the form then rolls, not declares). */
  private() {
    return Boolean(this.visibility && this.visibility.value !== "public");
  }

  /** The test as the commands' fields (shared by declare_pool_test and roll_pool_test). */
  command() {
    const form = this.form;
    const test = this.private()
      ? {type: "roll_pool_test", visibility: this.visibility.value}
      : {type: "declare_pool_test"};
    test.character = this.character.value;
    test.kind = this.kind.value;
    if (!test.character) throw new Error("choose a character");
    const [source, name] = this.base.value.split(":");
    if (source === "skill") test.skill = name;
    if (source === "attribute") test.attribute = name;
    if (source === "dice") { // an empty field was sent as 0 dice
      test.dice = whole(this.dice);
      if (test.dice === null) throw Object.assign(new Error("Dice is empty: give a whole number"), {path: "$.dice"});
    }
    if (this.open.checked) test.open = true;
    else {
      const tn = whole(this.tn);
      if (tn !== null) test.tn = tn;
    }
    const opposes = whole(this.opposes);
    if (opposes !== null) test.opposes = opposes;
    for (const [flag] of FLAGS) if (form.elements[flag].checked) test[flag] = true;
    const reason = this.reason.value.trim();
    if (reason) test.reason = reason;
    return test;
  }
}

customElements.define("ph-sr3-declare", Sr3Declare);
