// <ph-invite>: the GM invites a member (role, name, characters). The server answers with the
// new member's token, once: the page turns it into a join link on this page's own origin
// (session.js joinLink), shows it with a Copy button and says it will not be shown again.
// An empty name is refused by the page itself ("give the member a name"), and nothing is sent.
// The command carries a retry_key, so an invite re-sent after a dropped connection still
// brings back the token it issued.
import {h, replace} from "../dom.js";
import {bindForm} from "../actions.js";
import {joinLink} from "../session.js";

export class PhInvite extends HTMLElement {
  constructor() {
    super();
    this.campaign = null;
    this.choices = new Map(); // character -> <label> holding its checkbox and its name
  }

  connectedCallback() {
    if (this.form) return;
    this.roleSelect = h("select", {name: "role"},
      h("option", {value: "player"}, "player"), h("option", {value: "spectator"}, "spectator"),
      h("option", {value: "gm"}, "GM"));
    this.characterBox = h("fieldset", {class: "ph-invite-characters"},
      h("legend", {}, "Plays"));
    // a member's characters are best given with the invitation: say so before the first invite
    this.noCharacters = h("p", {class: "ph-muted ph-invite-hint"},
      "No character yet: create the player's characters first to give them theirs with the"
      + " invitation (or later, with Characters beside the player under At the table).");
    this.form = h("form", {class: "ph-invite-form", "aria-label": "Invite a member"},
      h("h2", {}, "Invite a member"),
      h("label", {}, "Role ", this.roleSelect),
      h("label", {}, "Name ", h("input", {name: "name", maxlength: 80, autocomplete: "off",
                                          placeholder: "Ana"})),
      this.characterBox, this.noCharacters,
      h("button", {type: "submit"}, "Invite"));
    // the live region is the sentence alone: a screen reader says whose link it is and that it
    // is shown once, not the link's characters and "Copy" (the Copy button takes the focus)
    this.announcement = h("p", {role: "status"});
    this.linkRow = h("div", {class: "ph-link-row"});
    this.copied = h("span", {class: "ph-muted", role: "status"}); // "copied", or how to copy
    this.result = h("div", {class: "ph-invite-result", hidden: true}, this.announcement,
                    this.linkRow, this.copied);
    this.roleSelect.addEventListener("change", () => this.showCharacters());
    bindForm(this.form, (data) => ({
      type: "invite", role: String(data.get("role")), name: this.nameOf(data),
      ...(data.get("role") !== "spectator" ? {characters: data.getAll("characters").map(String)} : {}),
      retry_key: retryKey(),
    }), (ack) => this.invited(ack));
    this.append(this.form, this.result);
    this.showCharacters();
  }

  set table(table) {
    if (!this.form || !table) return;
    this.members = table.members;
    this.named();
    const present = new Set(table.characters.map((c) => c.character));
    for (const [id, label] of this.choices) {
      if (!present.has(id)) {
        label.remove();
        this.choices.delete(id);
      }
    }
    for (const c of table.characters) {
      const shown = this.choices.get(c.character);
      if (shown) { // a renamed character: its new name, its box as ticked
        const words = /** @type {HTMLElement} */ (shown.querySelector("span"));
        if (words.textContent !== c.name) words.textContent = c.name;
        continue;
      }
      const label = h("label", {class: "ph-check"},
        h("input", {type: "checkbox", name: "characters", value: c.character}), h("span", {}, c.name));
      this.choices.set(c.character, label);
      this.characterBox.append(label);
    }
    this.showCharacters();
  }

  /** The name typed, or the page's own refusal in plain words: an empty name made a working
   * member called "player" (the server's default), then "player-2", with no word said.
   * @param {FormData} data @returns {string} */
  nameOf(data) {
    const name = String(data.get("name") ?? "").trim();
    if (name) return name;
    /** @type {HTMLInputElement} */ (this.form.querySelector("input[name=name]")).focus();
    throw Object.assign(new Error("give the member a name"), {path: "$.name"});
  }

  showCharacters() {
    const player = this.roleSelect.value === "player";
    this.characterBox.hidden = this.choices.size === 0 || this.roleSelect.value === "spectator";
    this.noCharacters.hidden = this.choices.size > 0 || !player;
  }

  invited(ack) {
    this.invitee = ack.member;
    const link = joinLink(this.campaign, ack.token);
    const field = this.field = h("input", {class: "ph-link", readonly: true, value: link});
    const copied = this.copied;
    copied.textContent = "";
    const copy = h("button", {type: "button"}, "Copy");
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(link);
        copied.textContent = "copied";
      } catch {
        field.focus(); // no clipboard (plain http on a LAN): select it for Ctrl+C
        field.select();
        copied.textContent = "selected: press Ctrl+C (⌘C) to copy";
      }
    });
    this.announcement.textContent = "";
    replace(this.linkRow, field, copy);
    this.result.hidden = false;
    this.form.reset();
    this.showCharacters();
    copy.focus();
    this.named();
  }

  /** Say whose link it is once the table names the new member (the ack's `member`), by the
   * name the server recorded: a name already at the table takes a number ("Fin 2"), and the
   * name typed ("Fin") named the other member. The server answers the invite before it sends
   * the table that holds the member, so this waits for that table, a moment at most (an
   * invite retried after a dropped connection finds the member in the table held). */
  named() {
    const name = this.members?.find((m) => m.member === this.invitee)?.name;
    if (!name) return;
    this.invitee = undefined;
    replace(this.announcement, h("strong", {}, `Join link for ${name}`),
      ": give it to them privately. It is shown only this once.");
    this.field.ariaLabel = `join link for ${name}`;
  }
}

/** 32 random URL-safe characters (Invite.retry_key). */
function retryKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

customElements.define("ph-invite", PhInvite);
