// <ph-sr3-tests>: the latest tests rolled, newest first: the reason given, every die with its chain of faces
// (Rule of Six), the dice that reached the TN marked, the result in words as recorded (Rule of
// One noted), Karma Pool rerolls so far, and for whoever may spend the character's Karma Pool a
// button to reroll the failures. A test rolled in private (a GM's secret test, a player's self
// roll) says so, and offers no reroll until its seed is revealed: the server refuses one (the
// Karma Pool is the table's to see). A card is rebuilt only when its test changed, so a refusal
// shown beside its button stays until the next try.
// The reroll follows the character's Karma Pool (the `sheets` view): a character with none (0 of
// 0, most NPCs) is offered no reroll; one whose points are all spent this scene sees the button
// disabled and why, since the points come back when the scene ends.
import {h, plural, replace} from "../dom.js";
import {bindButton} from "../actions.js";
import {outcomeWords, resultWords, testDice, testWords} from "./sr3_dice.js";

export const SHOWN_TESTS = 6;

const PRIVATELY = {gm: "rolled in secret: only the GM sees it",
                   blind: "rolled blind: only the GM sees it",
                   self: "rolled in private: only its player and the GM see it"};

/** Whether `test` is a private test whose seed is not revealed yet (`epoch`: the table's now):
 * its seed is revealed when the epoch it was rolled in ends. */
function sealed(test, epoch) {
  return Boolean(test.visibility && test.visibility !== "public") && test.epoch === epoch;
}

/** Why Karma Pool cannot be spent now, shown beside its disabled controls. */
export const SPENT = "no Karma Pool left: it comes back when the scene ends";

/** A character's Karma Pool as its controls need it: "none" (0 of 0: no controls at all),
 * "spent" (none left this scene: controls disabled, saying why), "some", or "unknown" (the
 * `sheets` view has not arrived: controls as before, the server judges).
 * @param {{full: number, left: number} | undefined} karma */
export function karmaState(karma) {
  if (!karma) return "unknown";
  if (karma.full <= 0) return "none";
  return karma.left <= 0 ? "spent" : "some";
}

export class Sr3Tests extends HTMLElement {
  constructor() {
    super();
    this.cards = new Map(); // test number -> {card, key}
    /** @type {(character: string) => boolean} set by the sr3 panel */
    this.mayRoll = () => false;
  }

  connectedCallback() {
    if (!this.list) {
      this.list = h("ol", {class: "ph-sr3-tests", reversed: true});
      this.empty = h("p", {class: "ph-muted"}, "No test rolled yet.");
      this.replaceChildren(h("h2", {}, "Latest tests"), this.empty, this.list); // the placeholder goes
    }
  }

  /** @param {Record<string, {karma: {full: number, left: number}}> | undefined} sheets the
   * `sheets` view (each character's Karma Pool full and left) */
  update(table, names, sheets = undefined) {
    if (!this.list) this.connectedCallback();
    const epoch = table?.fair?.epoch;
    const tests = Object.values(table?.table?.game?.tests ?? {})
      .sort((a, b) => b.test - a.test).slice(0, SHOWN_TESTS);
    const wanted = new Set(tests.map((test) => test.test));
    for (const [number, entry] of this.cards) {
      if (!wanted.has(number)) {
        entry.card.remove();
        this.cards.delete(number);
      }
    }
    let previous = null;
    for (const test of tests) {
      const secret = sealed(test, epoch);
      const karma = karmaState(sheets?.[test.character]?.karma);
      const key = JSON.stringify([test, secret, karma]);
      let entry = this.cards.get(test.test);
      if (!entry) {
        entry = {card: h("li", {class: "ph-sr3-card ph-sr3-test", "data-test": test.test}), key: null};
        this.cards.set(test.test, entry);
      }
      if (entry.key !== key) {
        entry.key = key;
        this.fill(entry.card, test, names, secret, karma);
      }
      if (previous) {
        if (previous.nextSibling !== entry.card) previous.after(entry.card);
      }
      else if (this.list.firstChild !== entry.card) this.list.prepend(entry.card);
      previous = entry.card;
    }
    this.empty.hidden = tests.length > 0;
  }

  fill(card, test, names, secret, pool) {
    const outcome = outcomeWords(test.outcome, test.kind);
    const karma = test.dice.filter((die) => die.source === "karma").length;
    const rerollable = this.mayRoll(test.character) && test.opposed_by.length === 0 && !secret
      && pool !== "none";
    let button = null;
    let why = null;
    if (rerollable) {
      // an open test has no failures: Karma Pool rerolls every die, and this result is lost
      button = h("button", {type: "button", class: "ph-quiet"}, test.tn === null
        ? "Reroll every die with Karma Pool (this total is lost)"
        : "Reroll failures with Karma Pool");
      bindButton(button, () => ({type: "reroll_with_karma", test: test.test, character: test.character}));
      if (pool === "spent") {
        const id = `ph-sr3-spent-${test.test}`;
        button.disabled = true;
        button.setAttribute("aria-describedby", id);
        why = h("span", {class: "ph-muted ph-sr3-karma-spent", id}, SPENT);
      }
    }
    replace(card,
      h("h3", {}, `#${test.test} ${names.character(test.character)}: ${testWords(test)}`),
      test.reason ? h("p", {class: "ph-sr3-reason"}, test.reason) : null,
      testDice(test.dice, test.tn),
      h("p", {class: `ph-sr3-outcome${test.disastrous ? " ph-sr3-disaster" : ""}`},
        h("strong", {class: "ph-sr3-result"}, resultWords(test)),
        outcome ? `; ${outcome}` : "",
        test.rerolls ? h("span", {class: "ph-sr3-rerolls"},
          ` · rerolled ${plural("time", test.rerolls)} with Karma Pool`) : "",
        karma ? h("span", {class: "ph-muted"}, ` · ${plural("Karma Pool die", karma, "Karma Pool dice")} bought`) : "",
        test.opposed_by.length ? h("span", {class: "ph-muted"},
          ` · answered by #${test.opposed_by.join(", #")}`) : "",
        secret ? h("span", {class: "ph-private-mark", "data-visibility": test.visibility},
          ` · ${PRIVATELY[test.visibility] ?? "rolled in private"} until the session ends`) : ""),
      button ? h("div", {class: "ph-sr3-buttons", "data-ph-errors": ""}, button, why) : null);
  }
}

customElements.define("ph-sr3-tests", Sr3Tests);
