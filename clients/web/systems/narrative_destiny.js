// <ph-narrative-destiny>: the destiny pool as light and dark tokens, who rolled what, and the
// controls to spend a point (a player flips light, the GM dark, on a check or not) and, for
// the GM, to roll the pool for the session or set it.
/** @import {NamedControls} from "../dom.js" */
import {h, replace} from "../dom.js";
import {bindButton, bindForm, clearWhenChanged} from "../actions.js";
import {DESTINY_MAX, EFFECTS} from "./narrative_words.js";
import {effectWords} from "./narrative_describe.js";
import {destinyToken, narrativeDie} from "./narrative_dice.js";
import {labelled, offerPoints, pointsNote, reasonInput, reasonOf, setOptions, wholeNumber} from "./narrative_forms.js";

export class NarrativeDestiny extends HTMLElement {
  update({destiny, me, names, openChecks}) {
    if (!this.built) this.build(me);
    // a refusal is about the pool and the open checks as they were ("no dark side destiny point
    // left", "the light side already did on 'orjan-1'"): it goes when either changes
    clearWhenChanged(this, JSON.stringify([destiny.light, destiny.dark, openChecks.map((c) => [c.check, c.destiny])]));
    const words = `${destiny.light} light, ${destiny.dark} dark`;
    if (this.count.textContent !== words) { // a live region: said once per change
      replace(this.tokens,
        Array.from({length: destiny.light}, () => destinyToken("light")),
        Array.from({length: destiny.dark}, () => destinyToken("dark")));
      this.count.textContent = words;
    }
    const rolled = JSON.stringify(destiny.rolled);
    if (rolled !== this.rolledKey) {
      this.rolledKey = rolled;
      replace(this.rolled, destiny.rolled.length ? [h("span", {class: "ph-muted"}, "rolled: "),
        destiny.rolled.map((die) => h("span", {class: "ph-nd-destiny-die"}, names.member(die.member), " ",
          narrativeDie("force", die.symbols ?? [])))] : null);
    }
    this.checks(names, openChecks);
    this.offer(destiny);
  }

  /** A side with 0 points has nothing to spend: its button is off, the reason beside it. */
  offer(destiny) {
    for (const [button, note, side] of this.spendButtons ?? []) offerPoints(button, note, destiny[side], side);
    if (this.lightAsk?.disabled && this.lightConfirm && !this.lightConfirm.hidden) this.askLight?.(false);
  }

  /** The open checks a point may be spent on. */
  checks(names, openChecks) {
    if (this.checkSelect) {
      setOptions(this.checkSelect, [["", "no check"],
        ...openChecks.map((c) => [c.check, `${names.character(c.character)}'s ${c.skill} (${c.check})`])], "");
    }
  }

  build(me) {
    this.built = true;
    this.tokens = h("span", {class: "ph-nd-tokens"});
    this.count = h("span", {class: "ph-nd-destiny-count", "aria-live": "polite"});
    this.rolled = h("p", {class: "ph-nd-destiny-rolled"});
    this.append(h("h2", {}, "Destiny pool"),
      h("p", {class: "ph-nd-destiny-pool"}, this.tokens, this.count), this.rolled);
    if (me.role === "gm" || me.role === "player") this.append(this.spendForm(me.role === "gm"));
    if (me.role === "gm") this.append(this.gmControls());
  }

  spendForm(gm) {
    this.checkSelect = h("select", {name: "check"});
    const effect = h("select", {name: "effect"}, EFFECTS.map((value) => h("option", {value}, effectWords(value))));
    effect.value = "other";
    const side = gm ? "dark" : "light";
    const spend = h("button", {type: "submit", name: "side", value: side, class: `ph-nd-spend-${side}`},
      `Spend a ${side} side point`);
    const note = pointsNote();
    /** @type {[HTMLButtonElement, HTMLElement, "light" | "dark"][]} */
    this.spendButtons = [[spend, note, side]];
    const buttons = [spend, note, ...(gm ? this.lightForAPlayer() : [])];
    const form = h("form", {class: "ph-nc-form ph-nd-spend", "aria-label": "Spend a destiny point"},
      labelled("to", effect), labelled("on", this.checkSelect), reasonInput(), buttons);
    bindForm(form, (data) => {
      const check = String(data.get("check") ?? "");
      return {type: "flip_destiny", side: String(data.get("side") ?? (gm ? "dark" : "light")),
              effect: String(data.get("effect")), ...(check ? {check} : {}), ...reasonOf(data)};
    }, () => {
      /** @type {NamedControls} */ (form.elements).reason.value = "";
      this.askLight?.(false);
    });
    return form;
  }

  /** The GM's "Spend light for a player" -> "Spend one of the players' light side points?"
   * [Yes, spend light] [Keep it]: it is the players' pool, and one stray click spent it. */
  lightForAPlayer() {
    const ask = h("button", {type: "button", class: "ph-quiet"}, "Spend light for a player");
    const yes = h("button", {type: "submit", name: "side", value: "light", class: "ph-danger ph-small"},
      "Yes, spend light");
    const keep = h("button", {type: "button", class: "ph-quiet ph-small", "data-ph-cancel": ""}, "Keep it");
    const confirm = h("span", {class: "ph-confirm", hidden: true},
      h("span", {}, "Spend one of the players' light side points, for a player, as chosen above?"),
      yes, keep);
    /** @param {boolean} asked */
    this.askLight = (asked) => {
      const had = confirm.contains(document.activeElement);
      ask.hidden = asked;
      confirm.hidden = !asked;
      if (asked) yes.focus();
      else if (had || document.activeElement === document.body) ask.focus();
    };
    ask.addEventListener("click", () => this.askLight?.(true));
    keep.addEventListener("click", () => this.askLight?.(false));
    const note = pointsNote();
    this.lightAsk = ask;
    this.lightConfirm = confirm;
    this.spendButtons?.push([ask, note, "light"]);
    return [ask, note, confirm];
  }

  gmControls() {
    const roll = h("button", {type: "button"}, "Roll the destiny pool");
    bindButton(roll, () => ({type: "roll_destiny_pool"}));
    const number = (name) => h("input", {name, type: "number", min: 0, max: DESTINY_MAX, value: "0",
                                         inputmode: "numeric", class: "ph-nd-count", required: true});
    const set = h("form", {class: "ph-nc-form ph-nd-set", "aria-label": "Set the destiny pool"},
      labelled("light", number("light")), labelled("dark", number("dark")),
      h("button", {type: "submit", class: "ph-quiet"}, "Set the pool"));
    bindForm(set, (data) => ({type: "set_destiny_pool", light: wholeNumber(data, "light", "light"),
                              dark: wholeNumber(data, "dark", "dark")}));
    return h("div", {class: "ph-nd-gm-destiny"}, h("div", {"data-ph-errors": "", class: "ph-nc-actions"}, roll), set);
  }
}

customElements.define("ph-narrative-destiny", NarrativeDestiny);
