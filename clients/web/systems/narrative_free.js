// <ph-narrative-free>: dice outside a check: a free narrative pool (any dice, for a character
// or none) and Force dice for a character's power. The server rolls; the log draws them.
/** @import {NamedControls} from "../dom.js" */
import {h} from "../dom.js";
import {bindForm, rolled} from "../actions.js";
import {visibilityChoice, visibilityOf} from "../visibility.js";
import {KINDS, narrativeDie} from "./narrative_dice.js";
import {countInput, labelled, reasonInput, reasonOf, setOptions, wholeNumber} from "./narrative_forms.js";

export class NarrativeFree extends HTMLElement {
  update({characters, mine, me}) {
    if (!this.pool) this.build(me);
    const own = characters.filter((c) => mine.has(c.character)).map((c) => [c.character, c.name]);
    setOptions(this.poolCharacter, [["", "no character"], ...own], "");
    setOptions(this.forceCharacter, own);
    this.force.hidden = own.length === 0;
  }

  build(me) {
    // the die is the word's picture: hidden from screen readers, so the count's name is
    // "proficiency", not "proficiency die proficiency"
    const picture = (kind) => {
      const die = narrativeDie(kind);
      die.setAttribute("aria-hidden", "true");
      return die;
    };
    const counts = KINDS.map((kind) => h("label", {class: "ph-nd-kind"}, picture(kind),
      h("span", {class: "ph-nd-label"}, kind),
      h("input", {name: kind, type: "number", min: 0, max: 20, value: "0", inputmode: "numeric",
                  class: "ph-nd-count"})));
    this.poolCharacter = h("select", {name: "character", "aria-label": "for character"});
    this.pool = h("form", {class: "ph-nc-form ph-nd-free-pool", "aria-label": "Roll a free pool"},
      h("fieldset", {name: "pool", class: "ph-nd-kinds"}, h("legend", {}, "Dice"), counts),
      this.poolCharacter, reasonInput(), visibilityChoice(me, {oneShot: true}),
      h("button", {type: "submit"}, "Roll pool"));
    bindForm(this.pool, (data) => {
      const pool = {};
      for (const kind of KINDS) {
        const count = wholeNumber(data, kind, `the number of ${kind} dice`);
        if (count) pool[kind] = count;
      }
      if (!Object.keys(pool).length) throw new Error("choose at least one die");
      const character = String(data.get("character") ?? "");
      return {type: "roll_pool", pool, ...(character ? {character} : {}), ...reasonOf(data),
              ...visibilityOf(data)};
    }, (ack) => {
      for (const kind of KINDS) /** @type {NamedControls} */ (this.pool.elements)[kind].value = "0";
      /** @type {NamedControls} */ (this.pool.elements).reason.value = "";
      rolled(this, ack); // its result by the roll form: the form is reset, the log out of sight
    });
    this.forceCharacter = h("select", {name: "character"});
    // not "ph-nd-force": the Force die's class, whose dark ink was the form's words (1.15:1 on
    // the dark card)
    this.force = h("form", {class: "ph-nc-form ph-nd-force-form", "aria-label": "Roll Force dice"},
      labelled("Force dice for", this.forceCharacter), labelled("how many", countInput()),
      reasonInput("power (optional)"), h("button", {type: "submit"}, "Roll Force dice"));
    bindForm(this.force, (data) => ({type: "roll_force_dice", character: String(data.get("character")),
      count: wholeNumber(data, "count", "how many"), ...reasonOf(data)}),
    (ack) => {
      /** @type {NamedControls} */ (this.force.elements).reason.value = "";
      rolled(this, ack);
    });
    this.append(h("h2", {}, "Free dice"), this.pool, this.force);
  }
}

customElements.define("ph-narrative-free", NarrativeFree);
