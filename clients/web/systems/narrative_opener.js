// <ph-narrative-opener>: open a check for one of your characters (every one for the GM): the
// skill from the character's sheet (or an untrained one, naming its characteristic), whom it
// is against, why. The server builds the pool from the sheet; the check appears for everyone.
/** @import {NamedControls} from "../dom.js" */
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {visibilityChoice, visibilityOf} from "../visibility.js";
import {CHARACTERISTICS} from "./narrative_words.js";
import {levelWords} from "./narrative_describe.js";
import {labelled, reasonInput, reasonOf, setOptions} from "./narrative_forms.js";

const OTHER = "*other"; // never a skill name: those start with a letter

export class NarrativeOpener extends HTMLElement {
  update({characters, mine, me}) {
    if (!this.form) this.build(me);
    this.characters = characters;
    const own = characters.filter((c) => mine.has(c.character));
    this.hidden = own.length === 0;
    setOptions(this.character, own.map((c) => [c.character, c.name]));
    setOptions(this.target, [["", "no one"], ...characters.map((c) => [c.character, c.name])], "");
    this.skills();
  }

  build(me) {
    this.character = h("select", {name: "character"});
    this.skill = h("select", {name: "skill"});
    this.other = h("input", {name: "other_skill", maxlength: 40, autocomplete: "off",
                             placeholder: "e.g. Stealth", "aria-label": "untrained skill",
                             "data-path": "$.skill"}); // the skill a refusal names, when shown
    this.otherField = labelled("untrained skill", this.other, {hidden: true});
    this.characteristic = h("select", {name: "characteristic"}, h("option", {value: ""}, "the skill's"),
      CHARACTERISTICS.map((c) => h("option", {value: c}, levelWords(c))));
    this.target = h("select", {name: "target"});
    this.character.addEventListener("change", () => this.skills());
    this.skill.addEventListener("change", () => {
      this.skillChosen = true; // the member's choice: kept while the character's skills change
      this.untrained();
    });
    this.form = h("form", {class: "ph-nc-form ph-nd-open", "aria-label": "Open a check"},
      h("h2", {}, "Open a check"),
      labelled("character", this.character), labelled("skill", this.skill), this.otherField,
      labelled("characteristic", this.characteristic), labelled("against", this.target),
      reasonInput(), visibilityChoice(me), h("button", {type: "submit"}, "Open check"));
    bindForm(this.form, (data) => {
      const trained = String(data.get("skill"));
      const skill = trained === OTHER ? String(data.get("other_skill") ?? "").trim() : trained;
      if (!skill) throw new Error("name the skill");
      const characteristic = String(data.get("characteristic") ?? "");
      const target = String(data.get("target") ?? "");
      return {type: "open_check", character: String(data.get("character")), skill,
              ...(characteristic ? {characteristic} : {}), ...(target ? {target} : {}), ...reasonOf(data),
              ...visibilityOf(data)};
    }, () => { /** @type {NamedControls} */ (this.form.elements).reason.value = ""; });
    this.append(this.form);
  }

  /** The chosen character's skills from their sheet, with rank and characteristic. */
  skills() {
    const sheet = this.characters?.find((c) => c.character === this.character.value)?.stats;
    const skills = Object.entries(sheet?.skills ?? {}).sort(([a], [b]) => a.localeCompare(b));
    setOptions(this.skill, [...skills.map(([name, skill]) =>
      [name, `${name} (rank ${skill.rank}, ${levelWords(skill.characteristic)})`]),
      [OTHER, "another skill (untrained)…"]]);
    if (this.skillsOf !== this.character.value) {
      this.skillsOf = this.character.value; // another character: start from their first skill
      this.skillChosen = false;
    }
    // until the member picks a skill, the first of the sheet as it is now: a character who
    // gains a skill no longer stays on "another skill (untrained)", the only choice they had
    if (!this.skillChosen) this.skill.selectedIndex = 0;
    this.untrained();
  }

  untrained() {
    this.otherField.hidden = this.skill.value !== OTHER;
  }
}

customElements.define("ph-narrative-opener", NarrativeOpener);
