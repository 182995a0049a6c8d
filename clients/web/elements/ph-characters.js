// <ph-characters>: the GM's characters panel. Each character has a "Retire" button with a
// confirm step, as removing a member has (a retirement cannot be undone: the character leaves
// every sheet, list and picker of every page, whoever played it no longer does, and its id is
// not reused); rows are kept per character and updated in place, so a `table` message
// arriving mid-confirm leaves the question on screen.
// The GM also moves characters between campaigns. Export writes a character as a
// character file (JSON: docs/reference/character-json.md, events/character_io.py), which the
// browser saves; Import reads such a file and sends `import_character` with it. The server
// checks the file strictly and names the field at fault ("$.file.stats.agility"), shown
// beside the file chooser like any refusal; the import is an event in the log.
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {confirmStep} from "../confirm.js";

const FORMAT = "poolhall.character";
const VERSION = 1;
/** The largest file read: its command must fit in a frame (64 KiB; a frame over 128 KiB closes
 * the connection, and the page's resent command closed the next one too). */
const FILE_BYTES = 60 * 1024;

export class PhCharacters extends HTMLElement {
  constructor() {
    super();
    this.campaign = null;
    this._table = null;
    this.rows = new Map(); // character -> {row, name}
    /** @type {HTMLElement | null} */ this.none = null; // "No characters yet."
  }

  connectedCallback() {
    if (this.exportForm) return;
    this.choice = h("select", {name: "character", "aria-label": "character to export"});
    this.exportForm = h("form", {class: "ph-characters-export", "aria-label": "Export a character"},
      h("h2", {}, "Characters in and out"),
      h("label", {}, "Character ", this.choice),
      h("button", {type: "submit"}, "Export"));
    this.exportForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.download(this.choice.value);
    });
    this.fileInput = h("input", {type: "file", name: "file", accept: ".json,application/json",
                                 "data-path": "$.file", "aria-label": "character file"});
    this.importForm = h("form", {class: "ph-characters-import", "aria-label": "Import a character"},
      h("label", {}, "Character file ", this.fileInput),
      h("label", {}, "Id here ", h("input", {name: "character", autocomplete: "off", maxlength: 64,
                                             placeholder: "the file's"})),
      h("button", {type: "submit"}, "Import"),
      h("p", {class: "ph-characters-done ph-muted", role: "status"}));
    this.list = h("ul", {class: "ph-characters-list", "aria-label": "Characters"});
    this.fileInput.addEventListener("change", () => { this.reading = this.read(); });
    bindForm(this.importForm, (data) => this.importCommand(data),
             () => this.imported());
    this.append(h("h2", {}, "Retire a character"), this.list, this.exportForm, this.importForm);
    this.refresh();
  }

  set table(table) {
    this._table = table;
    this.refresh();
  }

  refresh() {
    if (!this.choice || !this._table) return;
    const characters = this._table.characters ?? [];
    this.listCharacters(characters);
    const key = characters.map((c) => `${c.character}\n${c.name}`).join("\n");
    if (key === this.choice.dataset.key) return;
    this.choice.dataset.key = key;
    const chosen = this.choice.value;
    this.choice.replaceChildren(...characters.map((c) => h("option", {value: c.character}, c.name)));
    if (characters.some((c) => c.character === chosen)) this.choice.value = chosen;
    this.exportForm.querySelector("button").disabled = characters.length === 0;
  }

  /** A row per character at the table, in the server's order; a retired one's row goes.
   * @param {import("../messages.js").CharacterEntry[]} characters */
  listCharacters(characters) {
    const present = new Set(characters.map((c) => c.character));
    for (const [id, entry] of this.rows) {
      if (!present.has(id)) {
        entry.row.remove();
        this.rows.delete(id);
      }
    }
    const rows = characters.map((c) => {
      const entry = this.rows.get(c.character) ?? this.row(c);
      if (entry.name.textContent !== c.name) entry.name.textContent = c.name;
      return entry.row;
    });
    if (!rows.length) rows.push(this.none ??= h("li", {class: "ph-muted"}, "No characters yet."));
    else this.none?.remove();
    const children = this.list.children;
    if (rows.length !== children.length || rows.some((row, i) => row !== children[i])) {
      this.list.append(...rows); // moving a node keeps its state (an open confirm)
    }
  }

  /** "Retire" -> "Retire Sam Shadow? ..." [Yes, retire] [Cancel].
   * @param {import("../messages.js").CharacterEntry} character */
  row(character) {
    const name = h("strong", {}, character.name);
    const [ask, confirm] = confirmStep({
      verb: "Retire", name: character.name, yes: "Yes, retire",
      question: `Retire ${character.name}? They leave every sheet and list for good; `
        + "the log keeps them.",
      target: {type: "retire_character", character: character.character},
    });
    const row = h("li", {"data-character": character.character}, name, " ", ask, confirm);
    const entry = {row, name};
    this.rows.set(character.character, entry);
    return entry;
  }

  /** The character file of `id`, as the server and `poolhall character export` write it. */
  fileOf(id) {
    const c = this._table?.characters.find((entry) => entry.character === id);
    if (!c) return null;
    return {format: FORMAT, version: VERSION, name: c.name, stats: c.stats, character: c.character,
            exported_from: {campaign: this.campaign ?? "", character: c.character}};
  }

  download(id) {
    const file = this.fileOf(id);
    if (!file) return;
    const blob = new Blob([JSON.stringify(file, null, 2) + "\n"], {type: "application/json"});
    const url = URL.createObjectURL(blob);
    const link = h("a", {href: url, download: `${id}.json`, hidden: true});
    this.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /** The file is read when chosen (reading is asynchronous, a form's command is not). */
  async read() {
    const chosen = this.fileInput.files?.[0];
    this.loaded = null;
    if (!chosen) return;
    if (chosen.size > FILE_BYTES) { // over a frame's size: the server closed the connection
      this.loaded = {name: chosen.name, problem: `${chosen.name} is ${Math.ceil(chosen.size / 1024)}`
        + " KB: a character file is at most 60 KB"};
      return;
    }
    const text = await chosen.text();
    try {
      this.loaded = {name: chosen.name, file: JSON.parse(text)};
    } catch (error) {
      this.loaded = {name: chosen.name,
                     problem: `${chosen.name} is not JSON: ${/** @type {Error} */ (error).message}`};
    }
  }

  /** Waits for the file chosen to be read: Import pressed at once must not find it missing. */
  async importCommand(data) {
    await this.reading;
    if (!this.loaded) throw new Error("choose a character file first");
    if (this.loaded.problem) throw new Error(this.loaded.problem);
    const file = this.loaded.file;
    this.pendingName = typeof file?.name === "string" ? file.name : null;
    const id = String(data.get("character") ?? "").trim();
    return {type: "import_character", file, ...(id ? {character: id} : {})};
  }

  imported() {
    this.importForm.querySelector(".ph-characters-done").textContent =
      `${this.pendingName ?? "the character"} imported`;
    this.importForm.reset();
    this.loaded = null;
  }
}

customElements.define("ph-characters", PhCharacters);
