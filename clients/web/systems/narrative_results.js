// <ph-narrative-results>: the latest checks closed at the table, newest first: the faces that
// came up drawn as dice and the result in words (as the CheckRolled event recorded it), or
// "cancelled". A closed check never changes, so each is built once.
import {h, replace} from "../dom.js";
import {levelWords} from "./narrative_describe.js";
import {resultSymbols, resultWords, rolledDice} from "./narrative_dice.js";
import {spendPart} from "./narrative_encounter.js";

export class NarrativeResults extends HTMLElement {
  update({closed, names, me = null, mine = new Set()}) {
    if (!this.list) {
      this.list = h("ol", {class: "ph-nd-results"});
      this.empty = h("p", {class: "ph-muted"}, "No check rolled yet.");
      this.append(h("h2", {}, "Latest results"), this.empty, this.list);
      this.items = new Map();
    }
    const ordered = [...closed].sort((a, b) => (b.rolled_seq ?? 0) - (a.rolled_seq ?? 0));
    const wanted = new Set(ordered.map((c) => c.check));
    for (const [id, item] of this.items) {
      if (!wanted.has(id)) {
        item.remove();
        this.items.delete(id);
      }
    }
    for (const check of ordered) {
      if (!this.items.has(check.check)) this.items.set(check.check, this.item(check, names));
    }
    this.list.replaceChildren(...ordered.map((c) => this.items.get(c.check)));
    this.empty.hidden = ordered.length > 0;
    for (const check of ordered) this.spends(check, names, me, mine);
  }

  /** What is left of the result and what was spent: the only part of a closed check that
   * changes (each spend is an event); redrawn only when it did. */
  spends(check, names, me, mine) {
    const slot = this.items.get(check.check)?.querySelector(".ph-nd-spend-slot");
    if (!slot) return;
    const mayAct = Boolean(me) && (me.role === "gm" || (me.role === "player" && mine.has(check.character)));
    const key = JSON.stringify([check.left, check.spends, mayAct]);
    if (slot.dataset.key === key) return;
    slot.dataset.key = key;
    replace(slot, spendPart(check, {me, names, mayAct}));
  }

  item(check, names) {
    const who = `${names.character(check.character)}'s ${check.skill}`;
    const level = check.difficulty ? levelWords(check.difficulty.level) : "no difficulty";
    if (check.status !== "rolled" || !check.result) {
      return h("li", {class: "ph-nd-result", "data-check": check.check},
        h("strong", {}, who), ` (${check.check}): ${check.status}`);
    }
    const words = resultWords(check.result);
    return h("li", {class: `ph-nd-result ${check.result.succeeded ? "ph-nd-succeeded" : "ph-nd-failed"}`,
                    "data-check": check.check},
      h("div", {class: "ph-nd-result-head"}, h("strong", {}, who),
        h("span", {class: "ph-muted"}, ` ${level} · ${check.check}`)),
      rolledDice(check.dice),
      h("p", {class: "ph-nd-summary"}, resultSymbols(check.result), h("span", {class: "ph-nd-words"}, words)),
      h("div", {class: "ph-nd-spend-slot"}));
  }
}

customElements.define("ph-narrative-results", NarrativeResults);
