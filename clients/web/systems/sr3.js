// The sr3 system's part of the page: <ph-sr3-table> lays out the Shadowrun table (the Combat
// Turn, declaring a test, the declared tests with their odds, the latest tests, the sheets),
// each part its own element fed from the `table` message and the typed views (`combat`,
// `sheets`, `test:<character>`); <ph-sr3-character> is the GM's character form; `describe`
// gives the log its sr3 lines. Controls are shown by role: a player acts for their own
// characters, the GM for everyone, a spectator only watches (the server refuses them anyway).
//
// The panel's parts are imported when the panel is first connected (`import()`), after this
// module itself: elements created before their definition arrives are upgraded in place. The
// declared tests' part (./sr3_declared.js) is fetched when the table first holds a declared
// test: a new table's first load (the GM's is the largest) stays under 150 KB. The
// character form (./sr3_character.js) is the GM's only: ./index.js fetches it for the GM
// beside this module.
/** @import {Sr3Combat} from "./sr3_combat.js" */
/** @import {Sr3Declare} from "./sr3_declare.js" */
/** @import {Sr3Declared} from "./sr3_declared.js" */
/** @import {Sr3Tests} from "./sr3_rolled.js" */
/** @import {Sr3Sheets} from "./sr3_sheets.js" */
import {TablePart} from "../table-part.js";
import {h} from "../dom.js";
import {namesOf} from "../describe.js";
import {describeSr3} from "./sr3_describe.js";
import "../elements/ph-conditions.js"; // the Physical and Stun Condition Monitors

/** The modules of the panel's parts (the browser fetches each once); the declared tests'
 * (./sr3_declared.js) come when the table first holds one, the latest tests'
 * (./sr3_rolled.js) when it first holds a rolled test (`render`). */
function loadParts() {
  return Promise.all([import("./sr3_combat.js"), import("./sr3_declare.js"),
                      import("./sr3_sheets.js")]);
}

class Sr3Table extends TablePart {
  connectedCallback() {
    if (this.loading) return;
    this.loading = loadParts().then(() => this.build());
  }

  build() {
    this.combat = /** @type {Sr3Combat} */ (h("ph-sr3-combat", {class: "ph-sr3-part"}));
    this.combat.me = this.me;
    /** @type {Sr3Declared | null} made once its module is here: see render */
    this.declared = null;
    // its module comes with the first rolled test (a new table has none): until then its
    // section says so itself (its mayRoll is set once it is defined: see render)
    this.tests = /** @type {Sr3Tests} */ (h("ph-sr3-tests", {class: "ph-sr3-part"},
      h("h2", {}, "Latest tests"), h("p", {class: "ph-muted"}, "No test rolled yet.")));
    this.sheets = /** @type {Sr3Sheets} */ (h("ph-sr3-sheets", {class: "ph-sr3-part"}));
    const acts = this.me && this.me.role !== "spectator";
    this.declare = acts ? /** @type {Sr3Declare} */ (h("ph-sr3-declare", {class: "ph-sr3-part"})) : null;
    if (this.declare) this.declare.me = this.me;
    this.append(...[this.combat, this.declare, this.tests, this.sheets].filter(Boolean));
    this.render();
  }

  /** The declared tests' part, its module now here: made in its place, before the tests. */
  showDeclared() {
    if (this.declared || !this.tests) return;
    this.declared = /** @type {Sr3Declared} */ (h("ph-sr3-declared", {class: "ph-sr3-part", hidden: true}));
    this.declared.mayRoll = (/** @type {string} */ character) => this.mayRoll(character);
    this.declared.me = this.me;
    this.tests.before(this.declared);
  }

  /** The characters this member acts for: every one for the GM, a player's own, none else. */
  own() {
    const table = this._table;
    if (!table || !this.me) return [];
    if (this.me.role === "gm") return table.characters;
    if (this.me.role !== "player") return [];
    const mine = new Set(table.members.find((m) => m.member === this.me.member)?.characters ?? []);
    return table.characters.filter((c) => mine.has(c.character));
  }

  mayRoll(character) {
    return this.own().some((c) => c.character === character);
  }

  render() {
    if (!this.combat || !this._table) return;
    const names = namesOf(this._table);
    this.combat.table = this._table;
    this.combat.views = this._views;
    this.declare?.update(this.own());
    if (!this.declared && Object.keys(this._table.table?.game?.declared ?? {}).length) {
      // drawn once the part's module is here; fetched again on the next table if it failed
      this.declaredPart ??= import("./sr3_declared.js").then(() => {
        this.showDeclared();
        this.render();
      }, () => { this.declaredPart = undefined; });
    }
    this.declared?.update(this._table, this._views, names);
    const sheets = this._views.get("sheets");
    if (customElements.get("ph-sr3-tests")) {
      this.tests.mayRoll = (/** @type {string} */ character) => this.mayRoll(character);
      this.tests.update(this._table, names, sheets?.sheets);
    } else if (Object.keys(this._table.table?.game?.tests ?? {}).length) {
      this.rolledPart ??= import("./sr3_rolled.js").then(() => this.render(),
                                                         () => { this.rolledPart = undefined; });
    }
    this.sheets.update(sheets);
  }
}

customElements.define("ph-sr3-table", Sr3Table);

export const panel = "ph-sr3-table";
export const sheet = "ph-sr3-character";

/** The log line of one of this system's events, or null if it is not one. */
export function describe(frame, names) {
  return describeSr3(frame, names);
}
