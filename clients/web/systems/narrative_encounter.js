// <ph-narrative-encounter>: the narrative Combat Turn. The GM starts an encounter; each
// character's initiative is a Cool or Vigilance check built and rolled like any other, then
// entered here; the server orders the slots and each round any player character who has not
// acted may claim a player slot, the GM fills NPC slots. This element is the encounter's
// heading, where it stands ("No encounter is running.", "Round 2") and the GM's Start
// encounter; the running encounter's slots and forms are <ph-narrative-round>
// (./narrative_round.js), fetched when the table first holds a running encounter, as a
// check's card is (narrative.js): a table without one, a new campaign's, never loads it.
// Until it is here the heading and the status are drawn; its buttons come with it.
/** @import {NarrativeRound} from "./narrative_round.js" */
import {h, say} from "../dom.js";
import {bindButton, clearWhenChanged} from "../actions.js";

export class NarrativeEncounter extends HTMLElement {
  /** @type {NarrativeRound | undefined} the running encounter's part, once its module is here */
  round;

  update(state) {
    const {game, me, mine, characters, players} = state;
    if (!this.built) this.build(me);
    this.state = state;
    const encounter = game.encounter;
    const key = JSON.stringify([encounter, Object.values(game.checks).map((c) => [c.check, c.status]),
                                [...mine], characters.map((c) => c.character), [...players]]);
    if (key === this.key) return;
    this.key = key;
    clearWhenChanged(this.startBox, key);
    this.dataset.round = encounter ? String(encounter.round) : "";
    this.startBox.hidden = Boolean(encounter) || me.role !== "gm";
    this.heading.textContent = encounter ? `Encounter ${encounter.encounter}` : "Encounter";
    say(this.status, !encounter ? "No encounter is running."
      : encounter.round === 0 ? "Initiative: roll a Cool or Vigilance check, then enter it."
        : `Round ${encounter.round}`);
    if (customElements.get("ph-narrative-round")) {
      this.round ??= /** @type {NarrativeRound} */ (this.appendChild(h("ph-narrative-round")));
      this.round.update(state, key);
    } else if (encounter) {
      // drawn again once its module is here; fetched again on the next table if it failed
      this.roundCode ??= import("./narrative_round.js").then(() => {
        this.key = undefined; // the latest state, drawn again with its running part
        this.update(this.state);
      }, () => { this.roundCode = undefined; this.key = undefined; });
    }
  }

  build(me) {
    this.built = true;
    this.heading = h("h2", {});
    this.status = h("p", {class: "ph-ne-status", role: "status"});
    this.startBox = h("div", {"data-ph-errors": ""});
    if (me.role === "gm") {
      const start = h("button", {type: "button"}, "Start encounter");
      bindButton(start, () => ({type: "start_encounter"}));
      this.startBox.append(start);
    }
    this.append(this.heading, this.status, this.startBox);
  }
}

customElements.define("ph-narrative-encounter", NarrativeEncounter);
