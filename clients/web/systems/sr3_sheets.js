// <ph-sr3-sheets>: every character's pools (with the formula that made each, from the server's
// `sheets` view), Karma Pool left of full this scene, and the initiative formula.
import {h, replace} from "../dom.js";
import {poolWords} from "./sr3_dice.js";

export class Sr3Sheets extends HTMLElement {
  update(view) {
    const sheets = Object.entries(view?.sheets ?? {});
    if (!sheets.length) {
      replace(this, h("h2", {}, "Sheets"), h("p", {class: "ph-muted"}, "No characters yet."));
      return;
    }
    const key = JSON.stringify(sheets);
    if (key === this.key) return;
    this.key = key;
    replace(this, h("h2", {}, "Sheets"), h("div", {class: "ph-sr3-sheet-list"},
      sheets.map(([character, sheet]) => this.sheet(character, sheet))));
  }

  sheet(character, sheet) {
    const pools = sheet.pools.filter((pool) => pool.available);
    const karma = sheet.karma;
    return h("article", {class: "ph-sr3-card ph-sr3-sheet", "data-character": character},
      h("h3", {}, sheet.name),
      h("p", {class: "ph-sr3-karma", "data-left": karma.left},
        h("strong", {}, `Karma Pool ${karma.left}`), ` of ${karma.full}`,
        karma.spent ? h("span", {class: "ph-muted"}, ` (${karma.spent} spent this scene)`) : ""),
      h("dl", {class: "ph-sr3-sheet-pools"},
        pools.map((pool) => [
          h("dt", {}, `${poolWords(pool.pool)} Pool`),
          h("dd", {"data-pool": pool.pool, title: pool.formula}, String(pool.size),
            h("span", {class: "ph-sr3-formula"}, pool.formula.replace(/ = \d+$/, ""))),
        ]),
        h("dt", {}, "Initiative"), h("dd", {}, sheet.initiative)));
  }
}

customElements.define("ph-sr3-sheets", Sr3Sheets);
