// <ph-conditions>: each character's conditions (events/conditions.py): narrative wounds and
// strain with their thresholds, soak and defence; SR3 Physical and Stun Condition Monitors
// (10 boxes; their wound modifiers reach every target number, shown with the test's odds);
// none for d12, whose sources give none. The GM and the character's player set them; every
// change is a `set_condition` command and a `condition_changed` event. A character with every
// condition at 0 reads "nothing marked"; once one is set, its card lists them all. An SR3 card also says
// what the wounds do ("Serious (Physical): +3 TN, −3 initiative", or "Unconscious: does not
// act"), from the `sheets` view: the server works it out with the functions its rules apply.
import {h, replace} from "../dom.js";
import {bindForm, clearWhenChanged, wholeField} from "../actions.js";

// the names events/conditions.py CONDITIONS gives each system (the server refuses any other)
const CONDITIONS = {
  narrative: [["wound_threshold", "wound threshold"], ["wounds", "wounds"],
              ["strain_threshold", "strain threshold"], ["strain", "strain"], ["soak", "soak"],
              ["melee_defence", "melee defence"], ["ranged_defence", "ranged defence"]],
  sr3: [["physical", "Physical boxes"], ["stun", "Stun boxes"]],
};

/** @param {string} word */
function capital(word) {
  return word[0].toUpperCase() + word.slice(1);
}

/** What an SR3 character's wounds do, from the `sheets` view's `wounds`; "" when unhurt.
 * @param {{physical: string, stun: string, modifier: number, out?: string | null} | undefined} wounds */
export function sr3WoundWords(wounds) {
  if (!wounds) return "";
  if (wounds.out) return `${capital(wounds.out)}: does not act`;
  if (!wounds.modifier) return "";
  const levels = [["physical", "Physical"], ["stun", "Stun"]]
    .filter(([monitor]) => wounds[monitor] !== "unhurt")
    .map(([monitor, words]) => `${capital(wounds[monitor])} (${words})`);
  return `${levels.join(", ")}: +${wounds.modifier} TN, −${wounds.modifier} initiative`;
}

/** What a character's conditions do, by system (the server sends it in a view). */
const EFFECTS = {
  sr3: (views, character) => sr3WoundWords(views?.get("sheets")?.sheets?.[character]?.wounds),
};

export class PhConditions extends HTMLElement {
  /** @param {Map<string, any> | undefined} views the table's views (an effect is read there) */
  update(table, me, views = undefined) {
    const names = CONDITIONS[table?.system];
    const none = !names || !table.characters.length;
    if (this.hidden !== none) this.hidden = none; // the same value written is still a change
    if (!names) return;
    if (!this.list) {
      this.list = h("div", {class: "ph-conditions-list"});
      this.append(h("h2", {}, "Conditions"), this.list);
      this.cards = new Map();
    }
    const own = new Set(me?.role === "gm" ? table.characters.map((c) => c.character)
      : table.members.find((m) => m.member === me?.member)?.characters ?? []);
    for (const c of table.characters) {
      let card = this.cards.get(c.character);
      if (!card) {
        card = this.card(c);
        this.cards.set(c.character, card);
        this.list.append(card.node);
      }
      const mine = own.has(c.character); // the GM may give or take a character at any time
      if (card.mine !== mine) {
        card.form?.remove();
        card.current = c.conditions ?? {};
        card.follow = null;
        card.form = mine ? this.form(c, names, card) : null;
        if (card.form) card.node.append(card.form);
        card.mine = mine;
      }
      card.current = c.conditions ?? {};
      card.follow?.();
      clearWhenChanged(card.node, JSON.stringify([c.name, c.conditions ?? {}]));
      const effect = EFFECTS[table.system]?.(views, c.character) ?? "";
      const key = JSON.stringify([c.name, c.conditions ?? {}, effect]);
      if (card.key !== key) {
        card.key = key;
        card.title.textContent = c.name;
        // a character with nothing marked is one muted line (a four-character narrative
        // table read 28 values of 0 before the GM set anything)
        const marked = names.some(([name]) => c.conditions?.[name]);
        replace(card.values, marked
          // a comma between values (sr-only: the gap shows it), as a screen reader read
          // "wounds 2strain 1" with the spans run together
          ? names.map(([name, words], i) => [i ? h("span", {class: "ph-sr-only"}, ", ") : null,
            h("span", {class: "ph-condition", "data-condition": name},
              `${words} ${c.conditions?.[name] ?? 0}`)])
          : h("span", {class: "ph-muted ph-conditions-none"}, "nothing marked"));
        card.effect.textContent = effect;
        card.effect.hidden = !effect;
      }
    }
  }

  card(character) {
    const title = h("h3", {});
    const values = h("p", {class: "ph-condition-values"});
    const effect = h("p", {class: "ph-condition-effect", hidden: true});
    const node = h("article", {class: "ph-conditions-card", "data-character": character.character},
      title, values, effect);
    return {node, title, values, effect, key: null, mine: false, form: null, current: {},
            follow: null};
  }

  /** The form that sets a condition: the GM's, and the character's player's. Its number starts
   * at the condition's current value (it started at 0: adding 2 strain meant working it out)
   * and follows it as it changes, until someone types in it; choosing another condition, or
   * setting one, goes back to following.
   * @param {{character: string, name: string}} character @param {string[][]} names
   * @param {{current: Record<string, number>, follow: (() => void) | null}} card */
  form(character, names, card) {
    const condition = h("select", {name: "condition", "aria-label": "condition"},
      names.map(([name, words]) => h("option", {value: name}, words)));
    const value = h("input", {name: "value", type: "number", min: 0, max: 99, value: "0",
                              inputmode: "numeric", "aria-label": "value", class: "ph-nd-count"});
    let typed = false;
    card.follow = () => {
      if (!typed) value.value = String(card.current[condition.value] ?? 0);
    };
    value.addEventListener("input", () => { typed = true; });
    condition.addEventListener("change", () => {
      typed = false;
      card.follow?.();
    });
    const form = h("form", {class: "ph-nc-form ph-conditions-form",
                            "aria-label": `Set a condition of ${character.name}`},
      condition, value, h("button", {type: "submit"}, "Set"));
    bindForm(form, (data) => ({type: "set_condition", character: character.character,
      condition: String(data.get("condition")), value: wholeField(data, "value", "the value")}),
      () => {
        typed = false;
        card.follow?.();
      });
    card.follow();
    return form;
  }
}

customElements.define("ph-conditions", PhConditions);
