// <ph-sr3-sheets>: every character's attributes (abbreviated as on a paper sheet, "Q 5", the
// full word read to screen readers) and skills ("Pistols 6"), pools (with the formula that made
// each), Karma Pool left of full this scene, and the initiative formula: all from the server's
// `sheets` view.
import {h, replace} from "../dom.js";
import {poolWords} from "./sr3_dice.js";
import {title} from "./sr3_declare.js";

/** The abbreviation a Shadowrun sheet uses for each attribute. */
const SHORT = {body: "B", quickness: "Q", strength: "S", charisma: "C", intelligence: "I",
               willpower: "W", essence: "E", magic: "M"};

export class Sr3Sheets extends HTMLElement {
  update(view) {
    const sheets = Object.entries(view?.sheets ?? {});
    // the key names what is drawn, "none" included: a replay's moment draws with no views
    // first (its views follow), and the same sheets coming back must be drawn again
    const key = JSON.stringify(sheets);
    if (key === this.key) return;
    this.key = key;
    replace(this, h("h2", {}, "Sheets"), sheets.length
      ? h("div", {class: "ph-sr3-sheet-list"}, sheets.map(([character, sheet]) => this.sheet(character, sheet)))
      : h("p", {class: "ph-muted"}, "No characters yet."));
  }

  sheet(character, sheet) {
    const pools = sheet.pools.filter((pool) => pool.available);
    const karma = sheet.karma;
    return h("article", {class: "ph-sr3-card ph-sr3-sheet", "data-character": character},
      h("h3", {}, sheet.name),
      h("ul", {class: "ph-sr3-attributes", "aria-label": "Attributes"},
        Object.entries(sheet.attributes ?? {}).map(([name, value]) => h("li",
          {"data-attribute": name}, h("abbr", {title: title(name), "aria-hidden": "true"},
            SHORT[name] ?? title(name)), h("span", {class: "ph-sr-only"}, title(name)),
          ` ${value}`))),
      sheet.skills?.length ? h("ul", {class: "ph-sr3-skill-list", "aria-label": "Skills"},
        sheet.skills.map((skill) => h("li", {"data-skill": skill.skill},
          `${title(skill.skill)} ${skill.rating}`))) : null,
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
