// <ph-narrative-results>: the latest checks closed at the table, the last closed first: the
// faces that came up drawn as dice and the result in words (as the CheckRolled event recorded
// it), or "cancelled". A closed check never changes, so each is built once; what is left of its
// result to spend, and the form that spends it, are drawn again after each spend.
import {h, plural, replace} from "../dom.js";
import {bindForm} from "../actions.js";
import {levelWords} from "./narrative_describe.js";
import {resultSymbols, resultWords, rolledDice} from "./narrative_dice.js";
import {labelled, wholeNumber} from "./narrative_forms.js";

export class NarrativeResults extends HTMLElement {
  update({closed, names, me = null, mine = new Set(), inCombat = false, players = new Set()}) {
    if (!this.list) {
      this.list = h("ol", {class: "ph-nd-results"});
      this.empty = h("p", {class: "ph-muted"}, "No check rolled yet.");
      this.replaceChildren(h("h2", {}, "Latest results"), this.empty, this.list); // the panel's placeholder goes
      this.items = new Map();
    }
    // the check closed last first: a cancelled check has no rolled_seq, and sank below
    // every rolled one however late it was cancelled
    const ordered = [...closed].sort((a, b) => (b.closed_seq ?? 0) - (a.closed_seq ?? 0));
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
    for (const check of ordered) this.spends(check, names, spendable(check, me, mine, inCombat, players));
  }

  /** What is left of the result and what was spent: the only part of a closed check that
   * changes (each spend is an event); redrawn only when it did. */
  spends(check, names, symbols) {
    const slot = this.items.get(check.check)?.querySelector(".ph-nd-spend-slot");
    if (!slot) return;
    const key = JSON.stringify([check.left, check.spends, symbols]);
    if (slot.dataset.key === key) return;
    slot.dataset.key = key;
    replace(slot, spendPart(check, names, symbols));
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

/** The symbols of a check's result `me` may spend, as the server decides it
 * (server/rules/narrative_encounter.py): out of combat the GM spends it all; in combat the
 * player of the check's character spends its advantage and triumph (the GM, an NPC's) and
 * the GM spends the threat and despair. */
function spendable(check, me, mine, inCombat, players) {
  if (!me || me.role === "spectator") return [];
  const gm = me.role === "gm";
  if (!inCombat) return gm ? [...SYMBOLS] : [];
  const playersSymbols = gm ? !players.has(check.character) : mine.has(check.character);
  return SYMBOLS.filter((s) => (s === "advantage" || s === "triumph") ? playersSymbols : gm);
}

const SYMBOLS = ["advantage", "triumph", "threat", "despair"];

/** The spend controls of one rolled check: what is left, what was spent, and a form to spend
 * the symbols this member may spend (`allowed`). */
function spendPart(check, names, allowed) {
  const left = check.left ?? {};
  const leftWords = SYMBOLS.filter((s) => (left[s] ?? 0) > 0).map((s) => plural(s, left[s]));
  const part = h("div", {class: "ph-nd-spend-part"},
    h("p", {class: "ph-nd-left"}, leftWords.length ? `Left to spend: ${leftWords.join(", ")}`
      : "Nothing left to spend."),
    check.spends?.length ? h("ul", {class: "ph-nd-spends"}, check.spends.map((spend) =>
      h("li", {}, `${names.member(spend.actor)} spent ${plural(spend.symbol, spend.count)} on ${spend.on}`))) : null);
  const mayspend = allowed.filter((s) => (left[s] ?? 0) > 0); // the symbols this member may spend
  if (!mayspend.length) return part;
  const symbol = h("select", {name: "symbol"}, mayspend.map((s) => h("option", {value: s}, s)));
  const count = h("input", {name: "count", type: "number", min: 1, max: 40, value: "1",
                            inputmode: "numeric", class: "ph-nd-count"});
  const on = h("input", {name: "on", maxlength: 200, autocomplete: "off", placeholder: "on what",
                         class: "ph-nd-reason"});
  const form = h("form", {class: "ph-nc-form ph-nd-spend-form", "aria-label": `Spend the result of ${check.check}`},
    labelled("symbol", symbol), labelled("how many", count), labelled("on", on),
    h("button", {type: "submit"}, "Spend"));
  bindForm(form, (data) => ({type: "spend_result", check: check.check, symbol: String(data.get("symbol")),
    count: wholeNumber(data, "count", "how many"), on: String(data.get("on") ?? "").trim()}));
  part.append(form);
  return part;
}
