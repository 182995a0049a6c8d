// <ph-invite>: the GM invites a member (role, name, characters). The server answers with the
// new member's token, once: the page turns it into a join link on this page's own origin
// (session.js joinLink), shows it with a Copy button and says it will not be shown again.
// Every link issued in this visit stays listed (name, role, link, Copy) until the page is left:
// inviting the next member threw the last link away, and a GM who invites the whole group first
// and copies afterwards had to remove and invite again. Leaving or reloading the page while a
// link was never copied asks first (the browser's own "Leave site?").
// An empty name is refused by the page itself ("give the member a name"), and nothing is sent.
// The command carries a retry_key, so an invite re-sent after a dropped connection still
// brings back the token it issued.
import {h} from "../dom.js";
import {bindForm} from "../actions.js";
import {joinLink} from "../session.js";

export class PhInvite extends HTMLElement {
  constructor() {
    super();
    this.campaign = null;
    this.choices = new Map(); // character -> <label> holding its checkbox and its name
    /** @type {Promise<import("../invite-links.js").InviteLinks> | undefined} */
    this.listing = undefined;
    /** @type {import("../invite-links.js").InviteLinks | undefined} set by it */
    this.links = undefined;
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
    this.roleSelect.addEventListener("change", () => this.showCharacters());
    bindForm(this.form, (data) => ({
      type: "invite", role: String(data.get("role")), name: this.nameOf(data),
      ...(data.get("role") !== "spectator" ? {characters: data.getAll("characters").map(String)} : {}),
      retry_key: retryKey(),
    }), (ack) => this.invited(ack));
    this.append(this.form);
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

  /** The link list (../invite-links.js, fetched at the first invite) lists the new link.
   * @param {{member: string, token: string}} ack */
  invited(ack) {
    const role = this.roleSelect.value;
    this.form.reset();
    this.showCharacters();
    this.listing ??= import("../invite-links.js").then(({InviteLinks}) => new InviteLinks(this));
    this.listing.then((links) => {
      links.add(joinLink(this.campaign, ack.token), ack.member, role);
      this.named();
    });
  }

  named() {
    this.links?.named(this.members);
  }
}

/** 32 random URL-safe characters (Invite.retry_key). */
function retryKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

customElements.define("ph-invite", PhInvite);
