// <ph-sr3-combat>: the Combat Turn as the server's `combat` view tells it: the turn and pass,
// who acts in this pass (in order, the first marked "acts first", with their scores and any
// wound modifier taken off the initiative rolled), who does not act (unconscious, dying), and
// each combatant's pools full and left. The GM's controls (start a combat with chosen
// participants, next pass, end the combat, end the scene) are built once and only shown or
// hidden, so a table message never rebuilds a control someone is using.
import {TablePart} from "../table-part.js";
import {h, replace, say} from "../dom.js";
import {bindButton} from "../actions.js";
import {bindPathForm} from "./sr3_forms.js";
import {initiativeDice, poolWords, woundWords} from "./sr3_dice.js";

export class Sr3Combat extends TablePart {
  connectedCallback() {
    if (this.status) return;
    this.heading = h("h2", {}, "Combat");
    this.status = h("div", {class: "ph-sr3-combat-status"});
    // a screen reader hears the turn, the pass and who acts when they change, not the whole
    // initiative order and every pool again after each roll (the order is read on the page)
    this.said = h("p", {class: "ph-sr-only ph-sr3-combat-said", "aria-live": "polite"});
    this.append(this.heading, this.status, this.said);
    if (this.me?.role === "gm") this.append(this.gmControls());
    this.render();
  }

  gmControls() {
    this.participants = h("fieldset", {class: "ph-sr3-participants", "data-path": "$.participants"},
      h("legend", {}, "Who fights"));
    this.startForm = h("form", {class: "ph-sr3-start", "aria-label": "Start a combat"},
      this.participants, h("button", {type: "submit"}, "Start combat"));
    bindPathForm(this.startForm, (form) => {
      const participants = [...form.querySelectorAll("input[name=participants]:checked")]
        .map((box) => box.value);
      // none named would mean every character to the server: say so instead
      if (!participants.length) throw new Error("tick the characters who fight");
      return {type: "start_combat", participants};
    });
    this.next = h("button", {type: "button"}, "Next pass");
    this.end = h("button", {type: "button", class: "ph-quiet"}, "End combat");
    bindButton(this.next, () => ({type: "advance_combat_pass"}));
    bindButton(this.end, () => ({type: "end_combat"}));
    this.running = h("div", {class: "ph-sr3-buttons", "data-ph-errors": ""}, this.next, this.end);
    const scene = h("button", {type: "button", class: "ph-quiet",
      title: "Spent Karma Pool points come back"}, "End scene");
    bindButton(scene, () => ({type: "end_scene"}));
    return h("div", {class: "ph-sr3-gm", "aria-label": "Run the combat", role: "group"},
      this.startForm, this.running,
      h("div", {class: "ph-sr3-buttons", "data-ph-errors": ""}, scene));
  }

  render() {
    if (!this.status || !this._table) return;
    const view = this._views.get("combat");
    const fighting = Boolean(view?.in_combat);
    const names = new Map(this._table.characters.map((c) => [c.character, c.name]));
    const name = (id) => names.get(id) ?? id;
    if (this.startForm) {
      this.startForm.hidden = fighting;
      this.running.hidden = !fighting;
      this.updateParticipants();
    }
    if (!fighting) {
      this.heading.textContent = "Combat";
      replace(this.status, h("p", {class: "ph-muted"}, "No combat running."));
      if (this.said.textContent) say(this.said, "The combat ended."); // not on opening the page
      return;
    }
    this.heading.textContent = `Combat Turn ${view.turn} · pass ${view.pass}`;
    const rolled = this._table.table?.game?.combat?.combatants ?? {};
    const order = view.order;
    const rest = Object.keys(view.characters).filter((id) => !order.includes(id))
      .sort((a, b) => view.characters[b].score - view.characters[a].score);
    say(this.said, `Combat Turn ${view.turn}, pass ${view.pass}: ${order.length
      ? `acting ${order.map(name).join(", ")}` : "no one is left to act"}.`);
    replace(this.status,
      h("p", {class: "ph-sr3-acting"}, order.length
        ? ["Acting this pass: ", h("strong", {}, order.map(name).join(" → "))]
        : "No one is left to act: the next pass starts a new Combat Turn."),
      h("ol", {class: "ph-sr3-combatants", "aria-label": "Initiative order"},
        [...order, ...rest].map((id) => this.combatant(id, name(id), view.characters[id],
          Object.hasOwn(rolled, id) ? rolled[id] : null, order.indexOf(id)))));
  }

  combatant(id, name, fighter, rolled, place) {
    const pools = Object.entries(fighter.pools).filter(([, pool]) => pool.full > 0);
    // a full Stun or Physical monitor: no score, no dice this turn, and the reason instead
    const out = fighter.out;
    return h("li", {class: `ph-sr3-combatant${place === 0 ? " ph-sr3-now" : ""}`
      + `${place < 0 ? " ph-sr3-done" : ""}`, "data-character": id},
      h("div", {class: "ph-sr3-who"},
        h("strong", {}, name),
        out ? h("span", {class: "ph-sr3-out"}, `${out}: does not act`)
          : h("span", {class: "ph-sr3-score", "aria-label": `initiative score ${fighter.score}`},
            String(fighter.score)),
        // "first", not "now": the table keeps passes, not Combat Phases, so it never learns who
        // has acted within a pass, and "acts now" sat on the first for the whole pass
        place === 0 ? h("span", {class: "ph-sr3-badge"}, "acts first") : null,
        place < 0 && !out ? h("span", {class: "ph-muted"}, "done this pass") : null,
        rolled && !out ? h("span", {class: "ph-sr3-rolled"}, `rolled ${fighter.initiative}: `
          + `Reaction ${rolled.reaction} + `, initiativeDice(rolled.faces),
          woundWords(fighter.wounds)) : null),
      pools.length ? h("ul", {class: "ph-sr3-pools", "aria-label": `${name}'s pools`},
        pools.map(([pool, {full, left}]) => this.pool(pool, full, left)))
        : h("p", {class: "ph-muted"}, "no pools"));
  }

  pool(pool, full, left) {
    const bar = h("meter", {min: 0, max: full, value: left, "aria-hidden": "true"});
    return h("li", {class: "ph-sr3-pool", "data-pool": pool},
      h("span", {class: "ph-sr3-pool-name"}, `${poolWords(pool)} Pool`), bar,
      h("span", {class: "ph-sr3-left", "aria-label": `${left} of ${full} left`}, `${left}/${full}`));
  }

  updateParticipants() {
    const characters = this._table.characters.filter((c) => c.stats?.system === "sr3");
    const boxes = new Map([...this.participants.querySelectorAll("input")].map((box) => [box.value, box]));
    const wanted = new Set(characters.map((c) => c.character));
    for (const [id, box] of boxes) if (!wanted.has(id)) box.closest("label").remove();
    for (const c of characters) {
      const box = boxes.get(c.character);
      if (box) {
        box.nextSibling.textContent = c.name;
        continue;
      }
      this.participants.append(h("label", {class: "ph-sr3-check"},
        h("input", {type: "checkbox", name: "participants", value: c.character, checked: true}),
        h("span", {}, c.name)));
    }
    if (!characters.length && !this.participants.querySelector("p")) {
      this.participants.append(h("p", {class: "ph-muted"}, "No characters yet."));
    } else if (characters.length) {
      this.participants.querySelector("p")?.remove();
    }
  }
}

customElements.define("ph-sr3-combat", Sr3Combat);
