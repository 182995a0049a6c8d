// The narrative (Star Wars / Genesys) system's part of the page:
//   <ph-narrative-table>  the destiny pool, the open checks with their pools and the server's
//                         odds, a form to open a check, the latest results, free dice;
//   <ph-narrative-sheet>  the GM's character form (narrative_sheet.js, which ./index.js
//                         fetches for the GM only);
//   describe()            the log lines of the narrative events (narrative_describe.js).
// The panel folds nothing: it shows the `table` message's `table.game` (projections/
// narrative.py GameState) and the `check:<id>` views, and keeps one element per check so a
// form in use is never rebuilt under the user's fingers.
// A check's card (<ph-narrative-check>, ./narrative_check.js) is fetched when the table first
// holds an open check: a table with none (a new campaign's) never loads it. Until it is here
// the panel draws everything else; the card's buttons come with it, so no click waits on it.
/** @import {NarrativeDestiny} from "./narrative_destiny.js" */
/** @import {NarrativeEncounter} from "./narrative_encounter.js" */
/** @import {NarrativeFree} from "./narrative_free.js" */
/** @import {NarrativeOpener} from "./narrative_opener.js" */
/** @import {NarrativeResults} from "./narrative_results.js" */
import {h} from "../dom.js";
import {namesOf} from "../describe.js";
import {describeNarrative} from "./narrative_describe.js";
import {actsFor} from "./narrative_forms.js";
import "./narrative_destiny.js";
import "./narrative_opener.js";
import "./narrative_free.js";
import "./narrative_encounter.js";
import "../elements/ph-conditions.js"; // wounds, strain ...: narrative characters have conditions

class NarrativeTable extends HTMLElement {
  constructor() {
    super();
    this._table = null;
    this._views = new Map();
    this._me = null;
    this.checkElements = new Map(); // check id -> <ph-narrative-check>
  }

  set me(value) {
    this._me = value;
    this.render();
  }

  set table(value) {
    this._table = value;
    this.render();
  }

  set views(value) {
    this._views = value ?? new Map();
    this.render();
  }

  /** The table and its views at once, drawn once (a replay's moment: see TablePart). */
  moment(table, views) {
    this._table = table;
    this._views = views ?? new Map();
    this.render();
  }

  build(me) {
    this.built = true;
    const player = me.role === "gm" || me.role === "player";
    this.destiny = /** @type {NarrativeDestiny} */ (h("ph-narrative-destiny", {class: "ph-nd-section"}));
    this.encounter = /** @type {NarrativeEncounter} */ (h("ph-narrative-encounter", {class: "ph-nd-section ph-ne"}));
    this.checkList = h("div", {class: "ph-nc-list"});
    this.noChecks = h("p", {class: "ph-muted"}, "No check is open.");
    this.opener = player ? /** @type {NarrativeOpener} */ (h("ph-narrative-opener", {class: "ph-nd-section"})) : null;
    // the latest results' module comes with the first closed check (a new table has none):
    // until then its section says so itself
    this.results = /** @type {NarrativeResults} */ (h("ph-narrative-results", {class: "ph-nd-section"},
      h("h2", {}, "Latest results"), h("p", {class: "ph-muted"}, "No check rolled yet.")));
    this.free = player ? /** @type {NarrativeFree} */ (h("ph-narrative-free", {class: "ph-nd-section"})) : null;
    const checks = h("section", {class: "ph-nd-section ph-nd-checks", "aria-label": "Open checks"},
      h("h2", {}, "Open checks"), this.noChecks, this.checkList);
    // Element.append writes null as the text "null": a spectator's and the replay's panels
    // have no opener and no free dice, so only the parts that exist go in.
    this.append(...[this.encounter, this.destiny, checks, this.opener, this.results, this.free]
      .filter(Boolean));
    // a card put in above the control in use (Open check's own, its odds later) pushed it off
    // the screen, the page still: a control on the screen before is scrolled back into view
    let high = 0;
    new ResizeObserver(([{contentRect}]) => {
      const moved = contentRect.height - high;
      high = contentRect.height;
      const focused = document.activeElement;
      if (!moved || !focused || !this.contains(focused) || checks.contains(focused)
        || !(checks.compareDocumentPosition(focused) & Node.DOCUMENT_POSITION_FOLLOWING)) return;
      const box = focused.getBoundingClientRect();
      if (box.top - moved < innerHeight && box.bottom - moved > 0) focused.scrollIntoView({block: "nearest"});
    }).observe(checks);
  }

  render() {
    const message = this._table;
    const me = this._me;
    if (!message || !me || message.table?.system !== "narrative") return;
    if (!this.built) this.build(me);
    const game = message.table.game;
    const names = namesOf(message);
    const mine = actsFor(message, me);
    const checks = Object.values(game.checks);
    const open = checks.filter((c) => c.status === "open");
    this.destiny.update({destiny: game.destiny, me, names, openChecks: open});
    this.showChecks(open, {me, names, mine, characters: message.characters, destiny: game.destiny});
    this.opener?.update({characters: message.characters, mine, me});
    const players = new Set(message.members.filter((m) => m.role === "player" && m.active !== false)
      .flatMap((m) => m.characters));
    const closed = checks.filter((c) => c.status !== "open");
    if (customElements.get("ph-narrative-results")) {
      this.results.update({closed, names, me, mine, inCombat: Boolean(game.encounter), players});
    } else if (closed.length) { // drawn again once here; fetched again on the next table if it failed
      this.resultsCode ??= import("./narrative_results.js").then(() => this.render(),
                                                                  () => { this.resultsCode = undefined; });
    }
    this.encounter.update({game, me, names, mine, characters: message.characters, players});
    this.free?.update({characters: message.characters, mine, me});
  }

  showChecks(open, {me, names, mine, characters, destiny}) {
    this.noChecks.hidden = open.length > 0;
    if (open.length && !customElements.get("ph-narrative-check")) {
      // drawn again once the card's module is here; fetched again on the next table if it failed
      this.checkCards ??= import("./narrative_check.js").then(() => this.render(),
                                                              () => { this.checkCards = undefined; });
      return;
    }
    const wanted = new Set(open.map((c) => c.check));
    for (const [id, element] of this.checkElements) {
      if (!wanted.has(id)) {
        element.remove();
        this.checkElements.delete(id);
      }
    }
    let previous = null;
    for (const check of open) {
      let element = this.checkElements.get(check.check);
      if (!element) {
        element = h("ph-narrative-check");
        this.checkElements.set(check.check, element);
        if (previous) previous.after(element);
        else this.checkList.prepend(element);
      }
      element.update({check, view: this._views.get(`check:${check.check}`) ?? null, me, names,
                      acts: me.role === "gm" || mine.has(check.character), characters, destiny, open});
      previous = element;
    }
  }
}

customElements.define("ph-narrative-table", NarrativeTable);

export const panel = "ph-narrative-table";
export const sheet = "ph-narrative-sheet";

/** The log line of one of this system's events, or null if it is not one. */
export function describe(frame, names) {
  return describeNarrative(frame, names);
}
