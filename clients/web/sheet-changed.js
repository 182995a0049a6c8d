// What the GM's character forms (narrative_sheet.js, sr3_character.js, d12_sheet.js) share
// about a sheet changing under them. Each form sends the whole sheet, so a save made from a
// sheet read before another GM's (or another tab's) save would undo that save without a word.
// The form says which sheet it was opened from (`based_on`: the character's `changed`, the
// seq of the event that last changed it) and the server refuses a save from an older one
// (`conflict`, at `$.based_on`). Here: the notice shown when the character changes while its
// form is open ("Han Solo changed meanwhile"), the button that reloads the form with the
// sheet as it is now, and, after that reload, the edits the GM had typed, listed so they can
// be entered again on the new sheet (reloading replaces what was typed).
//
//   this.changes = new SheetChanges(() => this.load(), () => this.command());
//   form.append(..., this.changes.notice, submit);
//   load():    this.changes.opened(chosen)            // the character the form now shows
//   command(): {..., ...this.changes.basedOn()}       // only when it is an update
//   bindForm(form, build, (ack) => this.changes.saved(ack), {refused: (e) => this.changes.refused(e)})
//   table:     this.changes.table(table)
import {h} from "./dom.js";
import {clearError} from "./actions.js";

/** @import {CharacterEntry, TableFields} from "./messages.js" */

export class SheetChanges {
  /**
   * @param {() => void} reload fills the form from the table again (the form's `load`)
   * @param {() => any} typed the command the form would send now (its `command`; it may throw)
   */
  constructor(reload, typed) {
    this.reload = reload;
    this.typed = typed;
    /** @type {CharacterEntry | null} the character as the form was filled from it */
    this.entry = null;
    /** @type {string[]} what the GM had typed, shown after a reload */
    this.kept = [];
    this.saving = false;
    this.words = h("span", {});
    this.button = h("button", {type: "button", class: "ph-quiet", "data-path": "$.based_on"},
      "Reload the form");
    this.button.addEventListener("click", () => this.reloadNow());
    // said, and focused, once the form is reloaded: Reload went away, and the focus fell to the
    // whole form, its top off the screen, while a plain paragraph listed the edits unheard
    this.keptWords = h("p", {class: "ph-muted ph-sheet-kept", role: "status", tabindex: -1, hidden: true});
    this.line = h("p", {class: "ph-sheet-changed", role: "status", hidden: true},
      this.words, " ", this.button);
    this.notice = h("div", {class: "ph-sheet-changes"}, this.line, this.keptWords);
  }

  /** The form now shows `entry` (none: a new character): its notices go.
   * @param {CharacterEntry | null | undefined} entry */
  opened(entry) {
    this.entry = entry ?? null;
    this.line.hidden = true;
    if (!this.reloading) this.show([]);
  }

  /** The field an update sends: the sheet it was made from (nothing for an older server's
   * table, which carries no `changed`: that server takes no `based_on` either).
   * @returns {{based_on?: number}} */
  basedOn() {
    this.saving = true;
    const changed = this.entry?.changed;
    return typeof changed === "number" ? {based_on: changed} : {};
  }

  /** A save went through: the form is based on the sheet it wrote (the ack's last event).
   * @param {{seqs?: number[]}} ack */
  saved(ack) {
    this.saving = false;
    const seq = ack?.seqs?.at(-1);
    if (this.entry && typeof seq === "number") this.entry = {...this.entry, changed: seq};
    this.show([]);
    if (this.latest) this.table(this.latest);
  }

  /** A save was refused: a `conflict` at `based_on` offers the reload at once (before the
   * refusal's words are shown, which mark the button).
   * @param {Error & {code?: string, path?: string | null}} error */
  refused(error) {
    this.saving = false;
    if (this.latest) this.table(this.latest); // says who, when the table shows the change
    if (error.code === "conflict" && error.path === "$.based_on" && this.line.hidden) {
      this.words.textContent = "The sheet changed after you opened it:";
      this.line.hidden = false;
    }
  }

  /** A new table: say so when the open character changed since the form was filled (not
   * while this form's own save is on its way: that change is its own).
   * @param {TableFields} table */
  table(table) {
    this.latest = table;
    if (!this.entry || this.saving) return;
    const now = table.characters.find((c) => c.character === this.entry.character);
    if (!now || typeof now.changed !== "number" || now.changed <= (this.entry.changed ?? 0)) return;
    const who = table.members.find((m) => m.member === now.changed_by)?.name ?? now.changed_by;
    this.words.textContent = `${now.name} changed meanwhile${who ? ` (by ${who}, event #${now.changed})` : ""}: `
      + "reload the form to see the change before you save.";
    this.line.hidden = false;
  }

  /** Fill the form with the sheet as it is now, listing what the GM had typed differently
   * from the sheet the form was opened from. */
  async reloadNow() {
    let command = null;
    try {
      command = this.typed();
    } catch { // a field the form itself refuses: nothing to list from it
      command = null;
    }
    const entry = this.entry;
    // the words for what was typed come with the first reload (./sheet-edits.js): a GM page's
    // first load stays under its budget
    const edits = entry && command ? await import("./sheet-edits.js").then(
      ({differences}) => differences(entry, command), () => []) : []; // not fetched: reloaded all the same
    this.saving = false;
    this.reloading = true;
    try {
      this.reload();
    } finally {
      this.reloading = false;
    }
    this.show(edits, true);
    const form = this.button.closest("form");
    if (form) clearError(form); // the refusal was about the sheet just replaced
    this.keptWords.focus();
  }

  /** @param {string[]} edits @param {boolean} [reloaded] said even with no edits to list */
  show(edits, reloaded) {
    this.kept = edits;
    this.keptWords.hidden = !(reloaded || edits.length);
    this.keptWords.textContent = edits.length
      ? `Reloaded. Your edits, to enter again if you still want them: ${edits.join("; ")}.`
      : reloaded ? "Reloaded." : "";
  }
}
