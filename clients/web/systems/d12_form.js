// Form parts the d12 controls share: option lists updated in place (a `table` message after
// every change must not disturb a form someone is filling in) and the DT fields (a DT the GM
// sets, or an opponent's stat that sets it), named after the commands' fields.
import {h} from "../dom.js";

/** Give `select` these [value, label] options, keeping its choice; untouched if unchanged. */
export function setOptions(select, options) {
  const signature = JSON.stringify(options);
  if (select.dataset.options === signature) return;
  const chosen = select.value;
  select.replaceChildren(...options.map(([value, label]) => h("option", {value}, label)));
  select.dataset.options = signature;
  if (options.some(([value]) => value === chosen)) select.value = chosen;
}

/** The d12 ratings of a character entry of the `table` message ({} if it has none). */
export function ratingsOf(character) {
  return character?.stats?.system === "d12" ? character.stats.ratings : {};
}

/** The DT of a call or of the next round: `dt`, or `opponent` and `opponent_stat`. */
export class DtFields {
  constructor() {
    this.dt = h("input", {type: "number", name: "dt", min: 1, max: 12, inputmode: "numeric",
                          class: "ph-d12-number"});
    this.opponent = h("select", {name: "opponent"});
    this.stat = h("select", {name: "opponent_stat"});
    this.statLabel = h("label", {}, "stat ", this.stat);
    this.node = h("fieldset", {class: "ph-d12-dt"},
      h("legend", {}, "Difficulty Threshold"),
      h("label", {}, "DT ", this.dt),
      h("label", {}, "or from ", this.opponent),
      this.statLabel);
    this.characters = [];
    this.opponent.addEventListener("change", () => this.sync());
    this.sync();
  }

  /** The characters an opponent may be (the table's, with their ratings), all but the one
   * tested (`tested`: a character is not their own opponent; the list offered Han against
   * Han's own CON). */
  update(characters, tested = "") {
    this.characters = characters.filter((c) => c.character !== tested);
    setOptions(this.opponent, [["", "no opponent"],
      ...this.characters.map((c) => [c.character, c.name])]);
    this.sync();
  }

  sync() {
    const chosen = this.characters.find((c) => c.character === this.opponent.value);
    setOptions(this.stat, Object.entries(ratingsOf(chosen)).map(([stat, rating]) =>
      [stat, `${stat} ${rating}`]));
    this.statLabel.hidden = !chosen;
    this.dt.disabled = Boolean(chosen);
  }

  /** Back to no DT and no opponent, the DT field enabled again (a call made: the next one
   * has its own DT; an opponent left chosen kept the DT field disabled unseen). */
  clear() {
    this.dt.value = "";
    this.opponent.value = "";
    this.sync();
  }

  /** The command's DT fields from what the GM chose (the server checks them). */
  fields() {
    if (this.opponent.value) return {opponent: this.opponent.value, opponent_stat: this.stat.value || null};
    return this.dt.value === "" ? {} : {dt: Number(this.dt.value)};
  }
}
