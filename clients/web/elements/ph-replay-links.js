// <ph-replay-links>: the GM's read-only replay links. Make one for a game session (or the whole
// campaign so far) to share with someone who has no seat at the table; revoke any of them.
import {h, replace} from "../dom.js";
import {clearError, showError} from "../actions.js";
/** @import {Refusal} from "../actions.js" */
/** @import {TableConnection} from "../connection.js" */
/** @import {Ack, ReplayLinkEntry, Snapshot, TableNow} from "../messages.js" */
/** @import {SessionSpan} from "../replay-marks.js" */

export class PhReplayLinks extends HTMLElement {
  /** @type {TableConnection} set by <ph-replay> */ connection;
  // built by connectedCallback()
  /** @type {HTMLSelectElement} */ choice;
  /** @type {HTMLParagraphElement} */ made;
  /** @type {HTMLFormElement} */ form;
  /** @type {HTMLUListElement} */ list;
  /** @type {string | undefined} the member of the link shown once in `made` */ madeMember;
  madeListed = false; // that link was among those in force (a table holds it since)

  connectedCallback() {
    if (this.form) return;
    this.setAttribute("data-ph-errors", "");
    this.choice = h("select", {name: "session", "aria-label": "replay to share"},
      h("option", {value: ""}, "the whole campaign so far"));
    this.made = h("p", {class: "ph-made-link", hidden: true});
    this.form = h("form", {"aria-label": "Share a replay"},
      h("label", {}, "Share ", this.choice), " ",
      h("button", {type: "submit"}, "Make a read-only link"));
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.share();
    });
    this.list = h("ul", {class: "ph-replay-links"});
    this.append(h("h2", {}, "Replay links"), this.form, this.made, this.list);
  }

  /** The sessions one may share and the links in force, from the table and the timeline. */
  /** @param {TableNow | Snapshot} table @param {SessionSpan[]} sessions */
  sessions(table, sessions) {
    if (!this.form) return;
    const keep = this.choice.value;
    this.choice.replaceChildren(h("option", {value: ""}, "the whole campaign so far"),
      ...sessions.map((one) => h("option", {value: String(one.session)},
        `session ${one.session}${one.title ? `: ${one.title}` : ""}`)));
    this.choice.value = keep;
    const inForce = (table.replay_links ?? []).some((link) => link.member === this.madeMember);
    if (inForce) this.madeListed = true;
    else if (this.madeListed) this.forgetMade(); // revoked, here or elsewhere (the CLI)
    replace(this.list, (table.replay_links ?? []).map((link) => h("li", {"data-member": link.member},
      `${link.name} `, h("button", {type: "button", class: "ph-quiet",
        onclick: () => this.revoke(link)}, "Revoke"))));
  }

  async share() {
    clearError(this.form);
    const session = this.choice.value;
    try {
      /** @type {Ack} */
      const ack = await this.connection.request({type: "share_replay",
        ...(session ? {session: Number(session)} : {})});
      const params = new URLSearchParams({campaign: this.connection.campaign,
                                          token: /** @type {string} */ (ack.token)});
      const link = `${location.origin}/replay#${params}`;
      const field = h("input", {readonly: true, value: link, "aria-label": "replay link",
        class: "ph-link-field"});
      replace(this.made, "Anyone with this link can watch this replay (shown once): ", field, " ",
        h("button", {type: "button", onclick: async () => {
          try {
            await navigator.clipboard.writeText(link);
          } catch {
            field.select();
          }
        }}, "Copy"));
      this.made.hidden = false;
      this.madeMember = ack.member ?? undefined;
      this.madeListed = false;
    } catch (thrown) {
      const error = /** @type {Refusal} */ (thrown);
      showError(this.form, error.message, error.path ?? null);
    }
  }

  /** The link made last opens nothing now: it is no longer offered to copy. */
  forgetMade() {
    replace(this.made, "That link was revoked: it opens nothing now.");
    this.madeMember = undefined;
    this.madeListed = false;
  }

  /** @param {ReplayLinkEntry} link */
  async revoke(link) {
    clearError(this.form);
    try {
      await this.connection.request({type: "remove_member", member: link.member,
        reason: "replay link revoked"});
      if (link.member === this.madeMember) this.forgetMade();
    } catch (thrown) {
      const error = /** @type {Refusal} */ (thrown);
      showError(this.form, error.message, error.path ?? null);
    }
  }
}

customElements.define("ph-replay-links", PhReplayLinks);
