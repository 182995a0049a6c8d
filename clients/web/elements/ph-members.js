// <ph-members>: who sits at the table, their role and characters, and who is connected now.
// For the GM each other member has a "Remove" button with a confirm step (a removal cannot be
// undone: the member's token stops working at once). Rows are kept per member and updated in
// place, so a `table` message arriving mid-confirm leaves the question on screen.
import {h, replace} from "../dom.js";
import {bindForm} from "../actions.js";

export class PhMembers extends HTMLElement {
  constructor() {
    super();
    this.rows = new Map(); // member -> {row, about, tools}
    this.me = null;
  }

  connectedCallback() {
    if (this.list) return;
    this.list = h("ul", {class: "ph-members"});
    this.append(h("h2", {}, "At the table"), this.list);
  }

  update(table) {
    if (!table || !this.list) return;
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
      row.append(this.removal(member));
    }
    const entry = {row, about};
    this.rows.set(member.member, entry);
    return entry;
  }

  /** "Remove" -> "Remove Ana from the table?" [Yes, remove] [Cancel]. */
  removal(member) {
    const ask = h("button", {type: "button", class: "ph-quiet ph-small"}, `Remove`);
    ask.setAttribute("aria-label", `Remove ${member.name}`);
    const cancel = h("button", {type: "button", class: "ph-quiet ph-small"}, "Cancel");
    const confirm = h("form", {class: "ph-confirm", hidden: true,
                               "aria-label": `Remove ${member.name}`},
      h("span", {}, `Remove ${member.name} from the table? Their link stops working.`),
      h("input", {type: "hidden", name: "member", value: member.member}),
      h("label", {}, "Reason ", h("input", {name: "reason", maxlength: 120, autocomplete: "off",
                                             placeholder: "optional", size: 12})),
      h("button", {type: "submit", class: "ph-danger ph-small"}, "Yes, remove"), cancel);
    ask.addEventListener("click", () => {
      ask.hidden = true;
      confirm.hidden = false;
      /** @type {HTMLButtonElement} */ (confirm.querySelector("button[type=submit]")).focus();
    });
    cancel.addEventListener("click", () => {
      confirm.hidden = true;
      ask.hidden = false;
      ask.focus();
    });
    bindForm(confirm, (data) => ({
      type: "remove_member", member: member.member,
      ...(String(data.get("reason") ?? "").trim() ? {reason: String(data.get("reason")).trim()} : {}),
    }));
    return h("span", {class: "ph-member-tools"}, ask, confirm);
  }
}

customElements.define("ph-members", PhMembers);
