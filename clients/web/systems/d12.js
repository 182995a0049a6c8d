// The d12 system's part of the page: <ph-d12-table> (the threshold tests: open ones with the
// server's odds, every character's ratings, then the ended ones), the GM's character form, and
// the log lines. The character form (./d12_sheet.js) and Call for a test (./d12_call.js) are
// the GM's only: ./index.js fetches them for the GM beside this module.
// A test's card (<ph-d12-test>, ./d12_test.js, with its odds) is fetched when the table first
// holds a test: a table with none (a new campaign's) never loads it. Until it is here the
// panel draws everything else; its buttons come with the card, so no click waits on it.
// Controls by role: the GM calls tests, sets DTs, interprets and ends; a player rolls their own
// characters' tests; a spectator watches (the server refuses them anyway).
/** @import {PhD12Basic} from "./d12_basic.js" */
/** @import {PhD12Call} from "./d12_call.js" */
import {TablePart} from "../table-part.js";
import {h, replace} from "../dom.js";
import {namesOf} from "../describe.js";
import "./d12_basic.js";
import {describe} from "./d12_log.js";
import {ratingsOf} from "./d12_form.js";

class PhD12Table extends TablePart {
  constructor() {
    super();
    this.cards = new Map(); // test number -> <ph-d12-test>, kept while the test is on the table
  }

  /** Built once, when the role is known: forms stay put while the table changes around them. */
  build() {
    const role = this.me?.role ?? "spectator";
    this.built = role;
    this.openList = h("div", {class: "ph-d12-open"});
    this.empty = h("p", {class: "ph-muted ph-d12-empty"}, "No test is open.");
    this.endedList = h("div", {class: "ph-d12-ended"});
    this.ended = h("section", {class: "ph-d12-ended-tests", "aria-label": "Ended tests"},
      h("h2", {}, "Ended tests"), this.endedList);
    this.call = role === "gm" ? /** @type {PhD12Call} */ (h("ph-d12-call")) : null;
    this.basic = role === "spectator" ? null : /** @type {PhD12Basic} */ (h("ph-d12-basic"));
    const controls = this.call || this.basic
      ? h("div", {class: "ph-d12-gm-controls"}, this.call, this.basic) : null;
    // every character's ratings, for the player who assembles a pool from them
    this.sheetList = h("ul", {class: "ph-d12-ratings"});
    this.sheets = h("section", {class: "ph-d12-characters", "aria-label": "Characters"},
      h("h2", {}, "Characters"), this.sheetList);
    replace(this,
      h("section", {class: "ph-d12-open-tests", "aria-label": "Open tests"},
        h("h2", {}, "Threshold tests"), this.empty, this.openList),
      controls, this.sheets, this.ended);
  }

  render() {
    if (!this._table) return;
    if (this.built === undefined) this.build();
    const table = this._table;
    const role = this.built;
    const names = namesOf(table);
    const own = new Set(table.members.find((m) => m.member === this.me?.member)?.characters ?? []);
    const mine = role === "gm" ? table.characters : table.characters.filter((c) => own.has(c.character));
    if (this.call) this.call.table = table;
    if (this.basic) this.basic.update(mine, role === "gm");
    this.ratings(table.characters, own);
    // the open ones by number, then the ended ones in the order they ended (each prepended:
    // the test ended last on top, however early it was called)
    const tests = Object.values(table.table?.game?.tests ?? {})
      .sort((a, b) => (a.ended_seq ?? 0) - (b.ended_seq ?? 0) || a.test - b.test);
    if (tests.length && !customElements.get("ph-d12-test")) {
      // drawn again once the card's module is here; fetched again on the next table if it failed
      this.testCards ??= import("./d12_test.js").then(() => this.render(),
                                                      () => { this.testCards = undefined; });
      return;
    }
    const seen = new Set();
    for (const test of tests) {
      seen.add(test.test);
      let card = this.cards.get(test.test);
      if (!card) {
        card = h("ph-d12-test");
        this.cards.set(test.test, card);
      }
      const list = test.open ? this.openList : this.endedList;
      if (card.parentElement !== list) {
        if (test.open) list.append(card);
        else list.prepend(card); // ended tests newest first
      }
      card.update({test, view: this._views.get(`test:${test.test}`), role, names,
        characters: table.characters,
        mayRoll: role === "gm" || (role === "player" && own.has(test.character))});
    }
    for (const [number, card] of this.cards) {
      if (!seen.has(number)) {
        card.remove();
        this.cards.delete(number);
      }
    }
    // written when changed only (the same value written is a change: style worked out again)
    const open = this.openList.childElementCount > 0;
    const ended = this.endedList.childElementCount > 0;
    if (this.empty.hidden !== open) this.empty.hidden = open;
    if (this.ended.hidden === ended) this.ended.hidden = !ended;
  }

  /** "Bram (yours) · CON 2, CHA 2, WIL 4", a line per character, redrawn when one changes. */
  ratings(characters, own) {
    const key = JSON.stringify([characters.map((c) => [c.character, c.name, ratingsOf(c)]), [...own]]);
    if (key === this.ratingsKey) return;
    this.ratingsKey = key;
    this.sheets.hidden = characters.length === 0;
    replace(this.sheetList, characters.map((c) => h("li", {"data-character": c.character},
      h("strong", {}, c.name), own.has(c.character) ? " (yours)" : "", " · ",
      Object.entries(ratingsOf(c)).map(([stat, rating]) => `${stat} ${rating}`).join(", ") || "no stats")));
  }
}

customElements.define("ph-d12-table", PhD12Table);

export const panel = "ph-d12-table";
export const sheet = "ph-d12-sheet";
export {describe};
