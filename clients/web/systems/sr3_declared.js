// <ph-sr3-declared>: the tests declared and not yet rolled, each with the server's exact odds
// (`test:<character>` view: one row per number of pool dice drawn) and, for whoever may roll
// it, the pool dice to draw and Karma Pool dice to buy. The row of the dice chosen is marked
// as they are typed: the page picks a row of the server's table, it computes nothing.
// Beside the roll button, who sees the roll: a private test draws no pool or Karma Pool dice
// (those pools are shown to the whole table), so choosing one sets those fields aside.
// The Karma Pool dice field follows the character's Karma Pool (the `sheets` view): none for a
// character with no Karma Pool (0 of 0), disabled and saying why when it is spent this scene.
/** @import {Me} from "../messages.js" */
import {h, percent, replace} from "../dom.js";
import {bindPathForm, labelled, whole} from "./sr3_forms.js";
import {clearWhenChanged} from "../actions.js";
import {visibilityChoice} from "../visibility.js";
import {baseDiceWords, poolWords, testWords} from "./sr3_dice.js";
import {karmaState} from "./sr3_rolled.js";

const SHARED = ["character", "kind", "skill", "attribute", "opposes", "surprised", "rigged",
                "astral", "magic", "elemental", "reason"];

/** A chance for people; one too small for two decimals still reads as not quite none, and
 * one too close to certain for two decimals as not quite certain (ten dice at TN 3 fail
 * once in 59,049 tests: "100.00%" told the table they could not). */
export function chance(p) {
  if (p > 0 && p < 0.00005) return "< 0.01%";
  if (p < 1 && p >= 0.99995) return "> 99.99%";
  return percent(p);
}

/** What the pool fields cannot say: the pools that would help but are spent this Combat Turn
 * (`spent`, from the server; a ganger's Combat Pool 0 of 5 read "No pool may help"), or that
 * no pool helps at all; null when the fields say it all.
 * @param {boolean} drawable some pool may be drawn on @param {string[]} spent */
export function poolNote(drawable, spent) {
  if (spent.length) {
    const names = spent.map((pool) => `${poolWords(pool)} Pool`).join(" and ");
    return `${names}: no dice left this Combat Turn; ${spent.length > 1 ? "they refresh" : "it refreshes"}`
      + " at the next one.";
  }
  return drawable ? null : "No pool may help this test.";
}

/** The view's odds belong to this declaration (an older view may still be in the store). */
function matches(view, declared) {
  return view && view.character === declared.character && view.kind === declared.kind
    && view.tn === declared.tn && view.base_dice === declared.base_dice
    && view.skill === declared.skill && view.attribute === declared.attribute
    && JSON.stringify(view.limits) === JSON.stringify(declared.limits);
}

export class Sr3Declared extends HTMLElement {
  constructor() {
    super();
    this.cards = new Map(); // character -> {card, key, ...}
    /** @type {(character: string) => boolean} set by the sr3 panel */
    this.mayRoll = () => false;
    /** @type {Me | null} set by the sr3 panel */
    this.me = null;
  }

  connectedCallback() {
    if (!this.list) {
      this.list = h("div", {class: "ph-sr3-cards"});
      this.append(h("h2", {}, "Declared tests"), this.list);
    }
  }

  update(table, views, names) {
    if (!this.list) this.connectedCallback();
    const declared = table?.table?.game?.declared ?? {};
    for (const [character, entry] of this.cards) {
      if (!Object.hasOwn(declared, character)) {
        entry.card.remove();
        this.cards.delete(character);
      }
    }
    for (const [character, test] of Object.entries(declared)) {
      let entry = this.cards.get(character);
      if (!entry) {
        entry = this.card(character);
        this.cards.set(character, entry);
        this.list.append(entry.card);
      }
      this.fill(entry, test, views.get(`test:${character}`), names);
      this.karmaField(entry, karmaState(views.get("sheets")?.sheets?.[character]?.karma));
    }
    this.hidden = this.cards.size === 0;
  }

  card(character) {
    const heading = h("h3", {});
    const reason = h("p", {class: "ph-sr3-reason", hidden: true});
    const odds = h("div", {class: "ph-sr3-odds"});
    const card = h("article", {class: "ph-sr3-card ph-sr3-declared", "data-character": character},
      heading, reason, odds);
    const entry = {card, heading, reason, odds, form: null, key: null, inputs: new Map()};
    if (this.mayRoll(character)) {
      entry.draws = h("div", {class: "ph-sr3-draws"});
      entry.karma = h("input", {type: "number", name: "karma_dice", min: 0, max: 20, value: "0",
                                class: "ph-sr3-number", inputmode: "numeric"});
      entry.visibility = visibilityChoice(this.me, {oneShot: true});
      entry.karmaLabel = labelled("Karma Pool dice", entry.karma);
      entry.karmaState = "unknown";
      entry.form = h("form", {class: "ph-sr3-roll-form", "aria-label": "Roll the test"},
        h("div", {class: "ph-sr3-row"}, entry.draws, entry.karmaLabel,
          entry.visibility, h("button", {type: "submit"}, "Roll")));
      entry.form.addEventListener("input", () => this.mark(entry));
      entry.visibility?.addEventListener("change", () => this.privately(entry));
      bindPathForm(entry.form, () => this.command(entry));
      card.append(entry.form);
    }
    return entry;
  }

  fill(entry, test, view, names) {
    entry.test = test;
    entry.heading.textContent = `${names.character(test.character)}: ${testWords(test)}, `
      + baseDiceWords(test);
    // each card's button says whose test (every one read "Roll" to a screen reader)
    entry.form?.querySelector("button[type=submit]")
      ?.setAttribute("aria-label", `Roll ${names.character(test.character)}'s test`);
    entry.reason.textContent = test.reason ?? "";
    entry.reason.hidden = !test.reason;
    const shown = matches(view, test) ? view : null;
    const key = JSON.stringify([test, shown?.rows ?? null, shown?.note ?? ""]);
    clearWhenChanged(entry.card, JSON.stringify(test)); // a refusal about the test it was
    if (key !== entry.key) {
      entry.key = key;
      replace(entry.odds, this.odds(test, shown));
      if (entry.form) this.draws(entry, test);
    }
    this.mark(entry);
  }

  draws(entry, test) {
    const pools = Object.entries(test.limits);
    for (const [pool, input] of entry.inputs) {
      if (!(pool in test.limits)) {
        input.closest("label").remove();
        entry.inputs.delete(pool);
      }
    }
    for (const [pool, most] of pools) {
      let input = entry.inputs.get(pool);
      if (!input) {
        input = h("input", {type: "number", name: "pools", "data-path": `$.pools.${pool}`,
                            "data-pool": pool, min: 0, value: "0", class: "ph-sr3-number",
                            inputmode: "numeric"});
        input.disabled = this.secret(entry);
        entry.inputs.set(pool, input);
        entry.draws.append(labelled("", input));
      }
      input.max = String(most);
      input.closest("label").querySelector("span").textContent =
        `${poolWords(pool)} Pool dice (up to ${most})`;
    }
    entry.draws.querySelector("p")?.remove();
    const note = poolNote(pools.length > 0, test.spent ?? []);
    if (note) entry.draws.append(h("p", {class: "ph-muted ph-sr3-pool-note"}, note));
  }

  odds(test, view) {
    if (!view) return h("p", {class: "ph-muted"}, "odds being computed…");
    if (!view.rows) return h("p", {class: "ph-muted"}, view.note || "no odds for this test");
    const open = test.tn === null;
    const beat = view.beat;
    const head = open ? ["Pool dice", "Dice", "All ones"]
      : ["Pool dice", "Dice", beat !== null ? `Beats ${beat}` : "≥ 1 success", "Mean", "All ones"];
    return h("table", {class: "ph-sr3-odds-table"},
      h("caption", {}, open ? "Open test: the highest total decides" : "Exact odds by pool dice drawn",
        view.note ? h("span", {class: "ph-sr3-wounds"}, ` (${view.note})`) : null),
      h("thead", {}, h("tr", {}, head.map((text) => h("th", {scope: "col",
        class: text === "Dice" ? "ph-sr3-total" : null}, text)))),
      h("tbody", {}, view.rows.map((row) => h("tr", {"data-pool-dice": row.pool_dice},
        h("th", {scope: "row"}, `+${row.pool_dice}`),
        h("td", {class: "ph-sr3-total"}, String(row.dice)),
        open ? null : h("td", {}, chance(beat !== null ? row.beats : row.success)),
        open ? null : h("td", {}, row.mean_successes.toFixed(2)),
        h("td", {}, chance(row.rule_of_one))))));
  }

  /** Mark the row of odds for the pool dice typed in. */
  mark(entry) {
    if (!entry.form) return; // only whoever rolls it chooses a row
    let drawn = 0;
    for (const input of entry.inputs.values()) drawn += input.disabled ? 0 : Number(input.value) || 0;
    for (const row of entry.odds.querySelectorAll("tr[data-pool-dice]")) {
      const chosen = Number(row.dataset.poolDice) === drawn;
      row.classList.toggle("ph-sr3-chosen", chosen);
      if (chosen) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    }
  }

  /** A private roll draws no pool dice: their fields are set aside while one is chosen. */
  privately(entry) {
    const secret = this.secret(entry);
    for (const input of entry.inputs.values()) input.disabled = secret;
    entry.karma.disabled = secret || entry.karmaState === "none" || entry.karmaState === "spent";
    this.mark(entry);
  }

  /** The Karma Pool dice field as the character's Karma Pool allows: gone with none at all,
   * disabled with the reason when it is spent this scene (it comes back at the scene's end).
   * @param {string} state see karmaState */
  karmaField(entry, state) {
    if (!entry.form || entry.karmaState === state) return;
    entry.karmaState = state;
    entry.karmaLabel.hidden = state === "none";
    if (state === "none" || state === "spent") entry.karma.value = "0";
    entry.karmaLabel.querySelector("span").textContent = state === "spent"
      ? "Karma Pool dice (none left until the scene ends)" : "Karma Pool dice";
    this.privately(entry);
  }

  secret(entry) {
    return Boolean(entry.visibility && entry.visibility.value !== "public");
  }

  command(entry) {
    const test = entry.test;
    const command = {type: "roll_pool_test"};
    if (this.secret(entry)) {
      command.visibility = entry.visibility.value;
    }
    for (const name of SHARED) {
      if (test[name] !== null && test[name] !== undefined && test[name] !== false
          && test[name] !== "") command[name] = test[name];
    }
    if (test.tn === null) command.open = true;
    else command.tn = test.tn; // the server adds the wound modifier when it rolls
    if (!test.skill && !test.attribute && test.kind !== "dodge") command.dice = test.base_dice;
    if (command.visibility) return command; // no pool dice (see privately)
    const pools = {};
    for (const [pool, input] of entry.inputs) {
      const count = whole(input, 0);
      if (count > 0) pools[pool] = count;
    }
    if (Object.keys(pools).length) command.pools = pools;
    const karma = entry.karma.disabled ? 0 : whole(entry.karma, 0);
    if (karma > 0) command.karma_dice = karma;
    return command;
  }
}

customElements.define("ph-sr3-declared", Sr3Declared);
