// <ph-members>: who sits at the table, their role and characters, and who is connected now.
import {h, replace} from "../dom.js";

export class PhMembers extends HTMLElement {
  update(table) {
    if (!table) return;
    const connected = new Set(table.connected);
    const names = new Map(table.characters.map((c) => [c.character, c.name]));
    replace(this, h("h2", {}, "At the table"), h("ul", {class: "ph-members"},
      table.members.filter((m) => m.active).map((m) => h("li", {
        class: connected.has(m.member) ? "ph-online" : "ph-offline", "data-member": m.member},
        h("span", {class: "ph-presence", role: "img",
                   "aria-label": connected.has(m.member) ? "connected" : "not connected"}),
        h("strong", {}, m.name), ` ${m.role}`,
        m.characters.length ? ` · ${m.characters.map((c) => names.get(c) ?? c).join(", ")}` : ""))));
  }
}

customElements.define("ph-members", PhMembers);
