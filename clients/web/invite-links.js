// The join links the GM's invites issued in this visit (<ph-invite>), fetched at the first
// invite. Each stays listed (name, role, link, Copy) until the page is left: inviting the next
// member replaced the last link, shown only once, and a GM who invites the whole group first
// and copies afterwards had to remove and invite again. Leaving or reloading the page while a
// link was never copied asks first (the browser's own "Leave site?"); "Leave this table"
// names those links in its own question instead (../elements/ph-app.js leaveConfirm).
import {h, replace} from "./dom.js";
/** @import {MemberEntry} from "./messages.js" */

/** `name` once the table names the member; `warned` once "Leave this table" named the link.
 * @typedef {{member: string, entry: HTMLElement, field: HTMLInputElement, copy: HTMLElement,
 *            copied: boolean, named: boolean, name?: string, warned?: boolean}} Issued */

export class InviteLinks {
  /** @param {HTMLElement & {links?: InviteLinks}} invite */
  constructor(invite) {
    // the live region is the sentence alone: a screen reader says whose link it is and that it
    // is shown once, not the link's characters and "Copy" (the Copy button takes the focus)
    this.announcement = h("p", {role: "status"});
    this.list = h("ul", {class: "ph-invite-links"});
    // styled here (through the CSSOM: the page's CSP refuses style attributes), not in
    // table.css, which every page's first load fetches
    Object.assign(this.list.style, {listStyle: "none", margin: "0", padding: "0", display: "grid", gap: ".5rem"});
    invite.append(h("div", {class: "ph-invite-result"}, this.announcement, this.list));
    /** @type {Issued[]} */
    this.issued = [];
    /** Yes, leave: the links never copied were named in that question */
    this.left = false;
    addEventListener("beforeunload", (event) => {
      if (this.left || this.issued.every((issued) => issued.copied)) return;
      event.preventDefault(); // the browser asks "Leave site?": a link not copied is lost
      event.returnValue = "";
    });
    invite.links = this;
  }

  /** List a new member's link, its Copy button focused; named once the table names them.
   * @param {string} link @param {string} member @param {string} role */
  add(link, member, role) {
    const field = h("input", {class: "ph-link", readonly: true, value: link});
    const said = h("span", {class: "ph-muted", role: "status"}); // "copied", or how to copy
    const copy = h("button", {type: "button"}, "Copy");
    /** @type {Issued} */
    const issued = {member, entry: h("li", {class: "ph-invite-link"}), field, copy, copied: false,
                    named: false};
    field.addEventListener("copy", () => { issued.copied = true; }); // Ctrl+C in the field
    copy.addEventListener("click", async () => {
      issued.copied = true;
      try {
        await navigator.clipboard.writeText(link);
        said.textContent = "copied";
      } catch {
        field.focus(); // no clipboard (plain http on a LAN): select it for Ctrl+C
        field.select();
        said.textContent = "selected: press Ctrl+C (⌘C) to copy";
      }
    });
    replace(issued.entry, h("span", {}, h("strong", {}, "…"), ` · ${role === "gm" ? "GM" : role}`),
            h("div", {class: "ph-link-row"}, field, copy), said);
    Object.assign(issued.entry.style, {display: "grid", gap: ".2rem"});
    this.issued.push(issued);
    this.list.append(issued.entry);
    this.announcement.textContent = "";
    copy.focus(); // and in view once named: see named()
  }

  /** The words "Leave this table" adds to its question for the links never copied ("" if
   * none); each is noted as named. @returns {string} */
  uncopied() {
    const lost = this.issued.filter((issued) => !issued.copied);
    for (const issued of lost) issued.warned = true;
    const names = lost.map((issued) => issued.name ?? "a new member");
    return names.length ? ` The join link${names.length > 1 ? "s" : ""} for ${names.join(", ")}`
      + ` ${names.length > 1 ? "were" : "was"} never copied: ${names.length > 1 ? "they are" : "it is"}`
      + " lost if you leave." : "";
  }

  /** "Yes, leave" was pressed: true, and the browser's "Leave site?" is not asked again, if
   * the question named every link never copied; false if one was issued since (asked again).
   * @returns {boolean} */
  leaving() {
    this.left = this.issued.every((issued) => issued.copied || issued.warned);
    return this.left;
  }

  /** Say whose link each is once the table names the new member (the ack's `member`), by the
   * name the server recorded: a name already at the table takes a number ("Fin 2"), and the
   * name typed ("Fin") named the other member. The server answers the invite before it sends
   * the table that holds the member, so this waits for that table, a moment at most (an
   * invite retried after a dropped connection finds the member in the table held).
   * @param {MemberEntry[] | undefined} members */
  named(members) {
    for (const issued of this.issued) {
      const name = members?.find((m) => m.member === issued.member)?.name;
      if (issued.named || !name) continue;
      issued.named = true;
      issued.name = name;
      /** @type {HTMLElement} */ (issued.entry.querySelector("strong")).textContent = name;
      replace(this.announcement, h("strong", {}, `Join link for ${name}`),
        ": give it to them privately. It is shown only this once.");
      issued.field.ariaLabel = `join link for ${name}`;
      issued.copy.ariaLabel = `Copy ${name}'s link`;
      // the sentence above the list and the member's row under At the table came after the
      // focus (and the browser's scroll to it): the 2nd invite's focused Copy was below the
      // window, the first member's Copy on screen; centred, so that a row drawn after this
      // scroll cannot push it out again
      if (document.activeElement === issued.copy) issued.copy.scrollIntoView({block: "center"});
    }
  }
}
