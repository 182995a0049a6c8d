// <ph-narrative-round>: a running narrative encounter, inside <ph-narrative-encounter>: the
// initiative slots (ordered by the server: by successes, then advantage: `encounter.slots`),
// the form that enters a rolled Cool or Vigilance check as initiative, each round's Claim (a
// player character who has not acted) and Fill (the GM's NPCs), and the GM's Start round /
// Next round and End encounter. It is fetched when the table first holds a running
// encounter (narrative_encounter.js): a table without one, a new campaign's, never loads it.
// The element shows the table's `game.encounter` and sends commands; it decides nothing
// (refusals come back from the server, naming the rule, beside the control).
import {h} from "../dom.js";
import {bindButton, bindForm, clearWhenChanged} from "../actions.js";
import {askFirst} from "../confirm.js";
import {labelled, setOptions} from "./narrative_forms.js";
import {resultWords} from "./narrative_dice.js";

const INITIATIVE_SKILLS = new Set(["Cool", "Vigilance"]);

export class NarrativeRound extends HTMLElement {
  /** @type {Map<number, {key: string, item: HTMLLIElement}>} each slot's item as last drawn */
  drawn = new Map();

  /** The encounter's part of the table (NarrativeEncounter.update's `state`, `key` the
   * encounter's own key: what its errors are about). None running: hidden, and End
   * encounter's question is asked again from the start at the next encounter. */
  update({game, me, names, mine, characters, players}, key) {
    if (!this.built) this.build(me);
    const encounter = game.encounter;
    this.hidden = !encounter;
    if (!encounter) {
      this.asking?.(false, false);
      return;
    }
    // "initiative comes first" goes once an initiative is entered; a lost claim's words (in
    // the notice: its form is gone) stay until the next round
    clearWhenChanged(this.running, key);
    clearWhenChanged(this.notice, JSON.stringify([encounter.encounter, encounter.round]));
    this.claims = new Map(encounter.claims.map((claim) => [claim.slot, claim.character]));
    this.names = names;
    if (this.advance) this.advance.textContent = encounter.round === 0 ? "Start round 1" : "Next round";
    const done = new Set(encounter.claims.map((claim) => claim.character));
    this.showSlots(encounter.slots.map((slot, index) =>
      this.slotItem(index + 1, slot, this.claims.get(index + 1), encounter.round, {me, names, mine, done, characters, players})));
    // one initiative per character and encounter: a character with a slot offers no other
    // check (the GM's list kept Vader's second Vigilance, which could only be refused); nor is
    // a check rolled before the encounter began offered (last session's Cool: refused too)
    const entered = new Set(encounter.entries.map((entry) => entry.character));
    const began = encounter.started_seq ?? 0;
    const ready = Object.values(game.checks).filter((c) => c.status === "rolled"
      && INITIATIVE_SKILLS.has(c.skill) && !entered.has(c.character) && mine.has(c.character)
      && (c.rolled_seq ?? 0) >= began);
    setOptions(this.initiativeSelect, ready.map((c) => [c.check, `${names.character(c.character)}'s ${c.skill} (${c.check})`]));
    this.initiativeForm.hidden = ready.length === 0 || me.role === "spectator";
  }

  build(me) {
    this.built = true;
    this.notice = h("div", {class: "ph-ne-notice"}); // a claim's refusal, which outlives its form
    this.slotList = h("ol", {class: "ph-ne-slots", "aria-label": "Initiative slots"});
    this.initiativeSelect = h("select", {name: "check"});
    this.initiativeForm = h("form", {class: "ph-nc-form ph-ne-initiative", "aria-label": "Enter initiative"},
      labelled("check", this.initiativeSelect), h("button", {type: "submit"}, "Enter initiative"));
    bindForm(this.initiativeForm, (data) => ({type: "enter_initiative", check: String(data.get("check"))}));
    this.running = h("div", {class: "ph-ne-running"}, this.slotList,
                     me.role === "spectator" ? null : this.initiativeForm);
    if (me.role === "gm") {
      this.advance = h("button", {type: "button"}, "Start round 1");
      bindButton(this.advance, () => ({type: "advance_round"}));
      this.running.append(h("div", {class: "ph-ne-gm", "data-ph-errors": ""}, this.advance,
                            ...this.ending()));
    }
    this.append(this.notice, this.running);
  }

  /** "End encounter" -> "End the encounter for everyone? ..." [Yes, end it] [Keep fighting]:
   * ending cannot be undone (its slots and initiative are gone), and one click did it. */
  ending() {
    const ask = h("button", {type: "button", class: "ph-quiet"}, "End encounter");
    const yes = h("button", {type: "button", class: "ph-danger ph-small"}, "Yes, end it");
    const [confirm, asking] = askFirst(ask, "End the encounter for everyone? Its slots and"
      + " initiative are cleared.", yes, "Keep fighting");
    this.asking = asking;
    bindButton(yes, () => ({type: "end_encounter"}));
    return [ask, confirm];
  }

  /** A refused claim in words that need no form beside them: which slot, the server's words,
   * and who took it when someone did (the table drawn before the answer says so).
   * @param {number} number @param {string} message */
  claimRefused(number, message) {
    const taker = this.claims?.get(number);
    return `Slot ${number} was not yours: ${message}${taker ? ` (${this.names.character(taker)} took it)` : ""}.`;
  }

  /** The slots' items in order, in place: an item already in the list stays where it is (a
   * node removed and put back loses the focus of the control in it).
   * @param {HTMLLIElement[]} items */
  showSlots(items) {
    let next = this.slotList.firstElementChild;
    for (const item of items) {
      if (item === next) next = item.nextElementSibling;
      else this.slotList.insertBefore(item, next);
    }
    while (next) {
      const after = next.nextElementSibling;
      next.remove();
      next = after;
    }
  }

  /** Slot `number`'s item: the one drawn before while what it shows is the same (a table
   * message comes after every change at the table, a check opened anywhere changes the
   * encounter's key, and a Claim form drawn again lost the GM's focus and choice). */
  slotItem(number, slot, actor, round, {me, names, mine, done, characters, players}) {
    const eligible = actor || round === 0 ? [] : characters.filter((c) => !done.has(c.character)
      && (slot.side === "player" ? players.has(c.character) && mine.has(c.character)
        : me.role === "gm" && !players.has(c.character)));
    const key = JSON.stringify([slot, names.character(slot.character), actor && names.character(actor),
                                round === 0, eligible.map((c) => [c.character, c.name])]);
    const drawn = this.drawn.get(number);
    if (drawn?.key === key) return drawn.item;
    const item = this.newSlotItem(number, slot, actor, round, names, eligible);
    this.drawn.set(number, {key, item});
    return item;
  }

  newSlotItem(number, slot, actor, round, names, eligible) {
    const side = slot.side === "player" ? "player slot" : "NPC slot";
    // the list numbers the slots itself; the net result in the words of its roll's line ("3
    // successes, 1 threat": it read "3 successes, -1 advantages")
    const words = `${side} · ${names.character(slot.character)}'s ${slot.skill}: `
      + resultWords(slot, {verdict: false});
    const item = h("li", {class: "ph-ne-slot", "data-slot": String(number), "data-side": slot.side},
      h("span", {}, words));
    if (actor) {
      item.append(h("strong", {class: "ph-ne-acted"}, ` · ${names.character(actor)} acts`));
      return item;
    }
    if (round === 0 || !eligible.length) return item;
    const select = h("select", {name: "character"});
    setOptions(select, eligible.map((c) => [c.character, c.name]));
    const form = h("form", {class: "ph-nc-form ph-ne-claim", "aria-label": `Claim slot ${number}`},
      labelled("who", select),
      h("button", {type: "submit"}, slot.side === "player" ? "Claim" : "Fill"));
    bindForm(form, (data) => ({type: "claim_slot", slot: number, character: String(data.get("character"))}),
      undefined, {errorsIn: this.notice, words: (message) => this.claimRefused(number, message)});
    item.append(form);
    return item;
  }
}

customElements.define("ph-narrative-round", NarrativeRound);
