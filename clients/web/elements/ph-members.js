// <ph-members>: who sits at the table, their role and characters, and who is connected now.
// For the GM each other member has a "Remove" button with a confirm step (a removal cannot be
// undone: the member's token stops working at once), and each player a "Characters" button:
// which characters they play, ticked in a list of the campaign's (an `assign_characters`
// command), for a player invited before the characters were made. Rows are kept per member and
// updated in place, so a `table` message arriving mid-confirm leaves the question on screen.
import {h, replace} from "../dom.js";
import {bindForm} from "../actions.js";
import {confirmStep} from "../confirm.js";

export class PhMembers extends HTMLElement {
  constructor() {
    super();
    this.rows = new Map(); // member -> {row, about, tools}
    this.me = null;
    this.table = null; // the latest, for the characters a player may be given
  }

  connectedCallback() {
    if (this.list) return;
    this.list = h("ul", {class: "ph-members"});
    this.append(h("h2", {}, "At the table"), this.list);
  }

  update(table) {
    if (!table || !this.list) return;
    this.table = table;
    const connected = new Set(table.connected);
    const names = new Map(table.characters.map((c) => [c.character, c.name]));
    const active = table.members.filter((m) => m.active);
    const present = new Set(active.map((m) => m.member));
    for (const [member, entry] of this.rows) {
      if (!present.has(member)) {
        entry.row.remove();
        this.rows.delete(member);
      }
    }
    const rows = [];
    for (const m of active) {
      const entry = this.rows.get(m.member) ?? this.row(m);
      const online = connected.has(m.member);
      // a `table` message follows every change at the table: redraw only a row that changed
      const shown = JSON.stringify([online, m.name, m.role, m.characters.map((c) => names.get(c) ?? c)]);
      if (entry.shown !== shown) this.describe(entry, m, online, names);
      entry.shown = shown;
      rows.push(entry.row);
    }
    const children = this.list.children;
    if (rows.length !== children.length || rows.some((row, i) => row !== children[i])) {
      this.list.append(...rows); // the server's order; moving a node keeps its state
    }
  }

  describe(entry, m, online, names) {
    entry.row.className = online ? "ph-online" : "ph-offline";
    replace(entry.about,
        h("span", {class: "ph-presence", role: "img",
                   "aria-label": online ? "connected" : "not connected"}),
        h("strong", {}, m.name), ` ${m.role}`, m.member === this.me?.member ? " (you)" : "",
        m.characters.length ? ` · ${m.characters.map((c) => names.get(c) ?? c).join(", ")}` : "");
  }

  row(member) {
    const about = h("span", {class: "ph-member-about"});
    const row = h("li", {"data-member": member.member}, about);
    if (this.me?.role === "gm" && member.member !== this.me.member) {
      const tools = h("span", {class: "ph-member-tools"});
      row.append(tools);
      if (member.role === "player") {
        const [ask, form] = this.assignment(member);
        tools.append(ask);
        row.append(form); // under the row, the full width of the list
      }
      tools.append(...this.removal(member));
    }
    const entry = {row, about};
    this.rows.set(member.member, entry);
    return entry;
  }

  /** "Remove" -> "Remove Ana from the table?" [Yes, remove] [Cancel]. */
  removal(member) {
    return confirmStep({
      verb: "Remove", name: member.name, yes: "Yes, remove",
      question: `Remove ${member.name} from the table? Their link stops working.`,
      target: {type: "remove_member", member: member.member},
    });
  }

  /** "Characters" -> a tick box per character of the campaign, those they play ticked
   * [Save] [Cancel]. The boxes are drawn when it opens, from the table as it is then. */
  assignment(member) {
    const ask = h("button", {type: "button", class: "ph-quiet ph-small"}, "Characters");
    ask.setAttribute("aria-label", `Characters ${member.name} plays`);
    const choices = h("span", {class: "ph-assign-choices"});
    const save = h("button", {type: "submit", class: "ph-small"}, "Save");
    const cancel = h("button", {type: "button", class: "ph-quiet ph-small", "data-ph-cancel": ""}, "Cancel");
    const form = h("form", {class: "ph-confirm ph-assign", hidden: true,
                            "aria-label": `Characters ${member.name} plays`},
      h("fieldset", {name: "characters"}, h("legend", {}, `${member.name} plays`), choices),
      save, cancel);
    const close = () => {
      form.hidden = true;
      ask.hidden = false;
      ask.focus();
    };
    ask.addEventListener("click", () => {
      const plays = this.table?.members.find((m) => m.member === member.member)?.characters ?? [];
      const made = (this.table?.characters ?? []).map((c) => [c.character, c.name]);
      const yetToMake = plays.filter((id) => !made.some(([character]) => character === id));
      const all = [...made, ...yetToMake.map((id) => [id, `${id} (not made yet)`])];
      replace(choices, ...(all.length ? all.map(([character, name]) => h("label", {},
        h("input", {type: "checkbox", name: "character", value: character,
                    checked: plays.includes(character)}), ` ${name}`))
        : [h("span", {class: "ph-muted"}, "No characters yet: create them under Characters first.")]));
      save.hidden = !all.length;
      ask.hidden = true;
      form.hidden = false;
      /** @type {HTMLElement} */ (choices.querySelector("input") ?? cancel).focus();
    });
    cancel.addEventListener("click", close);
    bindForm(form, (data) => ({type: "assign_characters", member: member.member,
                               characters: data.getAll("character").map(String)}), close);
    return [ask, form];
  }
}

customElements.define("ph-members", PhMembers);
